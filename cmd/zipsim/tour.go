package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/zipsim/zipsim"
	"github.com/zipsim/zipsim/sim"
)

const tourAbout = `The tour (what zipsim with no arguments runs, 2-3 minutes on 2 cores): a
sysbench table is loaded twice, uncompressed and at KEY_BLOCK_SIZE=8; the
buffer pool is then sized between the two tables' measured sizes, so that it
holds the compressed table but not the uncompressed one; each table runs
point selects and read-only transactions under split (8.0) and legacy (5.1)
buffer pool locking. The summary sets the numbers side by side: space, load
time, compression failures, decompressions per query, the wait share of the
busiest buffer pool lock, and throughput. Every run's report and plots go to
--out/runs/, the summary and the comparison plots to --out.`

// tourOptions are the tour's knobs.
type tourOptions struct {
	out      string
	format   string
	plots    string
	quiet    bool
	rows     int
	threads  int
	duration time.Duration
	warmup   time.Duration
	kbs      int
	seed     uint64
	poolPos  float64
}

// tourRun is one measured run of the tour.
type tourRun struct {
	Name    string  `json:"name"`
	Event   string  `json:"event"`
	Table   string  `json:"table"` // "uncompressed" or "KBS=8"
	Locking string  `json:"locking"`
	QPS     float64 `json:"qps"`
	TPS     float64 `json:"tps"`
	// UnzipPerQuery is UNCOMPRESS_OPS over the run divided by its
	// operations (queries).
	UnzipPerQuery float64 `json:"uncompress_per_query"`
	HitRate       float64 `json:"hit_rate"`
	ReadsPerQuery float64 `json:"reads_per_query"`
	// PoolLock is the buffer pool lock with the most wait, PoolLockShare
	// its wait / (threads × wall).
	PoolLock      string      `json:"pool_lock"`
	PoolLockShare float64     `json:"pool_lock_wait_share"`
	CPUUtil       float64     `json:"cpu_util"`
	Report        *sim.Report `json:"report"`
}

// tourLoad is one table's load.
type tourLoad struct {
	Table       string          `json:"table"`
	DiskBytes   int64           `json:"disk_bytes"`
	Wall        time.Duration   `json:"wall_ns"`
	CompressOps uint64          `json:"compress_ops"`
	FailurePct  float64         `json:"compress_failure_pct"`
	Config      sim.Config      `json:"config"`
	Load        *sim.LoadResult `json:"load"`
}

// tourResult is the tour's report.json.
type tourResult struct {
	Rows       int           `json:"rows"`
	Threads    int           `json:"threads"`
	Duration   time.Duration `json:"duration_ns"`
	Warmup     time.Duration `json:"warmup_ns"`
	GOMAXPROCS int           `json:"gomaxprocs"`
	PoolBytes  int64         `json:"pool_bytes"`
	Loads      []tourLoad    `json:"loads"` // uncompressed, then compressed
	Runs       []tourRun     `json:"runs"`
	Wall       time.Duration `json:"wall_ns"`
}

