package bufpool

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim/internal/latch"
	"github.com/zipsim/zipsim/internal/sbdata"
	"github.com/zipsim/zipsim/page"
)

// benchPool builds a pool over one space of pages pages, every page a
// clustered leaf of 60 sysbench rows (what a KEY_BLOCK_SIZE=8 leaf holds
// after splits), flushed.
func benchPool(b testing.TB, o Options, zipSize, pages int) *Pool {
	b.Helper()
	p := newPool(b, o)
	testSpace(b, p, 1, zipSize)
	r := sbdata.Rand(1)
	for i := 1; i <= pages; i++ {
		g, err := p.Create(ctx, PageID{1, uint32(i)})
		require.NoError(b, err)
		pg, err := page.CreateIndex(g.Frame(), page.IndexOptions{PageNo: uint32(i), SpaceID: 1, IndexID: 1, Clustered: true})
		require.NoError(b, err)
		for row := 0; row < 60; row++ {
			key, sys, value := sbdata.Row(r, uint32(i*100+row))
			_, err := pg.Insert(row, page.Record{Key: key, Sys: sys, Value: value})
			require.NoError(b, err)
		}
		if z := g.Zip(); z != nil {
			require.NoError(b, z.Compress(pg, page.Env{}))
		}
		require.NoError(b, g.MarkDirty())
		g.Release()
	}
	require.NoError(b, p.Flush())
	return p
}

// inflateNanos measures the raw page_zip_decompress of the benchmark's
// pages outside the pool: each page's zip image copied out, inflated in
// turn into as many destination frames as the pool has, so that caches
// are as cold as they are for the pool's own decompressions.
func inflateNanos(b *testing.B, p *Pool, pages, frames int) float64 {
	zips := make([]page.Zip, pages)
	for i := range zips {
		g, err := p.Fix(ctx, PageID{1, uint32(i + 1)}, Shared)
		require.NoError(b, err)
		require.NoError(b, zips[i].Init(append([]byte(nil), g.Zip().Data()...)))
		g.Release()
	}
	dst := make([]byte, frames*p.opts.PageSize)
	const rounds = 4
	start := time.Now()
	for n := 0; n < rounds*pages; n++ {
		f := n % frames * p.opts.PageSize
		require.NoError(b, zips[n%pages].Decompress(dst[f:f+p.opts.PageSize], page.Env{}))
	}
	return float64(time.Since(start).Nanoseconds()) / float64(rounds*pages)
}

// fixRelease is one iteration: fix a random page shared, release it.
func fixRelease(b testing.TB, p *Pool, r *rand.Rand, pages int) {
	g, err := p.Fix(ctx, PageID{1, uint32(1 + r.IntN(pages))}, Shared)
	if err != nil {
		b.Fatal(err)
	}
	g.Release()
}

// fixParallel runs the timed part of a fix benchmark: b.N fixes of
// uniformly random pages from RunParallel goroutines. It returns the
// pool's counters as they were before and the wall time.
func fixParallel(b *testing.B, p *Pool, pages int) (Stats, time.Duration) {
	before := p.Stats()
	start := time.Now()
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		r := rand.New(rand.NewPCG(rand.Uint64(), 3))
		for pb.Next() {
			fixRelease(b, p, r, pages)
		}
	})
	b.StopTimer()
	return before, time.Since(start)
}

// warm fixes 4 x pages random pages so that the lists reach their steady
// state before timing.
func warm(b testing.TB, p *Pool, pages int) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 4*pages; i++ {
		fixRelease(b, p, r, pages)
	}
}

