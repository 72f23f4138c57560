package sim

import (
	"bytes"
	"context"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim"
	"github.com/zipsim/zipsim/btree"
	"github.com/zipsim/zipsim/internal/sbdata"
)

var (
	sb10C   = regexp.MustCompile(`^[0-9]{11}(-[0-9]{11}){9} $`)
	sb10Pad = regexp.MustCompile(`^[0-9]{11}(-[0-9]{11}){4} $`)
)

// sbCounter is a Recorder counting operations.
type sbCounter struct {
	mu   sync.Mutex
	n    map[string]int
	ns   int64
	rows int
}

func newSbCounter() *sbCounter { return &sbCounter{n: map[string]int{}} }

func (c *sbCounter) Rows(n int) {
	c.mu.Lock()
	c.rows += n
	c.mu.Unlock()
}

func (c *sbCounter) Op(op int, ns int64) {
	c.mu.Lock()
	c.n[sysbenchOps[op]]++
	if ns < 0 {
		c.ns = ns
	}
	c.mu.Unlock()
}

// sbSetup validates c, opens an in-memory store sized for it, creates and
// loads the tables.
func sbSetup(t *testing.T, c Config) (*sysbench, *zipsim.Store) {
	t.Helper()
	c.Workload = "sysbench"
	c, err := c.Validate()
	if err != nil {
		t.Fatal(err)
	}
	wl, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	s := wl.(*sysbench)
	opts, err := c.StoreOptions(s.DataBytes())
	if err != nil {
		t.Fatal(err)
	}
	st, err := zipsim.Open("", opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ctx := context.Background()
	if err := s.Create(ctx, st); err != nil {
		t.Fatal(err)
	}
	var loaded atomic.Int64
	if err := s.Load(ctx, st, func(n int64) { loaded.Add(n) }); err != nil {
		t.Fatal(err)
	}
	if loaded.Load() != s.LoadRows() {
		t.Fatalf("progress reported %d rows, LoadRows says %d", loaded.Load(), s.LoadRows())
	}
	return s, st
}

// sbContents checks that every table holds exactly ids 1..rows, with k
// index entries for all of them and a clean Check, and returns the rows.
func sbContents(t *testing.T, s *sysbench, st *zipsim.Store) [][]zipsim.Row {
	t.Helper()
	ctx := context.Background()
	if errs := st.Check(ctx); len(errs) > 0 {
		t.Fatalf("Check: %v", errs)
	}
	ts, err := s.tables(st)
	if err != nil {
		t.Fatal(err)
	}
	all := make([][]zipsim.Row, len(ts))
	for i, tb := range ts {
		next := int64(1)
		err := tb.Scan(ctx, nil, nil, false, func(r zipsim.Row) bool {
			if r[0].Int() != next {
				t.Errorf("%s: id %d where %d was due", tb.Name(), r[0].Int(), next)
			}
			next = r[0].Int() + 1
			all[i] = append(all[i], r.Clone())
			return true
		})
		if err != nil {
			t.Fatal(err)
		}
		if int64(len(all[i])) != s.rows {
			t.Errorf("%s holds %d rows, want %d", tb.Name(), len(all[i]), s.rows)
		}
		n := 0
		if err := tb.ScanIndex(ctx, "k_"+strconv.Itoa(i+1), nil, nil, false, func(zipsim.Row) bool { n++; return true }); err != nil {
			t.Fatal(err)
		}
		if int64(n) != s.rows {
			t.Errorf("%s: k_%d holds %d entries, want %d", tb.Name(), i+1, n, s.rows)
		}
	}
	return all
}

func TestSysbenchValues(t *testing.T) {
	r := sbdata.Rand(3)
	var g sbGen
	for range 1000 {
		if c := g.c(r); len(c) != 120 || !sb10C.Match(c) || len(bytes.TrimRight(c, " ")) != 119 {
			t.Fatalf("sb10 c %q", c)
		}
		if p := g.pad(r); len(p) != 60 || !sb10Pad.Match(p) || len(bytes.TrimRight(p, " ")) != 59 {
			t.Fatalf("sb10 pad %q", p)
		}
		c := g.legacyC(r)
		f := strings.Split(string(c), "-")
		if len(f) != 10 || len(c) > 120 {
			t.Fatalf("legacy04 c %q: %d fields", c, len(f))
		}
		for _, s := range f {
			if v, err := strconv.ParseUint(s, 10, 64); err != nil || v >= 1<<31 {
				t.Fatalf("legacy04 c %q: field %q is not a 31-bit integer", c, s)
			}
		}
	}
	if len(legacyPad) != 50 || len(legacyInsertPad) != 50 {
		t.Fatal("legacy04 pads are 50 characters")
	}
}

func TestSysbenchLoad(t *testing.T) {
	for _, style := range []string{"sb10", "legacy04"} {
		t.Run(style, func(t *testing.T) {
			c := Config{Seed: 5, Sysbench: SysbenchConfig{Tables: 2, Rows: 2000, DataStyle: style}}
			s, st := sbSetup(t, c)
			all := sbContents(t, s, st)
			for i, rows := range all {
				for _, r := range rows {
					k, cv, pad := r[1].Int(), r[2].Bytes(), r[3].Bytes()
					if style == "legacy04" {
						if k != 0 || string(cv) != strings.Repeat(" ", 120) || string(pad) != legacyPad+strings.Repeat(" ", 10) {
							t.Fatalf("sbtest%d id %d: legacy04 row k=%d c=%q pad=%q", i+1, r[0].Int(), k, cv, pad)
						}
						continue
					}
					if k < 1 || k > s.rows || !sb10C.Match(cv) || !sb10Pad.Match(pad) {
						t.Fatalf("sbtest%d id %d: sb10 row k=%d c=%q pad=%q", i+1, r[0].Int(), k, cv, pad)
					}
				}
			}
			if style == "sb10" && rowsEqual(all[0], all[1]) {
				t.Error("the two tables hold the same data")
			}
			// Load is deterministic for the seed.
			_, st2 := sbSetup(t, c)
			if again := sbContents(t, s, st2); !rowsEqual(all[0], again[0]) || !rowsEqual(all[1], again[1]) {
				t.Error("a second load with the same seed differs")
			}
		})
	}
}

func rowsEqual(a, b []zipsim.Row) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		for j := range a[i] {
			if a[i][j].String() != b[i][j].String() {
				return false
			}
		}
	}
	return true
}

