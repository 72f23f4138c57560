package sim

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"slices"
	"strings"
	"time"

	"github.com/zipsim/zipsim"
	"github.com/zipsim/zipsim/compress"
	"github.com/zipsim/zipsim/internal/latch"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// T8 (research/targets.md §1, seed 004): MySQL 5.7's transparent page
// compression (punched holes, a DYNAMIC table compressed in the I/O path)
// against old-style ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=8, on the
// LinkBench-like workload with hash-partitioned link and count tables, in
// stores on real files (so that holes are punched and DROP TABLE unlinks
// real files) behind a simulated disk.
func init() {
	register(Scenario{
		ID:    "T8",
		Title: "transparent compression: faster load, slower queries, slow DROP",
		Seed: "seed 004 (5.7.8, partitioned LinkBench): load transparent/old-style +9.6% IO-bound, 2.18× cached; " +
			"QPS −6..−7% IO-bound, ≈0.8 cached; old-style 4% larger; DROP TABLE 30–43× slower; extents 11,446 vs 11,865,620",
		Run: runT8,
	})
}

// T8's size and settings.
const (
	t8MaxID1     = 400_000
	t8Partitions = 32
	t8Threads    = 2
	t8PoolRatio  = 0.25 // of the uncompressed data: IO-bound, as the seed's maxid1=100M runs
	t8IOLatency  = 100 * time.Microsecond
	t8Warmup     = 2 * time.Second
	t8Duration   = 6 * time.Second // a round's
	// t8Rounds alternate the two arms' requests on their loaded stores;
	// a round after the first warms up for t8RoundWarmup only.
	t8Rounds      = 3
	t8RoundWarmup = 500 * time.Millisecond
	t8Sync        = true
	// t8ProcsPerCore sets GOMAXPROCS during T8 to this many times its
	// value (the cores). InnoDB's connections and page cleaner are OS
	// threads, which the kernel runs in slices of a few milliseconds;
	// Go runs at most GOMAXPROCS goroutines and preempts one only after
	// 10 ms, so with one P a core a requester back from a read queues
	// until a running goroutine blocks: a cleaner's writer compressing a
	// transparent page takes 300 µs or more with czlib. With twice as
	// many Ps the kernel shares the cores among more of them. T8's
	// checks passed in one run at each of 1×, 1.5×, 2× and 4×
	// (BENCHMARKS.md, T8, with the goroutines' waits for a P, which T8
	// prints).
	t8ProcsPerCore = 2
)

// t8Latency is the simulated disk's and t8Pool the pool's share of the
// data; the machinery test turns the disk off and caches everything.
var (
	t8Latency = t8IOLatency
	t8Pool    = t8PoolRatio
)

// t8Mode is one of the two ways to compress.
type t8Mode struct {
	name string
	rf   string
	kbs  int
}

var t8Modes = []t8Mode{{"transparent", "transparent", 0}, {"old-style KBS=8", "compressed", 8}}

// t8Result is one mode's measurements.
type t8Result struct {
	rows           int64
	load           time.Duration // Create + Load + Flush: transparent compresses when pages are written
	loadCPU        time.Duration
	qps            float64
	cpuPerOp       time.Duration // the process's CPU an operation over the requests, the cleaner's included
	schedMean      time.Duration // goroutines' mean wait, runnable, for a P over the requests
	schedP99       time.Duration // and its 99th percentile (a bucket's upper bound)
	reads          float64       // pages read per operation
	inflates       float64       // page decompressions per operation (pool and tablespace)
	writes         float64       // pages written per operation
	zipCompress    float64       // B-tree page compressions (INNODB_CMP's compress_ops) per operation (old-style)
	holePunches    float64       // pages written compressed per operation (transparent)
	pageDeflates   float64       // pages the file layer deflated per operation, those stored whole included (transparent)
	deflateTime    time.Duration // compressing an operation: B-tree pages (INNODB_CMP) and pages written (transparent)
	inflateTime    time.Duration // decompressing an operation, both kinds
	files          int           // link and count tablespaces
	logical        int64         // their pages × page size
	apparent       int64         // their file sizes (ls -l)
	allocated      int64         // what the file system allocated (du)
	holes          int64         // slots stored compressed, each followed by a punched hole
	fsExtents      int64         // extents of the link and count files as the file system maps them (FIEMAP)
	fsFiles        int           // files FIEMAP counted; 0 where it cannot
	dbApparent     int64         // every table's files, nodetable included: the database
	dbAllocated    int64
	perTable       map[string][3]int64 // logical, apparent, allocated bytes by table
	drop           time.Duration       // DropTable of both tables, whole
	unlink         time.Duration       // releasing the files' blocks and extents (see t8Run)
	cmpOps, cmpOK  uint64
	recompressions uint64
}

