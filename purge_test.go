package zipsim_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim"
	"github.com/zipsim/zipsim/bufpool"
)

func openPurge(t testing.TB, dir string, threads int) *zipsim.Store {
	t.Helper()
	st, err := zipsim.Open(dir, zipsim.Options{Pool: bufpool.Options{Bytes: 16 << 20}, NoSync: true,
		Purge: true, PurgeThreads: threads})
	require.NoError(t, err)
	return st
}

// waitPurged waits until purge has handled every write made so far and
// returns its counters.
func waitPurged(t testing.TB, st *zipsim.Store) zipsim.PurgeStats {
	t.Helper()
	for range 30000 {
		if p := st.Metrics().Purge; p.HistoryLength == 0 {
			return p
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("purge left %d writes after 30 s", st.Metrics().Purge.HistoryLength)
	return zipsim.PurgeStats{}
}

// sysResets sums the BTREE counter over every index.
func sysResets(st *zipsim.Store) uint64 {
	var n uint64
	for _, x := range st.Metrics().Indexes {
		n += x.BTree.SysResets
	}
	return n
}

// TestPurgeResets: each insert and update is purged once and, when no
// later write changed its record meanwhile, resets it; deletes and
// updates that change nothing give purge no work.
func TestPurgeResets(t *testing.T) {
	for _, kbs := range []int{0, 8} {
		t.Run(fmt.Sprintf("kbs=%d", kbs), func(t *testing.T) {
			st := openPurge(t, "", 2)
			defer func() { require.NoError(t, st.Close()) }()
			tb := createSbtest(t, st, kbs)
			const n = 3000
			for i := range int64(n) {
				require.NoError(t, tb.Insert(ctx, sbRow(i, i%97, strings.Repeat("c", 100), "pad")))
			}
			p := waitPurged(t, st)
			require.Equal(t, zipsim.PurgeStats{Threads: 2, Writes: n, Batches: p.Batches, Purged: n, Resets: n}, p)
			require.Positive(t, p.Batches)
			for i := int64(0); i < n; i += 2 {
				require.NoError(t, tb.Update(ctx, sbRow(i, i%89, strings.Repeat("u", 100), "pad")))
			}
			// Unchanged rows and deletes add nothing.
			require.NoError(t, tb.Update(ctx, sbRow(1, 1, strings.Repeat("c", 100), "pad")))
			for i := int64(1); i < 100; i += 2 {
				require.NoError(t, tb.Delete(ctx, zipsim.Int(i)))
			}
			p2 := waitPurged(t, st).Sub(p)
			require.Equal(t, uint64(n/2), p2.Writes)
			require.Equal(t, uint64(n/2), p2.Purged)
			require.Equal(t, uint64(n/2), p2.Resets)
			require.Equal(t, uint64(n+n/2), sysResets(st))
			require.Empty(t, st.Check(ctx))
			require.Contains(t, st.Metrics().String(), "PURGE")
		})
	}
}

// TestPurgeConcurrent runs writers on two tables while purge runs, drops
// one table with history waiting, and closes the store with history
// waiting; the other table reopens whole and checks clean.
func TestPurgeConcurrent(t *testing.T) {
	dir := t.TempDir()
	st := openPurge(t, dir, 4)
	a := createSbtest(t, st, 8)
	o := sysbench()
	b, err := st.CreateTable(ctx, "sbtest2", o)
	require.NoError(t, err)
	const writers, rows = 4, 600
	var wg sync.WaitGroup
	for w := range int64(writers) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < rows*writers; i += writers {
				for _, tb := range []*zipsim.Table{a, b} {
					if err := tb.Insert(ctx, sbRow(i, i, "c", "p")); err != nil {
						t.Error(err)
						return
					}
					if err := tb.Update(ctx, sbRow(i, i+1, "cc", "p")); err != nil {
						t.Error(err)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	_, err = st.DropTable(ctx, "sbtest2")
	require.NoError(t, err)
	require.Empty(t, st.Check(ctx))
	require.NoError(t, st.Close())

	st = openPurge(t, dir, 1)
	defer func() { require.NoError(t, st.Close()) }()
	require.Nil(t, st.Table("sbtest2"))
	a = st.Table("sbtest1")
	require.Empty(t, st.Check(ctx))
	for i := range int64(rows * writers) {
		row, found, err := a.Get(ctx, nil, zipsim.Int(i))
		require.NoError(t, err)
		require.True(t, found)
		require.Equal(t, i+1, row[1].Int())
	}
	require.Equal(t, zipsim.PurgeStats{Threads: 1}, st.Metrics().Purge)
}

// TestPurgeDrainsAtClose: writes still waiting in the history when the
// store closes are purged before it closes.
func TestPurgeDrainsAtClose(t *testing.T) {
	st := openPurge(t, t.TempDir(), 2)
	tb := createSbtest(t, st, 8)
	resume := zipsim.PausePurge(st)
	const n = 500
	for i := range int64(n) {
		require.NoError(t, tb.Insert(ctx, sbRow(i, i, "c", "p")))
	}
	require.Positive(t, st.Metrics().Purge.HistoryLength)
	closed := make(chan error)
	go func() { closed <- st.Close() }()
	resume()
	require.NoError(t, <-closed)
	p := zipsim.PurgeStatsOf(st)
	require.Equal(t, int64(0), p.HistoryLength)
	require.Equal(t, uint64(n), p.Purged)
	require.Equal(t, uint64(n), p.Resets)
}

// TestPurgeDropAndAddIndex: purge skips the waiting writes of a table
// dropped before their batch ran, and keeps the clustered index it was
// given while AddIndex changes the table's index list beside it; DropTable
// then waits for any batch running.
func TestPurgeDropAndAddIndex(t *testing.T) {
	st := openPurge(t, "", 4)
	defer func() { require.NoError(t, st.Close()) }()
	a := createSbtest(t, st, 0)
	b, err := st.CreateTable(ctx, "sbtest2", sysbench())
	require.NoError(t, err)
	const n = 3000
	resume := zipsim.PausePurge(st)
	for i := range int64(n) {
		require.NoError(t, b.Insert(ctx, sbRow(i, i, "c", "p")))
	}
	zipsim.MarkDropped(b)
	resume()
	for i := range int64(n) {
		require.NoError(t, a.Insert(ctx, sbRow(i, i, "c", "p")))
	}
	require.NoError(t, a.AddIndex(ctx, zipsim.IndexDef{Name: "c_1", Columns: []string{"c"}}))
	p := waitPurged(t, st)
	require.Equal(t, uint64(2*n), p.Purged)
	require.Equal(t, uint64(n), p.Resets, "only the kept table's records are reset")
	for i := range int64(n) {
		require.NoError(t, a.Update(ctx, sbRow(i, i+1, "c", "p")))
	}
	_, err = st.DropTable(ctx, "sbtest2")
	require.NoError(t, err)
	require.Equal(t, p.Resets+n, waitPurged(t, st).Resets, "each update resets its record")
	require.Empty(t, st.Check(ctx))
}

func TestPurgeOptions(t *testing.T) {
	for _, o := range []zipsim.Options{{Purge: true, PurgeThreads: 33}, {Purge: true, PurgeThreads: -1}, {PurgeThreads: 2}} {
		_, err := zipsim.Open("", o)
		require.ErrorContains(t, err, "PurgeThreads")
	}
	st := openMem(t)
	require.Equal(t, zipsim.PurgeStats{}, st.Metrics().Purge)
	require.NotContains(t, st.Metrics().String(), "PURGE")
}
