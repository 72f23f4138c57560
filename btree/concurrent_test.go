package btree

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// concKey is the bookkeeping of one key shared by every goroutine. No model
// of the values is possible when goroutines race on the same keys, but the
// presence of a key is: an insert succeeds only on an absent key and a
// delete only on a present one, so at the end a key is present exactly when
// it had one more successful insert than successful deletes.
type concKey struct {
	inserts, deletes atomic.Int64 // successful ones
	// deleting counts deletes in flight; deleted counts finished ones,
	// incremented before deleting is decremented, so a reader that sees
	// deleting at 0 sees every finished delete in deleted.
	deleting, deleted atomic.Int64
}

// mayBeDeleted reports whether a delete may have removed the key since
// deleted read before: one in flight now or one finished since.
func (k *concKey) mayBeDeleted(before int64) bool {
	return k.deleting.Load() > 0 || k.deleted.Load() != before
}

type concScale struct{ goroutines, keys, ops int }

func concScaleNow(zip int) concScale {
	switch {
	case raceEnabled:
		if zip == 0 {
			return concScale{goroutines: 8, keys: 400, ops: 800}
		}
		return concScale{goroutines: 8, keys: 400, ops: 120}
	case testing.Short():
		return concScale{goroutines: 8, keys: 1000, ops: 1500}
	}
	return concScale{goroutines: 8, keys: 2000, ops: 6000}
}

// TestConcurrentOverlap runs goroutines that insert, update, delete, get
// and scan the same few hundred keys, so that they meet on the same leaves
// while those split and merge, compressed and not. There is no model; the
// invariants are: every row seen is intact and scans are ordered; a Get
// right after a goroutine's own successful Insert or Update finds the key
// unless a delete of it was in flight or finished meanwhile; a scan callback
// may use the index (it reads and updates the row it is given); at the end
// Check is clean, each key is present exactly when its successful inserts
// outnumber its successful deletes, and the row count in Stats equals a
// scan's.
func TestConcurrentOverlap(t *testing.T) {
	for _, lock := range []string{"x", "sx"} {
		for _, zip := range []int{0, 2048, 8192} {
			t.Run(fmt.Sprintf("lock=%s/zip=%dK", lock, zip/1024), func(t *testing.T) {
				testConcurrentOverlap(t, zip, lock == "sx")
			})
		}
	}
}

func testConcurrentOverlap(t *testing.T, zip int, sx bool) {
	sc := concScaleNow(zip)
	start := time.Now()
	e := newDiffEnvLock(t, zip, 2<<20, sx)
	ix := e.ix
	ks := newKeySpace(ix)
	maxVal := min(maxValueLen(ix, ks.maxLen()), 2000)
	keys := make([]concKey, sc.keys)
	f := &failer{t: t}
	var total opCounts
	var mu sync.Mutex
	// Merges come from the interleaving; a round without one (rare, seen
	// under CI load) is followed by another, up to five.
	for round := 0; round < 5 && (round == 0 || ix.Stats().Merges+ix.Stats().Discards == 0); round++ {
		var wg sync.WaitGroup
		for g := range sc.goroutines {
			wg.Go(func() {
				r := rand.New(rand.NewPCG(*diffSeed, uint64(g)+77+uint64(round)*1000))
				var c opCounts
				concWorker(ix, ks, r, keys, maxVal, sc.ops, f, &c, g)
				mu.Lock()
				total.add(&c)
				mu.Unlock()
			})
		}
		wg.Wait()
	}
	require.False(t, f.stop())
	requireCheck(t, ix)
	require.Empty(t, e.pool.Check())

	// Presence follows from the counts; values are intact; the scan, Get
	// and Stats agree.
	present := map[uint64]bool{}
	var last []byte
	require.NoError(t, ix.Scan(ctx, nil, nil, false, func(k, v []byte) bool {
		i, ok := ks.num(k)
		require.True(t, ok, "key %x", k)
		require.True(t, last == nil || bytes.Compare(last, k) < 0)
		last = append(last[:0], k...)
		require.NoError(t, checkValue(i, v))
		present[i] = true
		return true
	}))
	var dst []byte
	for i := range keys {
		n := keys[i].inserts.Load() - keys[i].deletes.Load()
		require.True(t, n == 0 || n == 1, "key %d: %d successful inserts, %d deletes", i, keys[i].inserts.Load(), keys[i].deletes.Load())
		require.Equal(t, n == 1, present[uint64(i)], "key %d in the scan", i)
		var found bool
		var err error
		dst, found, err = ix.Get(ctx, ks.key(uint64(i)), dst[:0])
		require.NoError(t, err)
		require.Equal(t, n == 1, found, "key %d by Get", i)
	}
	s := ix.Stats()
	require.EqualValues(t, len(present), s.Rows)
	t.Logf("%d goroutines, %d keys: %d operations (%d inserts %d dup, %d updates, %d deletes, %d not found, %d gets, %d scans, %d rows scanned) in %v; %d rows left",
		sc.goroutines, sc.keys, total.total(), total.insert, total.dup, total.update, total.delete, total.notFound,
		total.get, total.scan, total.rows, time.Since(start).Round(time.Millisecond), len(present))
	t.Log(s)
	require.Positive(t, s.Splits())
	require.Positive(t, s.Merges+s.Discards)
	require.Zero(t, s.LatchMisses, "pages latched by a structure change without latching them in advance")
	require.Equal(t, sx, s.TreeLatches > 0, "pages latched in advance")
}

