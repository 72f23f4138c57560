package sim

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/zipsim/zipsim"
	"github.com/zipsim/zipsim/compress"
	"github.com/zipsim/zipsim/internal/latch"
)

// Latency histograms record nanoseconds from 1 ns to 60 s with 3
// significant digits: most operations here take a few microseconds, which
// a 1 µs lowest value would round to 512 ns buckets. Longer durations are
// recorded as 60 s; means and maxima are kept exactly beside the
// histogram.
const (
	histLowest  = 1
	histHighest = int64(60 * time.Second)
	histDigits  = 3
)

// defaultProgressEvery is how often Run calls RunOptions.Progress.
const defaultProgressEvery = 500 * time.Millisecond

// RunOptions are Run's settings that are not knobs of the experiment.
type RunOptions struct {
	// Progress, when not nil, is called from Run's goroutine about every
	// ProgressEvery during the measurement and once at its end: by Events,
	// with events done and Config.Events; by Duration, with seconds
	// measured and Config.Duration in seconds. It is not called during
	// warm-up.
	Progress func(done, total float64)
	// ProgressEvery is the period of Progress calls; 0 means 500ms.
	ProgressEvery time.Duration
	// Load, when not nil, is the result of the Prepare that filled the
	// store; it goes into the report as Report.Load.
	Load *LoadResult
	// SpaceAfter makes Run flush the store after the measurement and walk
	// every table (Table.Space) into Report.Space. It reads every page, so
	// it is neither timed nor in the metrics; leave it off when the store
	// is to be measured again.
	SpaceAfter bool
	// CPUProfile, when not empty, is a file Run writes a CPU profile of
	// the measurement into (runtime/pprof; read it with go tool pprof):
	// the requests after warm-up, the whole process sampled, so that a
	// scenario's modes can be set side by side. Go allows one CPU profile
	// at a time; Run fails when another is running.
	CPUProfile string
	// Round numbers a run among repeated runs on one store: worker i draws
	// from generator Round×Threads+i, so that each round sends requests of
	// its own rather than replaying the first round's, which would find
	// the pages it read still in the pool. 0 for a lone run.
	Round int
}

// LoadResult is what Prepare measured.
type LoadResult struct {
	Wall       time.Duration `json:"wall_ns"`      // Create and Load
	Rows       int64         `json:"rows"`         // rows Load reported through progress, or Workload.LoadRows when it reported none
	RowsPerSec float64       `json:"rows_per_sec"` // Rows / Wall
	CPU        time.Duration `json:"cpu_ns"`       // process CPU time during the load
	CPUUtil    float64       `json:"cpu_util"`     // CPU / (Wall × GOMAXPROCS)
	DataBytes  int64         `json:"data_bytes"`   // Workload.DataBytes: the uncompressed estimate
	DiskBytes  int64         `json:"disk_bytes"`   // Σ SpaceUsage.TotalBytes of the tables after the load
	// Tables is each table's space after the load (and a flush).
	Tables []TableSpace `json:"tables"`
	// Memory covers the load: gauges at its end, counters over it.
	Memory Memory `json:"memory"`
	// Metrics is the store's activity during Create and Load (before the
	// flush that precedes the space walk); sizes and shapes are as the
	// load left them.
	Metrics zipsim.Metrics `json:"metrics"`
}

// TableSpace is one table's space by component (zipsim.Table.Space).
type TableSpace struct {
	Table             string `json:"table"`
	zipsim.SpaceUsage `json:"space"`
}