// reportLocks reports the fixes' mix and the wait shares of the list
// mutexes over the timed part.
func reportLocks(b *testing.B, p *Pool, before Stats, wall time.Duration) {
	s := p.Stats().Sub(before)
	if s.Gets > 0 {
		b.ReportMetric(float64(s.HitsUnzip)/float64(s.Gets), "uncompress/op")
		b.ReportMetric(float64(s.Reads)/float64(s.Gets), "reads/op")
	}
	l, n := s.Latches, benchThreads()
	b.ReportMetric(100*l.WaitShare("LRU_list_mutex", n, wall), "lru-wait-%")
	// The share of acquisitions that found the mutex taken: unlike the
	// wait share, not inflated when a holder's vCPU is descheduled.
	lru, _ := l.Get("LRU_list_mutex")
	b.ReportMetric(lru.ContentionPct(), "lru-contended-%")
	// Legacy's pool-wide zip mutex and Split's per-instance ones.
	b.ReportMetric(100*(l.WaitShare("buf_pool_zip_mutex", n, wall)+l.WaitShare("zip_mutex", n, wall)), "zip-wait-%")
	b.ReportMetric(float64(s.Gets)/wall.Seconds(), "fixes/s")
	if s.ZipCleanInserts > 0 {
		b.ReportMetric(s.ZipCleanWalkMean(), "zip-clean-walk")
	}
}

// BenchmarkFixHit fixes and releases pages that all have frames: the
// buffer pool hit path [buf_page_get_gen, the common case].
func BenchmarkFixHit(b *testing.B) {
	for _, lk := range []Locking{Split, Legacy, Global} {
		for _, zs := range []int{0, 8192} {
			for _, instr := range []bool{true, false} {
				name := fmt.Sprintf("locking=%v/zip=%dK/latchstats=%v", lk, zs/1024, instr)
				b.Run(name, func(b *testing.B) {
					const pages = 256
					p := benchPool(b, Options{Bytes: 1024 * 16384, Locking: lk, Latches: latch.NewRegistry(latch.Options{Disabled: !instr})}, zs, pages)
					warm(b, p, pages)
					before, wall := fixParallel(b, p, pages)
					reportLocks(b, p, before, wall)
				})
			}
		}
	}
}

// BenchmarkFixUnzip fixes compressed pages whose frames were evicted, so
// that fixes allocate a frame (evicting another page's frame) and
// decompress: hits needing decompression. x-inflate is the thread time per
// decompressing fix (all fixes' time charged to them) over the raw inflate
// of the same pages (inflateNanos).
func BenchmarkFixUnzip(b *testing.B) {
	for _, lk := range []Locking{Split, Legacy} {
		b.Run(fmt.Sprintf("locking=%v/zip=8K", lk), func(b *testing.B) {
			// 64 frames hold the 8K blocks of 96 pages (48 frames) and 16
			// frames for decompressed copies: fixes cycle through more
			// pages than there are frames.
			const pages, frames = 96, 64
			p := benchPool(b, Options{Bytes: frames * 16384, Locking: lk}, 8192, pages)
			raw := inflateNanos(b, p, pages, frames)
			warm(b, p, pages)
			b.SetBytes(int64(p.opts.PageSize))
			before, wall := fixParallel(b, p, pages)
			reportLocks(b, p, before, wall)
			if d := p.Stats().Sub(before); d.HitsUnzip > 0 {
				perUnzip := float64(wall.Nanoseconds()) * float64(benchThreads()) / float64(d.HitsUnzip)
				b.ReportMetric(perUnzip/raw, "x-inflate")
			}
		})
	}
}

