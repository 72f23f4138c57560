package sim

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/zipsim/zipsim"
	"github.com/zipsim/zipsim/compress"
	"gonum.org/v1/plot/plotter"
)

// T9 sizes: a file-backed store, so that the data lives in the OS page
// cache and not in the process (an in-memory store would hold every
// tablespace on the Go heap and swamp the pool), with the pool a quarter
// of the data. The load runs once, and requests run unmeasured for
// t9Settle; each mode then reopens the same files, with a cold pool as a
// restart leaves it, and warms it before measuring: the seed measured
// after 24 hours.
const (
	t9MaxID1   = 1_600_000
	t9Threads  = 8
	t9Warmup   = 2 * time.Second
	t9Settle   = 15 * time.Second
	t9Duration = 8 * time.Second
	t9Interval = time.Second
)

func init() {
	register(Scenario{
		ID:    "T9",
		Title: "allocator fragmentation from short-lived page buffers",
		Seed: "004: MyRocks, 8 GB block cache, LinkBench after 24 h: RSS glibc 20.3 GB, tcmalloc 10.5 GB, jemalloc 10.06 GB " +
			"(RSS/cache 2.54/1.32/1.26); InnoDB c once used ~500 KB malloc+free per (de)compress until Facebook cached zlib heaps",
		Run: runT9,
	})
}

// t9Mode is one of T9's runs: where frames come from and whether codec
// state is reused.
type t9Mode struct {
	name    string
	frames  string
	noReuse bool
}

// t9Modes run in this order. The reuse comparison sums two runs with
// reuse on (the first and fourth) against two with it off (the third and
// fifth), because on a shared machine one 10-second run against another
// wanders by 10-20%.
var t9Modes = []t9Mode{
	{"arena", "arena", false},
	{"per-miss", "per-miss", false},
	{"arena, zlib_reuse=off", "arena", true},
	{"arena (2)", "arena", false},
	{"arena, zlib_reuse=off (2)", "arena", true},
}

// t9Result is what one mode's run measured.
type t9Result struct {
	mode                t9Mode
	rep                 *Report
	pre                 memSample // just before the store was opened
	grow, sys, rss, gcs []float64 // per interval, over the cache
}

