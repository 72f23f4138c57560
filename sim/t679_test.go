package sim

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The T6, T7 and T9 scenarios' machinery at a toy size: these tests check
// that the helpers measure and plot, not the bands (zipsim reproduce does).

func TestT679Registered(t *testing.T) {
	ids := map[string]bool{}
	for _, s := range Scenarios() {
		ids[s.ID] = true
	}
	for _, id := range []string{"T6", "T7", "T9"} {
		require.True(t, ids[id], "%s is registered", id)
	}
}

func TestT679LoadWarmAndMeasure(t *testing.T) {
	ctx := context.Background()
	for _, kbs := range []int{0, 4} {
		cfg := Config{Workload: "linkbench", Seed: 1, Threads: 4, PageSize: 8192, KBS: kbs, PoolRatio: 0.5,
			IOLatency: 10 * time.Microsecond, Duration: 300 * time.Millisecond, ReportInterval: 100 * time.Millisecond,
			Linkbench: LinkbenchConfig{MaxID1: 3000, Loaders: 2}}
		s, err := t679Load(ctx, cfg)
		require.NoError(t, err)
		require.Equal(t, map[int]string{0: "u", 4: "c"}[kbs], t679Name(s.cfg))
		m := s.st.Metrics()
		require.Greater(t, t679LeafFill(m, "linktable", "PRIMARY"), 0.3)
		sp, _, _ := t679Splits(s.load.Metrics)
		require.Positive(t, sp, "the load splits pages")
		n, err := s.readWarm(ctx, 4, 50*time.Millisecond)
		require.NoError(t, err)
		require.Positive(t, n)
		// readWarm changes no page.
		require.Equal(t, m.Indexes[0].BTree.Rows, s.st.Metrics().Indexes[0].BTree.Rows)
		rep, err := Run(ctx, s.cfg, s.st, s.lb, RunOptions{})
		require.NoError(t, err)
		require.NotEmpty(t, rep.Intervals)
		require.GreaterOrEqual(t, t679IndexWait(rep.Metrics), time.Duration(0))
		s.close()
	}
}

func TestT679Plots(t *testing.T) {
	dir := t.TempDir()
	q := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	u := t6Run{name: "u", qps: q, splits: q}
	c := t6Run{name: "c", qps: q, splits: q}
	require.NoError(t, plotT6(filepath.Join(dir, "t6.png"), u, c, u))
	l := []t7Load{{rowsPerSec: 1}, {rowsPerSec: 2}, {rowsPerSec: 3}, {rowsPerSec: 4}}
	require.NoError(t, plotT7(filepath.Join(dir, "t7.png"), l, l))
	r := t9Result{grow: q, sys: q}
	require.NoError(t, plotT9(filepath.Join(dir, "t9.png"), r, r))
	for _, n := range []string{"t6.png", "t7.png", "t9.png"} {
		fi, err := os.Stat(filepath.Join(dir, n))
		require.NoError(t, err)
		require.Positive(t, fi.Size())
	}
	require.True(t, strings.HasPrefix(t679Fmt([]float64{1.234}, "%.1f"), "1.2"))
	require.InDelta(t, 69, t9ReadPct(), 1)
}

func TestT7Partitions32(t *testing.T) {
	l := func(name string, rows int64, wall time.Duration, util float64) t7Load {
		return t7Load{name: name, rowsPerSec: float64(rows) / wall.Seconds(),
			load: LoadResult{Rows: rows, Wall: wall, CPUUtil: util, CPU: time.Duration(util * 2 * float64(wall))}}
	}
	// p32 keeps 98% of two cores busy where p1 kept 89%, but spends a
	// third more CPU per row: 0.8 of p1's rate, and at most 1/0.89.
	p1 := l("cached c p1", 1000, time.Second, 0.89)
	p32 := l("cached c p32", 1000, 1237*time.Millisecond, 0.98)
	s := t7Partitions32(p1, p32)
	require.Contains(t, s, "cached c p32/p1 0.81 = cores kept busy 89% → 98% (×1.10)")
	require.Contains(t, s, "CPU per row 1780.0 → 2424.5 µs (÷1.36)")
	require.Contains(t, s, "at most 1.12")
}

func TestT7ManyCores(t *testing.T) {
	// p1: 1,000 rows on 9 ms of CPU, the busiest lock held 1 ms; p32: 12 ms.
	// No waits: 9/12 = 0.75; serialised with 9 cores (9·1 + 9 − 1)/12 =
	// 1.42, with 11 (11 + 8)/12 = 1.58.
	p1 := t7Load{name: "cached c p1", heldName: "linktable.id1_type", held: time.Millisecond,
		load: LoadResult{Rows: 1000, CPU: 9 * time.Millisecond}}
	p32 := t7Load{name: "cached c p32", load: LoadResult{Rows: 1000, CPU: 12 * time.Millisecond}}
	require.Equal(t, "cached c p32/p1 with a core for each goroutine: 0.75 if p1's index-lock holds never made a loader wait; "+
		"1.42 for the load's 9 goroutines and 1.58 for the seed's 11 (10 link loaders and a node loader) if each hold of its busiest shared index lock stopped every loader, more if other waits add; "+
		"that lock, linktable.id1_type, was held exclusively 1.00 µs a row, 11.1% of p1's 9.00 µs of CPU a row (p32: 12.00 µs)", t7ManyCores(p1, p32))
}

func TestSchedWait(t *testing.T) {
	buckets := []float64{math.Inf(-1), 0, 1e-6, 1e-3, math.Inf(1)}
	a := &metrics.Float64Histogram{Counts: []uint64{0, 5, 0, 0}, Buckets: buckets}
	b := &metrics.Float64Histogram{Counts: []uint64{0, 95, 10, 1}, Buckets: buckets}
	mean, p99 := schedWait(a, b)
	// 90 waits of 0-1 µs, 10 of 1 µs-1 ms, 1 past 1 ms (taken at 1 ms).
	require.InDelta(t, (90*0.5e-6+10*500.5e-6+1e-3)/101, mean.Seconds(), 1e-9, "to the nanosecond")
	require.Equal(t, time.Millisecond, p99, "the 99th of 101 waits lies in the 1 µs-1 ms bucket")
	mean, p99 = schedWait(a, a)
	require.Zero(t, mean+p99, "nothing waited")
	mean, p99 = schedWait(nil, b)
	require.Zero(t, mean+p99, "a missing reading")
	require.NotNil(t, readSchedLatencies(), "the runtime reports scheduling latencies")
}