func t8Config(m t8Mode, maxid1 int) Config {
	return Config{
		Workload: "linkbench", Seed: 1, Threads: t8Threads, Warmup: t8Warmup, Duration: t8Duration,
		ReportInterval: time.Second, RowFormat: m.rf, KBS: m.kbs, Codec: seedCodec, Partitions: t8Partitions,
		PoolRatio: t8Pool, IOLatency: t8Latency, ChangeBuffering: true, Latches: seedLatches, StatementCPU: lbRequestCPU,
		// 5.7 runs page cleaners, as T6 and T7's IO-bound loads do: a
		// transparent page is compressed by whichever thread writes it.
		PageCleaner: true, LRUScanDepth: t6CleanerFree,
		// The seed's 5.7.8 took the index lock SX for splits and merges.
		SXIndexLock: true,
		Linkbench:   LinkbenchConfig{MaxID1: maxid1},
	}
}

// t8Arm is one mode's store while T8 measures it: loaded once, then
// measured in rounds that alternate with the other mode's.
type t8Arm struct {
	mode t8Mode
	cfg  Config
	w    Workload
	st   *zipsim.Store
	dir  string
	r    t8Result
	sum  t8Sums
}

// t8Sums adds up an arm's rounds.
type t8Sums struct {
	ops, cpu, wall               float64 // operations, CPU and measured seconds
	reads, inflates, writes, zip uint64
	punched, whole               uint64
	deflate, inflate             time.Duration
	schedMean, schedP99          time.Duration // the largest of the rounds'
}

// t8Open loads mode in a store under a new temporary directory, which
// close removes.
func t8Open(ctx context.Context, o ScenarioOptions, mode t8Mode, maxid1 int, duration time.Duration, sync bool) (*t8Arm, error) {
	a := &t8Arm{mode: mode}
	cfg, err := t8Config(mode, maxid1).Validate()
	if err != nil {
		return nil, err
	}
	cfg.Duration = duration
	cfg.Warmup = min(t8Warmup, duration/4)
	cfg.ReportInterval = max(min(time.Second, duration/4), minReportInterval)
	a.cfg = cfg
	if a.w, err = New(cfg); err != nil {
		return nil, err
	}
	opts, err := cfg.StoreOptions(a.w.DataBytes())
	if err != nil {
		return nil, err
	}
	// InnoDB fsyncs its files (the seed's did); without it ext4's delayed
	// allocation leaves the punched files' extents unallocated, and their
	// unlink costs what a dense file's does.
	opts.NoSync = !sync
	if a.dir, err = os.MkdirTemp("", "zipsim-t8-"); err != nil {
		return nil, err
	}
	if a.st, err = zipsim.Open(a.dir, opts); err != nil {
		return nil, errors.Join(err, os.RemoveAll(a.dir))
	}

	o.logf("T8: %s: load maxid1=%d, %d partitions, pool %d MiB, %v I/O", mode.name, maxid1, t8Partitions, opts.Pool.Bytes>>20, t8IOLatency)
	st, r := a.st, &a.r
	m0 := st.Metrics()
	cpu0 := t8CPU()
	start := time.Now()
	err = a.w.Create(ctx, st)
	if err == nil {
		err = a.w.Load(ctx, st, nil)
	}
	if err == nil {
		err = st.Flush()
	}
	if err != nil {
		return nil, errors.Join(err, a.close())
	}
	r.load = time.Since(start)
	r.loadCPU = t8CPU() - cpu0
	r.rows = a.w.LoadRows()
	ld := st.Metrics().Sub(m0)
	c := ld.Pool.CMP.Total()
	r.cmpOps, r.cmpOK = c.CompressOps, c.CompressOpsOK
	for _, x := range ld.Indexes {
		r.recompressions += x.BTree.Recompressions
	}
	return a, nil
}

