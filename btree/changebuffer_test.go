package btree

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim/bufpool"
	"github.com/zipsim/zipsim/page"
)

// The change buffer's tests drive secondary indexes whose leaves do not fit
// the pool, so that inserts and deletes are buffered and merged, and compare
// them with a model after every phase.

// newBufferedIndex is a secondary index on a pool of poolBytes with a change
// buffer of maxPct.
func newBufferedIndex(t testing.TB, zip int, poolBytes int64, maxPct int) (*testEnv, *ChangeBuffer, *Index) {
	t.Helper()
	// Which leaves are out of the pool, and so buffered, follows eviction,
	// whose rules read the clock: a stepping clock keeps the tests that
	// need changes to wait from depending on the machine's speed.
	e := newEnvPool(t, zip, bufpool.Options{Bytes: poolBytes, Clock: stepClock()})
	cb, err := NewChangeBuffer(ChangeBufferOptions{Pool: e.pool, MaxPct: maxPct})
	require.NoError(t, err)
	o := e.options(1, false)
	o.ChangeBuffer = cb
	ix, err := Create(ctx, o)
	require.NoError(t, err)
	return e, cb, ix
}

// secKey is a secondary entry's key: a random-looking 8-byte prefix, so
// that inserts land on leaves all over the index, then the row id.
func secKey(id uint64) []byte { return appendSecKey(nil, id) }

func appendSecKey(dst []byte, id uint64) []byte {
	k := binary.BigEndian.AppendUint64(dst, id*0x9e3779b97f4a7c15)
	k = binary.BigEndian.AppendUint64(k, id)
	return append(k, "a secondary entry of a row, long enough that leaves hold a few hundred"...)
}

// requireContent fails unless a full scan of ix yields exactly the keys of
// model, in order.
func requireContent(t testing.TB, ix *Index, model map[uint64]bool) {
	t.Helper()
	want := make([][]byte, 0, len(model))
	for id, ok := range model {
		if ok {
			want = append(want, secKey(id))
		}
	}
	slices.SortFunc(want, bytes.Compare)
	var got [][]byte
	require.NoError(t, ix.Scan(ctx, nil, nil, false, func(k, _ []byte) bool {
		got = append(got, bytes.Clone(k))
		return true
	}))
	require.Equal(t, len(want), len(got), "entries")
	for i := range want {
		require.Equal(t, want[i], got[i], "entry %d", i)
	}
}

func TestChangeBufferModel(t *testing.T) {
	for _, tc := range []struct {
		zip    int
		maxPct int
	}{{0, 0}, {8192, 0}, {4096, 0}, {0, 1}, {8192, 1}} {
		t.Run(fmt.Sprintf("zip=%d/max=%d", tc.zip, tc.maxPct), func(t *testing.T) {
			// Compressed leaves cost 20-50x more under -race.
			ops := 6000
			switch {
			case raceEnabled && tc.zip != 0:
				ops = 800
			case raceEnabled || testing.Short():
				ops = 2000
			}
			// Long keys make 4K trees tall: a split pins more pages.
			pool := int64(256 << 10)
			if tc.zip == 4096 {
				pool = 512 << 10
			}
			_, cb, ix := newBufferedIndex(t, tc.zip, pool, tc.maxPct)
			r := rand.New(rand.NewPCG(uint64(tc.zip), uint64(tc.maxPct)))
			model := map[uint64]bool{}
			var live []uint64
			next := uint64(1)
			insert := func() {
				id := next
				next++
				require.NoError(t, ix.Insert(ctx, secKey(id), nil))
				model[id] = true
				live = append(live, id)
			}
			remove := func() {
				i := r.IntN(len(live))
				id := live[i]
				live[i] = live[len(live)-1]
				live = live[:len(live)-1]
				require.NoError(t, ix.Delete(ctx, secKey(id)))
				delete(model, id)
			}
			for range max(4*ops, 8000) {
				insert()
			}
			for range 4 {
				for range ops {
					if r.IntN(10) < 6 || len(live) < 100 {
						insert()
					} else {
						remove()
					}
				}
				for range 50 {
					id := 1 + uint64(r.IntN(int(next)))
					_, found, err := ix.Get(ctx, secKey(id), nil)
					require.NoError(t, err)
					require.Equal(t, model[id], found, "key %d", id)
				}
				requireContent(t, ix, model)
				requireCheck(t, ix)
			}
			s := cb.Stats()
			t.Log(s)
			require.NotZero(t, s.Inserts, "no insert was buffered")
			require.NotZero(t, s.Deletes, "no delete was buffered")
			require.NotZero(t, s.MergedInserts)
			require.NotZero(t, s.MergedDeletes)
			if tc.maxPct == 1 {
				require.NotZero(t, s.Contractions)
				require.LessOrEqual(t, s.Bytes, s.MaxBytes+int64(4096), "a full buffer takes at most one more change a writer")
			}
			// Changes left waiting: merging them never changes the tree's
			// shape or recompresses.
			for n := 0; n < ops || cb.Stats().PendingPages == 0; n++ {
				require.Less(t, n, 20*ops, "no change waits")
				if r.IntN(2) == 0 {
					insert()
				} else {
					remove()
				}
			}
			before := ix.Stats()
			cmp := ix.pool.CMP().Snapshot()
			require.NoError(t, cb.MergeAll(ctx))
			after := ix.Stats()
			require.Equal(t, before.Splits(), after.Splits())
			require.Equal(t, before.Recompressions, after.Recompressions)
			require.Equal(t, before.Reorganizations, after.Reorganizations)
			require.Equal(t, cmp.Total().CompressOps, ix.pool.CMP().Snapshot().Total().CompressOps)
			s = cb.Stats()
			require.Zero(t, s.PendingPages)
			require.Zero(t, s.Bytes)
			require.Equal(t, s.Inserts, s.MergedInserts)
			require.Equal(t, s.Deletes, s.MergedDeletes)
			require.Equal(t, int64(len(live)), ix.Stats().Rows)
			requireContent(t, ix, model)
		})
	}
}

