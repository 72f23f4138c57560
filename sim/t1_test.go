package sim

import (
	"context"
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// These tests check the machinery of scenarios T1, T4 and T5 on tiny
// data in a few seconds; they do not judge the pass bands, which need
// the scenarios' sizes (zipsim reproduce T1 T4 T5).

func TestT1T4T5Registered(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range Scenarios() {
		if s.Title == "" || s.Seed == "" || s.Run == nil {
			t.Errorf("%s: title, seed and run must be set", s.ID)
		}
		seen[s.ID] = true
	}
	for _, id := range []string{"T1", "T4", "T5"} {
		if !seen[id] {
			t.Errorf("scenario %s is not registered", id)
		}
	}
}

func TestT145CheckNaNFailsAndEncodes(t *testing.T) {
	out := &Outcome{}
	t145Check(out, "over zero, at most", math.NaN(), AtMost(0.25))
	t145Check(out, "over zero, at least", math.Inf(1), AtLeast(1.5))
	t145Check(out, "fine", 2, AtLeast(1.5))
	if out.Checks[0].Pass || out.Checks[1].Pass || !out.Checks[2].Pass {
		t.Errorf("checks %+v: want fail, fail, pass", out.Checks)
	}
	if len(out.Notes) != 2 {
		t.Errorf("notes %q: want one per unmeasurable check", out.Notes)
	}
	if _, err := json.Marshal(out); err != nil {
		t.Errorf("outcome does not encode: %v", err)
	}
}

func TestT4Spread(t *testing.T) {
	if s := t4Spread([]float64{100, 150, 300}); math.Abs(s-2) > 1e-12 {
		t.Errorf("spread %v, want 2", s)
	}
	if s := t4Spread([]float64{5, 5, 5}); s != 0 {
		t.Errorf("spread %v, want 0", s)
	}
}

// TestT1Machinery prepares a tiny dataset, reopens two copies of it with
// different locking and runs alternating rounds on them.
func TestT1Machinery(t *testing.T) {
	ctx := context.Background()
	tmp := t.TempDir()
	cfg := Config{Workload: "sysbench", Seed: 3, Threads: 2, RowFormat: "compressed", KBS: 8, Instances: 2,
		Sysbench: SysbenchConfig{Tables: 2, Rows: 1500, Event: "oltp_read_only"}}
	d, err := t145Prepare(ctx, cfg, filepath.Join(tmp, "data"))
	if err != nil {
		t.Fatal(err)
	}
	ws := d.primaryBytes()
	if ws <= 0 || ws%1024 != 0 {
		t.Fatalf("working set %d bytes: want a positive number of 8K blocks", ws)
	}
	var arms []*t145Arm
	for _, locking := range []string{"legacy", "split"} {
		c := d.cfg
		c.PoolBytes, c.PoolRatio, c.Locking = 2<<20, 0, locking
		st, err := t145Open(d, c, filepath.Join(tmp, locking))
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		arms = append(arms, &t145Arm{name: locking, cfg: c, st: st})
	}
	if err := t145Rounds(ctx, ScenarioOptions{}, "T1", arms, 3, 20*time.Millisecond, 50*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	for _, a := range arms {
		if len(a.reps) != 3 {
			t.Fatalf("%s: %d reports, want 3", a.name, len(a.reps))
		}
		m := a.med()
		if m.Totals.Events == 0 || m.Header.Config.Locking != a.name {
			t.Errorf("%s: median report has %d events, locking %q", a.name, m.Totals.Events, m.Header.Config.Locking)
		}
		if w := t145Wait(m, "LRU_list_mutex"); w < 0 || w > float64(m.Header.Threads) {
			t.Errorf("%s: LRU wait share %v out of range", a.name, w)
		}
	}
	// The transition reports a walk, reads' walk and a wait share per half
	// second of each phase: 3 on half the tables, then 4 on all.
	note, err := t1Transition(ctx, ScenarioOptions{}, d, 2<<20, filepath.Join(tmp, "transition"))
	if err != nil {
		t.Fatal(err)
	}
	phases := strings.Split(note, "; then ")
	if len(phases) != 2 || !strings.Contains(phases[0], "1 tables") || !strings.Contains(phases[1], "2 tables") {
		t.Fatalf("transition note %q: want a phase on 1 table, then on 2", note)
	}
	for i, want := range []int{3, 4} {
		walks, reads, _ := strings.Cut(strings.SplitN(phases[i], "zip_clean walk mean ", 2)[1], " (reads' ")
		reads, _, _ = strings.Cut(reads, ")")
		for _, w := range []string{walks, reads} {
			if n := len(strings.Fields(w)); n != want {
				t.Errorf("phase %d: %d walk means %q, want %d", i+1, n, w, want)
			}
		}
	}
}
