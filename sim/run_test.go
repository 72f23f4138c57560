package sim

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim"
	"github.com/zipsim/zipsim/compress"
)

// runFake is a Workload for the runner's tests: one small compressed
// table, and events of deterministic operations: two point reads, one
// update and one busy spin of spin.
type runFake struct {
	rows    int
	spin    time.Duration
	failAt  int64 // worker 0's event failAt fails after one op; 0 never
	failOp  bool  // that event reports an op index out of range instead
	scanned int   // rows the spin op reports through Recorder.Rows
	// phased, when not 0, makes the spin op spin in runFakeWarmSpin for
	// phased after the first event, pause 100 ms, and then spin in
	// runFakeMeasuredSpin, so that a CPU profile tells the phases apart.
	phased time.Duration
	start  atomic.Int64 // the first event's time in Unix ns, with phased

	table  *zipsim.Table
	mu     sync.Mutex
	events atomic.Int64 // Next calls, warm-up included
	opCall [4]atomic.Int64
	ids    []int // the ids Worker was called with, under mu
}

var runFakeOps = []string{"point_select", "update", "spin", "never"}

func (f *runFake) Name() string { return "fake" }

func (f *runFake) Create(ctx context.Context, st *zipsim.Store) error {
	t, err := st.CreateTable(ctx, "fake1", zipsim.TableOptions{
		Columns: []zipsim.Column{
			{Name: "id", Type: zipsim.TypeInt, Len: 4},
			{Name: "c", Type: zipsim.TypeChar, Len: 120},
		},
		PrimaryKey:   []string{"id"},
		KeyBlockSize: 8,
	})
	f.table = t
	return err
}

func runFakeC(id, v int) string { return fmt.Sprintf("%011d-%011d-%011d", id, v, id*v) }

func (f *runFake) Load(ctx context.Context, st *zipsim.Store, progress func(int64)) error {
	for i := 1; i <= f.rows; i++ {
		if err := f.table.Insert(ctx, zipsim.Row{zipsim.Int(int64(i)), zipsim.String(runFakeC(i, 0))}); err != nil {
			return err
		}
		if i%100 == 0 {
			progress(100)
		} else if i == f.rows {
			progress(int64(i % 100))
		}
	}
	return nil
}

func (f *runFake) LoadRows() int64  { return int64(f.rows) }
func (f *runFake) DataBytes() int64 { return int64(f.rows) * 140 }
func (f *runFake) Ops() []string    { return runFakeOps }

func (f *runFake) Worker(st *zipsim.Store, id int) (Worker, error) {
	f.mu.Lock()
	f.ids = append(f.ids, id)
	f.mu.Unlock()
	return &runFakeWorker{f: f, id: id, t: st.Table("fake1"), rnd: rand.New(rand.NewPCG(1, uint64(id)))}, nil
}

type runFakeWorker struct {
	f   *runFake
	id  int
	n   int64
	t   *zipsim.Table
	rnd *rand.Rand
	row zipsim.Row
}

var errRunFake = errors.New("fake failure")

func (w *runFakeWorker) op(rec Recorder, op int, fn func() error) error {
	t0 := time.Now()
	err := fn()
	w.f.opCall[op].Add(1)
	rec.Op(op, int64(time.Since(t0)))
	return err
}