// Prepare creates and loads w's tables in st (the prepare or load phase)
// and measures it: wall time, rows and rows/s, CPU, memory and the
// store's metrics over Create and Load. Then it flushes the store and
// walks every table (Table.Space), which is not timed. progress, when not
// nil, gets each batch's rows as Load reports them and must be safe for
// concurrent use.
func Prepare(ctx context.Context, cfg Config, st *zipsim.Store, w Workload, progress func(rows int64)) (LoadResult, error) {
	if _, err := cfg.Validate(); err != nil {
		return LoadResult{}, err
	}
	var rows atomic.Int64
	count := func(n int64) {
		rows.Add(n)
		if progress != nil {
			progress(n)
		}
	}
	m0 := st.Metrics()
	mem0 := readMem()
	cpu0, cpuErr := latch.ProcessCPU()
	t0 := time.Now()
	if err := w.Create(ctx, st); err != nil {
		return LoadResult{}, fmt.Errorf("sim: %s: create: %w", w.Name(), err)
	}
	if err := w.Load(ctx, st, count); err != nil {
		return LoadResult{}, fmt.Errorf("sim: %s: load: %w", w.Name(), err)
	}
	wall := time.Since(t0)
	cpu1, cpuErr1 := latch.ProcessCPU()
	mem1 := readMem()
	m1 := st.Metrics()
	r := LoadResult{Wall: wall, Rows: rows.Load(), DataBytes: w.DataBytes(), Metrics: m1.Sub(m0)}
	if r.Rows == 0 {
		r.Rows = w.LoadRows()
	}
	if wall > 0 {
		r.RowsPerSec = float64(r.Rows) / wall.Seconds()
	}
	if cpuErr == nil && cpuErr1 == nil {
		r.CPU = cpu1 - cpu0
		r.CPUUtil = latch.Utilisation(r.CPU, wall)
	}
	r.Memory = memDelta(mem0, mem1, wall, 0)
	if err := st.Flush(); err != nil {
		return r, fmt.Errorf("sim: %s: flush after load: %w", w.Name(), err)
	}
	var err error
	if r.Tables, err = tableSpaces(ctx, st); err != nil {
		return r, err
	}
	for _, t := range r.Tables {
		r.DiskBytes += t.TotalBytes()
	}
	return r, nil
}

// tableSpaces walks every table of st.
func tableSpaces(ctx context.Context, st *zipsim.Store) ([]TableSpace, error) {
	var out []TableSpace
	for _, t := range st.Tables() {
		u, err := t.Space(ctx)
		if err != nil {
			return out, fmt.Errorf("sim: space of %s: %w", t.Name(), err)
		}
		out = append(out, TableSpace{Table: t.Name(), SpaceUsage: u})
	}
	return out, nil
}

// WorkerError is the error of a worker's event that stopped a run.
type WorkerError struct {
	Worker int    // the runner goroutine, 0..Threads-1
	Event  int64  // the worker's event that failed, counted from 1 (warm-up included)
	Ops    int    // operations the event had recorded before it failed
	LastOp string // the last of them, "" when none: the failure came after it
	Err    error
}

func (e *WorkerError) Error() string {
	s := fmt.Sprintf("sim: worker %d, event %d", e.Worker, e.Event)
	if e.LastOp != "" {
		s += fmt.Sprintf(", after %d ops (last %s)", e.Ops, e.LastOp)
	}
	return s + ": " + e.Err.Error()
}

func (e *WorkerError) Unwrap() error { return e.Err }

// hist is a latency histogram with the exact sum and maximum of what it
// recorded. Its histogram is created on first use, so operations a
// worker never runs cost nothing.
type hist struct {
	h   *hdrhistogram.PackedHistogram
	sum int64 // ns
	max int64 // ns
}

func (h *hist) record(ns int64) {
	ns = max(ns, 0)
	if h.h == nil {
		h.h = hdrhistogram.NewPacked(histLowest, histHighest, histDigits)
	}
	_ = h.h.RecordValue(min(ns, histHighest)) // in range, so it cannot fail
	h.sum += ns
	h.max = max(h.max, ns)
}

func (h *hist) count() int64 {
	if h.h == nil {
		return 0
	}
	return h.h.TotalCount()
}

func (h *hist) merge(from *hist) {
	if from.count() == 0 {
		return
	}
	if h.h == nil {
		h.h = hdrhistogram.NewPacked(histLowest, histHighest, histDigits)
	}
	h.h.Merge(from.h)
	h.sum += from.sum
	h.max = max(h.max, from.max)
}

func (h *hist) reset() {
	if h.h != nil {
		h.h.Reset()
	}
	h.sum, h.max = 0, 0
}

