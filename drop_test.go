package zipsim_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim"
	"github.com/zipsim/zipsim/bufpool"
)

// TestDropTable drops one of two tables in a store on disk: its files go,
// its methods fail, the other table keeps every row, and a reopen no
// longer knows the dropped one.
func TestDropTable(t *testing.T) {
	dir := t.TempDir()
	opts := zipsim.Options{Pool: bufpool.Options{Bytes: 1 << 20}, NoSync: true}
	st, err := zipsim.Open(dir, opts)
	require.NoError(t, err)
	keep, err := st.CreateTable(ctx, "keep", smallTable(8))
	require.NoError(t, err)
	o := smallTable(8)
	o.Partitions = 2
	gone, err := st.CreateTable(ctx, "gone", o)
	require.NoError(t, err)
	const n = 5000 // more than the pool holds: pages of both are written
	for id := range n {
		row := dropRow(id)
		require.NoError(t, keep.Insert(ctx, row))
		require.NoError(t, gone.Insert(ctx, row))
	}
	for _, f := range []string{"gone#p#p0.ibd", "gone#p#p1.ibd"} {
		require.FileExists(t, filepath.Join(dir, f))
	}

	took, err := st.DropTable(ctx, "GONE")
	require.NoError(t, err)
	require.Positive(t, took)
	for _, f := range []string{"gone#p#p0.ibd", "gone#p#p1.ibd"} {
		_, err := os.Stat(filepath.Join(dir, f))
		require.ErrorIs(t, err, os.ErrNotExist)
	}
	require.Nil(t, st.Table("gone"))
	require.ErrorIs(t, gone.Insert(ctx, zipsim.Row{zipsim.Int(-1), zipsim.Int(0), zipsim.String("x")}), zipsim.ErrDropped)
	_, err = st.DropTable(ctx, "gone")
	require.Error(t, err)
	require.Empty(t, st.Check(ctx))
	require.NoError(t, st.Close())

	st, err = zipsim.Open(dir, opts)
	require.NoError(t, err)
	defer st.Close()
	require.Len(t, st.Tables(), 1)
	keep = st.Table("keep")
	got := 0
	require.NoError(t, keep.Scan(ctx, nil, nil, false, func(zipsim.Row) bool { got++; return true }))
	require.Equal(t, n, got)
	require.Empty(t, st.Check(ctx))
}

// TestDropTableMemory drops a table of an in-memory store and creates one
// of the same name again.
func TestDropTableMemory(t *testing.T) {
	st := openMem(t)
	tb, err := st.CreateTable(ctx, "t", smallTable(0))
	require.NoError(t, err)
	require.NoError(t, tb.Insert(ctx, dropRow(1)))
	_, err = st.DropTable(ctx, "t")
	require.NoError(t, err)
	tb, err = st.CreateTable(ctx, "t", smallTable(0))
	require.NoError(t, err)
	_, found, err := tb.Get(ctx, nil, zipsim.Int(1))
	require.NoError(t, err)
	require.False(t, found)
	require.Empty(t, st.Check(ctx))
}

func dropRow(id int) zipsim.Row {
	return zipsim.Row{zipsim.Int(int64(id)), zipsim.Int(int64(id % 7)), zipsim.String(fmt.Sprintf("row-%08d", id))}
}