// sbEventOps is how many of each operation one event runs.
var sbEventOps = map[string]map[string]int{
	"oltp_point_select": {"point_select": 1},
	"oltp_read_only": {"point_select": 10, "simple_range": 1, "sum_range": 1, "order_range": 1,
		"distinct_range": 1},
	"oltp_write_only": {"index_update": 1, "non_index_update": 1, "delete": 1, "insert": 1},
	"oltp_read_write": {"point_select": 10, "simple_range": 1, "sum_range": 1, "order_range": 1,
		"distinct_range": 1, "index_update": 1, "non_index_update": 1, "delete": 1, "insert": 1},
}

func TestSysbenchEvents(t *testing.T) {
	const events = 200
	cases := []struct {
		style, dist string
		perStmt     bool
		kbs         int
		parts       int
	}{
		{"sb10", "uniform", false, 0, 0},
		{"legacy04", "uniform", true, 0, 0},
		{"sb10", "special", true, 8, 0},
		{"legacy04", "zipfian", false, 0, 3},
		{"sb10", "pareto", false, 0, 0},
		{"sb10", "gaussian", true, 0, 0},
	}
	for _, tc := range cases {
		name := tc.style + "/" + tc.dist
		if tc.perStmt {
			name += "/per-statement"
		}
		if tc.kbs > 0 {
			name += "/kbs" + strconv.Itoa(tc.kbs)
		}
		if tc.parts > 0 {
			name += "/parts" + strconv.Itoa(tc.parts)
		}
		t.Run(name, func(t *testing.T) {
			c := Config{Seed: 9, KBS: tc.kbs, Partitions: tc.parts, Sysbench: SysbenchConfig{
				Tables: 2, Rows: 2000, DataStyle: tc.style, Dist: tc.dist, TablePerStatement: tc.perStmt}}
			s, st := sbSetup(t, c)
			ctx := context.Background()
			for ev, want := range sbEventOps {
				s.sb.Event = ev
				w, err := s.Worker(st, 1)
				if err != nil {
					t.Fatal(err)
				}
				rec := newSbCounter()
				for range events {
					if err := w.Next(ctx, rec); err != nil {
						t.Fatalf("%s: %v", ev, err)
					}
				}
				if rec.ns < 0 {
					t.Errorf("%s: negative duration %d", ev, rec.ns)
				}
				for _, op := range sysbenchOps {
					if rec.n[op] != events*want[op] {
						t.Errorf("%s: %d %s operations, want %d", ev, rec.n[op], op, events*want[op])
					}
				}
				// Every range reports the rows it read, at most range_size.
				ranges := 0
				for _, op := range sysbenchOps[sbSimpleRange : sbDistinctRange+1] {
					ranges += rec.n[op]
				}
				if (ranges == 0) != (rec.rows == 0) || rec.rows > s.sb.RangeSize*ranges {
					t.Errorf("%s: %d ranges reported %d rows", ev, ranges, rec.rows)
				}
			}
			all := sbContents(t, s, st)
			// What the writes left behind.
			reinserted, updatedC := 0, 0
			for _, rows := range all {
				for _, r := range rows {
					cv, pad := bytes.TrimRight(r[2].Bytes(), " "), bytes.TrimRight(r[3].Bytes(), " ")
					switch tc.style {
					case "legacy04":
						switch {
						case string(pad) == legacyInsertPad:
							reinserted++
							if len(cv) != 0 && strings.Count(string(cv), "-") != 9 {
								t.Errorf("re-inserted row c %q", cv)
							}
						case string(pad) != legacyPad:
							t.Errorf("legacy04 pad %q", pad)
						}
						if len(cv) > 0 {
							updatedC++
						}
					default:
						if !sb10C.Match(r[2].Bytes()) || !sb10Pad.Match(r[3].Bytes()) {
							t.Errorf("sb10 row %q %q", r[2].Bytes(), r[3].Bytes())
						}
					}
				}
			}
			if tc.style == "legacy04" {
				// 400 delete+inserts and 400 non-index updates ran over
				// 4,000 rows (fewer distinct ones under zipfian).
				if reinserted == 0 || updatedC == 0 {
					t.Errorf("legacy04: %d re-inserted rows, %d rows with an updated c", reinserted, updatedC)
				}
				t.Logf("legacy04: %d re-inserted rows, %d rows with an updated c", reinserted, updatedC)
			}
		})
	}
}