func (w *runFakeWorker) Next(ctx context.Context, rec Recorder) error {
	w.n++
	w.f.events.Add(1)
	if w.f.phased > 0 {
		w.f.start.CompareAndSwap(0, time.Now().UnixNano())
	}
	get := func() error {
		var err error
		w.row, _, err = w.t.Get(ctx, w.row, zipsim.Int(int64(1+w.rnd.IntN(w.f.rows))))
		return err
	}
	for range 2 {
		if err := w.op(rec, 0, get); err != nil {
			return err
		}
	}
	if w.id == 0 && w.n == w.f.failAt {
		if w.f.failOp {
			rec.Op(17, 1)
			return nil
		}
		return fmt.Errorf("update: %w", errRunFake)
	}
	if err := w.op(rec, 1, func() error {
		id := 1 + w.rnd.IntN(w.f.rows)
		return w.t.Update(ctx, zipsim.Row{zipsim.Int(int64(id)), zipsim.String(runFakeC(id, int(w.n)))})
	}); err != nil {
		return err
	}
	return w.op(rec, 2, func() error {
		switch since := time.Duration(time.Now().UnixNano() - w.f.start.Load()); {
		case w.f.phased == 0:
			runFakeSpin(w.f.spin)
		case since < w.f.phased:
			runFakeWarmSpin(w.f.spin)
		case since < w.f.phased+100*time.Millisecond:
			time.Sleep(time.Millisecond)
		default:
			runFakeMeasuredSpin(w.f.spin)
		}
		if w.f.scanned > 0 {
			rec.Rows(w.f.scanned)
		}
		return nil
	})
}

//go:noinline
func runFakeSpin(d time.Duration) {
	for t0 := time.Now(); time.Since(t0) < d; {
	}
}

//go:noinline
func runFakeWarmSpin(d time.Duration) { runFakeSpin(d) }

//go:noinline
func runFakeMeasuredSpin(d time.Duration) { runFakeSpin(d) }

// runFakeStore opens an in-memory store for cfg and prepares f in it.
func runFakeStore(t testing.TB, cfg Config, f *runFake) (*zipsim.Store, LoadResult) {
	t.Helper()
	cfg, err := cfg.Validate()
	require.NoError(t, err)
	opts, err := cfg.StoreOptions(f.DataBytes())
	require.NoError(t, err)
	st, err := zipsim.Open("", opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = st.Close() })
	lr, err := Prepare(context.Background(), cfg, st, f, nil)
	require.NoError(t, err)
	return st, lr
}

func runFakeConfig() Config {
	return Config{Seed: 7, Threads: 3, KBS: 8, PoolBytes: 4 << 20}
}

func TestPrepare(t *testing.T) {
	cfg := runFakeConfig()
	opts, err := cfg.StoreOptions(0)
	require.NoError(t, err)
	st, err := zipsim.Open("", opts)
	require.NoError(t, err)
	defer st.Close()
	f := &runFake{rows: 1500}
	var seen atomic.Int64
	lr, err := Prepare(context.Background(), cfg, st, f, func(n int64) { seen.Add(n) })
	require.NoError(t, err)
	require.EqualValues(t, 1500, seen.Load())
	require.EqualValues(t, 1500, lr.Rows)
	require.Positive(t, lr.Wall)
	require.Positive(t, lr.RowsPerSec)
	require.EqualValues(t, f.DataBytes(), lr.DataBytes)
	require.Len(t, lr.Tables, 1)
	require.Equal(t, "fake1", lr.Tables[0].Table)
	require.Equal(t, 8192, lr.Tables[0].PageBytes)
	require.Positive(t, lr.Tables[0].ClusteredPages)
	require.Equal(t, lr.Tables[0].TotalBytes(), lr.DiskBytes)
	var inserts uint64
	for _, x := range lr.Metrics.Indexes {
		inserts += x.BTree.Inserts
	}
	require.EqualValues(t, 1500, inserts)
	require.Positive(t, lr.Metrics.Pool.CMP.Total().CompressOps)

	// A workload that reports no progress gets LoadRows.
	st2, err := zipsim.Open("", opts)
	require.NoError(t, err)
	defer st2.Close()
	lr, err = Prepare(context.Background(), cfg, st2, quietLoad{&runFake{rows: 50}}, nil)
	require.NoError(t, err)
	require.EqualValues(t, 50, lr.Rows)

	_, err = Prepare(context.Background(), Config{Threads: -1}, st2, f, nil)
	require.ErrorContains(t, err, "threads")
}

// quietLoad loads without calling progress.
type quietLoad struct{ *runFake }

func (q quietLoad) Load(ctx context.Context, st *zipsim.Store, _ func(int64)) error {
	return q.runFake.Load(ctx, st, func(int64) {})
}