// TestChangeBufferConcurrent: writers insert and delete their own keys
// while readers scan; under -race this checks the latch protocol that
// keeps a leaf from being read without its changes.
func TestChangeBufferConcurrent(t *testing.T) {
	const writers = 3
	ops := 3000
	if raceEnabled || testing.Short() {
		ops = 800
	}
	for _, zip := range []int{0, 8192} {
		t.Run(fmt.Sprintf("zip=%d", zip), func(t *testing.T) {
			_, cb, ix := newBufferedIndex(t, zip, 256<<10, 0)
			models := make([]map[uint64]bool, writers)
			// Rows enough to overflow the pool, owned by nobody.
			preload := map[uint64]bool{}
			for i := range 6000 {
				id := uint64(1_000_000 + i)
				require.NoError(t, ix.Insert(ctx, secKey(id), nil))
				preload[id] = true
			}
			var wg sync.WaitGroup
			done := make(chan struct{})
			errs := make(chan error, writers+1)
			for w := range writers {
				models[w] = map[uint64]bool{}
				wg.Add(1)
				go func() {
					defer wg.Done()
					r := rand.New(rand.NewPCG(uint64(w), 7))
					var live []uint64
					for n := range ops {
						if r.IntN(10) < 7 || len(live) < 50 {
							id := uint64(n*writers + w + 1)
							if err := ix.Insert(ctx, secKey(id), nil); err != nil {
								errs <- err
								return
							}
							models[w][id] = true
							live = append(live, id)
							continue
						}
						i := r.IntN(len(live))
						id := live[i]
						live[i] = live[len(live)-1]
						live = live[:len(live)-1]
						if err := ix.Delete(ctx, secKey(id)); err != nil {
							errs <- err
							return
						}
						delete(models[w], id)
					}
				}()
			}
			var rg sync.WaitGroup
			rg.Add(1)
			go func() {
				defer rg.Done()
				for {
					select {
					case <-done:
						return
					default:
					}
					var prev []byte
					err := ix.Scan(ctx, nil, nil, false, func(k, _ []byte) bool {
						if prev != nil && bytes.Compare(prev, k) >= 0 {
							errs <- fmt.Errorf("scan out of order: %x after %x", k, prev)
							return false
						}
						prev = append(prev[:0], k...)
						return true
					})
					if err != nil {
						errs <- err
						return
					}
				}
			}()
			wg.Wait()
			close(done)
			rg.Wait()
			close(errs)
			for err := range errs {
				require.NoError(t, err)
			}
			all := preload
			for _, m := range models {
				for id := range m {
					all[id] = true
				}
			}
			requireContent(t, ix, all)
			requireCheck(t, ix)
			s := cb.Stats()
			require.NotZero(t, s.Inserts)
			require.NotZero(t, s.Deletes)
			require.NotZero(t, s.MergedInserts)
			require.NotZero(t, s.MergedDeletes)
		})
	}
}