// round runs one round of the arm's requests; round 0 warms up for
// cfg.Warmup, later ones only for t8RoundWarmup, the pool being as the
// previous round left it. It returns the round's QPS.
func (a *t8Arm) round(ctx context.Context, o ScenarioOptions, round int) (float64, error) {
	cfg := a.cfg
	profile := ""
	if round > 0 {
		cfg.Warmup = min(cfg.Warmup, t8RoundWarmup)
	} else {
		profile = o.cpuProfile("T8", a.mode.name)
	}
	o.logf("T8: %s: requests, round %d of %d: %v after %v of warm-up", a.mode.name, round+1, t8Rounds, cfg.Duration, cfg.Warmup)
	sched0 := readSchedLatencies()
	rep, err := Run(ctx, cfg, a.st, a.w, RunOptions{CPUProfile: profile, Round: round})
	if err != nil {
		return 0, err
	}
	s := &a.sum
	mean, p99 := schedWait(sched0, readSchedLatencies())
	s.schedMean, s.schedP99 = max(s.schedMean, mean), max(s.schedP99, p99)
	s.ops += float64(rep.Totals.Ops)
	s.wall += rep.Totals.Wall.Seconds()
	s.cpu += rep.Totals.CPU.Seconds()
	d := rep.Metrics
	cmp := d.Pool.CMP.Total()
	s.reads += d.Pool.Reads
	s.writes += d.Pool.Writes
	s.zip += cmp.CompressOps
	s.inflates += cmp.UncompressOps
	s.deflate += cmp.CompressTime
	s.inflate += cmp.UncompressTime
	for _, sp := range d.Spaces {
		s.inflates += sp.IO.Decompressions
		s.punched += sp.IO.PagesCompressed
		s.whole += sp.IO.PagesNoSaving
		s.deflate += sp.IO.CompressTime
		s.inflate += sp.IO.DecompressTime
	}
	return rep.Totals.QPS, nil
}

// finish turns the rounds' sums into the arm's figures per operation,
// then measures its files and drops its tables, timing the unlinks, and
// closes the store.
func (a *t8Arm) finish(ctx context.Context) (t8Result, error) {
	r, s := &a.r, &a.sum
	r.schedMean, r.schedP99 = s.schedMean, s.schedP99
	if ops := s.ops; ops > 0 && s.wall > 0 {
		perOp := func(t time.Duration) time.Duration { return time.Duration(float64(t) / ops) }
		r.qps = ops / s.wall
		r.cpuPerOp = time.Duration(s.cpu / ops * float64(time.Second))
		r.reads = float64(s.reads) / ops
		r.inflates = float64(s.inflates) / ops
		r.writes = float64(s.writes) / ops
		r.zipCompress = float64(s.zip) / ops
		r.holePunches = float64(s.punched) / ops
		r.pageDeflates = float64(s.punched+s.whole) / ops
		r.deflateTime, r.inflateTime = perOp(s.deflate), perOp(s.inflate)
	}
	res, err := a.measureAndDrop(ctx)
	return res, errors.Join(err, a.close())
}

// close closes the store, if still open, and removes its directory.
func (a *t8Arm) close() error {
	var err error
	if a.st != nil {
		err = a.st.Close()
		a.st = nil
	}
	return errors.Join(err, os.RemoveAll(a.dir))
}