func TestRunEventsExact(t *testing.T) {
	cfg := runFakeConfig()
	cfg.Events = 333
	f := &runFake{rows: 800}
	st, lr := runFakeStore(t, cfg, f)
	var lastDone, lastTotal float64
	r, err := Run(context.Background(), cfg, st, f, RunOptions{Load: &lr, Progress: func(d, tot float64) { lastDone, lastTotal = d, tot }})
	require.NoError(t, err)
	require.EqualValues(t, 333, r.Totals.Events)
	require.EqualValues(t, 333, f.events.Load())
	require.Equal(t, 333.0, lastDone)
	require.Equal(t, 333.0, lastTotal)
	// By Events with no report interval there is one interval.
	require.Len(t, r.Intervals, 1)
	require.EqualValues(t, 333, r.Intervals[0].Events)

	// Histograms merged across goroutines count every op recorded.
	require.Len(t, r.PerOp, len(runFakeOps))
	var ops int64
	for i, o := range r.PerOp {
		require.Equal(t, runFakeOps[i], o.Op)
		require.Equal(t, f.opCall[i].Load(), o.Count, o.Op)
		ops += o.Count
	}
	require.EqualValues(t, 2*333, r.PerOp[0].Count)
	require.EqualValues(t, 333, r.PerOp[1].Count)
	require.Zero(t, r.PerOp[3].Count)
	require.Equal(t, ops, r.Totals.Ops)
	require.EqualValues(t, 333, r.Event.Count)
	for _, o := range append(r.PerOp[:3:3], OpLatency{Op: "event", Latency: r.Event}) {
		require.Positive(t, o.P50, o.Op)
		require.LessOrEqual(t, o.P50, o.P95, o.Op)
		require.LessOrEqual(t, o.P95, o.P99, o.Op)
		require.LessOrEqual(t, o.P99, o.Max, o.Op)
		require.Positive(t, o.Mean, o.Op)
	}
	require.Greater(t, r.Totals.TPS, 0.0)
	require.InDelta(t, r.Totals.QPS/r.Totals.TPS, 4, 1e-9)

	// Header.
	h := r.Header
	require.Equal(t, 3, h.Threads)
	require.Equal(t, "compressed", h.RowFormat)
	require.Equal(t, ConfigHash(h.Config), h.ConfigHash)
	require.Len(t, h.ConfigHash, 16)
	require.EqualValues(t, 800, h.Rows)
	require.Equal(t, runtime.GOMAXPROCS(0), h.GOMAXPROCS)
	require.Equal(t, compress.CZlibImplementation(), h.CZlib, "which czlib ran")
	require.EqualValues(t, 4<<20, h.PoolSize)
	require.Positive(t, h.DiskBytes)
	require.InDelta(t, float64(h.PoolSize)/float64(h.DataBytes), h.PoolDataRatio, 1e-9)
	require.Same(t, &lr, r.Load)

	// The store's metrics saw the run.
	require.Positive(t, r.Metrics.Pool.Gets)
	var updates uint64
	for _, x := range r.Metrics.Indexes {
		updates += x.BTree.Updates
	}
	require.Positive(t, updates) // an update that changes nothing may not count
	require.LessOrEqual(t, updates, uint64(333))
	require.Positive(t, r.Memory.Mallocs)
	require.Positive(t, r.Memory.AllocsPerEvent)
	require.Positive(t, r.Memory.HeapInuse)
	if runtime.GOOS == "linux" {
		require.Positive(t, r.Memory.RSS)
		require.GreaterOrEqual(t, r.Memory.PeakRSS, r.Memory.RSS)
	}
}