func concWorker(ix *Index, ks keySpace, r *rand.Rand, keys []concKey, maxVal, ops int, f *failer, c *opCounts, g int) {
	fail := func(op int, format string, args ...any) {
		f.fail("goroutine %d op %d: %s", g, op, fmt.Sprintf(format, args...))
	}
	valueLen := func() int {
		if r.IntN(10) == 0 {
			return valueHeader + r.IntN(maxVal-valueHeader+1)
		}
		return valueHeader + r.IntN(300)
	}
	var dst []byte
	// getAfterWrite checks the Get that follows a successful write of key i.
	getAfterWrite := func(op int, what string, i uint64, deletedBefore int64) {
		var found bool
		var err error
		dst, found, err = ix.Get(ctx, ks.key(i), dst[:0])
		switch {
		case err != nil:
			fail(op, "get key %d after %s: %v", i, what, err)
		case found:
			if err := checkValue(i, dst); err != nil {
				fail(op, "get after %s: %v", what, err)
			}
		case !keys[i].mayBeDeleted(deletedBefore):
			fail(op, "key %d not found right after my %s, and nobody deleted it", i, what)
		}
	}
	for op := 0; op < ops && !f.stop(); op++ {
		i := r.Uint64N(uint64(len(keys)))
		k := &keys[i]
		switch x := r.IntN(100); {
		case x < 35:
			c.insert++
			before := k.deleted.Load()
			err := ix.Insert(ctx, ks.key(i), makeValue(r, i, valueLen()))
			switch {
			case errors.Is(err, ErrDuplicate):
				c.dup++
			case err != nil:
				fail(op, "insert key %d: %v", i, err)
			default:
				k.inserts.Add(1)
				getAfterWrite(op, "insert", i, before)
			}
		case x < 55:
			c.update++
			before := k.deleted.Load()
			err := ix.Update(ctx, ks.key(i), makeValue(r, i, valueLen()))
			switch {
			case errors.Is(err, ErrNotFound):
				c.notFound++
			case err != nil:
				fail(op, "update key %d: %v", i, err)
			default:
				getAfterWrite(op, "update", i, before)
			}
		case x < 75:
			c.delete++
			k.deleting.Add(1)
			err := ix.Delete(ctx, ks.key(i))
			if err == nil {
				k.deletes.Add(1)
				k.deleted.Add(1)
			}
			k.deleting.Add(-1)
			switch {
			case errors.Is(err, ErrNotFound):
				c.notFound++
			case err != nil:
				fail(op, "delete key %d: %v", i, err)
			}
		case x < 85:
			c.get++
			var found bool
			var err error
			dst, found, err = ix.Get(ctx, ks.key(i), dst[:0])
			if err != nil {
				fail(op, "get key %d: %v", i, err)
			} else if found {
				if err := checkValue(i, dst); err != nil {
					fail(op, "get: %v", err)
				}
			}
		default:
			c.scan++
			reverse := r.IntN(2) == 0
			lo, hi := ks.key(i), ks.key(i+uint64(r.IntN(100)))
			if r.IntN(20) == 0 {
				lo, hi = nil, nil
			}
			// Now and then the callback uses the index: it reads the row
			// it was given (present unless deleted since) and rewrites it.
			useIndex := r.IntN(4) == 0
			rc := rowChecker{ks: ks, reverse: reverse, stride: 1 << 30, own: -1}
			var ferr error
			err := ix.Scan(ctx, lo, hi, reverse, func(key, v []byte) bool {
				if ferr = rc.row(key, v); ferr != nil {
					return false
				}
				if !useIndex || rc.rows > 5 {
					return true
				}
				n, _ := ks.num(key)
				if _, _, err := ix.Get(ctx, key, nil); err != nil {
					ferr = fmt.Errorf("get from a scan callback: %w", err)
					return false
				}
				if err := ix.Update(ctx, key, makeValue(r, n, valueLen())); err != nil && !errors.Is(err, ErrNotFound) {
					ferr = fmt.Errorf("update from a scan callback: %w", err)
					return false
				}
				return true
			})
			c.rows += int64(rc.rows)
			if err != nil || ferr != nil {
				fail(op, "scan [%x, %x) reverse=%v: %v %v", lo, hi, reverse, err, ferr)
			}
		}
	}
}

