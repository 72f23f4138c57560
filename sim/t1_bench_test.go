package sim

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zipsim/zipsim"
)

// Benchmarks of scenarios T1, T4 and T5 for many-core machines:
//
//	go test -run '^$' -bench 'T1|T4|T5' -cpu 1,2,4,8,16,32 ./sim
//
// Each sub-benchmark runs the scenario's sysbench events with
// b.RunParallel (GOMAXPROCS goroutines, so -cpu is the thread count) on a
// store opened for it, and reports txn/s (or queries/s), the buffer pool's
// counters per event and lock wait shares; the second of a pair (c after
// u, sharded after global, a smaller page after 16K) also reports its
// ratio to the first, measured in the same process at the same -cpu.

// t145BenchDirs caches prepared datasets across benchmarks, by name.
var (
	t145BenchMu   sync.Mutex
	t145BenchTmp  string
	t145BenchData = map[string]*t145Data{}
	// t145BenchRate remembers the last rate of a sub-benchmark, by key,
	// for the ratios.
	t145BenchRate = map[string]float64{}
)

// t145BenchPrepare loads cfg once per process under name.
func t145BenchPrepare(b *testing.B, name string, cfg Config) *t145Data {
	b.Helper()
	t145BenchMu.Lock()
	defer t145BenchMu.Unlock()
	if d, ok := t145BenchData[name]; ok {
		return d
	}
	if t145BenchTmp == "" {
		var err error
		if t145BenchTmp, err = os.MkdirTemp("", "zipsim-bench-t145-"); err != nil {
			b.Fatal(err)
		}
	}
	d, err := t145Prepare(context.Background(), cfg, filepath.Join(t145BenchTmp, name))
	if err != nil {
		b.Fatal(err)
	}
	t145BenchData[name] = d
	return d
}

var t145BenchSeq atomic.Int64

// t145BenchOpen opens a fresh copy of d with cfg's pool and locking.
func t145BenchOpen(b *testing.B, d *t145Data, cfg Config) *zipsim.Store {
	b.Helper()
	dir := filepath.Join(t145BenchTmp, fmt.Sprintf("run%d", t145BenchSeq.Add(1)))
	st, err := t145Open(d, cfg, dir)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close(); os.RemoveAll(dir) })
	return st
}

// t145NopRec counts ops, ends statements at the concurrency gate and
// spends the Config's server-layer CPU, as Run's recorder does, but keeps
// no histograms.
type t145NopRec struct {
	ops    int64
	sess   *zipsim.Session
	server serverCPU
}

func (r *t145NopRec) Op(int, int64) { r.sess.Leave(); r.server.spend(); r.ops++ }
func (r *t145NopRec) Rows(n int)    { r.server.spendRows(n) }

// next runs wk's next event as a worker of Run does.
func (r *t145NopRec) next(wk Worker) error {
	err := wk.Next(zipsim.WithSession(context.Background(), r.sess), r)
	r.sess.Leave()
	return err
}

// t145Bench runs cfg's events on st with b.RunParallel after warmup and
// reports events/s, ops per event and the pool's counters; it returns
// the events per second.
func t145Bench(b *testing.B, cfg Config, st *zipsim.Store, warmup time.Duration) float64 {
	b.Helper()
	cfg, err := cfg.Validate()
	if err != nil {
		b.Fatal(err)
	}
	w, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	var id atomic.Int64
	worker := func() Worker {
		wk, err := w.Worker(st, int(id.Add(1)))
		if err != nil {
			b.Fatal(err)
		}
		return wk
	}
	// Warm the pool to its steady state, one worker, not timed.
	wk, rec := worker(), &t145NopRec{sess: st.NewSession(), server: newServerCPU(cfg.StatementCPU, cfg.RowCPU)}
	for end := time.Now().Add(warmup); time.Now().Before(end); {
		if err := rec.next(wk); err != nil {
			b.Fatal(err)
		}
	}
	m0 := st.Metrics()
	var ops atomic.Int64
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		wk, rec := worker(), &t145NopRec{sess: st.NewSession(), server: newServerCPU(cfg.StatementCPU, cfg.RowCPU)}
		for pb.Next() {
			if err := rec.next(wk); err != nil {
				b.Error(err)
				return
			}
		}
		ops.Add(rec.ops)
	})
	wall := time.Since(start)
	b.StopTimer()
	m := st.Metrics().Sub(m0).Pool
	n := float64(b.N)
	rate := n / wall.Seconds()
	threads := testingProcs()
	b.ReportMetric(rate, "events/s")
	b.ReportMetric(float64(ops.Load())/n, "ops/event")
	b.ReportMetric(float64(m.CMP.Total().UncompressOps)/n, "inflates/event")
	b.ReportMetric(float64(m.Reads)/n, "reads/event")
	b.ReportMetric(100*m.Latches.WaitShare("LRU_list_mutex", threads, wall), "%lru-wait")
	var pool float64
	for _, l := range t5PoolLocks {
		pool += m.Latches.WaitShare(l, threads, wall)
	}
	b.ReportMetric(100*pool, "%pool-wait")
	return rate
}

// testingProcs is RunParallel's goroutine count: GOMAXPROCS (no
// SetParallelism here).
func testingProcs() int { return runtime.GOMAXPROCS(0) }

// BenchmarkT1ReadOnly is T1's tight pool (u working set = 0.8 of the
// pool, 4 instances): read-only transactions on the uncompressed and the
// KBS=8 tables under Legacy and Split locking; the c sub-benchmarks also
// report c/u, the ratio T1's bands judge.
func BenchmarkT1ReadOnly(b *testing.B) {
	base := engine51(Config{Workload: "sysbench", Seed: 1, Instances: t1Inst, StatementCPU: t4StatementCPU, RowCPU: t1RowCPU, Latches: seedLatches,
		Sysbench: SysbenchConfig{Tables: t1Tables, Rows: t1Rows, Dist: "uniform", Event: "oltp_read_only"}})
	uc, cc := base, base
	uc.RowFormat = "dynamic"
	cc.RowFormat, cc.KBS = "compressed", t1KBS
	ud := t145BenchPrepare(b, "t1u", uc)
	cd := t145BenchPrepare(b, "t1c", cc)
	for _, pool := range []struct {
		name  string
		bytes int64
	}{{"tight", int64(float64(ud.primaryBytes())/t1Tight) &^ 16383}, {"control", int64(float64(ud.primaryBytes())*t1Control) &^ 16383}} {
		for _, locking := range []string{"legacy", "split"} {
			for _, t := range []struct {
				name string
				d    *t145Data
			}{{"u", ud}, {"c", cd}} {
				b.Run(pool.name+"/"+locking+"/"+t.name, func(b *testing.B) {
					cfg := t.d.cfg
					cfg.PoolBytes, cfg.PoolRatio, cfg.Locking, cfg.Instances = pool.bytes, 0, locking, t1Instances(locking)
					st := t145BenchOpen(b, t.d, cfg)
					rate := t145Bench(b, cfg, st, time.Second)
					key := fmt.Sprintf("t1/%s/%s/%d", pool.name, locking, testingProcs())
					if t.name == "u" {
						t145BenchRate[key] = rate
					} else if u := t145BenchRate[key]; u > 0 {
						b.ReportMetric(rate/u, "c/u")
					}
				})
			}
		}
	}
}