func TestRunEventsIntervalsAddUp(t *testing.T) {
	cfg := runFakeConfig()
	cfg.Events = 600
	cfg.ReportInterval = 20 * time.Millisecond
	f := &runFake{rows: 500, spin: 200 * time.Microsecond}
	st, _ := runFakeStore(t, cfg, f)
	r, err := Run(context.Background(), cfg, st, f, RunOptions{})
	require.NoError(t, err)
	require.EqualValues(t, 600, r.Totals.Events)
	require.Greater(t, len(r.Intervals), 1)
	var events, ops, gets, cmpOps int64
	perOp := make([]int64, len(runFakeOps))
	for i, iv := range r.Intervals {
		require.Equal(t, i, iv.Index)
		if i > 0 {
			require.Equal(t, r.Intervals[i-1].End, iv.Start)
		}
		require.Greater(t, iv.End, iv.Start)
		events += iv.Events
		ops += iv.Ops
		gets += int64(iv.Metrics.Pool.Gets)
		cmpOps += int64(iv.Metrics.Pool.CMP.Total().CompressOps)
		for j, o := range iv.PerOp {
			perOp[j] += o.Count
		}
		require.Equal(t, iv.Event.Count, iv.Events)
	}
	require.Equal(t, r.Totals.Events, events)
	require.Equal(t, r.Totals.Ops, ops)
	require.EqualValues(t, r.Metrics.Pool.Gets, gets)
	require.EqualValues(t, r.Metrics.Pool.CMP.Total().CompressOps, cmpOps)
	for j, o := range r.PerOp {
		require.Equal(t, o.Count, perOp[j])
	}
	require.Equal(t, r.Intervals[len(r.Intervals)-1].End, r.Totals.Wall)
}

func TestRunDuration(t *testing.T) {
	cfg := runFakeConfig()
	cfg.Duration = 400 * time.Millisecond
	cfg.ReportInterval = 100 * time.Millisecond
	f := &runFake{rows: 500, spin: 100 * time.Microsecond}
	st, _ := runFakeStore(t, cfg, f)
	var calls atomic.Int64
	t0 := time.Now()
	r, err := Run(context.Background(), cfg, st, f, RunOptions{ProgressEvery: 50 * time.Millisecond, Progress: func(d, tot float64) {
		calls.Add(1)
		require.Equal(t, 0.4, tot)
		require.LessOrEqual(t, d, tot)
	}})
	elapsed := time.Since(t0)
	require.NoError(t, err)
	// The deadline's timer can wake late on a loaded machine.
	require.GreaterOrEqual(t, r.Totals.Wall, cfg.Duration)
	require.Less(t, r.Totals.Wall, cfg.Duration+150*time.Millisecond)
	require.Less(t, elapsed, 1500*time.Millisecond)
	require.GreaterOrEqual(t, calls.Load(), int64(4))
	require.GreaterOrEqual(t, len(r.Intervals), 3)
	require.LessOrEqual(t, len(r.Intervals), 4)
	for _, iv := range r.Intervals[:len(r.Intervals)-1] {
		require.InDelta(t, 0.1, (iv.End - iv.Start).Seconds(), 0.08)
	}
	var events int64
	for _, iv := range r.Intervals {
		events += iv.Events
		require.Positive(t, iv.Events)
		require.InDelta(t, float64(iv.Events)/(iv.End-iv.Start).Seconds(), iv.TPS, 1e-6)
	}
	require.Equal(t, r.Totals.Events, events)
	// Events finishing after the deadline are run but not counted.
	require.LessOrEqual(t, r.Totals.Events, f.events.Load())
	require.GreaterOrEqual(t, r.Totals.Events, f.events.Load()-int64(cfg.Threads))
}

func TestRunWarmupNotCounted(t *testing.T) {
	cfg := runFakeConfig()
	cfg.Events = 100
	cfg.Warmup = 150 * time.Millisecond
	f := &runFake{rows: 500, spin: 100 * time.Microsecond}
	st, _ := runFakeStore(t, cfg, f)
	t0 := time.Now()
	r, err := Run(context.Background(), cfg, st, f, RunOptions{})
	require.NoError(t, err)
	require.GreaterOrEqual(t, time.Since(t0), cfg.Warmup)
	require.EqualValues(t, 100, r.Totals.Events)
	require.EqualValues(t, 100, r.Event.Count)
	require.EqualValues(t, 200, r.PerOp[0].Count)
	warm := f.events.Load() - 100
	require.Greater(t, warm, int64(cfg.Threads), "warm-up ran events")
	require.Less(t, r.Totals.Wall, time.Since(t0)-cfg.Warmup+time.Millisecond)
}

