package zipsim_test

// Review tests: each one fails because of a bug found in review.

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim"
	"github.com/zipsim/zipsim/bufpool"
)

// TestReviewStoreCheckDeadlocksWithWriter: Store.Check (via Table.Check and
// btree.Index.Check) read-locks each index lock twice, the second time in
// Index.Stats while the first is held (btree/check.go:46). A writer whose
// insert goes pessimistic between the two (Index.Insert: ix.lock.Lock())
// blocks the second RLock, and Check and the writer wait for each other
// for ever. Store.Check says it is "exact only while nothing else runs",
// not that it hangs.
func TestReviewStoreCheckDeadlocksWithWriter(t *testing.T) {
	st := openMem(t)
	tb := createSbtest(t, st, 8)
	row := func(id int64) zipsim.Row {
		return sbRow(id, id%97, fmt.Sprintf("%0120d", id*7919), fmt.Sprintf("%060d", id))
	}
	for id := int64(0); id < 20000; id += 2 {
		require.NoError(t, tb.Insert(ctx, row(id)))
	}
	var stop atomic.Bool
	go func() { // random inserts: a split (pessimistic insert) every few dozen
		r := rand.New(rand.NewPCG(1, 2))
		for !stop.Load() {
			_ = tb.Insert(ctx, row(int64(r.IntN(10000))*2+1))
		}
	}()
	defer stop.Store(true)
	for i := 0; i < 20; i++ {
		done := make(chan struct{})
		go func() {
			st.Check(ctx)
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("Store.Check %d did not return in 10 s: it and a writer deadlock on an index lock", i)
		}
	}
}

// rvFlakyCtx is a context whose Err turns to Canceled after ok calls: the
// pool checks it each time it must wait for a frame.
type rvFlakyCtx struct {
	context.Context
	ok int
}

func (c *rvFlakyCtx) Err() error {
	if c.ok <= 0 {
		return context.Canceled
	}
	c.ok--
	return nil
}

// TestReviewCancelledWriteIsUndone: doc.go (Caveats) promises that a
// write failing halfway on "a cancelled context" undoes its index changes,
// or says in its error that undoing failed. The undo log covers whole
// index operations only: a context cancelled inside the clustered index's
// page split (the pool checks ctx while it waits for a frame) returns
// "context canceled" with the split half done, and rows that were in the
// table before are gone.
func TestReviewCancelledWriteIsUndone(t *testing.T) {
	const n = 3000
	for trial := 0; trial < 40; trial++ {
		st, err := zipsim.Open("", zipsim.Options{Pool: bufpool.Options{Bytes: 48 * 16384}})
		require.NoError(t, err)
		tb, err := st.CreateTable(ctx, "sbtest1", sysbench())
		require.NoError(t, err)
		r := rand.New(rand.NewPCG(3, 4))
		for _, id := range r.Perm(n) {
			require.NoError(t, tb.Insert(ctx, sbRow(int64(id)*10, int64(id), fmt.Sprint(id), "p")))
		}
		fc := &rvFlakyCtx{Context: ctx, ok: trial % 6}
		r = rand.New(rand.NewPCG(uint64(trial), 5))
		var failed error
		for j := 0; j < 200 && failed == nil; j++ {
			id := int64(r.IntN(n))*10 + 5
			failed = tb.Insert(fc, sbRow(id, id, fmt.Sprint(id), "p"))
		}
		if failed != nil {
			errs := st.Check(ctx)
			require.Empty(t, errs, "trial %d: a write that failed with %q was not undone", trial, failed)
		}
		require.NoError(t, st.Close())
	}
}
