package zipsim_test

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim"
	"github.com/zipsim/zipsim/sim"
)

func TestPartitions(t *testing.T) {
	dir := t.TempDir()
	st, err := zipsim.Open(dir, zipsim.Options{NoSync: true})
	require.NoError(t, err)
	defer st.Close()
	o := sysbench()
	o.Partitions = 8
	tb, err := st.CreateTable(ctx, "sbtest1", o)
	require.NoError(t, err)
	const n = 2000
	for _, id := range rand.Perm(n) {
		require.NoError(t, tb.Insert(ctx, sbRow(int64(id), int64(id%7), "c", "pad")))
	}
	for i := range 8 {
		require.FileExists(t, filepath.Join(dir, fmt.Sprintf("sbtest1#p#p%d.ibd", i)))
	}

	// Rows spread over all partitions, each with its own trees.
	m := st.Metrics()
	require.Len(t, m.Spaces, 8)
	var total int64
	for _, x := range m.Indexes {
		if x.Index == "PRIMARY" {
			require.Positive(t, x.BTree.Rows, x.Space)
			require.Greater(t, x.BTree.Rows, int64(n/8/2), "xxhash spreads keys evenly: %s", x.Space)
			total += x.BTree.Rows
		}
	}
	require.Equal(t, int64(n), total)

	// Scans merge the partitions in key order.
	all := scanAll(t, func(fn func(zipsim.Row) bool) error { return tb.Scan(ctx, nil, nil, false, fn) })
	want := make([]int64, n)
	for i := range want {
		want[i] = int64(i)
	}
	require.Equal(t, want, ints(all, 0))
	desc := scanAll(t, func(fn func(zipsim.Row) bool) error { return tb.Scan(ctx, nil, nil, true, fn) })
	slices.Reverse(want)
	require.Equal(t, want, ints(desc, 0))
	part := scanAll(t, func(fn func(zipsim.Row) bool) error {
		return tb.Scan(ctx, vals(zipsim.Int(500)), vals(zipsim.Int(700)), true, fn)
	})
	require.Len(t, part, 200)
	require.Equal(t, int64(699), part[0][0].Int())
	require.Equal(t, int64(500), part[199][0].Int())
	seen := 0
	require.NoError(t, tb.Scan(ctx, nil, nil, false, func(zipsim.Row) bool { seen++; return seen < 10 }))
	require.Equal(t, 10, seen, "stopping a merged scan")

	byK := scanAll(t, func(fn func(zipsim.Row) bool) error {
		return tb.ScanIndex(ctx, "k_1", vals(zipsim.Int(2)), vals(zipsim.Int(4)), false, fn)
	})
	require.True(t, slices.IsSortedFunc(byK, func(a, b zipsim.Row) int {
		return cmp.Or(cmp.Compare(a[1].Int(), b[1].Int()), cmp.Compare(a[0].Int(), b[0].Int()))
	}))
	require.Len(t, byK, 2*n/7+1)

	// A point lookup of every row finds its partition.
	var row zipsim.Row
	for id := range int64(n) {
		var ok bool
		row, ok, err = tb.Get(ctx, row, zipsim.Int(id))
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, id%7, row[1].Int())
	}
	require.Empty(t, st.Check(ctx))
}

// TestPartitionBy partitions linktable by id1, as linkbench does: the
// links of one id1 live in one partition, and getlinklist reads only it.
func TestPartitionBy(t *testing.T) {
	st := openMem(t)
	o := sim.LinkTable()
	o.Partitions = 4
	o.PartitionBy = []string{"id1"}
	tb, err := st.CreateTable(ctx, "linktable", o)
	require.NoError(t, err)
	for id1 := int64(1); id1 <= 30; id1++ {
		for j := range id1 % 5 {
			require.NoError(t, tb.Insert(ctx, zipsim.Row{zipsim.Int(id1), zipsim.Int(id1 + j), zipsim.Int(1), zipsim.Int(1),
				zipsim.String("d"), zipsim.Int(j), zipsim.Int(0)}))
		}
	}
	before := st.Metrics()
	rows := scanAll(t, func(fn func(zipsim.Row) bool) error {
		return tb.ScanIndex(ctx, "id1_type", vals(zipsim.Int(9), zipsim.Int(1)), vals(zipsim.Int(9), zipsim.Int(2)), false, fn)
	})
	require.Equal(t, []int64{9, 10, 11, 12}, ints(rows, 1))
	d := st.Metrics().Sub(before)
	require.Equal(t, uint64(1), d.Pool.Gets, "one page of one partition (its root leaf): pruned")
	require.NoError(t, tb.Update(ctx, zipsim.Row{zipsim.Int(9), zipsim.Int(10), zipsim.Int(1), zipsim.Int(0),
		zipsim.String("hidden"), zipsim.Int(1), zipsim.Int(1)}))
	require.NoError(t, tb.Delete(ctx, zipsim.Int(1), zipsim.Int(9), zipsim.Int(11)))
	rows = scanAll(t, func(fn func(zipsim.Row) bool) error {
		return tb.ScanIndex(ctx, "id1_type", vals(zipsim.Int(9), zipsim.Int(1), zipsim.Int(1)), vals(zipsim.Int(9), zipsim.Int(1), zipsim.Int(2)), false, fn)
	})
	require.Equal(t, []int64{9, 12}, ints(rows, 1), "visible links only")
	require.Empty(t, st.Check(ctx))
}

func TestPartitionFilesRefused(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "t#p#p1.ibd"), []byte("stray"), 0o644))
	st, err := zipsim.Open(dir, zipsim.Options{NoSync: true})
	require.NoError(t, err)
	o := sysbench()
	o.Partitions = 3
	_, err = st.CreateTable(ctx, "t", o)
	require.ErrorContains(t, err, "t#p#p1.ibd exists but the catalog has no table for it")
	require.NoFileExists(t, filepath.Join(dir, "t#p#p0.ibd"), "the files made before the failure are removed")
	require.FileExists(t, filepath.Join(dir, "t#p#p1.ibd"), "the stray file is not ours to remove")
	require.NoError(t, st.Close())
}