func TestRunWorkerError(t *testing.T) {
	cfg := runFakeConfig()
	cfg.Duration = 10 * time.Second
	f := &runFake{rows: 300, failAt: 5}
	st, _ := runFakeStore(t, cfg, f)
	t0 := time.Now()
	r, err := Run(context.Background(), cfg, st, f, RunOptions{})
	require.Less(t, time.Since(t0), 2*time.Second)
	require.Nil(t, r)
	require.ErrorIs(t, err, errRunFake)
	var we *WorkerError
	require.ErrorAs(t, err, &we)
	require.Equal(t, 0, we.Worker)
	require.EqualValues(t, 5, we.Event)
	require.Equal(t, 2, we.Ops)
	require.Equal(t, "point_select", we.LastOp)
	require.Contains(t, err.Error(), "worker 0, event 5")
	require.Contains(t, err.Error(), "update: fake failure")

	// A bad op index is an error too.
	f = &runFake{rows: 300, failAt: 3, failOp: true}
	st, _ = runFakeStore(t, cfg, f)
	_, err = Run(context.Background(), cfg, st, f, RunOptions{})
	require.ErrorContains(t, err, "op 17 is not an index")
}

func TestRunErrorInWarmup(t *testing.T) {
	cfg := runFakeConfig()
	cfg.Duration = 10 * time.Second
	cfg.Warmup = 10 * time.Second
	f := &runFake{rows: 300, failAt: 2}
	st, _ := runFakeStore(t, cfg, f)
	t0 := time.Now()
	_, err := Run(context.Background(), cfg, st, f, RunOptions{})
	require.ErrorIs(t, err, errRunFake)
	require.Less(t, time.Since(t0), 2*time.Second)
}

func TestRunCancel(t *testing.T) {
	cfg := runFakeConfig()
	cfg.Duration = 10 * time.Second
	f := &runFake{rows: 300}
	st, _ := runFakeStore(t, cfg, f)
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	r, err := Run(ctx, cfg, st, f, RunOptions{})
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.NotNil(t, r)
	require.Positive(t, r.Totals.Events)
	require.Less(t, r.Totals.Wall, time.Second)
}

func TestRunCPUUtil(t *testing.T) {
	cfg := runFakeConfig()
	cfg.Threads = runtime.GOMAXPROCS(0)
	cfg.Duration = 300 * time.Millisecond
	cfg.ReportInterval = 100 * time.Millisecond
	f := &runFake{rows: 300, spin: 500 * time.Microsecond}
	st, _ := runFakeStore(t, cfg, f)
	r, err := Run(context.Background(), cfg, st, f, RunOptions{})
	require.NoError(t, err)
	if runtime.GOOS != "linux" {
		t.Skip("CPU time is read with getrusage")
	}
	require.Greater(t, r.Totals.CPUUtil, 0.0)
	require.LessOrEqual(t, r.Totals.CPUUtil, 1.05)
	for _, iv := range r.Intervals {
		require.Greater(t, iv.CPUUtil, 0.0)
		require.LessOrEqual(t, iv.CPUUtil, 1.05)
	}
}

func TestRunSpaceAfter(t *testing.T) {
	cfg := runFakeConfig()
	cfg.Events = 50
	f := &runFake{rows: 300}
	st, _ := runFakeStore(t, cfg, f)
	r, err := Run(context.Background(), cfg, st, f, RunOptions{SpaceAfter: true})
	require.NoError(t, err)
	require.Len(t, r.Space, 1)
	require.Positive(t, r.Space[0].TotalBytes())
}