// BenchmarkInflate is the raw page_zip_decompress of one of those pages.
func BenchmarkInflate(b *testing.B) {
	p := benchPool(b, Options{Bytes: 64 * 16384}, 8192, 1)
	g, err := p.Fix(ctx, PageID{1, 1}, Shared)
	require.NoError(b, err)
	var z page.Zip
	require.NoError(b, z.Init(append([]byte(nil), g.Zip().Data()...)))
	g.Release()
	dst := make([]byte, 16384)
	b.ReportAllocs()
	b.SetBytes(16384)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := z.Decompress(dst, page.Env{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFixMiss reads pages from a memory device, uniformly accessed:
// on disk the table is four times the pool, so the compressed table has
// twice the pages. pool=F is the pool's bytes over the table's
// uncompressed bytes, as in BenchmarkOverflow.
func BenchmarkFixMiss(b *testing.B) {
	for _, lk := range []Locking{Split, Legacy} {
		for _, zs := range []int{0, 8192} {
			const frames = 64
			pages, pool := 4*frames, "0.25x"
			if zs != 0 {
				pages, pool = 8*frames, "0.125x"
			}
			b.Run(fmt.Sprintf("locking=%v/zip=%dK/pool=%s", lk, zs/1024, pool), func(b *testing.B) {
				p := benchPool(b, Options{Bytes: frames * 16384, Locking: lk}, zs, pages)
				before, wall := fixParallel(b, p, pages)
				reportLocks(b, p, before, wall)
			})
		}
	}
}

// BenchmarkOverflow is T1's setting: a compressed table (8K blocks) whose
// uncompressed pages overflow a pool of 8 instances, uniformly accessed.
// pool=F is the pool's bytes over the table's uncompressed bytes: at 0.25x
// even the compressed copies overflow, so fixes mix reads, decompressing
// hits and frame hits; at 1.25x (T1's "u fits, u+c does not") every
// compressed copy fits beside 3/4 of the frames, so fixes decompress and
// evict frames, and Legacy keeps zip_clean in LRU order by walking the LRU.
// With Legacy the eight instances share one LRU mutex and one zip mutex;
// with Split each has its own: lru-wait-% and zip-wait-% are where the two
// differ.
func BenchmarkOverflow(b *testing.B) {
	for _, c := range []struct {
		pool          string
		frames, pages int
	}{
		{"0.25x", 8 * 64, 4 * 8 * 64},
		{"1.25x", 8 * 512, 8 * 512 * 4 / 5},
	} {
		for _, lk := range []Locking{Split, Legacy} {
			b.Run(fmt.Sprintf("locking=%v/zip=8K/pool=%s/instances=8", lk, c.pool), func(b *testing.B) {
				p := benchPool(b, Options{Bytes: int64(c.frames) * 16384, Instances: 8, Locking: lk}, 8192, c.pages)
				warm(b, p, c.pages)
				before, wall := fixParallel(b, p, c.pages)
				reportLocks(b, p, before, wall)
			})
		}
	}
}

// BenchmarkLineTransfer is the part of a hit that no pinning design avoids,
// alone: each op takes one of 16 RWMutexes shared (the page hash latch),
// adds and drops a pin on one of 256 counters, and takes one of 256
// RWMutexes shared (the frame latch), each on its own line. Its -cpu 2 over
// -cpu 1 ratio is the ceiling for BenchmarkFixHit's on the same machine at
// the same moment: it shows what moving cache lines between the cores costs.
func BenchmarkLineTransfer(b *testing.B) {
	type line struct {
		mu  sync.RWMutex
		pin atomic.Int32
		_   [128 - 24 - 4]byte
	}
	parts, pages, frames := make([]line, 16), make([]line, 256), make([]line, 256)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		r := rand.New(rand.NewPCG(rand.Uint64(), 3))
		for pb.Next() {
			i := r.IntN(256)
			hp, pg, f := &parts[i%16], &pages[i], &frames[i]
			hp.mu.RLock()
			pg.pin.Add(1)
			hp.mu.RUnlock()
			f.mu.RLock()
			f.mu.RUnlock()
			pg.pin.Add(-1)
		}
	})
}

// BenchmarkFixCold fixes uniformly random pages of a pool of 65,536
// cached frames, whose descriptors, latches and page hash (about 56 MiB)
// outgrow the caches: a hit as a B-tree's random leaf read meets it, each
// line a miss to memory, where BenchmarkFixHit's 256 pages stay cached.
func BenchmarkFixCold(b *testing.B) {
	const pages = 65536
	// A quarter more frames than pages: instances fill unevenly.
	p := benchPool(b, Options{Bytes: pages * 16384 * 5 / 4}, 0, pages)
	warm(b, p, pages)
	before, wall := fixParallel(b, p, pages)
	reportLocks(b, p, before, wall)
}
