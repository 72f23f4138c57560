//go:build !race

// Allocation counts are meaningless under -race; CI runs these tests in a
// second, non-race pass (go test -run ZeroAllocs ./...), see README.md.

package zipsim_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim"
)

// TestZeroAllocs checks that point reads into a reused row and updates
// of prepared rows allocate nothing on cached tables of both kinds, nor
// do deletes and inserts on uncompressed ones, and that a scan allocates
// per call, not per row.
func TestZeroAllocs(t *testing.T) {
	for _, kbs := range []int{0, 8} {
		t.Run(fmt.Sprintf("kbs=%d", kbs), func(t *testing.T) {
			st := openMem(t)
			tb := createSbtest(t, st, kbs)
			const n = 2000
			for id := range int64(n) {
				require.NoError(t, tb.Insert(ctx, sbRow(id, id%10, "c", "pad")))
			}
			var row zipsim.Row
			var err error
			id := int64(0)
			require.Zero(t, testing.AllocsPerRun(1000, func() {
				var ok bool
				row, ok, err = tb.Get(ctx, row, zipsim.Int(id%n))
				if err != nil || !ok {
					t.Fatal(ok, err)
				}
				id += 7
			}), "Get")
			w := sbRow(0, 0, "c", "pad")
			require.Zero(t, testing.AllocsPerRun(1000, func() {
				w[0], w[1] = zipsim.Int(id%n), zipsim.Int(id%10+1)
				if err := tb.Update(ctx, w); err != nil {
					t.Fatal(err)
				}
				id += 7
			}), "Update")
			writes := testing.AllocsPerRun(1000, func() {
				// sysbench's delete and re-insert of one id
				w[0], w[1] = zipsim.Int(id%n), zipsim.Int(id%10)
				if err := tb.Delete(ctx, w[0]); err != nil {
					t.Fatal(err)
				}
				if err := tb.Insert(ctx, w); err != nil {
					t.Fatal(err)
				}
				id += 7
			})
			if kbs == 0 {
				// Compressed leaves go pessimistic now and then (a full
				// modification log), where the btree allocates its path.
				require.Zero(t, writes, "Delete and Insert")
			}
			scanAllocs := testing.AllocsPerRun(50, func() {
				if err := tb.Scan(ctx, nil, nil, false, func(zipsim.Row) bool { return true }); err != nil {
					t.Fatal(err)
				}
			})
			require.Less(t, scanAllocs, float64(n/50), "a scan of %d rows allocates per call and per refill, not per row", n)
		})
	}
}

// TestZeroAllocsPurge: with purge running, updates still allocate nothing
// in steady state, counting the purge threads' work (AllocsPerRun counts
// every goroutine's allocations).
func TestZeroAllocsPurge(t *testing.T) {
	st, err := zipsim.Open("", zipsim.Options{Purge: true})
	require.NoError(t, err)
	defer func() { require.NoError(t, st.Close()) }()
	tb := createSbtest(t, st, 0)
	const n = 2000
	for id := range int64(n) {
		require.NoError(t, tb.Insert(ctx, sbRow(id, id%10, "c", "pad")))
	}
	w := sbRow(0, 0, "c", "pad")
	id := int64(0)
	update := func() {
		w[0], w[1] = zipsim.Int(id%n), zipsim.Int(id%10+1+id%3)
		if err := tb.Update(ctx, w); err != nil {
			t.Fatal(err)
		}
		id += 7
	}
	for range 20 * n { // the history's buffers reach their size
		update()
	}
	require.Zero(t, testing.AllocsPerRun(2000, update), "Update with purge")
	require.Positive(t, st.Metrics().Purge.Resets)
}

// TestZeroAllocsGate: calls through the concurrency gate, with a session
// entering and leaving each statement, allocate nothing either.
func TestZeroAllocsGate(t *testing.T) {
	st, tb := openGated(t, 8, 0, 0)
	sess := st.NewSession()
	sctx := zipsim.WithSession(ctx, sess)
	var row zipsim.Row
	w := sbRow(0, 0, "c", "pad")
	id := int64(0)
	require.Zero(t, testing.AllocsPerRun(1000, func() {
		var err error
		if row, _, err = tb.Get(sctx, row, zipsim.Int(id%100)); err != nil {
			t.Fatal(err)
		}
		sess.Leave()
		w[0], w[1] = zipsim.Int(id%100), zipsim.Int(id%10+1)
		if err := tb.Update(sctx, w); err != nil {
			t.Fatal(err)
		}
		sess.Leave()
		id += 7
	}))
	require.Positive(t, st.Metrics().Gate.Enters)
	// Leaving for every row, as 5.1's server did for each row it sent.
	scanAllocs := testing.AllocsPerRun(50, func() {
		if err := tb.Scan(sctx, nil, nil, false, func(zipsim.Row) bool { sess.Leave(); return true }); err != nil {
			t.Fatal(err)
		}
		sess.Leave()
	})
	require.Less(t, scanAllocs, 2.0, "a gated scan of 100 rows allocates per call, not per row")
}