func cmdTour(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("tour")
	o := tourOptions{}
	var oflags outputFlags
	addOutputFlags(fs, &oflags, "zipsim-out")
	fs.IntVar(&o.rows, "rows", 80_000, "rows in the sysbench table")
	fs.IntVar(&o.threads, "threads", 4, "threads of each run")
	fs.DurationVar(&o.duration, "duration", 10*time.Second, "measurement of each run")
	fs.DurationVar(&o.warmup, "warmup", 2*time.Second, "warm-up before each run's measurement")
	o.kbs = 8
	fs.Var(kbsValue{&o.kbs}, "kbs", "KEY_BLOCK_SIZE of the compressed table")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the data and the operation choices")
	fs.Float64Var(&o.poolPos, "pool-between", 0.5, "where the pool sits between the compressed (0) and the uncompressed (1) table's size")
	pos, err := parseArgs(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		commandUsage(e, fs, "tour [flags]", tourAbout, "out", "format", "plots", "quiet", "rows", "threads", "duration", "warmup", "kbs", "seed", "pool-between")
		return err
	}
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("tour: unexpected argument %q (see zipsim help)", pos[0])
	}
	if err := oflags.check(); err != nil {
		return err
	}
	o.out, o.format, o.plots, o.quiet = oflags.out, oflags.format, oflags.plots, oflags.quiet
	switch {
	case o.rows < 1000:
		return usagef("tour: --rows %d: use at least 1000", o.rows)
	case o.threads < 1 || o.threads > 4096:
		return usagef("tour: --threads %d: use 1..4096", o.threads)
	case o.duration <= 0 || o.warmup < 0:
		return usagef("tour: --duration must be positive and --warmup not negative")
	case o.kbs != 1 && o.kbs != 2 && o.kbs != 4 && o.kbs != 8 && o.kbs != 16:
		return usagef("tour: --kbs %d: use 1, 2, 4, 8 or 16", o.kbs)
	case !(o.poolPos > 0 && o.poolPos < 1):
		return usagef("tour: --pool-between %v: use a fraction strictly between 0 and 1", o.poolPos)
	}
	exts, _ := oflags.plotExts()
	return runTour(ctx, e, o, exts)
}

// isPoolLock says whether a lock row is one of the buffer pool's own
// mutexes and latches (not page latches, index locks or row locks).
func isPoolLock(name string) bool {
	switch name {
	case "LRU_list_mutex", "free_list_mutex", "zip_free_mutex", "zip_mutex", "buf_pool_zip_mutex", "page_hash_latch", "zip_hash_mutex":
		return true
	}
	return false
}