// TestLeafWriteLetsIndexLockGo holds the index's padding mutex, which
// every leaf compression takes, so that an optimistic insert, or an
// update, stops at its leaf's recompression with the leaf latched. A
// structure change (the index lock exclusive) must still get in: InnoDB
// lets the tree latch go once a BTR_MODIFY_LEAF descent has latched its
// leaf [btr_cur_search_to_nth_level], so a leaf's write and recompression
// hold off no split elsewhere. Every optimistic write and point read
// finds its leaf through Index.leaf.
func TestLeafWriteLetsIndexLockGo(t *testing.T) {
	const rows = 64 // their log entries overflow a 1 KiB block's modification log
	for _, write := range []string{"insert", "update"} {
		t.Run("write="+write, func(t *testing.T) {
			_, ix := newIndexT(t, 1024, 8<<20)
			if write == "update" {
				for i := range uint64(rows / 2) {
					require.NoError(t, ix.Insert(ctx, key8(i), []byte("v")))
				}
			}
			compressions := func() uint64 { s := ix.Stats(); return s.Reorganizations + s.Recompressions }
			before := compressions()
			ix.pad.mu.Lock()
			padHeld := true
			defer func() {
				if padHeld {
					ix.pad.mu.Unlock()
				}
			}()
			done := make(chan error, 1)
			go func() {
				for i := range uint64(rows) {
					var err error
					if write == "insert" {
						err = ix.Insert(ctx, key8(i), []byte("v"))
					} else {
						// Values that grow each round keep adding to the log.
						err = ix.Update(ctx, key8(i%(rows/2)), bytes.Repeat([]byte("v"), 2+int(i)/(rows/2)))
					}
					if err != nil {
						done <- err
						return
					}
				}
				done <- nil
			}()
			// The writer counts its leaf's compression just before it takes
			// the padding mutex.
			for compressions() == before {
				select {
				case err := <-done:
					t.Fatalf("every %s finished without a leaf compression (err %v)", write, err)
				case <-time.After(time.Millisecond):
				}
			}
			s := ix.Stats()
			require.Zero(t, s.Splits()+s.InsertsPessimistic+s.UpdatesPessimistic, "the writer turned pessimistic before it stopped")
			got := make(chan struct{})
			go func() {
				ix.lock.Lock()
				ix.lock.Unlock()
				close(got)
			}()
			select {
			case <-got:
			case <-time.After(5 * time.Second):
				t.Fatalf("the index lock stayed shared while an optimistic %s waited with its leaf latched", write)
			}
			ix.pad.mu.Unlock()
			padHeld = false
			select {
			case err := <-done:
				require.NoError(t, err)
			case <-time.After(time.Minute):
				t.Fatalf("the %ss did not finish once the padding mutex was free", write)
			}
			requireCheck(t, ix)
		})
	}
}