// summary reads count, mean, percentiles and maximum.
func (h *hist) summary() Latency {
	n := h.count()
	if n == 0 {
		return Latency{}
	}
	p := h.h.ValueAtPercentilesSlice([]float64{50, 95, 99})
	mx := time.Duration(h.max)
	// A bucket's highest equivalent value can pass the exact maximum.
	return Latency{
		Count: n,
		Mean:  time.Duration(h.sum / n),
		P50:   min(time.Duration(p[0]), mx),
		P95:   min(time.Duration(p[1]), mx),
		P99:   min(time.Duration(p[2]), mx),
		Max:   mx,
	}
}

// histSet is one recording's histograms: one per operation and one for
// events.
type histSet struct {
	ops   []hist
	event hist
}

func newHistSet(nops int) *histSet { return &histSet{ops: make([]hist, nops)} }

func (s *histSet) merge(from *histSet) {
	for i := range from.ops {
		s.ops[i].merge(&from.ops[i])
	}
	s.event.merge(&from.event)
}

func (s *histSet) reset() {
	for i := range s.ops {
		s.ops[i].reset()
	}
	s.event.reset()
}

func (s *histSet) opCount() int64 {
	var n int64
	for i := range s.ops {
		n += s.ops[i].count()
	}
	return n
}

// recorder is one runner goroutine's Recorder. The worker records into
// the active histSet with no lock: it makes seq odd, loads active,
// records, and makes seq even again, two uncontended atomic adds per
// operation. To read an interval the coordinator swaps a spare set in
// (swap) and, if seq is odd, waits until seq moves on: the worker was
// inside one record that may have loaded the old set, and every later
// record loads the new one. The wait is at most one histogram update, so
// workers never stop; the old set then belongs to the coordinator, which
// merges it, resets it and keeps it as the next spare. (This is
// HdrHistogram's Recorder with a single writer: a writer-reader phaser.)
type recorder struct {
	_      [64]byte // keep seq and done off other recorders' cache lines
	seq    atomic.Uint64
	active atomic.Pointer[histSet]
	done   atomic.Int64 // measured events finished, for progress

	// The worker's own state.
	names  []string
	sess   *zipsim.Session // the worker's place at the store's concurrency gate
	drop   bool            // the event began during warm-up: record nothing
	evOps  int             // operations of the current event
	lastOp int
	err    error // a misuse of Op, reported after Next returns
	server serverCPU

	// The coordinator's.
	spare *histSet
	_     [64]byte
}

func newRecorder(names []string, sess *zipsim.Session, server serverCPU) *recorder {
	r := &recorder{names: names, sess: sess, spare: newHistSet(len(names)), server: server}
	r.active.Store(newHistSet(len(names)))
	return r
}

// Op implements Recorder. It must be called from the goroutine running
// Next. It ends the statement at the concurrency gate and then spends
// Config.StatementCPU, which ns does not include, outside it.
func (r *recorder) Op(op int, ns int64) {
	if op < 0 || op >= len(r.names) {
		if r.err == nil {
			r.err = fmt.Errorf("sim: Recorder.Op: op %d is not an index of Workload.Ops (%d ops)", op, len(r.names))
		}
		return
	}
	r.sess.Leave()
	r.server.spend()
	r.evOps++
	r.lastOp = op
	if r.drop {
		return
	}
	r.seq.Add(1)
	r.active.Load().ops[op].record(ns)
	r.seq.Add(1)
}

// Rows implements Recorder: it spends Config.RowCPU for each row.
func (r *recorder) Rows(n int) { r.server.spendRows(n) }

// begin starts an event; drop discards its recordings.
func (r *recorder) begin(drop bool) {
	r.drop, r.evOps, r.err = drop, 0, nil
}

// end records a finished event of ns nanoseconds.
func (r *recorder) end(ns int64) {
	if r.drop {
		return
	}
	r.seq.Add(1)
	r.active.Load().event.record(ns)
	r.seq.Add(1)
	r.done.Add(1)
}

// swap takes the histograms recorded since the last swap, leaving the
// spare set active. The caller merges them, resets them and puts them
// back as r.spare.
func (r *recorder) swap() *histSet {
	old := r.active.Swap(r.spare)
	r.spare = nil
	if s := r.seq.Load(); s&1 == 1 {
		for r.seq.Load() == s {
			runtime.Gosched()
		}
	}
	return old
}

