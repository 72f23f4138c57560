package zipsim_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim"
	"github.com/zipsim/zipsim/bufpool"
)

// TestChangeBufferStore loads a table with a secondary index through a pool
// far smaller than the index, with the change buffer on, and moves and
// deletes rows so that the index's inserts and deletes are buffered: reads
// through the index see every change, CHECK TABLE finds the index exact,
// Close merges what is left, and the reopened store (without a change
// buffer) holds the same entries. Dropping a table discards its changes.
func TestChangeBufferStore(t *testing.T) {
	n := 12_000
	if testing.Short() || raceEnabled {
		n = 6_000
	}
	// The secondary index carries c, so that it overflows the pool even
	// compressed.
	def := func(kbs int) zipsim.TableOptions {
		o := smallTable(kbs)
		o.Columns[2].Len = 100
		o.SecondaryIndexes[0].Columns = []string{"k", "c"}
		return o
	}
	for _, kbs := range []int{0, 8} {
		t.Run(fmt.Sprint("kbs=", kbs), func(t *testing.T) {
			dir := t.TempDir()
			opts := zipsim.Options{Pool: bufpool.Options{Bytes: 512 << 10}, NoSync: true, ChangeBuffering: true}
			st, err := zipsim.Open(dir, opts)
			require.NoError(t, err)
			tb, err := st.CreateTable(ctx, "t", def(kbs))
			require.NoError(t, err)
			r := rand.New(rand.NewPCG(uint64(kbs), 1))
			k := make([]int64, n)
			row := func(id int) zipsim.Row {
				return zipsim.Row{zipsim.Int(int64(id)), zipsim.Int(k[id]), zipsim.String(fmt.Sprintf("row-%08d-%x", id, uint64(k[id])*0x9e3779b97f4a7c15))}
			}
			for id := range n {
				k[id] = r.Int64N(1 << 30)
				require.NoError(t, tb.Insert(ctx, row(id)))
			}
			deleted := map[int]bool{}
			for range n / 2 {
				id := r.IntN(n)
				if deleted[id] {
					continue
				}
				if r.IntN(4) == 0 {
					require.NoError(t, tb.Delete(ctx, zipsim.Int(int64(id))))
					deleted[id] = true
					continue
				}
				k[id] = r.Int64N(1 << 30)
				require.NoError(t, tb.Update(ctx, row(id)))
			}
			cb := st.Metrics().ChangeBuffer
			t.Log(cb)
			require.NotZero(t, cb.Inserts, "no insert was buffered")
			require.NotZero(t, cb.Deletes, "no delete was buffered")
			require.NotZero(t, cb.PendingPages, "nothing waits to be merged")

			// Reads through the index see buffered changes.
			merges := cb.Merges
			for range 200 {
				id := r.IntN(n)
				var got []int64
				require.NoError(t, tb.ScanIndex(ctx, "k_1", []zipsim.Value{zipsim.Int(k[id])}, []zipsim.Value{zipsim.Int(k[id] + 1)}, false, func(row zipsim.Row) bool {
					got = append(got, row[0].Int())
					return true
				}))
				if deleted[id] {
					require.NotContains(t, got, int64(id))
				} else {
					require.Contains(t, got, int64(id), "row %d under k %d", id, k[id])
				}
			}
			require.Greater(t, st.Metrics().ChangeBuffer.Merges, merges, "the reads merged no leaf")
			require.Empty(t, tb.Check(ctx))

			// Pending changes at Close are merged, not lost.
			for id := 0; id < n && st.Metrics().ChangeBuffer.PendingPages < 10; id++ {
				if !deleted[id] {
					k[id] = r.Int64N(1 << 30)
					require.NoError(t, tb.Update(ctx, row(id)))
				}
			}
			require.NotZero(t, st.Metrics().ChangeBuffer.PendingPages)
			require.NoError(t, st.Close())
			st, err = zipsim.Open(dir, zipsim.Options{Pool: bufpool.Options{Bytes: 512 << 10}, NoSync: true})
			require.NoError(t, err)
			tb = st.Table("t")
			require.Empty(t, tb.Check(ctx))
			seen := 0
			require.NoError(t, tb.ScanIndex(ctx, "k_1", nil, nil, false, func(row zipsim.Row) bool {
				id := int(row[0].Int())
				require.False(t, deleted[id])
				require.Equal(t, k[id], row[1].Int(), "row %d", id)
				seen++
				return true
			}))
			require.Equal(t, n-len(deleted), seen)
			require.NoError(t, st.Close())

			// DROP TABLE discards what waits for its pages.
			st, err = zipsim.Open(dir, opts)
			require.NoError(t, err)
			defer func() { require.NoError(t, st.Close()) }()
			tb = st.Table("t")
			// Change rows until ten leaves have changes waiting: Open's
			// walk learned each leaf's free space, but a change that
			// would fill a leaf is not buffered.
			for id := 0; id < n && st.Metrics().ChangeBuffer.PendingPages < 10; id++ {
				if !deleted[id] {
					k[id] = r.Int64N(1 << 30)
					require.NoError(t, tb.Update(ctx, row(id)))
				}
			}
			before := st.Metrics().ChangeBuffer
			require.NotZero(t, before.PendingPages)
			require.Zero(t, before.RefusedUnknown, "changes refused for a leaf whose free space Open's walk did not learn")
			_, err = st.DropTable(ctx, "t")
			require.NoError(t, err)
			after := st.Metrics().ChangeBuffer
			require.Zero(t, after.PendingPages)
			require.Zero(t, after.Bytes)
			require.Equal(t, before.Inserts-before.MergedInserts, after.DiscardedInserts)
			require.Equal(t, before.Deletes-before.MergedDeletes, after.DiscardedDeletes)
		})
	}
}

func TestChangeBufferOptions(t *testing.T) {
	_, err := zipsim.Open("", zipsim.Options{ChangeBufferMaxPct: 10})
	require.ErrorContains(t, err, "ChangeBuffering is off")
	_, err = zipsim.Open("", zipsim.Options{ChangeBuffering: true, ChangeBufferMaxPct: 60})
	require.ErrorContains(t, err, "1..50")
	st, err := zipsim.Open("", zipsim.Options{ChangeBuffering: true})
	require.NoError(t, err)
	require.Equal(t, int64(128<<20)/4, st.Metrics().ChangeBuffer.MaxBytes, "25% of the pool by default")
	require.Contains(t, st.Metrics().String(), "INSERT_BUFFER")
	require.NoError(t, st.Close())
	st, err = zipsim.Open("", zipsim.Options{})
	require.NoError(t, err)
	require.NotContains(t, st.Metrics().String(), "INSERT_BUFFER")
	require.NoError(t, st.Close())
}