func runT9(ctx context.Context, o ScenarioOptions) (*Outcome, error) {
	dir, err := os.MkdirTemp("", "zipsim-t9-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	cfg, err := Config{
		Workload: "linkbench", Seed: 9, Threads: t9Threads, KBS: 8, Codec: seedCodec, PoolRatio: 0.25, Latches: seedLatches,
		Warmup: t9Warmup, Duration: t9Duration, ReportInterval: t9Interval,
		Linkbench: LinkbenchConfig{MaxID1: t9MaxID1, Loaders: 4},
	}.Validate()
	if err != nil {
		return nil, err
	}
	lb, err := newLinkbenchWorkload(cfg)
	if err != nil {
		return nil, err
	}
	lb.rankIDs()
	load, err := t9Load(ctx, cfg, lb, dir, o)
	if err != nil {
		return nil, err
	}
	// The first run after the load went at half speed whatever its
	// frames (7,200-7,500 QPS against 12,000-18,000 for the same modes
	// later; 9,700 after a 3 s settling run, 15,900-17,100 after 15 s).
	// Why is not established (the loaded leaves split most then, but
	// QPS fell as the splits did in a standalone run on T9's data). The
	// seed measured after 24 hours; a run that is not measured takes the
	// first run's place.
	settle := cfg
	settle.Warmup, settle.Duration = 0, t9Settle
	o.logf("%v of LinkBench requests to settle the store after its load (not measured)", t9Settle)
	if _, err := t9Run(ctx, settle, lb, dir, t9Modes[0], &load, ""); err != nil {
		return nil, err
	}
	var res []t9Result
	for _, m := range t9Modes {
		o.logf("%v of LinkBench requests, frames=%s, zlib_reuse=%v", t9Duration, m.frames, !m.noReuse)
		r, err := t9Run(ctx, cfg, lb, dir, m, &load, o.cpuProfile("T9", m.name))
		if err != nil {
			return nil, err
		}
		res = append(res, r)
	}
	arena, perMiss := res[0], res[1]
	qps := func(rs ...t9Result) (sum float64) {
		for _, r := range rs {
			sum += r.rep.Totals.QPS
		}
		return sum
	}
	opts, err := cfg.StoreOptions(lb.DataBytes())
	if err != nil {
		return nil, err
	}
	pool := float64(opts.Pool.Bytes)
	out := &Outcome{}
	// The cache's footprint: what the process grew by from just before
	// the store was opened to the run's peak. The fixed cost of the
	// process (runtime, mapped binary, generators) is tens of MiB, which
	// is noise at seed 004's 8 GB cache and not at this one.
	out.Check("per-miss peak (RSS or Go Sys − before the store) / cache", t9PeakGrowth(perMiss, pool), AtLeast(1.5))
	out.Check("per-miss GC CPU share", perMiss.rep.Memory.GCCPUFraction, AtLeast(0.05))
	out.Check("arena (peak RSS − RSS before the store) / cache", (float64(arena.rep.Memory.PeakRSS)-float64(arena.pre.rss))/pool, AtMost(1.15))
	reuseRatio := qps(res[2], res[4]) / qps(res[0], res[3])
	out.Check("zlib_reuse=off / on throughput (arena, two runs each)", reuseRatio, AtMost(0.8))
	out.Notef("linkbench maxid1=%d (%d rows, %.0f MiB uncompressed), link and count tables COMPRESSED KBS=8 with %s (InnoDB's deflate) on files, loaded once in %.1fs; each mode reopens them: "+
		"%d requesters (LinkBench's mix, %.0f%% reads) for %v after %v of warm-up from a cold pool, the first mode after %v of unmeasured requests on the loaded store, no IO latency; cache (buffer pool) %.1f MiB = 0.25 × data, %d frames of 16 KiB",
		t9MaxID1, load.Rows, float64(load.DataBytes)/(1<<20), seedCodec, load.Wall.Seconds(), t9Threads, t9ReadPct(), t9Duration, t9Warmup, t9Settle, pool/(1<<20), int(pool)/16384)
	for _, r := range res {
		rep := r.rep
		cmp := rep.Metrics.Pool.CMP.Total()
		out.Notef("%s: RSS before the store %.1f MiB, peak %.1f MiB (%.2f × cache over before, %.2f whole); Go Sys peak %.1f MiB (%.2f × cache over before); "+
			"GC CPU %.1f%% of %d cores, %d GCs; %.0f B and %.1f allocations per request; %.0f QPS, %.2f page reads and %.2f decompressions per request",
			r.mode.name, float64(r.pre.rss)/(1<<20), float64(rep.Memory.PeakRSS)/(1<<20), (float64(rep.Memory.PeakRSS)-float64(r.pre.rss))/pool, float64(rep.Memory.PeakRSS)/pool,
			float64(rep.Memory.PeakSys)/(1<<20), (float64(rep.Memory.PeakSys)-float64(r.pre.ms.Sys))/pool,
			100*rep.Memory.GCCPUFraction, runtime.GOMAXPROCS(0), rep.Memory.NumGC, rep.Memory.BytesPerEvent, rep.Memory.AllocsPerEvent,
			rep.Totals.QPS, t679Ratio(float64(rep.Metrics.Pool.Reads), float64(rep.Totals.Events)), t679Ratio(float64(cmp.UncompressOps), float64(rep.Totals.Events)))
		out.Notef("%s by interval: (RSS − before)/cache %s; (Sys − before)/cache %s; GC CPU %s", r.mode.name,
			t679Fmt(r.grow, "%.2f"), t679Fmt(r.sys, "%.2f"), t679Fmt(r.gcs, "%.3f"))
	}
	// What a collection costs against how often one comes: Go paces
	// collections by bytes allocated over the live heap (GOGC), and marks
	// only pointerful memory, which frames are not.
	gc := func(r t9Result) string {
		m := r.rep.Memory
		cpu := m.GCCPUFraction * r.rep.Totals.Wall.Seconds() * float64(runtime.GOMAXPROCS(0))
		return fmt.Sprintf("%d collections at %.1f ms of GC CPU each, %.0f KB allocated a request, heap in use %.0f MiB at the end",
			m.NumGC, 1000*t679Ratio(cpu, float64(m.NumGC)), m.BytesPerEvent/1000, float64(r.rep.Memory.HeapInuse)/(1<<20))
	}
	if reuseRatio > 0.8 {
		out.Notef("zlib_reuse=off / on %.3f: building the codec's state for every page (%s) added %.0f%% to a request's time, where the band's 0.8 needs 25%%; with the Go port it costs a compression about 13%% and a decompression 10–30%% here (BenchmarkCompressNoReuse, BenchmarkDecompressNoReuse), and C zlib's per-call state costs about as much or less on this machine (recorded in BENCHMARKS.md, T9, not measured by this run), so real InnoDB here would not move more; what gave the seed its 1.27× in 2012 is not measured",
			reuseRatio, compress.CZlibPerCallState(), (1/reuseRatio-1)*100)
	}
	out.Notef("GC: per-miss %s; arena, zlib_reuse=off %s: per-miss frames make the live heap the cache's size, so collections come seldom, and being pointer-free they cost a collection little to mark",
		gc(perMiss), gc(res[2]))
	var used, free, reloc uint64
	for _, z := range arena.rep.Metrics.Pool.CMPMEM {
		used += z.Used
		free += z.Free
		reloc += z.RelocationOps
	}
	out.Notef("buddy allocator at the end of the arena run: %d blocks used, %d free, %d relocations during the run", used, free, reloc)
	if o.Out != "" {
		path := filepath.Join(o.Out, "t9.png")
		if err := plotT9(path, arena, perMiss); err != nil {
			return nil, err
		}
		out.Plot = path
	}
	return out, nil
}