// measureAndDrop flushes the store, reads its files' sizes and extents,
// and drops the link and count tables, timing the last unlink of each
// file apart (see below).
func (a *t8Arm) measureAndDrop(ctx context.Context) (t8Result, error) {
	st, dir, r := a.st, a.dir, a.r
	if err := st.Flush(); err != nil {
		return r, err
	}
	r.perTable = map[string][3]int64{}
	for _, s := range st.Metrics().Spaces {
		r.dbApparent += s.Usage.ApparentBytes
		r.dbAllocated += s.Usage.AllocatedBytes
		pt := r.perTable[s.Table]
		pt[0] += s.Usage.LogicalBytes
		pt[1] += s.Usage.ApparentBytes
		pt[2] += s.Usage.AllocatedBytes
		r.perTable[s.Table] = pt
		if s.Table != "linktable" && s.Table != "counttable" {
			continue
		}
		r.files++
		r.logical += s.Usage.LogicalBytes
		r.apparent += s.Usage.ApparentBytes
		r.allocated += s.Usage.AllocatedBytes
		r.holes += s.Usage.Holes
	}
	for _, t := range []string{"linktable", "counttable"} {
		files, err := filepath.Glob(filepath.Join(dir, t+"*.ibd"))
		if err != nil {
			return r, err
		}
		for _, f := range files {
			if n, ok := t8Extents(f); ok {
				r.fsExtents += n
				r.fsFiles++
			}
		}
	}
	if r.fsFiles != r.files {
		r.fsExtents, r.fsFiles = 0, 0 // not every file could be counted
	}
	// A second name for each file keeps its inode alive through DropTable,
	// so that the last unlink, which frees the blocks and extents, can be
	// timed by itself: the part of DROP TABLE that punched holes make slow.
	var links []string
	for _, t := range []string{"linktable", "counttable"} {
		files, err := filepath.Glob(filepath.Join(dir, t+"*.ibd"))
		if err != nil {
			return r, err
		}
		for _, f := range files {
			l := filepath.Join(dir, "unlink-"+filepath.Base(f))
			if err := os.Link(f, l); err != nil {
				return r, err
			}
			links = append(links, l)
		}
	}
	for _, t := range []string{"linktable", "counttable"} {
		d, err := st.DropTable(ctx, t)
		if err != nil {
			return r, err
		}
		r.drop += d
	}
	unlinked := time.Now()
	for _, l := range links {
		if err := os.Remove(l); err != nil {
			return r, err
		}
	}
	r.unlink = time.Since(unlinked)
	return r, nil
}

// t8CPU is the process's CPU time, 0 where unknown.
func t8CPU() time.Duration {
	d, err := latch.ProcessCPU()
	if err != nil {
		return 0
	}
	return d
}

// t8Measured is what T8 compares.
type t8Measured struct {
	maxid1                         int
	t, old                         t8Result
	load, qps, size, ext, drp, unl float64
	sizeLC                         float64       // link and count tables only
	extModel                       float64       // extents per file modelled from the holes
	extFS                          bool          // ext is FIEMAP's, not the model's
	procs                          int           // GOMAXPROCS while measuring
	rounds                         []float64     // each round's QPS transparent/old; qps is their median
	window, warmup                 time.Duration // a round's requests, and the first round's warm-up
}

func t8Measure(ctx context.Context, o ScenarioOptions, maxid1 int, duration time.Duration, sync bool) (t8Measured, error) {
	procs := runtime.GOMAXPROCS(0)
	runtime.GOMAXPROCS(t8ProcsPerCore * procs)
	defer runtime.GOMAXPROCS(procs)
	m := t8Measured{maxid1: maxid1, procs: t8ProcsPerCore * procs, window: duration}
	var arms [2]*t8Arm
	defer func() {
		for _, a := range arms {
			if a != nil {
				a.close()
			}
		}
	}()
	for i, mode := range t8Modes {
		a, err := t8Open(ctx, o, mode, maxid1, duration, sync)
		if err != nil {
			return m, err
		}
		arms[i] = a
		m.warmup = a.cfg.Warmup
	}
	// Rounds alternate the arms, each round in the other order (ABBA),
	// so that both see the machine alike, and the check takes the median
	// of the rounds' ratios.
	for round := range t8Rounds {
		var qps [2]float64
		for k := range arms {
			i := k
			if round%2 == 1 {
				i = len(arms) - 1 - k
			}
			var err error
			if qps[i], err = arms[i].round(ctx, o, round); err != nil {
				return m, err
			}
		}
		m.rounds = append(m.rounds, qps[0]/qps[1])
	}
	var err error
	if m.t, err = arms[0].finish(ctx); err != nil {
		return m, err
	}
	if m.old, err = arms[1].finish(ctx); err != nil {
		return m, err
	}
	loadRate := func(r t8Result) float64 { return float64(r.rows) / r.load.Seconds() }
	m.load = loadRate(m.t) / loadRate(m.old)
	m.qps = median(slices.Clone(m.rounds))
	// Seed 004 compared the database's size at the end of the query test.
	m.size = float64(m.t.dbAllocated) / float64(m.old.dbApparent)
	m.sizeLC = float64(m.t.allocated) / float64(m.old.apparent)
	// Extents per file, modelled: a dense file is one extent, and each
	// punched hole ends one and starts another.
	ext := func(r t8Result) float64 { return (float64(r.holes) + float64(r.files)) / float64(r.files) }
	m.extModel = ext(m.t) / ext(m.old)
	m.ext = m.extModel
	if m.t.fsFiles > 0 && m.old.fsFiles > 0 && m.old.fsExtents > 0 {
		m.ext = (float64(m.t.fsExtents) / float64(m.t.fsFiles)) / (float64(m.old.fsExtents) / float64(m.old.fsFiles))
		m.extFS = true
	}
	m.drp = m.t.drop.Seconds() / m.old.drop.Seconds()
	m.unl = m.t.unlink.Seconds() / m.old.unlink.Seconds()
	return m, nil
}