// runner is one Run.
type runner struct {
	cfg   Config
	st    *zipsim.Store
	names []string
	recs  []*recorder

	measuring atomic.Bool  // warm-up is over
	stop      atomic.Bool  // no new events
	claimed   atomic.Int64 // measured events started, by Events

	failOnce sync.Once
	failErr  error
	failed   chan struct{}
	cancel   context.CancelFunc
}

// failure returns the first worker error, or nil while there is none.
func (rn *runner) failure() error {
	select {
	case <-rn.failed:
		return rn.failErr
	default:
		return nil
	}
}

// fail records the first worker error and stops the run.
func (rn *runner) fail(err error) {
	rn.failOnce.Do(func() {
		rn.failErr = err
		rn.stop.Store(true)
		rn.cancel()
		close(rn.failed)
	})
}

func (rn *runner) work(ctx context.Context, id int, wk Worker, rec *recorder) {
	var n int64
	for !rn.stop.Load() {
		measuring := rn.measuring.Load()
		if measuring && rn.cfg.Events > 0 && rn.claimed.Add(1) > rn.cfg.Events {
			return
		}
		n++
		rec.begin(!measuring)
		t0 := time.Now()
		err := wk.Next(ctx, rec)
		rec.sess.Leave() // a worker never stops holding a place others wait for
		d := time.Since(t0)
		if err == nil {
			err = rec.err
		}
		if err != nil {
			if ctx.Err() != nil {
				return // cancelled: another worker failed or the caller gave up
			}
			we := &WorkerError{Worker: id, Event: n, Ops: rec.evOps, Err: err}
			if rec.evOps > 0 {
				we.LastOp = rn.names[rec.lastOp]
			}
			rn.fail(we)
			return
		}
		rec.end(int64(d))
	}
}

// Run runs w's workers on st, which Prepare (or an earlier run) filled:
// cfg.Threads goroutines, worker i from w.Worker(st, i), each calling
// Next in a loop. The first cfg.Warmup is not measured: events that
// start during it record nothing, even the operations they finish after
// it. Measurement then runs for cfg.Duration, or until cfg.Events events
// have finished in all (exactly that many; each goroutine claims an event
// before starting it), whichever comes first. By Duration, events that
// finish after the deadline are not counted; Run waits for them before
// returning.
//
// Every cfg.ReportInterval (by Events with no interval, once at the end)
// Run closes an interval: it swaps each goroutine's histograms without
// stopping it (see recorder), merges them into the interval's and the
// run's, and reads the store's Metrics, process CPU time and memory.
//
// The first worker error (a *WorkerError) stops the run: the others see
// their context cancelled, and Run returns a nil report with the error.
// When ctx is cancelled Run stops, and returns what it measured so far
// with ctx's error.
func Run(ctx context.Context, cfg Config, st *zipsim.Store, w Workload, opt RunOptions) (*Report, error) {
	cfg, err := cfg.Validate()
	if err != nil {
		return nil, err
	}
	names := w.Ops()
	rn := &runner{cfg: cfg, st: st, names: names, failed: make(chan struct{})}
	workers := make([]Worker, cfg.Threads)
	for i := range workers {
		if workers[i], err = w.Worker(st, opt.Round*cfg.Threads+i); err != nil {
			return nil, fmt.Errorf("sim: %s: worker %d: %w", w.Name(), i, err)
		}
		rn.recs = append(rn.recs, newRecorder(names, st.NewSession(), newServerCPU(cfg.StatementCPU, cfg.RowCPU)))
	}
	rep := &Report{Header: newHeader(cfg, w, st), Load: opt.Load}
	prof, err := createProfile(opt.CPUProfile)
	if err != nil {
		return nil, err
	}
	defer prof.close() // after an early return; the measured path closes it first

	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	rn.cancel = cancel
	var wg sync.WaitGroup
	allDone := make(chan struct{})
	// Without warm-up the baseline comes before the workers start, so the
	// first events fall after it.
	var col *collector
	if cfg.Warmup == 0 {
		col = newCollector(rn, rep)
		rn.measuring.Store(true)
		if err := prof.start(); err != nil {
			return nil, err
		}
	}
	for i, wk := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rn.work(zipsim.WithSession(wctx, rn.recs[i].sess), i, wk, rn.recs[i])
		}()
	}
	go func() { wg.Wait(); close(allDone) }()

	if cfg.Warmup > 0 {
		t := time.NewTimer(cfg.Warmup)
		select {
		case <-t.C:
		case <-rn.failed:
		case <-ctx.Done():
		}
		t.Stop()
	}

	if col == nil {
		// The baseline, then the measurement starts.
		col = newCollector(rn, rep)
		rn.measuring.Store(true)
		if err := prof.start(); err != nil {
			rn.stop.Store(true)
			cancel()
			<-allDone
			return nil, err
		}
	}
	mStart := col.start

	var deadline <-chan time.Time
	if cfg.Duration > 0 {
		t := time.NewTimer(time.Until(mStart.Add(cfg.Duration)))
		defer t.Stop()
		deadline = t.C
	}
	var tick <-chan time.Time
	nextBoundary := mStart.Add(cfg.ReportInterval)
	var tickTimer *time.Timer
	if cfg.ReportInterval > 0 {
		tickTimer = time.NewTimer(time.Until(nextBoundary))
		defer tickTimer.Stop()
		tick = tickTimer.C
	}
	var progress <-chan time.Time
	if opt.Progress != nil {
		every := opt.ProgressEvery
		if every <= 0 {
			every = defaultProgressEvery
		}
		pt := time.NewTicker(every)
		defer pt.Stop()
		progress = pt.C
	}
	report := func() {
		if opt.Progress == nil {
			return
		}
		if cfg.Events > 0 {
			var n int64
			for _, r := range rn.recs {
				n += r.done.Load()
			}
			opt.Progress(float64(n), float64(cfg.Events))
			return
		}
		opt.Progress(min(time.Since(mStart), cfg.Duration).Seconds(), cfg.Duration.Seconds())
	}