// t9PeakGrowth is how far the process grew over the run's peak, RSS or Go
// Sys, whichever grew more, over the cache.
func t9PeakGrowth(r t9Result, pool float64) float64 {
	rss := float64(r.rep.Memory.PeakRSS) - float64(r.pre.rss)
	sys := float64(r.rep.Memory.PeakSys) - float64(r.pre.ms.Sys)
	return max(rss, sys) / pool
}

// t9Load loads the data into dir once and closes the store.
func t9Load(ctx context.Context, cfg Config, lb *linkbench, dir string, o ScenarioOptions) (LoadResult, error) {
	opts, err := cfg.StoreOptions(lb.DataBytes())
	if err != nil {
		return LoadResult{}, err
	}
	st, err := zipsim.Open(dir, opts)
	if err != nil {
		return LoadResult{}, err
	}
	o.logf("loading linkbench maxid1=%d (c, KBS=8) into %s", t9MaxID1, dir)
	load, err := Prepare(ctx, cfg, st, lb, nil)
	return load, errors.Join(err, st.Close())
}

// t9Run reopens the store in dir in mode m and runs the requests, from a
// collected heap with its free memory given back to the OS, writing a CPU
// profile of them into profile when that is not empty.
func t9Run(ctx context.Context, cfg Config, lb *linkbench, dir string, m t9Mode, load *LoadResult, profile string) (t9Result, error) {
	cfg.Frames, cfg.NoZlibReuse = m.frames, m.noReuse
	cfg, err := cfg.Validate()
	if err != nil {
		return t9Result{}, err
	}
	opts, err := cfg.StoreOptions(lb.DataBytes())
	if err != nil {
		return t9Result{}, err
	}
	// Earlier stores' arenas are unmapped by cleanups that run on their
	// own goroutine after a collection finds them unreachable.
	for range 3 {
		runtime.GC()
		time.Sleep(20 * time.Millisecond)
	}
	debug.FreeOSMemory()
	r := t9Result{mode: m, pre: readMem()}
	st, err := zipsim.Open(dir, opts)
	if err != nil {
		return r, err
	}
	r.rep, err = Run(ctx, cfg, st, lb, RunOptions{Load: load, CPUProfile: profile})
	if err = errors.Join(err, st.Close()); err != nil {
		return r, err
	}
	pool := float64(opts.Pool.Bytes)
	for _, iv := range r.rep.Intervals {
		r.grow = append(r.grow, (float64(iv.Memory.RSS)-float64(r.pre.rss))/pool)
		r.sys = append(r.sys, (float64(iv.Memory.Sys)-float64(r.pre.ms.Sys))/pool)
		r.gcs = append(r.gcs, iv.Memory.GCCPUFraction)
	}
	return r, nil
}

// t9ReadPct is the share of LinkBench's read operations in its mix.
func t9ReadPct() float64 {
	var r, all float64
	for i, op := range linkbenchOps {
		all += op.pct
		switch i {
		case lbGetLinkList, lbGetNode, lbCountLink, lbGetLink:
			r += op.pct
		}
	}
	return 100 * r / all
}

// plotT9 draws, per interval, the process's growth since before the
// store (RSS and Go Sys) over the cache in the arena and per-miss runs,
// with the two bands.
func plotT9(path string, arena, perMiss t9Result) error {
	xy := func(vs []float64) plotter.XYs {
		out := make(plotter.XYs, len(vs))
		for i, v := range vs {
			out[i] = plotter.XY{X: float64(i + 1), Y: v}
		}
		return out
	}
	n := float64(max(len(arena.grow), len(perMiss.grow)))
	band := func(y float64) plotter.XYs { return plotter.XYs{{X: 0.5, Y: y}, {X: n + 0.5, Y: y}} }
	p := newPlot("T9: process growth over the buffer pool, arena vs per-miss frames, linkbench c, cache 0.25× data",
		fmt.Sprintf("interval (%v each)", t9Interval), "memory growth / buffer pool size (ratio)")
	if err := addLines(p, []string{"arena: RSS", "arena: Go Sys", "per-miss: RSS", "per-miss: Go Sys", "pass: arena ≤ 1.15", "pass: per-miss ≥ 1.5"},
		[]plotter.XYs{xy(arena.grow), xy(arena.sys), xy(perMiss.grow), xy(perMiss.sys), band(1.15), band(1.5)}); err != nil {
		return err
	}
	_, hi := spread(arena.grow, arena.sys, perMiss.grow, perMiss.sys)
	p.Y.Min = 0
	p.Y.Max = max(hi, 1.5) * 1.3
	p.X.Min, p.X.Max = 0.5, n+0.5
	p.X.Tick.Marker = t679IntTicks(int(n))
	return savePlot(p, path)
}
