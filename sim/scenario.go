package sim

import (
	"context"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
)

// A Scenario reproduces one of research/targets.md's targets (T1..T9): it
// builds its own stores and workloads at a size a 2-core machine runs in
// under two minutes, measures the ratios the target's pass band is about,
// and says PASS or FAIL for each. A band is the target's, unless
// BENCHMARKS.md records the evidence-based reason it was changed.
type Scenario struct {
	ID    string // "T1"
	Title string // one line: what phenomenon
	// Seed is the observation being reproduced, with the seed's numbers.
	Seed string
	// Run measures. It writes its plot (PNG) into o.Out when that is set.
	Run func(ctx context.Context, o ScenarioOptions) (*Outcome, error)
}

// ScenarioOptions are what every scenario takes.
type ScenarioOptions struct {
	Out string // directory for plots; "" means none
	// Log receives progress lines (one per phase); nil means silent.
	Log func(format string, args ...any)
	// CPUProfiles, when not empty, is a directory into which every
	// measured run of requests writes a CPU profile of its measurement
	// (RunOptions.CPUProfile), named after the scenario and the arm,
	// mode or interval: T8-transparent.pprof, T1-tight-legacy-c-r2.pprof.
	CPUProfiles string
}

func (o ScenarioOptions) logf(format string, args ...any) {
	if o.Log != nil {
		o.Log(format, args...)
	}
}

// cpuProfile is the file for the CPU profile of one run named by parts,
// "" when o asks for none. Runs of characters other than letters, digits
// and '.' become one '-', so that an arm's name makes a file name:
// "old-style KBS=8" becomes "old-style-KBS-8".
func (o ScenarioOptions) cpuProfile(parts ...string) string {
	if o.CPUProfiles == "" {
		return ""
	}
	words := strings.FieldsFunc(strings.Join(parts, " "), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '.'
	})
	return filepath.Join(o.CPUProfiles, strings.Join(words, "-")+".pprof")
}

// median returns the median of vs, NaN for none; it sorts vs.
func median(vs []float64) float64 {
	if len(vs) == 0 {
		return math.NaN()
	}
	slices.Sort(vs)
	if len(vs)%2 == 1 {
		return vs[len(vs)/2]
	}
	return (vs[len(vs)/2-1] + vs[len(vs)/2]) / 2
}

// Band is a pass band: Lo ≤ value ≤ Hi, either side open when infinite.
type Band struct{ Lo, Hi float64 }

// AtLeast, AtMost and Within make bands.
func AtLeast(lo float64) Band    { return Band{lo, math.Inf(1)} }
func AtMost(hi float64) Band     { return Band{math.Inf(-1), hi} }
func Within(lo, hi float64) Band { return Band{lo, hi} }

// Holds says whether v is in the band.
func (b Band) Holds(v float64) bool { return v >= b.Lo && v <= b.Hi && !math.IsNaN(v) }

// String writes the band as "≥ 1.5", "≤ 0.6" or "in [0.85, 1.25]".
func (b Band) String() string {
	switch {
	case math.IsInf(b.Hi, 1):
		return fmt.Sprintf("≥ %g", b.Lo)
	case math.IsInf(b.Lo, -1):
		return fmt.Sprintf("≤ %g", b.Hi)
	}
	return fmt.Sprintf("in [%g, %g]", b.Lo, b.Hi)
}

// Check is one measured ratio against its band.
type Check struct {
	Name  string  `json:"name"` // what ratio, e.g. "c QPS(4K)/QPS(16K)"
	Value float64 `json:"value"`
	Band  Band    `json:"-"`
	// BandText is Band.String(), kept for JSON.
	BandText string `json:"band"`
	Pass     bool   `json:"pass"`
}

// Outcome is what a scenario measured.
type Outcome struct {
	ID     string   `json:"id"`
	Title  string   `json:"title"`
	Seed   string   `json:"seed"`
	Checks []Check  `json:"checks"`
	Notes  []string `json:"notes"` // measured side numbers and interpretation
	Plot   string   `json:"plot,omitempty"`
	Wall   time.Duration
}

// Check adds a measured value with its band.
func (o *Outcome) Check(name string, v float64, b Band) {
	o.Checks = append(o.Checks, Check{Name: name, Value: v, Band: b, BandText: b.String(), Pass: b.Holds(v)})
}

// Notef adds a line of measured context.
func (o *Outcome) Notef(format string, args ...any) {
	o.Notes = append(o.Notes, fmt.Sprintf(format, args...))
}

// Pass says whether every check holds (and there is at least one).
func (o *Outcome) Pass() bool {
	if len(o.Checks) == 0 {
		return false
	}
	for _, c := range o.Checks {
		if !c.Pass {
			return false
		}
	}
	return true
}

