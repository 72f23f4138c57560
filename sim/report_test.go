package sim

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// reportFake runs the fake workload by Events with a few intervals.
func reportFake(t testing.TB, mutate func(*Config)) *Report {
	t.Helper()
	cfg := runFakeConfig()
	cfg.Events = 400
	cfg.ReportInterval = 15 * time.Millisecond
	if mutate != nil {
		mutate(&cfg)
	}
	f := &runFake{rows: 600, spin: 100 * time.Microsecond}
	st, lr := runFakeStore(t, cfg, f)
	r, err := Run(context.Background(), cfg, st, f, RunOptions{Load: &lr, SpaceAfter: true})
	require.NoError(t, err)
	return r
}

func TestReportConfigHash(t *testing.T) {
	a, err := Config{Threads: 4}.Validate()
	require.NoError(t, err)
	b, err := Config{Threads: 4, Workload: "sysbench", Locking: "split"}.Validate()
	require.NoError(t, err)
	require.Equal(t, ConfigHash(a), ConfigHash(b), "defaults and their explicit values hash alike")
	require.Len(t, ConfigHash(a), 16)
	b.KBS, b.RowFormat = 8, "compressed"
	require.NotEqual(t, ConfigHash(a), ConfigHash(b))
	require.Equal(t, ConfigHash(b), ConfigHash(b))
}

func TestReportJSONRoundTrip(t *testing.T) {
	r := reportFake(t, nil)
	var buf bytes.Buffer
	require.NoError(t, r.WriteJSON(&buf))
	var got Report
	require.NoError(t, json.Unmarshal(buf.Bytes(), &got))

	require.Equal(t, r.Header.Config, got.Header.Config)
	require.Equal(t, r.Header.ConfigHash, got.Header.ConfigHash)
	require.True(t, r.Header.Start.Equal(got.Header.Start))
	require.Equal(t, r.Header.Ops, got.Header.Ops)
	require.Equal(t, r.Header.DiskBytes, got.Header.DiskBytes)
	require.Equal(t, r.Totals, got.Totals)
	require.Equal(t, r.PerOp, got.PerOp)
	require.Equal(t, r.Event, got.Event)
	require.Equal(t, r.Memory, got.Memory)
	require.Len(t, got.Intervals, len(r.Intervals))
	for i := range r.Intervals {
		a, b := r.Intervals[i], got.Intervals[i]
		require.Equal(t, a.Start, b.Start)
		require.Equal(t, a.End, b.End)
		require.Equal(t, a.Events, b.Events)
		require.Equal(t, a.PerOp, b.PerOp)
		require.Equal(t, a.Metrics.Pool.Gets, b.Metrics.Pool.Gets)
	}
	require.Equal(t, r.Metrics.Pool.Gets, got.Metrics.Pool.Gets)
	require.Equal(t, r.Metrics.Pool.CMP, got.Metrics.Pool.CMP)
	require.Equal(t, r.Metrics.Pool.Latches.Rows, got.Metrics.Pool.Latches.Rows)
	require.Equal(t, r.Metrics.Indexes, got.Metrics.Indexes)
	require.Equal(t, r.Metrics.Spaces, got.Metrics.Spaces)
	require.NotNil(t, got.Load)
	require.Equal(t, r.Load.Rows, got.Load.Rows)
	require.Equal(t, r.Load.Tables, got.Load.Tables)
	require.Equal(t, r.Space, got.Space)

	// The knobs are under header.config, the measured pool beside them.
	var raw struct {
		Header map[string]any `json:"header"`
	}
	require.NoError(t, json.Unmarshal(buf.Bytes(), &raw))
	require.Contains(t, raw.Header, "config")
	require.Contains(t, raw.Header, "pool_size")
	require.EqualValues(t, 3, raw.Header["config"].(map[string]any)["threads"])
}