// TestChangeBufferRules checks each rule that lets a change in or keeps it
// out, on a leaf number that is not in the pool.
func TestChangeBufferRules(t *testing.T) {
	for _, tc := range []struct{ phys, maxIns, bits, promise int }{
		{16384, 511, 0, 0}, {16384, 512, 1, 512}, {16384, 1023, 1, 512},
		{16384, 1024, 2, 1024}, {16384, 2047, 2, 1024}, {16384, 2048, 3, 2048},
		{16384, 9000, 3, 2048}, {8192, 255, 0, 0}, {8192, 768, 2, 512}, {8192, 1024, 3, 1024},
		{16384, -5, 0, 0},
	} {
		b := freeBits(tc.phys, tc.maxIns)
		require.Equal(t, uint32(tc.bits), b, "freeBits(%d, %d)", tc.phys, tc.maxIns)
		require.Equal(t, tc.promise, freeFromBits(tc.phys, b))
		require.LessOrEqual(t, freeFromBits(tc.phys, b), max(tc.maxIns, 0), "the bits never promise more than there is")
	}

	_, cb, ix := newBufferedIndex(t, 0, 256<<10, 0)
	const leaf = 999 // never allocated: not in the pool
	key := func(i int) []byte { return secKey(uint64(i)) }
	size := func(i int) int { r := page.Record{Key: key(i)}; return recSize(ix.kind, &r) }

	require.False(t, cb.buffer(ix, leaf, cbInsert, key(1), nil), "unknown free space")
	require.Equal(t, uint64(1), cb.Stats().RefusedUnknown)

	cb.note(ix.o.Space, leaf, 1, 3) // 512 bytes free, 3 records
	n := 512 / (size(1) + cbDirReserve)
	for i := range n {
		require.True(t, cb.buffer(ix, leaf, cbInsert, key(i), nil), "insert %d of %d", i, n)
	}
	require.False(t, cb.buffer(ix, leaf, cbInsert, key(n), nil), "beyond the promised space")
	require.Equal(t, uint64(1), cb.Stats().RefusedSpace)

	// 3 records and n buffered inserts: n+2 deletes leave one.
	for i := range n + 2 {
		require.True(t, cb.buffer(ix, leaf, cbDelete, key(100+i), nil), "delete %d", i)
	}
	require.False(t, cb.buffer(ix, leaf, cbDelete, key(200), nil), "a delete that could empty the leaf")
	require.Equal(t, uint64(1), cb.Stats().RefusedEmpty)

	s := cb.Stats()
	require.Equal(t, int64(1), s.PendingPages)
	require.Equal(t, uint64(n), s.Inserts)
	require.Equal(t, uint64(n+2), s.Deletes)
	cb.Discard(ix.o.Space)
	s = cb.Stats()
	require.Zero(t, s.PendingPages)
	require.Zero(t, s.Bytes)
	require.Equal(t, uint64(n), s.DiscardedInserts)
	require.Equal(t, uint64(n+2), s.DiscardedDeletes)
	require.False(t, cb.buffer(ix, leaf, cbInsert, key(1), nil), "Discard forgets the free space too")

	// A leaf in the pool takes its changes itself: no rule is asked.
	root := ix.Root()
	cb.note(ix.o.Space, root, 3, 10)
	require.True(t, ix.pool.Contains(ix.id(root)))
	before := cb.Stats()
	require.False(t, cb.buffer(ix, root, cbInsert, key(1), nil))
	require.Equal(t, before, cb.Stats())

	_, err := NewChangeBuffer(ChangeBufferOptions{Pool: ix.pool, MaxPct: 51})
	require.ErrorContains(t, err, "1..50")
	other := newEnv(t, 0, 256<<10)
	o2 := other.options(2, false)
	o2.ChangeBuffer = cb
	_, err = Create(ctx, o2)
	require.ErrorContains(t, err, "another pool")
	o := ix.o
	o.Clustered = true
	_, err = Create(ctx, o)
	require.ErrorContains(t, err, "clustered")
}

// TestChangeBufferMergeOnRead: a change buffered for a leaf that a reader
// then fixes shared is applied before the reader sees the leaf.
func TestChangeBufferMergeOnRead(t *testing.T) {
	_, cb, ix := newBufferedIndex(t, 0, 256<<10, 0)
	for i := range 20000 {
		require.NoError(t, ix.Insert(ctx, secKey(uint64(i)), nil))
	}
	require.NoError(t, cb.MergeAll(ctx))
	// Find an id whose leaf is not in the pool and whose insert is buffered.
	before := cb.Stats()
	id := uint64(100000)
	for ; id < 200000; id++ {
		require.NoError(t, ix.Insert(ctx, secKey(id), nil))
		if cb.Stats().Inserts > before.Inserts {
			break
		}
	}
	require.Less(t, id, uint64(200000), "no insert was buffered")
	require.Equal(t, int64(1), cb.Stats().PendingPages)
	_, found, err := ix.Get(ctx, secKey(id), nil)
	require.NoError(t, err)
	require.True(t, found)
	require.Zero(t, cb.Stats().PendingPages)
	require.Equal(t, before.Merges+1, cb.Stats().Merges)
}