// The recorder's swap hands over every value recorded, exactly once, while
// the writer keeps recording.
func TestRunRecorderSwapConcurrent(t *testing.T) {
	rec := newRecorder([]string{"a", "b"}, nil, serverCPU{})
	const n = 200_000
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range n {
			rec.begin(false)
			rec.Op(i%2, int64(1000+i%5000))
			rec.end(2000)
		}
	}()
	total := newHistSet(2)
	for {
		finished := false
		select {
		case <-done:
			finished = true
		default:
		}
		s := rec.swap()
		total.merge(s)
		s.reset()
		rec.spare = s
		if finished {
			break
		}
		time.Sleep(50 * time.Microsecond)
	}
	require.EqualValues(t, n/2, total.ops[0].count())
	require.EqualValues(t, n/2, total.ops[1].count())
	require.EqualValues(t, n, total.event.count())
	require.EqualValues(t, n, rec.done.Load())
}

func TestRunHistSummary(t *testing.T) {
	var h hist
	require.Equal(t, Latency{}, h.summary())
	for i := 1; i <= 1000; i++ {
		h.record(int64(i) * int64(time.Microsecond))
	}
	h.record(int64(2 * time.Minute)) // past the histogram's range: kept as 60 s, max exact
	s := h.summary()
	require.EqualValues(t, 1001, s.Count)
	require.InEpsilon(t, 500*time.Microsecond, s.P50, 0.005)
	require.InEpsilon(t, 950*time.Microsecond, s.P95, 0.005)
	require.InEpsilon(t, 990*time.Microsecond, s.P99, 0.005)
	require.Equal(t, 2*time.Minute, s.Max)
	require.Equal(t, time.Duration((500500*int64(time.Microsecond)+int64(2*time.Minute))/1001), s.Mean)
}

func TestRunWorkerErrorMessage(t *testing.T) {
	e := &WorkerError{Worker: 2, Event: 9, Err: errRunFake}
	require.Equal(t, "sim: worker 2, event 9: fake failure", e.Error())
	require.True(t, strings.HasPrefix((&WorkerError{Worker: 1, Event: 1, Ops: 3, LastOp: "x", Err: errRunFake}).Error(), "sim: worker 1, event 1, after 3 ops (last x)"))
}

// The CPU profile covers the measurement and not the warm-up: the fake's
// spin runs in one function before the warm-up ends and in another after.
// A profile's functions are named in its (gzipped protobuf) string table.
func TestRunCPUProfile(t *testing.T) {
	skipUnderProfile(t)
	cfg := runFakeConfig()
	cfg.Warmup, cfg.Duration = 300*time.Millisecond, 400*time.Millisecond
	f := &runFake{rows: 500, spin: 200 * time.Microsecond, phased: 200 * time.Millisecond}
	st, _ := runFakeStore(t, cfg, f)
	path := filepath.Join(t.TempDir(), "run.pprof")
	_, err := Run(context.Background(), cfg, st, f, RunOptions{CPUProfile: path})
	require.NoError(t, err)
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	require.NoError(t, err, "a CPU profile is gzipped")
	prof, err := io.ReadAll(zr)
	require.NoError(t, err)
	require.Contains(t, string(prof), "runFakeMeasuredSpin", "the measurement is in the profile")
	require.NotContains(t, string(prof), "runFakeWarmSpin", "the warm-up is not")
	require.NoError(t, pprof.StartCPUProfile(io.Discard), "Run stopped its profile")
	pprof.StopCPUProfile()
}