// WriteText prints the outcome: the seed's observation, each ratio with
// its band and verdict, the notes, and PASS or FAIL.
func (o *Outcome) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\n  seed: %s\n", o.ID, o.Title, o.Seed)
	for _, c := range o.Checks {
		v := "ok"
		if !c.Pass {
			v = "MISS"
		}
		fmt.Fprintf(&b, "  %-44s %10.3f  band %-16s %s\n", c.Name, c.Value, c.BandText, v)
	}
	for _, n := range o.Notes {
		fmt.Fprintf(&b, "  - %s\n", n)
	}
	if o.Plot != "" {
		fmt.Fprintf(&b, "  plot: %s\n", o.Plot)
	}
	verdict := "FAIL"
	if o.Pass() {
		verdict = "PASS"
	}
	fmt.Fprintf(&b, "  %s: %s (%.0fs)\n", o.ID, verdict, o.Wall.Seconds())
	_, err := io.WriteString(w, b.String())
	return err
}

// seedLatches is the latch implementation every scenario runs but T5,
// whose arms compare implementations (t5Arm): each seed ran InnoDB's own
// latches of the plugin's lineage, atomic rw-locks and mutexes that spin
// and then sleep in the sync array, rather than anything like Go's
// parking locks. Seed 000 ran Percona Server 5.1.57 (XtraDB), 001 the
// InnoDB plugin 1.0, 002 MySQL 5.6.21 and 5.7.5, 004 5.6 and 5.7. 5.7's
// TTASEventMutex policy is not modelled; its SX index lock is
// (Config.SXIndexLock), and T6 and T8 run it.
const seedLatches = "plugin"

// seedCodec is InnoDB's compressor, which every scenario's compressed and
// transparent arms run: czlib writes the bytes C zlib 1.2.13 writes for
// page_zip_compress's deflateInit2 (page0zip.cc) at level 6 and memLevel
// 9, with windowBits 14 whatever innodb_page_size is (InnoDB passes the
// page size's shift: 13 for 8 KiB pages, 12 for 4 KiB). Transparent
// compression takes compress2's parameters, windowBits 15 and memLevel 8,
// as 5.7's os_file_compress_page does (Codec.CompressFileLimit), and
// off-page values their own (Codec.CompressValue). On czlib's 13 KB sysbench page czlib takes 201–209
// µs, C zlib 1.2.13 here 98–158 µs by run and harness (Python's zlib,
// sim/calibration/zlib_reuse.c; 2026-12-01): 1.3–2× slower; on the 16 KiB
// sysbench page 1.14–1.37× (302–308 µs against 224–266 through the
// zipsim_czlib_c build, BenchmarkCompressNoReuse). klauspost's
// zlib:6, the library's default, takes 64–67 µs and writes other streams,
// so a scenario run with it weighs compression at under half of InnoDB's
// cost. In default builds inflates run klauspost's inflater whatever
// wrote the stream, 1.5–1.8× slower than C zlib's (BENCHMARKS.md, "The
// server layer"); the zipsim_czlib_c build runs C zlib both ways.
const seedCodec = "czlib:6"

// engine56 sets the rule of InnoDB up to 5.6 that 5.7 changed: a full
// leaf splits even when the record belongs at its end and the next leaf
// has room (5.7 added btr_insert_into_right_sibling). engine51 builds on
// it. T6 and T7 keep 5.7's rule: their seeds ran 5.6 and 5.7, and real
// InnoDB in their shapes here is MariaDB 10.11.
func engine56(c Config) Config {
	c.NoSiblingInsert = true
	return c
}

// engine51 sets the rules of the 5.1 InnoDB plugin and XtraDB, which seeds
// 000 (T1, T2) and 003 (T5) ran, where later versions changed them:
// engine56's, innodb_old_blocks_time 0 (5.6 made it 1s), and compressed
// clustered leaves keeping the 1/16 update reserve that 5.6.11 dropped
// (MySQL Bug #69140). 5.1's zip_clean walks come with Legacy and Global
// locking.
func engine51(c Config) Config {
	c = engine56(c)
	c.OldBlocksTime = -1
	c.CompressedLeafReserve = true
	return c
}

// engine51Note names engine51's rules in the scenarios' notes.
const engine51Note = "5.1's innodb_old_blocks_time=0, update reserve on compressed clustered leaves and splits without trying the next leaf (Config.OldBlocksTime, CompressedLeafReserve, NoSiblingInsert)"

var (
	scenarioMu sync.Mutex
	scenarios  []Scenario
)

// register adds a scenario; each tN.go registers its own in init.
func register(s Scenario) {
	scenarioMu.Lock()
	defer scenarioMu.Unlock()
	scenarios = append(scenarios, s)
}

// Scenarios returns the registered scenarios in ID order.
func Scenarios() []Scenario {
	scenarioMu.Lock()
	defer scenarioMu.Unlock()
	out := slices.Clone(scenarios)
	slices.SortFunc(out, func(a, b Scenario) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// RunScenario runs the scenario with id (any case) and times it.
func RunScenario(ctx context.Context, id string, o ScenarioOptions) (*Outcome, error) {
	for _, s := range Scenarios() {
		if strings.EqualFold(s.ID, id) {
			start := time.Now()
			out, err := s.Run(ctx, o)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", s.ID, err)
			}
			out.ID, out.Title, out.Seed, out.Wall = s.ID, s.Title, s.Seed, time.Since(start)
			return out, nil
		}
	}
	ids := []string{}
	for _, s := range Scenarios() {
		ids = append(ids, s.ID)
	}
	return nil, fmt.Errorf("no scenario %q: use one of %s or all", id, strings.Join(ids, ", "))
}
