package sim

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim"
)

func TestServerCPURounds(t *testing.T) {
	require.Equal(t, serverCPU{sink: 1}, newServerCPU(0, 0), "no server CPU, no rounds")
	rn := roundNanos()
	s := newServerCPU(200*time.Microsecond, 0)
	require.InDelta(t, 200e3/rn, s.rounds, 1)

	// A row cheaper than a round spends nothing until the rows add up to
	// one: none is lost to rounding.
	r := newServerCPU(0, time.Duration(math.Ceil(rn/4)))
	want := int(math.Ceil(1 / r.rowRounds))
	calls := 0
	for sink := r.sink; r.sink == sink; calls++ {
		r.spendRows(1)
	}
	require.Equal(t, want, calls, "rows per round %.3f", r.rowRounds)
	require.Less(t, r.rowDebt, 1.0)

	// Spending takes at least its share of time: the calibration keeps
	// its fastest batch, and losing the core only makes a spend longer.
	const n = 200
	t0 := time.Now()
	for range n {
		s.spend()
	}
	require.GreaterOrEqual(t, time.Since(t0), n*200*time.Microsecond/4)
}

func TestRunServerCPU(t *testing.T) {
	// Each of the fake's four ops per event spends the statement CPU and
	// its spin op reports 10 rows, after their latencies are taken: the
	// run's CPU grows, the ops' own latencies do not.
	const per, events = 250 * time.Microsecond, 120
	run := func(stmt, row time.Duration) *Report {
		cfg := runFakeConfig()
		cfg.Events, cfg.Threads, cfg.StatementCPU, cfg.RowCPU = events, 1, stmt, row
		f := &runFake{rows: 800, scanned: 10}
		st, lr := runFakeStore(t, cfg, f)
		r, err := Run(context.Background(), cfg, st, f, RunOptions{Load: &lr})
		require.NoError(t, err)
		require.EqualValues(t, 4*events, r.Totals.Ops)
		return r
	}
	base, stmt, rows := run(0, 0), run(per, 0), run(0, per/10)
	require.GreaterOrEqual(t, stmt.Totals.CPU-base.Totals.CPU, events*4*per/4)
	require.GreaterOrEqual(t, stmt.Event.Mean-base.Event.Mean, 4*per/4)
	require.Less(t, stmt.PerOp[0].P50, per/2, "an op's latency leaves the statement CPU out")
	require.GreaterOrEqual(t, rows.Totals.CPU-base.Totals.CPU, events*10*(per/10)/4)

	_, err := Config{StatementCPU: -time.Microsecond}.Validate()
	require.ErrorContains(t, err, "statement_cpu -1µs")
	_, err = Config{RowCPU: 2 * time.Millisecond}.Validate()
	require.ErrorContains(t, err, "row_cpu 2ms: use 0 (none) up to 1ms")
}

func TestLoadRowCPU(t *testing.T) {
	// Every workload's load spends LoadRowCPU after each row it inserts:
	// the load's CPU grows by rows × LoadRowCPU (1.03–1.19 times it when
	// run alone here). Uncompressed loads keep the base CPU, and with it
	// the noise under -race beside other packages' tests, small beside
	// the spend: with KBS=8 a 600-row sysbench load took 371 ms and 644 ms
	// of CPU in two CI runs, and the spend's 120 ms vanished in the
	// difference. The bound is half the nominal. It catches a load whose
	// main insert path spends nothing; linkbench's count and node rows, 3%
	// of its rows at this size, are below its resolution.
	load := func(cfg Config) LoadResult {
		cfg, err := cfg.Validate()
		require.NoError(t, err)
		w, err := New(cfg)
		require.NoError(t, err)
		opts, err := cfg.StoreOptions(w.DataBytes())
		require.NoError(t, err)
		st, err := zipsim.Open("", opts)
		require.NoError(t, err)
		defer st.Close()
		lr, err := Prepare(context.Background(), cfg, st, w, nil)
		require.NoError(t, err)
		return lr
	}
	for _, c := range []struct {
		cfg Config
		per time.Duration
	}{
		{Config{Workload: "sysbench", Seed: 1, Threads: 2, Sysbench: SysbenchConfig{Tables: 2, Rows: 300}}, 500 * time.Microsecond},
		{Config{Workload: "linkbench", Seed: 1, Threads: 2, Linkbench: LinkbenchConfig{MaxID1: 200}}, 50 * time.Microsecond},
		{Config{Workload: "document", Seed: 1, Document: DocumentConfig{Docs: 300}}, time.Millisecond},
	} {
		t.Run("workload="+c.cfg.Workload, func(t *testing.T) {
			cfg := c.cfg
			base := load(cfg)
			cfg.LoadRowCPU = c.per
			spent := load(cfg)
			require.Equal(t, base.Rows, spent.Rows)
			nominal := time.Duration(spent.Rows) * c.per
			t.Logf("%d rows: CPU %v without, %v with, %.2f of the nominal %v", spent.Rows, base.CPU, spent.CPU, float64(spent.CPU-base.CPU)/float64(nominal), nominal)
			require.GreaterOrEqual(t, spent.CPU-base.CPU, nominal/2)
		})
	}
	_, err := Config{LoadRowCPU: -time.Microsecond}.Validate()
	require.ErrorContains(t, err, "load_row_cpu -1µs: use 0 (none) up to 1ms")
}