loop:
	for {
		select {
		case <-tick:
			// A boundary at or past the deadline is the deadline's.
			if cfg.Duration > 0 && !nextBoundary.Before(mStart.Add(cfg.Duration)) {
				continue
			}
			col.close(time.Now())
			nextBoundary = nextBoundary.Add(cfg.ReportInterval)
			tickTimer.Reset(time.Until(nextBoundary))
		case <-progress:
			report()
		case <-deadline:
			break loop
		case <-allDone: // by Events: the last claimed event is done
			break loop
		case <-rn.failed:
			break loop
		case <-ctx.Done():
			break loop
		}
	}
	// No new events; those in flight record into sets nobody reads.
	rn.stop.Store(true)
	if err := prof.close(); err != nil {
		<-allDone
		return nil, fmt.Errorf("sim: cpu profile: %w", err)
	}
	if err := rn.failure(); err != nil {
		<-allDone
		return nil, err
	}
	col.close(time.Now())
	runErr := ctx.Err()
	<-allDone
	if err := rn.failure(); err != nil {
		return nil, err // an event in flight at the end failed
	}
	report()
	col.finish()
	if opt.SpaceAfter && runErr == nil {
		if err := st.Flush(); err != nil {
			return rep, fmt.Errorf("sim: flush after run: %w", err)
		}
		if rep.Space, err = tableSpaces(ctx, st); err != nil {
			return rep, err
		}
	}
	return rep, runErr
}

// cpuProfile is Run's CPU profile (RunOptions.CPUProfile): its file is
// created before the workers start, profiling starts with the
// measurement, and close stops it and closes the file once, whichever
// return comes first.
type cpuProfile struct {
	f       *os.File // nil without a profile, or once closed
	running bool
}

func createProfile(path string) (*cpuProfile, error) {
	if path == "" {
		return &cpuProfile{}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("sim: cpu profile: %w", err)
	}
	return &cpuProfile{f: f}, nil
}

