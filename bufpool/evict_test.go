package bufpool

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// fakeClock is an injectable clock tests move by hand.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

// TestEvictFromUnzipDecision pins buf_LRU_evict_from_unzip_LRU: frames
// are evicted only when unzip_LRU is over 10% of the LRU and the load
// looks I/O-bound (or nothing was evicted yet).
func TestEvictFromUnzipDecision(t *testing.T) {
	clk := &fakeClock{t: time.Unix(1000, 0)}
	p := newPool(t, Options{Bytes: 64 * 16384, Clock: clk.now})
	testSpace(t, p, 1, 8192)
	in := p.inst[0]
	decide := func() bool {
		in.lruMu.Lock()
		defer in.lruMu.Unlock()
		return in.evictFromUnzip(clk.now())
	}
	require.False(t, decide(), "unzip_LRU empty: evict from the common LRU")

	// 20 pages with both copies: unzip_LRU = LRU > 10%; nothing evicted
	// yet, so InnoDB assumes it is disk-bound.
	createStamped(t, p, 1, 20)
	require.True(t, decide(), "freed-page clock 0: evict frames")

	// Evict one whole page to start the freed-page clock.
	require.NoError(t, p.Flush())
	in.lruMu.Lock()
	in.scanStripe = in.stats.Stripe()
	in.lru.Scan(1, in.visitLRUFn)
	in.lruMu.Unlock()
	require.Positive(t, in.lru.Stats().FreedPageClock)

	// CPU-bound: 50 seconds of 100 decompressions and 1 I/O each:
	// unzip_avg 100 > io_avg 1 × 50.
	for s := 0; s < 50; s++ {
		for i := 0; i < 100; i++ {
			p.stat.unzip()
		}
		p.stat.io()
		clk.advance(time.Second)
	}
	p.stat.rotate(clk.now())
	require.False(t, decide(), "CPU-bound: evict whole pages")

	// I/O-bound: the next 50 seconds do 10 I/Os per second: io_avg 10 × 50
	// = 500 ≥ unzip_avg 100.
	for s := 0; s < 50; s++ {
		for i := 0; i < 100; i++ {
			p.stat.unzip()
		}
		for i := 0; i < 10; i++ {
			p.stat.io()
		}
		clk.advance(time.Second)
	}
	p.stat.rotate(clk.now())
	require.True(t, decide(), "I/O-bound: evict frames")

	// unzip_LRU at most 10% of the LRU: the common LRU, whatever the load.
	in.lruMu.Lock()
	for in.unzip.Len() > in.lru.Len()/10 {
		in.scanStripe = in.stats.Stripe()
		in.unzip.Scan(1, in.visitUnzipFn)
	}
	in.lruMu.Unlock()
	require.False(t, decide())
	require.Empty(t, p.Check())
}

// TestEvictionKinds checks both outcomes end to end: an I/O-bound pool
// frees frames and keeps pages compressed-only; a CPU-bound one frees
// whole pages.
func TestEvictionKinds(t *testing.T) {
	for _, cpuBound := range []bool{false, true} {
		clk := &fakeClock{t: time.Unix(1000, 0)}
		p := newPool(t, Options{Bytes: 32 * 16384, Clock: clk.now})
		testSpace(t, p, 1, 8192)
		createStamped(t, p, 1, 40)
		require.NoError(t, p.Flush())
		for s := 0; s < 60; s++ {
			if cpuBound {
				for i := 0; i < 1000; i++ {
					p.stat.unzip()
				}
			} else {
				p.stat.io()
			}
			clk.advance(time.Second)
			p.stat.rotate(clk.now()) // the once-a-second buf_LRU_stat_update
		}
		before := p.Stats()
		for i := 1; i <= 40; i++ {
			g, err := p.Fix(ctx, PageID{1, uint32(i)}, Shared)
			require.NoError(t, err)
			g.Release()
		}
		d := p.Stats().Sub(before)
		t.Logf("cpuBound %v: frame evictions %d, page evictions %d, reads %d, decompressing hits %d", cpuBound, d.EvictFrame, d.EvictPage, d.Reads, d.HitsUnzip)
		if cpuBound {
			require.Greater(t, d.EvictPage, d.EvictFrame)
		} else {
			require.Greater(t, d.EvictFrame, d.EvictPage)
		}
		require.Empty(t, p.Check())
	}
}