func runT8(ctx context.Context, o ScenarioOptions) (*Outcome, error) {
	m, err := t8Measure(ctx, o, t8MaxID1, t8Duration, t8Sync)
	if err != nil {
		return nil, err
	}
	out := &Outcome{}
	out.Check("load rows/s transparent/old", m.load, AtLeast(1.1))
	out.Check("QPS transparent/old", m.qps, Within(0.7, 0.97))
	out.Check("database size transparent/old", m.size, Within(0.85, 1.15))
	out.Check("extents per file transparent/old", m.ext, AtLeast(100))
	out.Check("DROP TABLE unlink time transparent/old", m.unl, AtLeast(10))
	t8Notes(out, m)
	mdb, err := MariaDBT8Figures()
	if err != nil {
		return nil, err
	}
	out.Notef("%s", t8MariaDB(mdb))
	out.Notef("T8 runs without purge: zipsim removes delete-marked records at once, and its purge of DB_TRX_ID (Options.Purge) is MariaDB 10.3+'s, which 5.7 does not have; the real-InnoDB setting with a snapshot held shows what purge costs MariaDB in this shape (BENCHMARKS.md, T8)")
	if o.Out != "" {
		path := filepath.Join(o.Out, "t8-transparent.png")
		if err := t8Plot(path, m, out.Checks); err != nil {
			return nil, err
		}
		out.Plot = path
	}
	return out, nil
}

// schedLatencyMetric is how long goroutines waited, runnable, before they
// ran (runtime/metrics): what T8's GOMAXPROCS setting is about.
const schedLatencyMetric = "/sched/latencies:seconds"

// readSchedLatencies reads schedLatencyMetric; nil where the runtime
// lacks it.
func readSchedLatencies() *metrics.Float64Histogram {
	m := []metrics.Sample{{Name: schedLatencyMetric}}
	metrics.Read(m)
	if m[0].Value.Kind() != metrics.KindFloat64Histogram {
		return nil
	}
	return m[0].Value.Float64Histogram()
}

// schedWait gives the mean and the 99th percentile of the waits counted
// between readings a and b: the mean from the buckets' midpoints (an
// unbounded bucket at its finite edge), the percentile as its bucket's
// upper bound. Zero where either reading is missing or nothing waited.
func schedWait(a, b *metrics.Float64Histogram) (mean, p99 time.Duration) {
	if a == nil || b == nil || len(a.Counts) != len(b.Counts) {
		return 0, 0
	}
	edge := func(v, other float64) float64 {
		if math.IsInf(v, 0) {
			return other
		}
		return v
	}
	var n uint64
	var sum float64
	for i := range b.Counts {
		c := b.Counts[i] - a.Counts[i]
		lo, hi := b.Buckets[i], b.Buckets[i+1]
		lo, hi = edge(lo, hi), edge(hi, lo)
		n += c
		sum += float64(c) * (lo + hi) / 2
	}
	if n == 0 {
		return 0, 0
	}
	var seen uint64
	for i := range b.Counts {
		seen += b.Counts[i] - a.Counts[i]
		if seen*100 >= n*99 {
			p99 = time.Duration(edge(b.Buckets[i+1], b.Buckets[i]) * float64(time.Second))
			break
		}
	}
	return time.Duration(sum / float64(n) * float64(time.Second)), p99
}

