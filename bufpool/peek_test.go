package bufpool

import (
	"encoding/binary"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim/page"
)

// The tests of Peek, which fixes a page only when it is in the pool with a
// frame, and of Guard.HashInfo, the frame's word that the pool zeroes
// whenever the frame takes a page.

// descOf returns the descriptor of id, nil when the pool does not hold it.
func descOf(p *Pool, id PageID) *Page { return pageOf(p.instanceOf(id), id) }

// evictFrame frees the frame of an unfixed compressed page that has both
// copies: the page stays in the pool compressed-only.
func evictFrame(t testing.TB, p *Pool, id PageID) {
	t.Helper()
	pg := descOf(p, id)
	require.NotNil(t, pg, "page %v", id)
	require.Equal(t, stateFrame, pg.state, "page %v", id)
	in := p.instanceOf(id)
	in.lruMu.Lock()
	in.scanStripe = in.stats.Stripe()
	ok := in.visitUnzip(&pg.unzipNode)
	in.lruMu.Unlock()
	require.True(t, ok, "evict the frame of page %v", id)
	require.Equal(t, stateZipOnly, descOf(p, id).state)
}

// evictPage flushes the pool and frees page id entirely.
func evictPage(t testing.TB, p *Pool, id PageID) {
	t.Helper()
	require.NoError(t, p.Flush())
	pg := descOf(p, id)
	require.NotNil(t, pg, "page %v", id)
	in := p.instanceOf(id)
	in.lruMu.Lock()
	in.scanStripe = in.stats.Stripe()
	ok := in.visitLRU(&pg.lruNode)
	in.lruMu.Unlock()
	require.True(t, ok, "evict page %v", id)
	require.Nil(t, descOf(p, id))
}

// peekCounters are the counters a Peek that reads and decompresses
// nothing must leave alone.
type peekCounters struct {
	gets, hitsFrame, hitsUnzip, hitsZip, reads, creates uint64
	pages, zipOnly, unzipLen                            int
	tsReads, uncompress                                 uint64
}

func countersOf(t testing.TB, p *Pool, space uint32, zip int) peekCounters {
	t.Helper()
	s := p.Stats()
	sp, err := p.space(space)
	require.NoError(t, err)
	c := peekCounters{gets: s.Gets, hitsFrame: s.HitsFrame, hitsUnzip: s.HitsUnzip, hitsZip: s.HitsZip,
		reads: s.Reads, creates: s.Creates, pages: s.Pages, zipOnly: s.ZipOnly, unzipLen: s.UnzipLen,
		tsReads: sp.ts.Stats().Reads}
	if zip != 0 {
		c.uncompress = p.CMP().Snapshot().Size(zip).UncompressOps
	}
	return c
}

// TestPeekCached: a page with a frame is fixed in the mode asked, with its
// own bytes, counted as a frame hit and nothing else; an exclusive peek
// holds off a shared one until it is released, and shared ones share.
func TestPeekCached(t *testing.T) {
	for _, zip := range []int{0, 8192} {
		t.Run(fmt.Sprintf("zip=%d", zip), func(t *testing.T) {
			p := newPool(t, Options{Bytes: 16 * 16384})
			testSpace(t, p, 1, zip)
			createStamped(t, p, 1, 3)
			for i := uint32(1); i <= 3; i++ {
				id := PageID{1, i}
				before := countersOf(t, p, 1, zip)
				g, ok := p.Peek(id, Shared)
				require.True(t, ok, "page %v", id)
				require.Equal(t, id, g.ID())
				require.Equal(t, Shared, g.Mode())
				got, v := readStamp(t, &g)
				require.Equal(t, id, got)
				require.Equal(t, uint64(1), v)
				require.ErrorIs(t, g.MarkDirty(), ErrNotExclusive)
				g2, ok := p.Peek(id, Shared)
				require.True(t, ok, "a second shared peek while the first is held")
				g2.Release()
				g.Release()
				after := countersOf(t, p, 1, zip)
				want := before
				want.gets += 2
				want.hitsFrame += 2
				require.Equal(t, want, after, "two peeks of a cached page are two frame hits, nothing more")
			}

			// Exclusive: the guard writes, and a shared peek waits for it.
			id := PageID{1, 2}
			g, ok := p.Peek(id, Exclusive)
			require.True(t, ok)
			require.Equal(t, Exclusive, g.Mode())
			restamp(t, &g, 7)
			done := make(chan uint64, 1)
			go func() {
				g2, ok := p.Peek(id, Shared)
				if !ok {
					done <- 0
					return
				}
				// No require here: not the test's goroutine.
				v := binary.BigEndian.Uint64(page.IndexPage(g2.Frame()).Value(0)[8:])
				g2.Release()
				done <- v
			}()
			select {
			case <-done:
				t.Fatal("a shared peek got the page while an exclusive guard held it")
			case <-time.After(50 * time.Millisecond):
			}
			g.Release()
			select {
			case v := <-done:
				require.Equal(t, uint64(7), v, "the shared peek sees the exclusive guard's write")
			case <-time.After(10 * time.Second):
				t.Fatal("the shared peek never got the page")
			}
			require.Empty(t, p.Check())
		})
	}
}