func TestReportCSV(t *testing.T) {
	r := reportFake(t, nil)
	var buf bytes.Buffer
	require.NoError(t, r.WriteCSV(&buf, false))
	recs, err := csv.NewReader(&buf).ReadAll()
	require.NoError(t, err)
	require.Len(t, recs, 2)
	header := recs[0]
	require.Equal(t, r.CSVColumns(false), header)
	require.Equal(t, []string{"config_hash", "workload", "seed", "threads"}, header[:4])
	col := func(row []string, name string) string {
		for i, h := range header {
			if h == name {
				return row[i]
			}
		}
		t.Fatalf("no column %s", name)
		return ""
	}
	row := recs[1]
	require.Equal(t, r.Header.ConfigHash, col(row, "config_hash"))
	require.Equal(t, "400", col(row, "events"))
	require.Equal(t, "800", col(row, "point_select_count"))
	require.Equal(t, "0", col(row, "never_count"))
	require.NotEmpty(t, col(row, "update_p99_us"))
	require.NotEmpty(t, col(row, "busiest_lock"))
	require.NotEmpty(t, col(row, "load_rows_per_s"))
	require.NotEqual(t, "0", col(row, "compress_ops"))
	require.NotEmpty(t, col(row, "tps"))
	require.NotEmpty(t, col(row, "cpu_util"))

	// Per interval: one row each, with the interval columns.
	buf.Reset()
	require.NoError(t, r.WriteCSV(&buf, true))
	recs, err = csv.NewReader(&buf).ReadAll()
	require.NoError(t, err)
	require.Len(t, recs, 1+len(r.Intervals))
	require.Equal(t, r.CSVColumns(true), recs[0])
	require.Contains(t, recs[0], "interval")
	require.Equal(t, "1", recs[1][len(csvFixed)])

	// A sweep: one header, then rows appended run after run; the columns
	// stay put.
	r2 := reportFake(t, func(c *Config) { c.Threads = 2 })
	buf.Reset()
	require.NoError(t, r.WriteCSVHeader(&buf, false))
	require.NoError(t, r.WriteCSVRows(&buf, false))
	require.NoError(t, r2.WriteCSVRows(&buf, false))
	recs, err = csv.NewReader(&buf).ReadAll()
	require.NoError(t, err)
	require.Len(t, recs, 3)
	require.Equal(t, r2.CSVColumns(false), recs[0])
	require.Equal(t, "3", recs[1][3])
	require.Equal(t, "2", recs[2][3])
	require.NotEqual(t, recs[1][0], recs[2][0], "config hashes differ")

	// WriteSweepCSV unions operation columns of different workloads.
	r3 := *r2
	r3.Header.Ops = []string{"other"}
	r3.PerOp = []OpLatency{{Op: "other", Latency: Latency{Count: 5}}}
	buf.Reset()
	require.NoError(t, WriteSweepCSV(&buf, false, r, &r3))
	recs, err = csv.NewReader(&buf).ReadAll()
	require.NoError(t, err)
	require.Len(t, recs, 3)
	require.Equal(t, "other_count", recs[0][len(recs[0])-4])
	require.Equal(t, "", recs[1][len(recs[0])-4])
	require.Equal(t, "5", recs[2][len(recs[0])-4])
	require.Equal(t, "", recs[2][len(csvFixed)+len(csvKeys)])
}

func TestReportText(t *testing.T) {
	r := reportFake(t, nil)
	var buf bytes.Buffer
	require.NoError(t, r.WriteText(&buf))
	s := buf.String()
	for _, title := range []string{"RUN\n", "LOAD\n", "THROUGHPUT", "LATENCY (µs", "COMPRESSION (INNODB_CMP", "BUFFER POOL",
		"LOCKS (", "B-TREES", "SPACE AND I/O", "TABLE SPACE AFTER LOAD", "TABLE SPACE AFTER RUN", "MEMORY", "METRICS (whole run)",
		// The full tables of zipsim.Metrics.String.
		"INNODB_TABLESPACES", "INNODB_BUFFER_POOL_STATS", "INNODB_CMP_PER_INDEX", "INNODB_CMPMEM"} {
		require.Contains(t, s, title)
	}
	require.Contains(t, s, "config "+r.Header.ConfigHash)
	require.Contains(t, s, "threads=3")
	require.Contains(t, s, "sysbench.rows=")
	require.Contains(t, s, "| point_select |")
	require.Contains(t, s, " (event) |")
	require.Contains(t, s, "|      all |")
	for _, line := range strings.Split(s[:strings.Index(s, "METRICS (whole run)")], "\n") {
		require.LessOrEqual(t, len([]rune(line)), 200, line)
	}
}

func TestReportBytesStr(t *testing.T) {
	require.Equal(t, "512 B", bytesStr(int64(512)))
	require.Equal(t, "1.5 KiB", bytesStr(int64(1536)))
	require.Equal(t, "4.0 MiB", bytesStr(uint64(4<<20)))
	require.Equal(t, "2048.0 GiB", bytesStr(int64(2<<40)))
}

// TestReportKnobsOldBlocksTime checks that the report writes
// innodb_old_blocks_time as InnoDB spells it, not as the Config holds it
// (its zero value is the 1s default, none is negative).
func TestReportKnobsOldBlocksTime(t *testing.T) {
	for d, want := range map[time.Duration]string{0: "old_blocks_time=1s", -1: "old_blocks_time=0", 500 * time.Millisecond: "old_blocks_time=500ms"} {
		require.Contains(t, knobs(Config{OldBlocksTime: d}), want)
	}
}
