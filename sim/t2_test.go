package sim

import (
	"context"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"
)

// The T2, T3 and T8 machinery at small sizes: the scenarios measure and
// plot, and their counters are consistent. The pass bands are not
// asserted here: at these sizes and on a shared machine they mean
// nothing; `zipsim reproduce T2 T3 T8` checks them.

func TestT2Machinery(t *testing.T) {
	m, err := t2Measure(context.Background(), ScenarioOptions{}, t2Seed, 5000, 1)
	if err != nil {
		t.Fatal(err)
	}
	if m.u.pool >= m.u.res.DataBytes || m.u.res.Metrics.Pool.Writes == 0 {
		t.Errorf("the seed's pool (%d bytes for %d of data) wrote %d pages during the load", m.u.pool, m.u.res.DataBytes, m.u.res.Metrics.Pool.Writes)
	}
	if m.uCompress != 0 {
		t.Errorf("the uncompressed load compressed %d pages", m.uCompress)
	}
	if m.cCompress == 0 || m.cOK > m.cCompress {
		t.Errorf("KBS=8 load: %d compressions, %d ok", m.cCompress, m.cOK)
	}
	if m.u.res.Rows != t2Tables*5000 || m.c.res.Rows != m.u.res.Rows {
		t.Errorf("rows loaded: %d and %d", m.u.res.Rows, m.c.res.Rows)
	}
	if m.loadRatio <= 0 || m.bytesRatio <= 0 || m.bytesRatio >= 1 {
		t.Errorf("load c/u %v, bytes c/u %v", m.loadRatio, m.bytesRatio)
	}
	path := filepath.Join(t.TempDir(), "t2.png")
	if err := t2Plot(path, m); err != nil {
		t.Fatal(err)
	}
}

func TestT3Machinery(t *testing.T) {
	m, err := t3Measure(context.Background(), ScenarioOptions{}, 30, 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range t3Formats {
		if u := m.use[f.name]; u.TotalBytes() <= 0 || u.BlobValues < 30 {
			t.Errorf("%s: %d bytes, %d off-page values", f.name, u.TotalBytes(), u.BlobValues)
		}
	}
	if r := m.reads["COMPACT"]; r.perLookup <= 0 {
		t.Errorf("COMPACT lookups read %v pages each", r.perLookup)
	}
	if m.dyn <= 0 || m.c8 <= 0 || m.kbsSpread < 1 || m.clus <= 0 {
		t.Errorf("ratios %v %v %v %v", m.dyn, m.c8, m.kbsSpread, m.clus)
	}
	vals := [][]float64{{1, 2}, {3, 4}}
	if err := t3Bars(filepath.Join(t.TempDir(), "t3.png"), "t", "x", "y", []string{"a", "b"}, []string{"s1", "s2"}, vals, true); err != nil {
		t.Fatal(err)
	}
}

func TestT8Machinery(t *testing.T) {
	if testing.Short() {
		t.Skip("loads two stores on files")
	}
	defer func(l time.Duration, p float64) { t8Latency, t8Pool = l, p }(t8Latency, t8Pool)
	t8Latency, t8Pool = 0, 4
	procs := runtime.GOMAXPROCS(0)
	m, err := t8Measure(context.Background(), ScenarioOptions{}, 500, 100*time.Millisecond, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := runtime.GOMAXPROCS(0); got != procs || m.procs != t8ProcsPerCore*procs {
		t.Errorf("GOMAXPROCS %d before, %d during (want %d), %d after", procs, m.procs, t8ProcsPerCore*procs, got)
	}
	if m.t.schedMean <= 0 || m.t.schedP99 <= 0 {
		t.Errorf("waits for a P: mean %v, p99 %v", m.t.schedMean, m.t.schedP99)
	}
	if m.t.holes == 0 || m.old.holes != 0 {
		t.Errorf("holes: transparent %d, old-style %d", m.t.holes, m.old.holes)
	}
	if m.t.cmpOps != 0 || m.old.cmpOps == 0 || m.t.zipCompress != 0 {
		t.Errorf("B-tree compressions: transparent %d, old-style %d; over the requests, transparent %.3f an operation", m.t.cmpOps, m.old.cmpOps, m.t.zipCompress)
	}
	if m.t.files != 2*t8Partitions || m.old.files != 2*t8Partitions {
		t.Errorf("files: %d and %d", m.t.files, m.old.files)
	}
	if m.t.qps <= 0 || m.old.qps <= 0 || m.t.drop <= 0 || m.old.drop <= 0 {
		t.Errorf("qps %v %v, drop %v %v", m.t.qps, m.old.qps, m.t.drop, m.old.drop)
	}
	if len(m.rounds) != t8Rounds || slices.Min(m.rounds) <= 0 || m.qps < slices.Min(m.rounds) || m.qps > slices.Max(m.rounds) {
		t.Errorf("QPS ratio %v from rounds %v", m.qps, m.rounds)
	}
	out := &Outcome{}
	out.Check("a", m.load, AtLeast(1.1))
	out.Check("b", m.qps, Within(0.7, 0.97))
	out.Check("c", m.size, Within(0.85, 1.15))
	out.Check("d", m.ext, AtLeast(100))
	out.Check("e", m.drp, AtLeast(10))
	t8Notes(out, m)
	if err := t8Plot(filepath.Join(t.TempDir(), "t8.png"), m, out.Checks); err != nil {
		t.Fatal(err)
	}
}

func TestT2T3T8Registered(t *testing.T) {
	for _, id := range []string{"T2", "T3", "T8"} {
		found := false
		for _, s := range Scenarios() {
			if s.ID == id {
				found = s.Run != nil && s.Seed != "" && s.Title != ""
			}
		}
		if !found {
			t.Errorf("%s is not registered whole", id)
		}
	}
}