// t8MariaDB summarises mariadb_t8.sh's runs for each setting recorded
// (innodb_lru_scan_depth, and whether a snapshot held purge back): the
// ratios T8 checks from the modes run back to back in each repeat, and
// each mode's throughput, server CPU and pool reads an operation.
func t8MariaDB(runs []MariaDBT8Run) string {
	type setting struct {
		depth int
		held  bool
	}
	type key struct {
		setting
		repeat int
	}
	byRepeat := map[key]map[string]MariaDBT8Run{}
	var settings []setting
	repeats := map[setting][]int{}
	for _, r := range runs {
		k := key{setting{r.LRUScanDepth, r.SnapshotHeld}, r.Repeat}
		if byRepeat[k] == nil {
			byRepeat[k] = map[string]MariaDBT8Run{}
			if len(repeats[k.setting]) == 0 {
				settings = append(settings, k.setting)
			}
			repeats[k.setting] = append(repeats[k.setting], k.repeat)
		}
		byRepeat[k][r.Mode] = r
	}
	us := func(r MariaDBT8Run) float64 { return float64(r.CPUPerOp()) / 1e3 }
	var b strings.Builder
	b.WriteString("real InnoDB in this shape (MariaDB 10.11.14, sim/calibration/mariadb_t8.sh: the same rows and request mix as SQL, 2 loaders and 2 requesters, transparent as PAGE_COMPRESSED=1, a 65 MiB pool, O_DIRECT reads from this machine's disk; " +
		"recorded 2026-12-01 on this project's 2-core machine, not measured by this run; its page cleaner aims to keep innodb_lru_scan_depth pages free: 10.11's default, 1536, 37% of this pool, and 100, its least, close to this run's cleaner's 64):")
	for _, st := range settings {
		var qpsRatio, loadRatio, qps, cpu, reads []string
		for _, rep := range repeats[st] {
			m := byRepeat[key{st, rep}]
			u, t, old := m["u"], m["transparent"], m["old"]
			if u.QPS == 0 || t.QPS == 0 || old.QPS == 0 {
				continue
			}
			qpsRatio = append(qpsRatio, fmt.Sprintf("%.2f", t679Ratio(t.QPS, old.QPS)))
			loadRatio = append(loadRatio, fmt.Sprintf("%.2f", t679Ratio(old.LoadWall.Seconds(), t.LoadWall.Seconds())))
			qps = append(qps, fmt.Sprintf("%.0f/%.0f/%.0f", u.QPS, t.QPS, old.QPS))
			cpu = append(cpu, fmt.Sprintf("%.0f/%.0f/%.0f", us(u), us(t), us(old)))
			reads = append(reads, fmt.Sprintf("%.2f/%.2f/%.2f", u.ReadsPerOp, t.ReadsPerOp, old.ReadsPerOp))
		}
		held := ""
		if st.held {
			held = ", a snapshot held over the requests: no purge"
		}
		fmt.Fprintf(&b, " [innodb_lru_scan_depth=%d%s] QPS transparent/old %s; load rows/s transparent/old %s; QPS u/transparent/old %s; "+
			"server CPU an operation u/transparent/old, µs: %s; pool reads an operation u/transparent/old: %s",
			st.depth, held, strings.Join(qpsRatio, " "), strings.Join(loadRatio, " "), strings.Join(qps, "; "), strings.Join(cpu, "; "), strings.Join(reads, "; "))
	}
	return b.String()
}