// TestPeekNotInPool: a page the pool does not hold, evicted or never read,
// is not read; nor is an id Fix would refuse. Peek reports false and
// changes no counter, storage's included.
func TestPeekNotInPool(t *testing.T) {
	for _, zip := range []int{0, 4096} {
		t.Run(fmt.Sprintf("zip=%d", zip), func(t *testing.T) {
			p := newPool(t, Options{Bytes: 16 * 16384})
			testSpace(t, p, 1, zip)
			createStamped(t, p, 1, 4)
			evicted := PageID{1, 2}
			evictPage(t, p, evicted)
			before := countersOf(t, p, 1, zip)
			for _, id := range []PageID{evicted, {1, 3000}, {1, 0}, {1, page.FilNull}, {9, 1}} {
				for _, mode := range []Mode{Shared, Exclusive} {
					g, ok := p.Peek(id, mode)
					require.False(t, ok, "page %v %v", id, mode)
					require.Equal(t, Guard{}, g)
				}
			}
			require.Equal(t, before, countersOf(t, p, 1, zip), "a peek that fails reads and counts nothing")
			require.Nil(t, descOf(p, evicted), "the page is still out of the pool")

			// Fix reads it; then Peek finds it.
			g, err := p.Fix(ctx, evicted, Shared)
			require.NoError(t, err)
			got, _ := readStamp(t, &g)
			require.Equal(t, evicted, got)
			g.Release()
			require.Equal(t, before.reads+1, p.Stats().Reads)
			g, ok := p.Peek(evicted, Shared)
			require.True(t, ok)
			got, _ = readStamp(t, &g)
			require.Equal(t, evicted, got)
			g.Release()
			require.Empty(t, p.Check())

			// A closed pool peeks nothing.
			require.NoError(t, p.Close())
			_, ok = p.Peek(PageID{1, 1}, Shared)
			require.False(t, ok)
		})
	}
}

// TestPeekCompressedOnly: a page held compressed-only, whether its frame
// was evicted or it never had one (CreateZip), is not decompressed or
// copied into a frame; Peek reports false and the page stays as it was.
func TestPeekCompressedOnly(t *testing.T) {
	for _, lk := range []Locking{Split, Legacy, Global} {
		t.Run(fmt.Sprint(lk), func(t *testing.T) {
			p := newPool(t, Options{Bytes: 16 * 16384, Locking: lk})
			testSpace(t, p, 1, 8192)
			createStamped(t, p, 1, 3)
			id := PageID{1, 2}
			evictFrame(t, p, id)
			zb := PageID{1, 5}
			require.NoError(t, p.CreateZip(ctx, zb, zblob(zb, 1)))

			before := countersOf(t, p, 1, 8192)
			require.Equal(t, 2, before.zipOnly)
			for _, x := range []PageID{id, zb} {
				for _, mode := range []Mode{Shared, Exclusive} {
					_, ok := p.Peek(x, mode)
					require.False(t, ok, "page %v %v", x, mode)
				}
				require.Equal(t, stateZipOnly, descOf(p, x).state, "page %v stays compressed-only", x)
			}
			require.Equal(t, before, countersOf(t, p, 1, 8192), "no decompression, no frame, no read")
			require.Empty(t, p.Check())

			// Fix decompresses it; then Peek finds the frame.
			g, err := p.Fix(ctx, id, Shared)
			require.NoError(t, err)
			g.Release()
			after := countersOf(t, p, 1, 8192)
			require.Equal(t, before.hitsUnzip+1, after.hitsUnzip)
			require.Equal(t, before.uncompress+1, after.uncompress)
			g, ok := p.Peek(id, Shared)
			require.True(t, ok)
			got, v := readStamp(t, &g)
			require.Equal(t, id, got)
			require.Equal(t, uint64(1), v)
			g.Release()
			require.Equal(t, after.uncompress, countersOf(t, p, 1, 8192).uncompress)
			require.Empty(t, p.Check())
		})
	}
}