// TestSysbenchConcurrent runs read-write workers side by side on the
// same tables, for the race detector and the row-count invariant.
func TestSysbenchConcurrent(t *testing.T) {
	for _, perStmt := range []bool{false, true} {
		c := Config{Seed: 11, Threads: 4, Sysbench: SysbenchConfig{Tables: 2, Rows: 1000, Event: "oltp_read_write",
			Dist: "special", TablePerStatement: perStmt}}
		s, st := sbSetup(t, c)
		rec := newSbCounter()
		var wg sync.WaitGroup
		errs := make([]error, 4)
		for id := range 4 {
			w, err := s.Worker(st, id)
			if err != nil {
				t.Fatal(err)
			}
			wg.Go(func() {
				for range 100 {
					if errs[id] = w.Next(context.Background(), rec); errs[id] != nil {
						return
					}
				}
			})
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		if rec.n["insert"] != 400 || rec.n["point_select"] != 4000 {
			t.Errorf("counts %v", rec.n)
		}
		sbContents(t, s, st)
	}
}

// TestSysbenchRanges checks the range statements' results against the
// loaded rows.
func TestSysbenchRanges(t *testing.T) {
	const rows, span = 500, 37
	c := Config{Seed: 2, Sysbench: SysbenchConfig{Tables: 1, Rows: rows, RangeSize: span}}
	s, st := sbSetup(t, c)
	loaded := sbContents(t, s, st)[0]
	// Make some c values repeat, for DISTINCT.
	ctx := context.Background()
	tb := st.Table("sbtest1")
	for id := 100; id < 110; id++ {
		r := loaded[id-1].Clone()
		r[2] = loaded[99][2]
		if err := tb.Update(ctx, r); err != nil {
			t.Fatal(err)
		}
		loaded[id-1] = r
	}
	w, err := s.worker(st, 0)
	if err != nil {
		t.Fatal(err)
	}
	rec := newSbCounter()
	for _, x := range []int64{1, 95, 100, 250, 464, 480, 500} {
		hi := min(x+span-1, rows) // 1.0 does not clip x
		var sum int64
		var cs []string
		for _, r := range loaded[x-1 : hi] {
			sum += r[1].Int()
			cs = append(cs, string(r[2].Bytes()))
		}
		slices.Sort(cs)
		distinct := slices.Compact(slices.Clone(cs))
		for op := sbSimpleRange; op <= sbDistinctRange; op++ {
			if err := w.rangeAt(ctx, rec, op, x); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range w.cs {
				got = append(got, string(c))
			}
			switch op {
			case sbSimpleRange:
				if w.n != hi-x+1 {
					t.Errorf("x=%d: simple range saw %d rows, want %d", x, w.n, hi-x+1)
				}
			case sbSumRange:
				if w.sum != sum {
					t.Errorf("x=%d: SUM(k) = %d, want %d", x, w.sum, sum)
				}
			case sbOrderRange:
				if !slices.Equal(got, cs) {
					t.Errorf("x=%d: ORDER BY c gave %d values, want %d sorted", x, len(got), len(cs))
				}
			case sbDistinctRange:
				if !slices.Equal(got, distinct) {
					t.Errorf("x=%d: DISTINCT c gave %d values, want %d", x, len(got), len(distinct))
				}
			}
		}
	}
	// legacy04 clips x to rows − range_size.
	s.sb.DataStyle = "legacy04"
	for range 1000 {
		if x := w.rangeStart(); x < 1 || x > rows-span {
			t.Fatalf("legacy04 range start %d outside [1, %d]", x, rows-span)
		}
	}
}

func TestSysbenchConfig(t *testing.T) {
	c, err := Config{Sysbench: SysbenchConfig{Tables: 3, Rows: 1000}}.Validate()
	if err != nil {
		t.Fatal(err)
	}
	wl, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	if wl.Name() != "sysbench" || wl.LoadRows() != 3000 || wl.DataBytes() != 3000*(206+13) {
		t.Errorf("name %q, load rows %d, data bytes %d", wl.Name(), wl.LoadRows(), wl.DataBytes())
	}
	if got := strings.Join(wl.Ops(), ","); got != "point_select,simple_range,sum_range,order_range,distinct_range,index_update,non_index_update,delete,insert" {
		t.Errorf("ops %s", got)
	}
	st, err := zipsim.Open("", zipsim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := wl.Worker(st, 0); err == nil {
		t.Error("a worker without tables")
	}
	if err := wl.Load(context.Background(), st, nil); err == nil {
		t.Error("a load without tables")
	}
	if _, err := newSysbench(Config{Sysbench: SysbenchConfig{Dist: "normal"}}); err == nil {
		t.Error("unknown distribution accepted")
	}
}

func BenchmarkSysbenchEvent(b *testing.B) {
	for _, ev := range []string{"oltp_point_select", "oltp_read_only", "oltp_read_write"} {
		b.Run(ev, func(b *testing.B) {
			c, _ := Config{Seed: 4, Sysbench: SysbenchConfig{Tables: 2, Rows: 10_000, Event: ev}}.Validate()
			wl, _ := New(c)
			opts, _ := c.StoreOptions(wl.DataBytes())
			st, err := zipsim.Open("", opts)
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			ctx := context.Background()
			if err := wl.Create(ctx, st); err != nil {
				b.Fatal(err)
			}
			if err := wl.Load(ctx, st, nil); err != nil {
				b.Fatal(err)
			}
			w, _ := wl.Worker(st, 0)
			rec := newSbCounter()
			b.ReportAllocs()
			for b.Loop() {
				if err := w.Next(ctx, rec); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestSysbenchKIndexBuild checks when k_<i> is built: after the load by a
// sorted build for sb10 (sysbench 1.0's CREATE INDEX), so its leaves never
// split, and during the load by inserts for legacy04 (0.4's CREATE TABLE
// with KEY k).
func TestSysbenchKIndexBuild(t *testing.T) {
	for _, style := range []string{"sb10", "legacy04"} {
		t.Run(style, func(t *testing.T) {
			s, st := sbSetup(t, Config{Sysbench: SysbenchConfig{Rows: 20_000, DataStyle: style}})
			sbContents(t, s, st)
			var k btree.Stats
			for _, ix := range st.Metrics().Indexes {
				if ix.Index == "k_1" {
					k = ix.BTree
				}
			}
			require.Equal(t, int64(20_000), k.Rows)
			if style == "sb10" {
				require.Zero(t, k.Splits(), "a sorted build does not split")
				require.Zero(t, k.InsertsOptimistic+k.InsertsPessimistic)
			} else {
				require.Positive(t, k.Splits())
			}
		})
	}
}

// TestSysbenchDeleteInsertKeepsLeaves runs sysbench's DELETE + INSERT of
// one id on packed KBS=16 leaves. InnoDB delete-marks the record and the
// INSERT rewrites it in place, so the PRIMARY tree neither splits nor
// merges, yet every pair writes; deleting and re-inserting the record
// instead split a packed leaf on the insert and merged the halves back on
// the next delete.
func TestSysbenchDeleteInsertKeepsLeaves(t *testing.T) {
	c := Config{Seed: 5, KBS: 16, Sysbench: SysbenchConfig{Tables: 1, Rows: 4000, DataStyle: "legacy04", Dist: "uniform"}}
	s, st := sbSetup(t, c)
	ctx := context.Background()
	s.sb.Event = "oltp_write_only"
	w, err := s.Worker(st, 0)
	require.NoError(t, err)
	before := primaryStats(t, st)
	rec := newSbCounter()
	for range 2000 {
		require.NoError(t, w.Next(ctx, rec))
	}
	d := primaryStats(t, st).Sub(before)
	// Three writes an event: k=k+1, the new c, and the pair, which
	// rewrites the record even when legacy04's constants leave it equal.
	require.Equal(t, uint64(3*2000), d.Updates, "PRIMARY updates")
	require.Zero(t, d.Splits(), "PRIMARY splits")
	require.Zero(t, d.Merges, "PRIMARY merges")
	require.Zero(t, d.Deletes, "PRIMARY deletes")
	n := 0
	require.NoError(t, st.Table("sbtest1").Scan(ctx, nil, nil, false, func(zipsim.Row) bool { n++; return true }))
	require.Equal(t, 4000, n, "every id is still there")
}

func primaryStats(t *testing.T, st *zipsim.Store) btree.Stats {
	t.Helper()
	for _, m := range st.Metrics().Indexes {
		if m.Table == "sbtest1" && m.Index == "PRIMARY" {
			return m.BTree
		}
	}
	t.Fatal("no sbtest1 PRIMARY in the metrics")
	return btree.Stats{}
}