// A CPU profile that cannot be written fails the run with a message that
// says so, before the requests or, when another profile runs, at the end
// of the warm-up, leaving no worker behind.
func TestRunCPUProfileFails(t *testing.T) {
	skipUnderProfile(t)
	cfg := runFakeConfig()
	cfg.Warmup, cfg.Duration = 50*time.Millisecond, 100*time.Millisecond
	f := &runFake{rows: 500, spin: 100 * time.Microsecond}
	st, _ := runFakeStore(t, cfg, f)
	_, err := Run(context.Background(), cfg, st, f, RunOptions{CPUProfile: filepath.Join(t.TempDir(), "no", "run.pprof")})
	require.ErrorContains(t, err, "cpu profile")
	require.Zero(t, f.events.Load(), "no request ran")

	require.NoError(t, pprof.StartCPUProfile(io.Discard))
	defer pprof.StopCPUProfile()
	for _, warm := range []time.Duration{0, cfg.Warmup} {
		cfg.Warmup = warm
		path := filepath.Join(t.TempDir(), "run.pprof")
		_, err = Run(context.Background(), cfg, st, f, RunOptions{CPUProfile: path})
		require.ErrorContains(t, err, "cpu profile", "warm-up %v", warm)
		_, err = os.Stat(path)
		require.ErrorIs(t, err, os.ErrNotExist, "warm-up %v: the empty profile is removed", warm)
		n := f.events.Load()
		time.Sleep(20 * time.Millisecond)
		require.Equal(t, n, f.events.Load(), "warm-up %v: the workers stopped", warm)
	}
}

// skipUnderProfile skips a test that starts CPU profiles when the test
// binary already runs one (go test -cpuprofile): Go allows one at a time.
func skipUnderProfile(t *testing.T) {
	t.Helper()
	if err := pprof.StartCPUProfile(io.Discard); err != nil {
		t.Skip("a CPU profile is already running (go test -cpuprofile)")
	}
	pprof.StopCPUProfile()
}

// TestRunRoundWorkerIDs: a round's workers get ids of their own, so that
// repeated runs on one store draw new requests.
func TestRunRoundWorkerIDs(t *testing.T) {
	cfg := runFakeConfig()
	cfg.Events = 10
	f := &runFake{rows: 100}
	st, _ := runFakeStore(t, cfg, f)
	for round := range 3 {
		f.ids = nil
		_, err := Run(context.Background(), cfg, st, f, RunOptions{Round: round})
		require.NoError(t, err)
		want := make([]int, cfg.Threads)
		for i := range want {
			want[i] = round*cfg.Threads + i
		}
		require.ElementsMatch(t, want, f.ids)
	}
}

// TestRunThroughGate: with ThreadConcurrency, Run gives each worker a
// session, so every statement enters the gate once (its handler calls
// then spend tickets) and leaves it at its end, the simple range also
// for each row it sends, and no worker keeps a place after the run.
func TestRunThroughGate(t *testing.T) {
	cfg, err := Config{Workload: "sysbench", Threads: 4, Events: 30, ThreadConcurrency: 2,
		Sysbench: SysbenchConfig{Tables: 1, Rows: 1000, Event: "oltp_read_only", DataStyle: "legacy04"}}.Validate()
	require.NoError(t, err)
	w, err := New(cfg)
	require.NoError(t, err)
	opts, err := cfg.StoreOptions(w.DataBytes())
	require.NoError(t, err)
	require.Equal(t, 2, opts.ThreadConcurrency)
	st, err := zipsim.Open("", opts)
	require.NoError(t, err)
	defer st.Close()
	_, err = Prepare(context.Background(), cfg, st, w, nil)
	require.NoError(t, err)
	before := st.Metrics().Gate
	_, err = Run(context.Background(), cfg, st, w, RunOptions{})
	require.NoError(t, err)
	g := st.Metrics().Gate.Sub(before)
	require.Equal(t, 2, g.Limit)
	// legacy04 keeps every range inside the table: 100 rows.
	require.EqualValues(t, 30*(sbPointSelects+101+3), g.Enters,
		"an entry a point select, SUM, ORDER BY and DISTINCT range, and one a handler call of the simple range (100 rows and the end)")
	require.Zero(t, g.Inside)
	require.Zero(t, g.Waiting)
	require.LessOrEqual(t, g.MaxInside, 2, "read-only statements wait for no row lock")

	_, err = Config{Workload: "sysbench", ThreadConcurrency: 1001}.Validate()
	require.ErrorContains(t, err, "use 1..1000")
}