func runTour(ctx context.Context, e *env, o tourOptions, exts []string) error {
	start := time.Now()
	tmp, err := os.MkdirTemp("", "zipsim-tour-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	cLabel := fmt.Sprintf("KBS=%d", o.kbs)
	base := sim.Config{
		Workload: "sysbench", Seed: o.seed, Threads: o.threads, Duration: o.duration, Warmup: o.warmup,
		ReportInterval: max(o.duration/10, time.Second),
		Sysbench:       sim.SysbenchConfig{Tables: 1, Rows: o.rows, Dist: "uniform"},
	}
	uCfg := base
	uCfg.RowFormat = "dynamic"
	cCfg := base
	cCfg.RowFormat, cCfg.KBS = "compressed", o.kbs
	// The loads get a pool that holds everything, so that they measure
	// compression, not eviction.
	uCfg.PoolRatio, cCfg.PoolRatio = 1.5, 1.5
	const steps = 10
	step := 0
	stepf := func(format string, args ...any) string {
		step++
		return fmt.Sprintf("[%d/%d] ", step, steps) + fmt.Sprintf(format, args...)
	}
	res := tourResult{Rows: o.rows, Threads: o.threads, Duration: o.duration, Warmup: o.warmup, GOMAXPROCS: runtime.GOMAXPROCS(0)}
	dirs := map[string]string{}
	for _, t := range []struct {
		name string
		cfg  *sim.Config
	}{{"uncompressed", &uCfg}, {cLabel, &cCfg}} {
		v, err := t.cfg.Validate()
		if err != nil {
			return usageErr(err)
		}
		*t.cfg = v
		dir := filepath.Join(tmp, strings.ReplaceAll(strings.ToLower(t.name), "=", ""))
		p, err := prepareDataset(ctx, e, o.quiet, v, dir, stepf(""))
		if err != nil {
			return interrupted(err)
		}
		c := p.Load.Metrics.Pool.CMP.Total()
		res.Loads = append(res.Loads, tourLoad{Table: t.name, DiskBytes: p.Load.DiskBytes, Wall: p.Load.Wall,
			CompressOps: c.CompressOps, FailurePct: c.FailurePct(), Config: v, Load: p.Load})
		dirs[t.name] = dir
	}
	u, c := res.Loads[0], res.Loads[1]
	// The pool sits between the two tables' sizes, in whole frames.
	const page = 16384
	pool := int64(float64(c.DiskBytes) + o.poolPos*float64(u.DiskBytes-c.DiskBytes))
	pool = max((pool+page-1)/page*page, page*64)
	res.PoolBytes = pool
	e.statusf(o.quiet, "       pool %s: between %s (%s) and %s (uncompressed)", humanBytes(pool), humanBytes(c.DiskBytes), cLabel, humanBytes(u.DiskBytes))

	for _, locking := range []string{"split", "legacy"} {
		for _, t := range []struct {
			name string
			cfg  sim.Config
			load *sim.LoadResult
		}{{"uncompressed", uCfg, u.Load}, {cLabel, cCfg, c.Load}} {
			cfg := t.cfg
			cfg.PoolRatio, cfg.PoolBytes, cfg.Locking = 0, pool, locking
			opts, err := cfg.StoreOptions(0) // PoolBytes is set: the data size does not matter
			if err != nil {
				return usageErr(err)
			}
			st, err := zipsim.Open(dirs[t.name], opts)
			if err != nil {
				return err
			}
			for _, ev := range []string{"oltp_point_select", "oltp_read_only"} {
				rc := cfg
				rc.Sysbench.Event = ev
				if rc, err = rc.Validate(); err != nil {
					st.Close()
					return usageErr(err)
				}
				// The workload carries the event: one per run.
				w, err := sim.New(rc)
				if err != nil {
					st.Close()
					return err
				}
				label := stepf("%s, %s, %s locking: ", shortEvent(ev), t.name, locking)
				e.statusf(o.quiet, "%s%d threads, %v after %v warm-up", label, rc.Threads, rc.Duration, rc.Warmup)
				progress, done := e.runProgress(o.quiet, "run", false, rc.Duration.Seconds())
				rep, err := sim.Run(ctx, rc, st, w, sim.RunOptions{Progress: progress, Load: t.load})
				done()
				if err != nil {
					st.Close()
					return interrupted(err)
				}
				res.Runs = append(res.Runs, summarizeRun(t.name, locking, ev, rep))
			}
			if err := st.Close(); err != nil {
				return err
			}
		}
	}
	res.Wall = time.Since(start)
	return writeTour(e, o, exts, &res)
}

// shortEvent names a sysbench event briefly.
func shortEvent(ev string) string {
	switch ev {
	case "oltp_point_select":
		return "point selects"
	case "oltp_read_only":
		return "read-only transactions"
	}
	return ev
}

func summarizeRun(table, locking, ev string, rep *sim.Report) tourRun {
	t := rep.Totals
	m := rep.Metrics
	r := tourRun{
		Name:  fmt.Sprintf("%s-%s-%s", strings.TrimPrefix(ev, "oltp_"), strings.ReplaceAll(strings.ToLower(table), "=", ""), locking),
		Event: ev, Table: table, Locking: locking, QPS: t.QPS, TPS: t.TPS,
		UnzipPerQuery: perOp(m.Pool.CMP.Total().UncompressOps, t.Ops),
		ReadsPerQuery: perOp(m.Pool.Reads, t.Ops),
		HitRate:       m.Pool.HitRate(), CPUUtil: t.CPUUtil, Report: rep,
	}
	r.PoolLock, r.PoolLockShare = busiestLock(m, isPoolLock, rep.Header.Threads, t.Wall)
	return r
}

// find returns the run of event, table and locking.
func (res *tourResult) find(ev, table, locking string) *tourRun {
	for i := range res.Runs {
		r := &res.Runs[i]
		if r.Event == ev && r.Table == table && r.Locking == locking {
			return r
		}
	}
	return &tourRun{}
}

func ratioOf(a, b float64) float64 {
	if b == 0 {
		return math.NaN()
	}
	return a / b
}

// writeTour writes the tour's files and prints its summary.
func writeTour(e *env, o tourOptions, exts []string, res *tourResult) error {
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	var files []string
	var reports []*sim.Report
	for _, r := range res.Runs {
		fs, err := writeRunOutputs(filepath.Join(o.out, "runs", r.Name), r.Report, exts)
		if err != nil {
			return err
		}
		files = append(files, fs...)
		reports = append(reports, r.Report)
	}
	var summary strings.Builder
	printTourSummary(&summary, res)
	for _, f := range []struct {
		name string
		fn   func(io.Writer) error
	}{
		{"report.txt", func(w io.Writer) error { _, err := io.WriteString(w, summary.String()); return err }},
		{"report.json", func(w io.Writer) error { return writeJSONValue(w, res) }},
		{"report.csv", func(w io.Writer) error { return sim.WriteSweepCSV(w, false, reports...) }},
	} {
		p := filepath.Join(o.out, f.name)
		if err := writeFile(p, f.fn); err != nil {
			return err
		}
		files = append(files, p)
	}
	cLabel := res.Loads[1].Table
	for _, ev := range []string{"oltp_point_select", "oltp_read_only"} {
		var vals []string
		var reps []*sim.Report
		for _, locking := range []string{"split", "legacy"} {
			for _, t := range []string{"uncompressed", cLabel} {
				vals = append(vals, fmt.Sprintf("%s, %s", t, locking))
				reps = append(reps, res.find(ev, t, locking).Report)
			}
		}
		for _, ext := range exts {
			p := filepath.Join(o.out, "tour-"+strings.TrimPrefix(ev, "oltp_")+ext)
			if err := sim.PlotSweep(shortEvent(ev)+": table, locking", vals, reps, p); err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
			files = append(files, p)
		}
	}
	var err error
	switch o.format {
	case "json":
		err = writeJSONValue(e.stdout, res)
	case "csv":
		err = sim.WriteSweepCSV(e.stdout, false, reports...)
	default:
		_, err = io.WriteString(e.stdout, summary.String())
	}
	if err != nil {
		return err
	}
	e.statusf(o.quiet, "wrote %d files into %s (summary: %s)", len(files), o.out, filepath.Join(o.out, "report.txt"))
	return nil
}

// printTourSummary prints the measured numbers side by side, each with
// a line of interpretation that depends on the numbers.
func printTourSummary(w io.Writer, res *tourResult) {
	u, c := res.Loads[0], res.Loads[1]
	cl := c.Table
	pf := func(format string, args ...any) { fmt.Fprintf(w, format+"\n", args...) }
	note := func(format string, args ...any) { pf("  -> "+format, args...) }
	row := func(label string, vals ...string) {
		line := fmt.Sprintf("%-30s", label)
		for _, v := range vals {
			line += fmt.Sprintf("%16s", v)
		}
		pf("%s", strings.TrimRight(line, " "))
	}

	pf("zipsim tour: sysbench, 1 table of %d rows, uncompressed (DYNAMIC) and ROW_FORMAT=COMPRESSED %s", res.Rows, cl)
	pf("%d threads on GOMAXPROCS=%d, each run %v after %v of warm-up; total wall time %.0fs", res.Threads, res.GOMAXPROCS, res.Duration, res.Warmup, res.Wall.Seconds())
	pf("")
	row("LOAD", "uncompressed", cl, cl+" / unc.")
	sr := ratioOf(float64(c.DiskBytes), float64(u.DiskBytes))
	row("  space (pages in the file)", humanBytes(u.DiskBytes), humanBytes(c.DiskBytes), fmt.Sprintf("%.2f", sr))
	switch {
	case sr < 0.9:
		note("%s stores the same rows in %.0f%% of the space.", cl, 100*sr)
	case sr <= 1.1:
		note("%s saved hardly any space here (%.2f of uncompressed).", cl, sr)
	default:
		note("%s took more space than uncompressed (%.2f): its pages compressed worse than the block allows.", cl, sr)
	}
	lr := ratioOf(c.Wall.Seconds(), u.Wall.Seconds())
	row("  load time", fmt.Sprintf("%.2fs", u.Wall.Seconds()), fmt.Sprintf("%.2fs", c.Wall.Seconds()), fmt.Sprintf("%.2f", lr))
	switch {
	case lr > 1.2 && c.FailurePct > 0:
		note("loading %s took %.1fx as long: every page it writes is deflated, and pages that overflow the block are compressed again after a split.", cl, lr)
	case lr > 1.2:
		note("loading %s took %.1fx as long: every page it writes is deflated.", cl, lr)
	case lr < 0.83:
		note("loading %s was faster (%.2fx) in this run, which compression would not explain: the loads are short, so timing noise is large.", cl, lr)
	default:
		note("the two loads took about as long (within 20%%): at this size compression did not dominate the load.")
	}
	row("  compress ops (failed)", fmt.Sprint(u.CompressOps), fmt.Sprintf("%d (%.1f%%)", c.CompressOps, c.FailurePct))
	switch {
	case c.CompressOps == 0:
		note("no page was compressed during the %s load, so there is nothing to compare.", cl)
	case c.FailurePct > 0:
		note("%.1f%% of compressions failed: the page did not fit its %s block and was split or reorganized and compressed again, work the uncompressed table never does.", c.FailurePct, cl)
	default:
		note("no compression failed: every page fit its %s block the first time.", cl)
	}
	pf("")
	switch {
	case res.PoolBytes > c.DiskBytes && res.PoolBytes < u.DiskBytes:
		pf("buffer pool %s: it holds the %s table (%s) but not the uncompressed one (%s)", humanBytes(res.PoolBytes), cl, humanBytes(c.DiskBytes), humanBytes(u.DiskBytes))
	default:
		pf("buffer pool %s (the smallest the tour uses), with the %s table at %s and the uncompressed one at %s: use more --rows for a pool between them",
			humanBytes(res.PoolBytes), cl, humanBytes(c.DiskBytes), humanBytes(u.DiskBytes))
	}

	for _, ev := range []string{"oltp_point_select", "oltp_read_only"} {
		us, ul := res.find(ev, "uncompressed", "split"), res.find(ev, "uncompressed", "legacy")
		cs, clg := res.find(ev, cl, "split"), res.find(ev, cl, "legacy")
		runs := []*tourRun{us, cs, ul, clg}
		each := func(f func(r *tourRun) string) []string {
			var out []string
			for _, r := range runs {
				out = append(out, f(r))
			}
			return out
		}
		pf("")
		row(strings.ToUpper(shortEvent(ev)), "uncompressed", cl, "uncompressed", cl)
		row("", "split", "split", "legacy", "legacy")
		row("  QPS", each(func(r *tourRun) string { return fmt.Sprintf("%.0f", r.QPS) })...)
		row("  uncompress ops per query", each(func(r *tourRun) string { return fmt.Sprintf("%.3f", r.UnzipPerQuery) })...)
		row("  page reads per query", each(func(r *tourRun) string { return fmt.Sprintf("%.3f", r.ReadsPerQuery) })...)
		row("  busiest pool lock", each(func(r *tourRun) string { return orDash(r.PoolLock) })...)
		row("    its wait share", each(share)...)
		row("  CPU utilisation", each(func(r *tourRun) string { return fmt.Sprintf("%.0f%%", 100*r.CPUUtil) })...)
		rs, rl := ratioOf(cs.QPS, us.QPS), ratioOf(clg.QPS, ul.QPS)
		row("  QPS "+cl+" / uncompressed", "", fmt.Sprintf("%.2f", rs), "", fmt.Sprintf("%.2f", rl))

		// Decompression per query.
		hi := max(cs.UnzipPerQuery, clg.UnzipPerQuery)
		cReads := max(cs.ReadsPerQuery, clg.ReadsPerQuery)
		switch {
		case hi >= 0.05 && cReads < 0.2*hi:
			note("each query on %s inflated %.2f (split) and %.2f (legacy) pages but read only %.3f from the file: the compressed pages stayed in the pool, their uncompressed frames did not.", cl, cs.UnzipPerQuery, clg.UnzipPerQuery, cReads)
		case hi >= 0.05:
			note("each query on %s inflated %.2f (split) and %.2f (legacy) pages and read %.3f from the file: the pool kept neither all compressed pages nor their frames.", cl, cs.UnzipPerQuery, clg.UnzipPerQuery, cReads)
		default:
			note("%s queries hardly decompressed (at most %.3f pages per query): the pages they read stayed in the pool uncompressed.", cl, hi)
		}
		if rd := max(us.ReadsPerQuery, ul.ReadsPerQuery); rd >= 0.05 {
			note("the uncompressed table does not fit the pool: it read %.2f pages per query from its file (the OS cache; no --io latency) instead.", rd)
		}
		// Lock waits.
		switch {
		case cs.Report == nil || clg.Report == nil:
		case clg.PoolLockShare >= 0.02 && clg.PoolLockShare > 2*cs.PoolLockShare:
			note("under legacy locking %s waits took %.1f%% of thread time on %s, against %.1f%% for the busiest pool lock under split: the pool-wide mutex serializes the evictions and decompressions compressed pages need.",
				clg.PoolLock, 100*clg.PoolLockShare, cl, 100*cs.PoolLockShare)
		case max(cs.PoolLockShare, clg.PoolLockShare) < 0.01:
			note("on %s no buffer pool lock waited more than 1%% of thread time under either locking mode: decompression, not the pool's mutexes, took the time.", cl)
		case clg.PoolLockShare <= cs.PoolLockShare:
			note("on %s the busiest pool lock waited %.1f%% of thread time under split and %.1f%% under legacy: legacy locking did not raise it here.", cl, 100*cs.PoolLockShare, 100*clg.PoolLockShare)
		default:
			note("on %s the busiest pool lock waited %.1f%% of thread time under split and %.1f%% under legacy: legacy locking raised it, but less than twofold.", cl, 100*cs.PoolLockShare, 100*clg.PoolLockShare)
		}
		if uw := max(us.PoolLockShare, ul.PoolLockShare); uw >= 0.05 && max(us.ReadsPerQuery, ul.ReadsPerQuery) >= 0.05 {
			note("the uncompressed table's busiest pool lock (%s) waited %.1f%% (split) and %.1f%% (legacy) of thread time: each of its misses frees a frame under the LRU mutex.",
				orDash(us.PoolLock), 100*us.PoolLockShare, 100*ul.PoolLockShare)
		}
		// Throughput.
		switch {
		case math.IsNaN(rs) || math.IsNaN(rl):
			note("a run recorded no queries, so there is no throughput ratio.")
		case rs < 0.9 && rl < 0.9:
			note("%s reached %.2f of uncompressed QPS under split and %.2f under legacy: its %.2f inflates per query cost more than the uncompressed table's %.2f page reads.", cl, rs, rl, cs.UnzipPerQuery, us.ReadsPerQuery)
		case rs > 1.1 && rl > 1.1:
			note("%s was faster (%.2fx under split, %.2fx under legacy): fitting the pool saved more than decompression cost.", cl, rs, rl)
		default:
			note("%s ran at %.2f of uncompressed QPS under split and %.2f under legacy: no consistent difference.", cl, rs, rl)
		}
		cm, um := ratioOf(clg.QPS, cs.QPS), ratioOf(ul.QPS, us.QPS)
		switch {
		case math.IsNaN(cm) || math.IsNaN(um):
		case cm < 0.8 && cm < 0.8*um:
			note("legacy locking cut %s's QPS to %.2f of split's, the uncompressed table's to %.2f: the pool-wide locks cost the compressed table more.", cl, cm, um)
		default:
			note("legacy over split QPS: %.2f on %s, %.2f uncompressed: %s did not lose more than the uncompressed table, so this run shows no cost of legacy locking particular to compression.", cm, cl, um, cl)
		}
	}
	lo, hi := math.Inf(1), 0.0
	for _, r := range res.Runs {
		lo, hi = min(lo, r.CPUUtil), max(hi, r.CPUUtil)
	}
	if lo > 0 && hi > 1.5*lo {
		pf("")
		pf("note: CPU utilisation ranged from %.0f%% to %.0f%% across the runs: they did not get equal CPU time (a shared or throttled machine), so part of any QPS difference between runs comes from the machine, not the model.", 100*lo, 100*hi)
	}
	pf("")
	pf("files: report.txt (this summary), report.json, report.csv (one row per run), tour-*.png, runs/*/")
}

// share prints a wait share.
func share(r *tourRun) string {
	if r.Report == nil {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*r.PoolLockShare)
}