// TestChangeBufferMergeFailure: a change that does not apply (here an
// insert of a key the leaf holds, which only a caller that breaks the
// buffer's contract can make) is an error naming the page; the changes
// before it are applied once, and it and those after it stay buffered.
func TestChangeBufferMergeFailure(t *testing.T) {
	_, cb, ix := newBufferedIndex(t, 0, 256<<10, 0)
	for i := range 20000 {
		require.NoError(t, ix.Insert(ctx, secKey(uint64(i)), nil))
	}
	require.NoError(t, cb.MergeAll(ctx))
	// Two neighbours near the start of the index, on one leaf.
	var keys [][]byte
	require.NoError(t, ix.Scan(ctx, nil, nil, false, func(k, _ []byte) bool {
		keys = append(keys, bytes.Clone(k))
		return len(keys) < 1002
	}))
	x, y := keys[1000], keys[1001]
	leafOf := func(k []byte) uint32 {
		ix.lock.Lock()
		defer ix.lock.Unlock()
		path, err := ix.path(ctx, nil, k, 0)
		require.NoError(t, err)
		return path[len(path)-1]
	}
	leaf := leafOf(x)
	require.Equal(t, leaf, leafOf(y))
	// Read the end of the index until the leaf leaves the pool.
	for i := 0; ix.pool.Contains(ix.id(leaf)); i++ {
		require.Less(t, i, 20, "the leaf stays in the pool")
		n := 0
		require.NoError(t, ix.Scan(ctx, nil, nil, true, func(_, _ []byte) bool { n++; return n < 10000 }))
	}
	cb.note(ix.o.Space, leaf, 3, 100)
	require.True(t, cb.buffer(ix, leaf, cbDelete, x, nil))
	require.True(t, cb.buffer(ix, leaf, cbInsert, y, nil)) // y is there
	require.True(t, cb.buffer(ix, leaf, cbInsert, x, nil))
	_, rest := ix.cbCost(cbInsert, y, nil)
	_, last := ix.cbCost(cbInsert, x, nil)
	before := cb.Stats()

	_, _, err := ix.Get(ctx, y, nil)
	require.ErrorContains(t, err, fmt.Sprintf("page %d: buffered insert of %x finds the key there", leaf, y))
	s := cb.Stats()
	require.Equal(t, int64(1), s.PendingPages)
	require.Equal(t, rest+last, s.Bytes, "the failed insert and the one after it stay")
	require.Equal(t, before.MergedDeletes+1, s.MergedDeletes, "the delete before it is applied")
	require.Equal(t, before.Merges, s.Merges)
	require.ErrorContains(t, cb.MergeAll(ctx), "finds the key there")
	require.Equal(t, s.MergedDeletes, cb.Stats().MergedDeletes, "nothing is applied twice")

	cb.Discard(ix.o.Space)
	_, found, err := ix.Get(ctx, x, nil)
	require.NoError(t, err)
	require.False(t, found, "the buffered delete was applied, the insert after it discarded")
	_, found, err = ix.Get(ctx, y, nil)
	require.NoError(t, err)
	require.True(t, found)
	requireCheck(t, ix)
}

// TestChangeBufferAdaptiveHash: with the adaptive hash index on, a point
// read of a key whose buffered delete waits for its leaf does not find
// it, though the leaf was hashed before it left the pool.
func TestChangeBufferAdaptiveHash(t *testing.T) {
	e := newEnv(t, 0, 256<<10)
	cb, err := NewChangeBuffer(ChangeBufferOptions{Pool: e.pool})
	require.NoError(t, err)
	ahi, err := NewAdaptiveHash(AdaptiveHashOptions{Pool: e.pool})
	require.NoError(t, err)
	o := e.options(1, false)
	o.ChangeBuffer, o.AdaptiveHash = cb, ahi
	ix, err := Create(ctx, o)
	require.NoError(t, err)
	const n = 20000
	for i := range n {
		require.NoError(t, ix.Insert(ctx, secKey(uint64(i)), nil))
	}
	r := rand.New(rand.NewPCG(3, 4))
	deleted := map[uint64]bool{}
	for range 4000 {
		// Hot reads hash leaves; deletes of scattered keys are buffered
		// when their leaf has gone.
		for range 5 {
			id := uint64(r.IntN(n))
			_, found, err := ix.Get(ctx, secKey(id), nil)
			require.NoError(t, err)
			require.Equal(t, !deleted[id], found, "key %d", id)
		}
		id := uint64(r.IntN(n))
		if !deleted[id] {
			require.NoError(t, ix.Delete(ctx, secKey(id)))
			deleted[id] = true
		}
	}
	require.NotZero(t, cb.Stats().Deletes, "no delete was buffered")
	require.NotZero(t, ahi.Stats().Searches, "no read was answered from the hash")
	for id := range uint64(n) {
		_, found, err := ix.Get(ctx, secKey(id), nil)
		require.NoError(t, err)
		require.Equal(t, !deleted[id], found, "key %d", id)
	}
	requireCheck(t, ix)
}