func t8Notes(out *Outcome, m t8Measured) {
	mib := func(b int64) float64 { return float64(b) / (1 << 20) }
	out.Notef("linkbench maxid1=%d, linktable and counttable partitioned %d ways by KEY(id1) and KEY(id), MySQL's hash (nodetable DYNAMIC and unpartitioned in both, in the database size but left out of extents and drops), %d threads, stores on files (fsync on flush, as InnoDB does) behind %v a page read or write, pool %.2f of the uncompressed data, change buffer on (5.7's default), a page cleaner keeping %d frames free, %s latches (Config.Latches), 5.7's SX index lock for splits and merges (Config.SXIndexLock); both modes compress with %s (InnoDB's deflate; in this build the %s), transparent with compress2's parameters (windowBits 15, memLevel 8) as 5.7's os_file_compress_page does, old-style with page_zip_compress's",
		m.maxid1, t8Partitions, t8Threads, t8IOLatency, t8PoolRatio, t6CleanerFree, seedLatches, seedCodec, compress.CZlibImplementation())
	out.Notef("each request spends %v of modelled server-layer CPU (Config.StatementCPU): MariaDB's CPU a request on an uncompressed table in this shape less zipsim's engine's; GOMAXPROCS %d, %d× its value before T8 (the cores, unless set), so that the kernel, which schedules InnoDB's threads, shares the cores among more of the goroutines that stand for them, rather than Go's run queue holding a requester back from a read until a running goroutine, such as a page cleaner's writer compressing, blocks (BENCHMARKS.md, T8)",
		lbRequestCPU, m.procs, t8ProcsPerCore)
	ratios := make([]string, len(m.rounds))
	for i, q := range m.rounds {
		ratios[i] = fmt.Sprintf("%.3f", q)
	}
	out.Notef("both stores are loaded first, then measured in %d rounds that alternate the arms, transparent first in odd rounds, each round drawing new requests (%v of requests each, after %v of warm-up in the first round and %v in the others): QPS transparent/old by round %s, the check taking their median; each arm's figures below are over all its rounds, its goroutines' waits for a P the largest round's; a CPU profile covers the first round only",
		len(m.rounds), m.window, m.warmup, min(m.warmup, t8RoundWarmup), strings.Join(ratios, ", "))
	for _, x := range []struct {
		n string
		r t8Result
	}{{"transparent", m.t}, {"old-style KBS=8", m.old}} {
		r := x.r
		out.Notef("%s: load %d rows in %.2fs (Create+Load+Flush, %.0f rows/s, %.2fs CPU); B-tree compressions %d (%d failed), recompressions %d",
			x.n, r.rows, r.load.Seconds(), float64(r.rows)/r.load.Seconds(), r.loadCPU.Seconds(), r.cmpOps, r.cmpOps-r.cmpOK, r.recompressions)
		out.Notef("%s: %.0f QPS; %.3f pages read, %.3f inflates, %.3f B-tree page compressions and %.3f pages written (%.3f of them stored compressed, a hole punched after each, of %.3f deflated) per operation; %.0f µs of CPU an operation (the process's, page cleaner included), and %.0f µs compressing and %.0f µs decompressing (wall time in the codec, waits for a core included); goroutines waited, runnable, %.1f µs for a P on average, 99th percentile %.0f µs",
			x.n, r.qps, r.reads, r.inflates, r.zipCompress, r.writes, r.holePunches, r.pageDeflates, float64(r.cpuPerOp)/1e3, float64(r.deflateTime)/1e3, float64(r.inflateTime)/1e3, float64(r.schedMean)/1e3, float64(r.schedP99)/1e3)
		out.Notef("%s: %d files: logical %.1f MiB, file %.1f MiB, allocated %.1f MiB, %d punched holes (%.0f per file); DROP TABLE of both tables %.2f ms",
			x.n, r.files, mib(r.logical), mib(r.apparent), mib(r.allocated), r.holes, float64(r.holes)/float64(r.files), float64(r.drop)/1e6)
	}
	out.Notef("database size at the end of the requests, as seed 004 measured it: transparent %.1f MiB allocated, old-style %.1f MiB of files (nodetable, DYNAMIC in both, included); link and count tables alone %.3f",
		mib(m.t.dbAllocated), mib(m.old.dbApparent), m.sizeLC)
	for _, tb := range []string{"linktable", "counttable", "nodetable"} {
		a, b := m.t.perTable[tb], m.old.perTable[tb]
		out.Notef("%s: transparent %.1f MiB of pages in %.1f MiB allocated (%.2f); old-style %.1f MiB of pages in %.1f MiB of files (%.2f)",
			tb, mib(a[0]), mib(a[2]), float64(a[2])/float64(max(a[0], 1)), mib(b[0]), mib(b[1]), float64(b[1])/float64(max(b[0], 1)))
	}
	if m.extFS {
		out.Notef("extents per file from the file system (FIEMAP): transparent %.1f (%d in %d files), old-style %.1f (%d in %d files); modelled from the holes (a dense file 1 extent, each hole one more) the ratio would be %.1f",
			float64(m.t.fsExtents)/float64(m.t.fsFiles), m.t.fsExtents, m.t.fsFiles,
			float64(m.old.fsExtents)/float64(m.old.fsFiles), m.old.fsExtents, m.old.fsFiles, m.extModel)
	} else {
		out.Notef("extents per file are modelled from the punched holes (a dense file is 1 extent, each hole adds one): this file system cannot count them (no FIEMAP)")
	}
	out.Notef("the extents ratio grows with pages per file, so it depends on the scale: the seed's partitions held gigabytes, these hold %.0f pages each",
		float64(m.t.logical)/float64(m.t.files)/16384)
	out.Notef("DROP TABLE per file, real wall time: unlink (the last link of the file, which frees its blocks and extents) transparent %.3f ms, old-style %.3f ms; the whole DropTable (the pool's DropSpace, closing, removing a name, the catalog rewrite with fsync) transparent %.1f ms, old-style %.1f ms, ratio %.1f. zipsim has no model of unlink cost per extent: these are this file system's (ext4 here), after fsync",
		float64(m.t.unlink)/1e6/float64(m.t.files), float64(m.old.unlink)/1e6/float64(m.old.files),
		float64(m.t.drop)/1e6/float64(m.t.files), float64(m.old.drop)/1e6/float64(m.old.files), m.drp)
	if m.unl < 10 {
		out.Notef("why the unlink ratio misses ≥ 10: files with %.0f punched holes each take little longer to free than dense ones; the seed's 30–43× came from files with millions of extents",
			float64(m.t.holes)/float64(m.t.files))
	}
}