// TestLegacyZipCleanWalk checks that under Legacy every frame evicted from
// a clean page puts it on zip_clean through a walk along the LRU, and that
// Split keeps no zip_clean list.
func TestLegacyZipCleanWalk(t *testing.T) {
	for _, lk := range []Locking{Split, Legacy} {
		clk := &fakeClock{t: time.Unix(1000, 0)}
		p := newPool(t, Options{Bytes: 32 * 16384, Clock: clk.now, Locking: lk})
		testSpace(t, p, 1, 8192)
		createStamped(t, p, 1, 40)
		require.NoError(t, p.Flush())
		p.stat.io() // I/O-bound: evict frames, keep pages compressed-only
		before := p.Stats()
		for round := 0; round < 2; round++ {
			for i := 1; i <= 40; i++ {
				g, err := p.Fix(ctx, PageID{1, uint32(i)}, Shared)
				require.NoError(t, err)
				g.Release()
			}
		}
		d := p.Stats().Sub(before)
		require.Positive(t, d.EvictFrame)
		if lk == Split {
			require.Zero(t, d.ZipCleanInserts)
		} else {
			require.Equal(t, d.EvictFrame, d.ZipCleanInserts)
			require.GreaterOrEqual(t, d.ZipCleanSteps, d.ZipCleanInserts)
			require.GreaterOrEqual(t, d.ZipCleanWalkMean(), 1.0)
		}
		require.Empty(t, p.Check())
	}
}

// TestLegacyReadWalksZipClean checks the O(N) walk of MySQL Bug #61341 on
// reads: under Legacy each compressed page read from storage is put on
// zip_clean from its LRU position, walking towards the tail past every
// page with a frame. Below 512 pages a read goes to the LRU head, so with
// k pages read before it, all with frames, a read walks the whole list:
// 1+k steps. Split keeps no zip_clean and walks nothing.
func TestLegacyReadWalksZipClean(t *testing.T) {
	const pages = 40
	for _, lk := range []Locking{Split, Legacy} {
		o := Options{Bytes: 128 * 16384, Locking: lk}
		p := newPool(t, o)
		mem := testSpace(t, p, 1, 8192)
		createStamped(t, p, 1, pages)
		require.NoError(t, p.Flush())
		p = reopen(t, p, mem, 1, o)
		before := p.Stats()
		for i := 1; i <= pages; i++ {
			g, err := p.Fix(ctx, PageID{1, uint32(i)}, Shared)
			require.NoError(t, err)
			g.Release()
		}
		d := p.Stats().Sub(before)
		require.Equal(t, uint64(pages), d.Reads)
		require.Zero(t, d.EvictFrame+d.EvictPage)
		if lk == Split {
			require.Zero(t, d.ZipCleanInserts)
		} else {
			require.Equal(t, uint64(pages), d.ZipCleanInserts)
			require.Equal(t, uint64(pages*(pages+1)/2), d.ZipCleanSteps)
			require.Equal(t, d.ZipCleanInserts, d.ZipCleanReadInserts)
			require.Equal(t, d.ZipCleanSteps, d.ZipCleanReadSteps)
			require.InDelta(t, float64(pages+1)/2, d.ZipCleanReadWalkMean(), 1e-9)
		}
		require.Empty(t, p.Check())
	}
}

// TestLRUStatLongGap: counts gathered before a gap of 50 seconds or more
// without a rotation have left the 50-second window when it rotates, as
// they would have with InnoDB's once-a-second buf_LRU_stat_update.
func TestLRUStatLongGap(t *testing.T) {
	clk := &fakeClock{t: time.Unix(1000, 0)}
	p := newPool(t, Options{Bytes: 64 * 16384, Clock: clk.now})
	for i := 0; i < 5000; i++ {
		p.stat.unzip()
	}
	p.stat.io()
	clk.advance(60 * time.Second)
	require.True(t, p.stat.ioBound(clk.now()), "an empty window is I/O-bound (0 ≤ 0 × 50)")
	for i := 0; i < 5000; i++ {
		p.stat.unzip()
	}
	clk.advance(10 * time.Second)
	require.False(t, p.stat.ioBound(clk.now()), "counts from 10 seconds ago are in the window")
}