// TestHashInfoZeroedOnNewPage: the word is the frame's, shared by every
// guard of the page while it stays there, and 0 whenever the frame takes
// a page: created, read from storage or decompressed into it.
func TestHashInfoZeroedOnNewPage(t *testing.T) {
	t.Run("shared by guards", func(t *testing.T) {
		p := newPool(t, Options{Bytes: 16 * 16384})
		testSpace(t, p, 1, 0)
		createStamped(t, p, 1, 2)
		g, err := p.Fix(ctx, PageID{1, 1}, Shared)
		require.NoError(t, err)
		require.Zero(t, g.HashInfo().Load(), "a created page's word")
		g.HashInfo().Store(0xfeed)
		g2, ok := p.Peek(PageID{1, 1}, Shared)
		require.True(t, ok)
		require.Equal(t, uint32(0xfeed), g2.HashInfo().Load(), "one word per frame")
		g2.Release()
		g.Release()
		g, err = p.Fix(ctx, PageID{1, 2}, Shared)
		require.NoError(t, err)
		require.Zero(t, g.HashInfo().Load(), "another frame's word")
		g.Release()
	})

	// The pool has MinFramesPerInstance frames, all taken by pages whose
	// words are set: a page evicted frees the only frame, which the next
	// page to enter must take.
	frames := MinFramesPerInstance
	setAll := func(t *testing.T, p *Pool, n int) {
		for i := 1; i <= n; i++ {
			g, ok := p.Peek(PageID{1, uint32(i)}, Exclusive)
			require.True(t, ok, "page %d", i)
			g.HashInfo().Store(0x80000000 | uint32(i))
			g.Release()
		}
	}
	frameOf := func(t *testing.T, p *Pool, id PageID) *frame {
		g, ok := p.Peek(id, Shared)
		require.True(t, ok)
		defer g.Release()
		return g.f
	}

	t.Run("read", func(t *testing.T) {
		p := newPool(t, Options{Bytes: int64(frames) * 16384})
		testSpace(t, p, 1, 0)
		createStamped(t, p, 1, frames)
		setAll(t, p, frames)
		id := PageID{1, 3}
		f := frameOf(t, p, id)
		evictPage(t, p, id)
		require.NotZero(t, f.hashInfo.Load(), "a freed frame keeps its word until it takes a page")
		g, err := p.Fix(ctx, id, Shared) // read from storage
		require.NoError(t, err)
		require.Same(t, f, g.f, "the only free frame")
		require.Zero(t, g.HashInfo().Load(), "read into the frame")
		g.Release()
		require.Empty(t, p.Check())
	})

	t.Run("create", func(t *testing.T) {
		p := newPool(t, Options{Bytes: int64(frames) * 16384})
		testSpace(t, p, 1, 0)
		createStamped(t, p, 1, frames)
		setAll(t, p, frames)
		f := frameOf(t, p, PageID{1, 5})
		evictPage(t, p, PageID{1, 5})
		g, err := p.Create(ctx, PageID{1, 100})
		require.NoError(t, err)
		require.Same(t, f, g.f, "the only free frame")
		require.Zero(t, g.HashInfo().Load(), "created in the frame")
		stamp(t, &g, 1)
		g.Release()
		require.Empty(t, p.Check())
	})

	t.Run("unzip", func(t *testing.T) {
		p := newPool(t, Options{Bytes: 16 * 16384})
		testSpace(t, p, 1, 8192)
		createStamped(t, p, 1, 4)
		setAll(t, p, 4)
		id := PageID{1, 2}
		f := frameOf(t, p, id)
		evictFrame(t, p, id)
		require.NotZero(t, f.hashInfo.Load())
		g, err := p.Fix(ctx, id, Exclusive) // decompressed into a free frame
		require.NoError(t, err)
		require.Zero(t, g.HashInfo().Load(), "decompressed into the frame")
		require.Same(t, f, g.f, "the frame it left, last on the free list")
		g.Release()
		// The page that entered a frame since the words were set reads 0;
		// the others kept theirs.
		for i := 1; i <= 4; i++ {
			g, ok := p.Peek(PageID{1, uint32(i)}, Shared)
			require.True(t, ok)
			want := uint32(0x80000000 | uint32(i))
			if i == 2 {
				want = 0
			}
			require.Equal(t, want, g.HashInfo().Load(), "page %d", i)
			g.Release()
		}
		require.Empty(t, p.Check())
	})
}