// t8Plot draws each measured ratio as a bar, with its band's bounds as
// markers, on a log scale.
func t8Plot(path string, m t8Measured, checks []Check) error {
	var cats []string
	var vals, los, his []float64
	names := []string{"load rows/s", "QPS", "size", "extents/file", "DROP time"}
	for i, c := range checks {
		cats = append(cats, names[i])
		vals = append(vals, c.Value)
		los = append(los, c.Band.Lo)
		his = append(his, c.Band.Hi)
	}
	p := newPlot(fmt.Sprintf("T8: transparent / old-style KBS=8, linkbench maxid1=%d, %d partitions", m.maxid1, t8Partitions),
		"what is compared", "transparent / old-style, log scale")
	p.NominalX(cats...)
	lo, hi := spread(vals, los)
	setLogY(p, min(lo, 0.5), hi)
	p.Y.Label.Text = "transparent / old-style (ratio), log scale"
	p.X.Min, p.X.Max = -0.5, float64(len(cats))-0.5
	b := &bars{vals: vals, width: plotWidth * 0.5 / vg.Length(len(cats)), color: plotutil.Color(1)}
	p.Add(b)
	p.Legend.Add("measured", b)
	for k, bound := range []struct {
		name  string
		vs    []float64
		shape draw.GlyphDrawer
	}{{"band: lowest passing", los, draw.TriangleGlyph{}}, {"band: highest passing", his, draw.PlusGlyph{}}} {
		var xys plotter.XYs
		for i, v := range bound.vs {
			if !math.IsInf(v, 0) && v > 0 {
				xys = append(xys, plotter.XY{X: float64(i), Y: v})
			}
		}
		if len(xys) == 0 {
			continue
		}
		s, err := plotter.NewScatter(xys)
		if err != nil {
			return err
		}
		s.Shape = bound.shape
		s.Radius = vg.Points(7)
		s.Color = plotutil.Color(k * 2)
		p.Add(s)
		p.Legend.Add(bound.name, s)
	}
	return savePlot(p, path)
}