// start starts profiling into the file; when it cannot (another profile
// runs), it removes the empty file.
func (p *cpuProfile) start() error {
	if p.f == nil {
		return nil
	}
	if err := pprof.StartCPUProfile(p.f); err != nil {
		name := p.f.Name()
		p.close()
		os.Remove(name)
		return fmt.Errorf("sim: cpu profile: %w", err)
	}
	p.running = true
	return nil
}

// close stops profiling if it runs and closes the file; later calls do
// nothing.
func (p *cpuProfile) close() error {
	if p.f == nil {
		return nil
	}
	if p.running {
		pprof.StopCPUProfile()
		p.running = false
	}
	err := p.f.Close()
	p.f = nil
	return err
}

// collector turns swapped histograms and snapshots into intervals.
type collector struct {
	rn    *runner
	rep   *Report
	start time.Time // measurement start

	ival, total *histSet

	m0, mPrev     zipsim.Metrics
	cpu0, cpuPrev time.Duration
	cpuOK         bool
	mem0, memPrev memSample
	tPrev         time.Time
	peakRSS       uint64
	peakSys       uint64
}

func newCollector(rn *runner, rep *Report) *collector {
	c := &collector{rn: rn, rep: rep, ival: newHistSet(len(rn.names)), total: newHistSet(len(rn.names))}
	c.m0 = rn.st.Metrics()
	c.mem0 = readMem()
	cpu, err := latch.ProcessCPU()
	c.cpu0, c.cpuOK = cpu, err == nil
	c.start = time.Now()
	c.mPrev, c.cpuPrev, c.memPrev, c.tPrev = c.m0, c.cpu0, c.mem0, c.start
	return c
}

// close ends the interval at now.
func (c *collector) close(now time.Time) {
	for _, r := range c.rn.recs {
		s := r.swap()
		c.ival.merge(s)
		s.reset()
		r.spare = s
	}
	m := c.rn.st.Metrics()
	mem := readMem()
	cpu, err := latch.ProcessCPU()
	wall := now.Sub(c.tPrev)
	iv := Interval{
		Index:   len(c.rep.Intervals),
		Start:   c.tPrev.Sub(c.start),
		End:     now.Sub(c.start),
		Events:  c.ival.event.count(),
		Ops:     c.ival.opCount(),
		Event:   c.ival.event.summary(),
		PerOp:   opLatencies(c.rn.names, c.ival),
		Metrics: m.Sub(c.mPrev),
	}
	if wall > 0 {
		iv.TPS = float64(iv.Events) / wall.Seconds()
		iv.QPS = float64(iv.Ops) / wall.Seconds()
	}
	if c.cpuOK && err == nil {
		iv.CPU = cpu - c.cpuPrev
		iv.CPUUtil = latch.Utilisation(iv.CPU, wall)
		c.cpuPrev = cpu
	} else {
		c.cpuOK = false
	}
	iv.Memory = memDelta(c.memPrev, mem, wall, iv.Events)
	c.peakRSS = max(c.peakRSS, mem.rss)
	c.peakSys = max(c.peakSys, mem.ms.Sys)
	c.rep.Intervals = append(c.rep.Intervals, iv)
	c.total.merge(c.ival)
	c.ival.reset()
	c.mPrev, c.memPrev, c.tPrev = m, mem, now
}

// finish fills the run's totals from the closed intervals.
func (c *collector) finish() {
	r := c.rep
	wall := c.tPrev.Sub(c.start)
	t := Totals{Wall: wall, Events: c.total.event.count(), Ops: c.total.opCount()}
	if wall > 0 {
		t.TPS = float64(t.Events) / wall.Seconds()
		t.QPS = float64(t.Ops) / wall.Seconds()
	}
	if c.cpuOK {
		t.CPU = c.cpuPrev - c.cpu0
		t.CPUUtil = latch.Utilisation(t.CPU, wall)
	}
	r.Totals = t
	r.Event = c.total.event.summary()
	r.PerOp = opLatencies(c.rn.names, c.total)
	r.Memory = memDelta(c.mem0, c.memPrev, wall, t.Events)
	r.Memory.PeakRSS, r.Memory.PeakSys = c.peakRSS, c.peakSys
	r.Metrics = c.mPrev.Sub(c.m0)
}

