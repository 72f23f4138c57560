package bufpool

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestDropSpace drops one of two spaces from a pool too small for both:
// its pages leave without a write, frames and zip blocks go back, the
// other space is untouched and Check stays clean.
func TestDropSpace(t *testing.T) {
	for _, locking := range []Locking{Split, Legacy} {
		for _, zip := range []int{0, 8192, 2048} {
			t.Run(fmt.Sprintf("%v/zip=%d", locking, zip), func(t *testing.T) {
				p := newPool(t, Options{Bytes: 64 * 16384, Locking: locking})
				testSpace(t, p, 1, zip)
				testSpace(t, p, 2, 0)
				createStamped(t, p, 1, 100) // more than the pool: some written, some dirty
				createStamped(t, p, 2, 20)
				require.Empty(t, p.Check())
				before := p.Stats()

				require.NoError(t, p.DropSpace(ctx, 1))
				require.Empty(t, p.Check())
				after := p.Stats()
				require.Less(t, after.Pages, before.Pages)
				require.Equal(t, before.Writes, after.Writes, "a dropped page is never written")
				require.Empty(t, pagesOf(p, 1))
				_, err := p.Fix(ctx, PageID{1, 1}, Shared)
				require.Error(t, err)
				for i := 1; i <= 20; i++ {
					g, err := p.Fix(ctx, PageID{2, uint32(i)}, Shared)
					require.NoError(t, err)
					g.Release()
				}
				require.Error(t, p.DropSpace(ctx, 1), "not registered any more")
				require.NoError(t, p.Flush())
				require.Empty(t, p.Check())
			})
		}
	}
}

// TestDropSpacePinned: a page held by a guard is not dropped; DropSpace
// gives up when its context ends.
func TestDropSpacePinned(t *testing.T) {
	p := newPool(t, Options{Bytes: 64 * 16384})
	testSpace(t, p, 1, 8192)
	createStamped(t, p, 1, 10)
	g, err := p.Fix(ctx, PageID{1, 3}, Shared)
	require.NoError(t, err)
	c, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	require.ErrorIs(t, p.DropSpace(c, 1), context.DeadlineExceeded)
	require.Equal(t, []PageID{{1, 3}}, pagesOf(p, 1), "only the pinned page stays")
	g.Release()
	require.Empty(t, p.Check())
}

// pagesOf lists the pages of a space in the pool.
func pagesOf(p *Pool, space uint32) []PageID {
	var ids []PageID
	for _, in := range p.inst {
		for i := range in.hash {
			hp := &in.hash[i]
			hp.mu.RLock()
			for _, pg := range hp.t.all() {
				if pg.id.Space == space {
					ids = append(ids, pg.id)
				}
			}
			hp.mu.RUnlock()
		}
	}
	return ids
}

// TestEvictAll empties the pool of clean unpinned pages, keeps a dirty
// one and a pinned one, and restarts the I/O-versus-decompression window:
// the reads that filled the pool no longer make it look I/O-bound.
func TestEvictAll(t *testing.T) {
	clk := &fakeClock{t: time.Unix(1000, 0)}
	p, pinned := evictSetup(t, Options{Bytes: 64 * 16384, Locking: Legacy, Clock: clk.now})
	p.stat.io()
	require.True(t, p.stat.ioBound(clk.now()), "one read, no decompression: I/O-bound")

	p.EvictAll()
	s := p.Stats()
	require.Equal(t, 2, s.LRULen, "the pinned and the dirty page stay")
	require.True(t, p.Contains(PageID{1, 3}))
	require.True(t, p.Contains(PageID{1, 5}))
	require.False(t, p.Contains(PageID{1, 4}))
	require.Empty(t, p.Check())
	p.stat.unzip()
	require.False(t, p.stat.ioBound(clk.now()), "the read before EvictAll is forgotten")
	pinned.Release()

	before := p.Stats()
	g, err := p.Fix(ctx, PageID{1, 4}, Shared)
	require.NoError(t, err)
	_, v := readStamp(t, &g)
	g.Release()
	require.Equal(t, uint64(1), v)
	require.Equal(t, uint64(1), p.Stats().Sub(before).Reads, "an evicted page is read again")
}

// evictSetup makes a pool of o with 20 written pages of 8K zip size in
// space 1, page 3 pinned (the guard it returns) and page 5 dirty.
func evictSetup(t *testing.T, o Options) (*Pool, Guard) {
	t.Helper()
	p := newPool(t, o)
	testSpace(t, p, 1, 8192)
	createStamped(t, p, 1, 20)
	require.NoError(t, p.Flush())
	pinned, err := p.Fix(ctx, PageID{1, 3}, Shared)
	require.NoError(t, err)
	dirty, err := p.Fix(ctx, PageID{1, 5}, Exclusive)
	require.NoError(t, err)
	restamp(t, &dirty, 2)
	dirty.Release()
	return p, pinned
}

// TestEvict checks that Evict frees only a clean, unpinned page, and that
// a walk evicting each page it read keeps 5.1's read walk at one step,
// where a walk keeping them walks past every one.
func TestEvict(t *testing.T) {
	p, pinned := evictSetup(t, Options{Bytes: 64 * 16384, Locking: Legacy})
	before := p.Stats()
	require.False(t, p.Evict(PageID{1, 3}), "pinned")
	require.False(t, p.Evict(PageID{1, 5}), "dirty")
	require.True(t, p.Evict(PageID{1, 4}))
	require.False(t, p.Evict(PageID{1, 4}), "no longer there")
	require.False(t, p.Evict(PageID{9, 1}), "no such space")
	require.False(t, p.Contains(PageID{1, 4}))
	require.True(t, p.Contains(PageID{1, 3}))
	require.True(t, p.Contains(PageID{1, 5}))
	require.Equal(t, uint64(1), p.Stats().Sub(before).EvictPage)
	require.Empty(t, p.Check())
	pinned.Release()
	require.NoError(t, p.Flush())

	walk := func(evict bool) (reads, steps uint64) {
		p.EvictAll()
		before := p.Stats()
		for i := uint32(1); i <= 20; i++ {
			g, err := p.Fix(ctx, PageID{1, i}, Shared)
			require.NoError(t, err)
			g.Release()
			if evict {
				require.True(t, p.Evict(PageID{1, i}))
			}
		}
		d := p.Stats().Sub(before)
		return d.ZipCleanReadInserts, d.ZipCleanReadSteps
	}
	reads, steps := walk(true)
	require.Equal(t, uint64(20), reads)
	require.Equal(t, reads, steps, "each read finds the LRU empty")
	reads, steps = walk(false)
	require.Equal(t, uint64(20), reads)
	require.Greater(t, steps, 4*reads, "each read walks past the pages read before it")
	require.Empty(t, p.Check())
}
