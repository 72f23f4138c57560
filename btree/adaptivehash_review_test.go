package btree

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim/bufpool"
	"github.com/zipsim/zipsim/page"
)

// Cases a review of the adaptive hash index found with pages that hold an
// index's keys but are not in its tree: a guess may use a page only once a
// descent has reached it in its current frame.

// A page freed by merges, evicted, then fixed by anything (here a plain
// Fix) comes back with its old records and a zero word: no guess may read
// it, so every key moved off it reads its new value.
func TestAdaptiveHashFreedPageFixedAgain(t *testing.T) {
	e, ix, h := newHashIndex(t, 0, 4<<20, 0)
	const n = 4000
	val := func(ver uint64) []byte { return append(binary.BigEndian.AppendUint64(nil, ver), make([]byte, 200)...) }
	for i := range n {
		require.NoError(t, ix.Insert(ctx, key8(uint64(i)), val(1)))
	}
	for range 4 {
		for i := range n {
			_, _, err := ix.Get(ctx, key8(uint64(i)), nil)
			require.NoError(t, err)
		}
	}
	require.Positive(t, h.Stats().PagesAdded)
	// Delete all but every 10th key; the survivors are read as their
	// leaves merge away, so their cells keep naming the freed pages.
	for i := range n {
		if i%10 != 0 {
			require.NoError(t, ix.Delete(ctx, key8(uint64(i))))
		}
		for k := i + 1 - (i+1)%10 + 10; k < min(n, i+40); k += 10 {
			_, _, err := ix.Get(ctx, key8(uint64(k)), nil)
			require.NoError(t, err)
		}
	}
	require.Positive(t, ix.Stats().Merges)
	stale := map[uint64]uint32{} // key → a freed page its cell names
	for i := uint64(0); i < n; i += 10 {
		k := key8(i)
		fold := ix.fold(k)
		bk := h.bucket(fold)
		for j := range bk {
			if c := bk[j].Load(); c != 0 && c>>48 == fold>>48 {
				if no, slot := unpack(c); no != leafOf(t, ix, k) && holds(ix, no, slot, k) {
					stale[i] = no
				}
			}
		}
	}
	require.NotEmpty(t, stale, "no surviving key has a cell on a freed page that still holds it in that slot")
	for i := range stale {
		require.NoError(t, ix.Update(ctx, key8(i), val(2)))
	}
	// Another index fills the pool and evicts the freed pages; then
	// something fixes them again.
	o2 := e.options(2, true)
	o2.Alloc = &memAlloc{next: 100000}
	ix2, err := Create(ctx, o2)
	require.NoError(t, err)
	for i := range 60000 {
		require.NoError(t, ix2.Insert(ctx, key8(uint64(i)), make([]byte, 200)))
	}
	require.Positive(t, e.pool.Stats().EvictPage)
	for _, no := range stale {
		g, err := e.pool.Fix(ctx, ix.id(no), bufpool.Shared)
		require.NoError(t, err)
		g.Release()
	}
	for i := range stale {
		v, ok, err := ix.Get(ctx, key8(i), nil)
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, uint64(2), binary.BigEndian.Uint64(v), "key %d read its value from a freed page", i)
	}
	requireCheck(t, ix)
}

// A page the index formatted and filled but never linked (a split that
// failed after newPage leaves one) holds copies of live keys in their
// slots; cells naming it must not be taken.
func TestAdaptiveHashUnreachedPage(t *testing.T) {
	_, ix, _ := newHashIndex(t, 0, 4<<20, 0)
	m := map[string][]byte{}
	for i := range 300 {
		k, v := key8(uint64(i)), ahValue(uint64(i), 0, 100)
		require.NoError(t, ix.Insert(ctx, k, v))
		m[string(k)] = v
	}
	warm(t, ix, m, 3)
	leaf := leafOf(t, ix, key8(0))
	keys := leafKeys(t, ix, leaf)
	require.NotEmpty(t, keys)

	no, err := ix.o.Alloc.AllocPage()
	require.NoError(t, err)
	ix.lock.Lock()
	g, err := ix.newPage(ctx, no, 0, page.FilNull, page.FilNull)
	require.NoError(t, err)
	copyPage := page.IndexPage(g.Frame())
	for i, k := range keys {
		_, err := copyPage.Insert(i, page.Record{Key: k, Sys: make([]byte, page.TrxRollLen), Value: []byte("stale copy")})
		require.NoError(t, err)
	}
	g.Release()
	ix.lock.Unlock()

	h := ix.o.AdaptiveHash
	ix.hashPart.mu.Lock()
	for i, k := range keys {
		fold := ix.fold(k)
		bk := h.bucket(fold)
		for j := range bk {
			bk[j].Store(0)
		}
		h.put(fold, cell(fold, i, no), true)
	}
	ix.hashPart.mu.Unlock()
	for _, k := range keys {
		_, _, ok := guessed(ix, k)
		require.False(t, ok, "key %x guessed on a page no descent reached", k)
		requireGet(t, ix, k, m[string(k)])
	}
}

// holds reports whether page pageNo, in the pool, has key in slot.
func holds(ix *Index, pageNo uint32, slot int, key []byte) bool {
	g, ok := ix.pool.Peek(ix.id(pageNo), bufpool.Shared)
	if !ok {
		return false
	}
	defer g.Release()
	p := page.IndexPage(g.Frame())
	return slot < p.NRecs() && string(p.Key(slot)) == string(key)
}