func opLatencies(names []string, s *histSet) []OpLatency {
	out := make([]OpLatency, len(names))
	for i, n := range names {
		out[i] = OpLatency{Op: n, Latency: s.ops[i].summary()}
	}
	return out
}

// newHeader describes the run before it starts.
func newHeader(cfg Config, w Workload, st *zipsim.Store) Header {
	h := Header{
		Config:     cfg,
		ConfigHash: ConfigHash(cfg),
		Ops:        w.Ops(),
		GOMAXPROCS: runtime.GOMAXPROCS(0),
		NumCPU:     runtime.NumCPU(),
		GoVersion:  runtime.Version(),
		GOOS:       runtime.GOOS,
		GOARCH:     runtime.GOARCH,
		CZlib:      compress.CZlibImplementation(),
		Start:      time.Now(),
		Rows:       w.LoadRows(),
		DataBytes:  w.DataBytes(),
	}
	m := st.Metrics()
	page := cfg.PageSize
	if page == 0 {
		page = 16384
	}
	h.PoolSize = int64(m.Pool.Frames) * int64(page)
	for _, s := range m.Spaces {
		h.DiskBytes += s.Usage.AllocatedBytes
	}
	if h.DataBytes > 0 {
		h.PoolDataRatio = float64(h.PoolSize) / float64(h.DataBytes)
	}
	if h.DiskBytes > 0 {
		h.PoolDiskRatio = float64(h.PoolSize) / float64(h.DiskBytes)
	}
	return h
}

// memSample is one reading of the Go runtime's memory and the RSS.
type memSample struct {
	ms    runtime.MemStats
	gcCPU float64 // seconds of GC CPU time since the process started; <0 when unknown
	rss   uint64
}

// GC CPU time without idle marking, which runs only on otherwise idle
// processors and which MemStats.GCCPUFraction also leaves out.
const (
	gcCPUMetric     = "/cpu/classes/gc/total:cpu-seconds"
	gcIdleCPUMetric = "/cpu/classes/gc/mark/idle:cpu-seconds"
)

func readMem() memSample {
	var s memSample
	runtime.ReadMemStats(&s.ms)
	m := []metrics.Sample{{Name: gcCPUMetric}, {Name: gcIdleCPUMetric}}
	metrics.Read(m)
	s.gcCPU = -1
	if m[0].Value.Kind() == metrics.KindFloat64 && m[1].Value.Kind() == metrics.KindFloat64 {
		s.gcCPU = m[0].Value.Float64() - m[1].Value.Float64()
	}
	s.rss = readRSS()
	return s
}

// readRSS reads the resident set from /proc/self/statm (Linux); 0 where
// there is no such file.
func readRSS() uint64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, err := strconv.ParseUint(f[1], 10, 64)
	if err != nil {
		return 0
	}
	return pages * uint64(os.Getpagesize())
}

// memDelta describes the span from a to b: gauges at b, counters over the
// span; events, when positive, gives the per-event allocation figures.
func memDelta(a, b memSample, wall time.Duration, events int64) Memory {
	m := Memory{
		HeapAlloc:    b.ms.HeapAlloc,
		HeapInuse:    b.ms.HeapInuse,
		HeapIdle:     b.ms.HeapIdle,
		HeapReleased: b.ms.HeapReleased,
		Sys:          b.ms.Sys,
		RSS:          b.rss,
		NumGC:        b.ms.NumGC - a.ms.NumGC,
		Mallocs:      b.ms.Mallocs - a.ms.Mallocs,
		AllocBytes:   b.ms.TotalAlloc - a.ms.TotalAlloc,
	}
	switch {
	case a.gcCPU >= 0 && b.gcCPU >= 0 && wall > 0:
		m.GCCPUFraction = (b.gcCPU - a.gcCPU) / (wall.Seconds() * float64(runtime.GOMAXPROCS(0)))
	default:
		m.GCCPUFraction = b.ms.GCCPUFraction // since the process started
	}
	if events > 0 {
		m.AllocsPerEvent = float64(m.Mallocs) / float64(events)
		m.BytesPerEvent = float64(m.AllocBytes) / float64(events)
	}
	return m
}
