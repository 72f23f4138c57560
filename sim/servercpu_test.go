package sim

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestServerCPUSpends(t *testing.T) {
	require.Equal(t, serverCPU{sink: 1}, newServerCPU(0, 0), "no server CPU, no rounds")
	s := newServerCPU(200*time.Microsecond, 0)
	require.Positive(t, s.rounds)
	const n = 50
	t0 := time.Now()
	for range n {
		s.spend()
	}
	// The calibration keeps the fastest batch, so a statement spends at
	// least its share unless the machine sped up; losing the core only
	// makes it longer.
	require.GreaterOrEqual(t, time.Since(t0), n*200*time.Microsecond/2)

	r := newServerCPU(0, time.Microsecond)
	require.Zero(t, r.rounds)
	t0 = time.Now()
	r.spendRows(10_000)
	require.GreaterOrEqual(t, time.Since(t0), 10_000*time.Microsecond/2, "rows spend their share too")
}

func TestRunStatementCPU(t *testing.T) {
	// Each of the fake's four ops per event spends the statement CPU after
	// its latency is taken: events get longer and the run's CPU grows, the
	// ops' own latencies do not include it.
	const per = 250 * time.Microsecond
	run := func(stmt time.Duration) *Report {
		cfg := runFakeConfig()
		cfg.Events, cfg.Threads, cfg.StatementCPU = 120, 1, stmt
		f := &runFake{rows: 800}
		st, lr := runFakeStore(t, cfg, f)
		r, err := Run(context.Background(), cfg, st, f, RunOptions{Load: &lr})
		require.NoError(t, err)
		require.EqualValues(t, 4*120, r.Totals.Ops)
		return r
	}
	base, spent := run(0), run(per)
	require.GreaterOrEqual(t, spent.Event.Mean-base.Event.Mean, 4*per/2)
	require.GreaterOrEqual(t, spent.Totals.CPU-base.Totals.CPU, 120*4*per/2)
	require.Less(t, spent.PerOp[0].P50, per/2, "an op's latency leaves the statement CPU out")

	_, err := Config{StatementCPU: -time.Microsecond}.Validate()
	require.ErrorContains(t, err, "statement_cpu -1µs")
}
