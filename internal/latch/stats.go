package latch

import (
	"cmp"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/zipsim/zipsim/internal/table"
)

// Stats is one row of a Snapshot: a class of locks, or the total of a
// group of instance classes.
//
// Acquisitions and Contended count exclusive acquisitions (every
// acquisition of a Mutex); ReadAcquisitions and ReadContended count the
// shared acquisitions of RWMutexes. A contended acquisition is one whose
// TryLock (TryRLock) failed, so it had to wait; it is also counted in
// Acquisitions (ReadAcquisitions) once it gets the lock.
type Stats struct {
	Name string
	// Instances is the number of instance classes a group total row sums
	// ("LRU_list_mutex" over "LRU_list_mutex#0", "#1", ...); 0 for a class
	// row. Skip rows with Instances > 0 when adding rows up, or the
	// instances count twice.
	Instances int
	Locks     int // locks in the class (or group)

	Acquisitions, Contended         uint64
	ReadAcquisitions, ReadContended uint64

	// Wait is the time spent blocked in contended acquisitions, shared and
	// exclusive; ReadWait is its shared part. MaxWait is the longest
	// single wait.
	Wait, ReadWait, MaxWait time.Duration
	// Hold estimates the total time exclusive holders kept the locks: each
	// lock times every 64th exclusive hold (its 1st, 65th, 129th, ...) and
	// its mean sampled hold is scaled by its acquisitions. MaxHold is the
	// longest sampled hold, so the true maximum can be larger.
	Hold, MaxHold time.Duration
}

// stats converts raw sums to a row.
func (s *lockSums) stats(name string) Stats {
	return Stats{
		Name:             name,
		Locks:            s.locks,
		Acquisitions:     s.acq,
		Contended:        s.cont,
		ReadAcquisitions: s.racq,
		ReadContended:    s.rcont,
		Wait:             time.Duration(s.wait),
		ReadWait:         time.Duration(s.rwait),
		MaxWait:          time.Duration(s.maxWait),
		Hold:             time.Duration(s.hold),
		MaxHold:          time.Duration(s.maxHold),
	}
}

func subU(a, b uint64) uint64 {
	if a < b {
		return 0
	}
	return a - b
}

func subD(a, b time.Duration) time.Duration { return max(a-b, 0) }

// Sub returns the change from prev to s (prev taken earlier from the same
// registry). Counters and times are differences; Name, Instances, Locks
// and the maxima are s's, because a maximum cannot be subtracted: MaxWait
// and MaxHold of a delta are the maxima since the registry started. The
// hold estimate is re-scaled as samples arrive, so a delta of Hold is
// approximate and never negative.
func (s Stats) Sub(prev Stats) Stats {
	d := s
	d.Acquisitions = subU(s.Acquisitions, prev.Acquisitions)
	d.Contended = subU(s.Contended, prev.Contended)
	d.ReadAcquisitions = subU(s.ReadAcquisitions, prev.ReadAcquisitions)
	d.ReadContended = subU(s.ReadContended, prev.ReadContended)
	d.Wait = subD(s.Wait, prev.Wait)
	d.ReadWait = subD(s.ReadWait, prev.ReadWait)
	d.Hold = subD(s.Hold, prev.Hold)
	return d
}

// ContentionPct returns the contended share of all acquisitions, shared
// and exclusive, in percent; 0 when there were none.
func (s Stats) ContentionPct() float64 {
	n := s.Acquisitions + s.ReadAcquisitions
	if n == 0 {
		return 0
	}
	return 100 * float64(s.Contended+s.ReadContended) / float64(n)
}

// WaitShare returns Wait / (threads × wall): the share of the workload's
// thread time spent blocked on these locks (research/targets.md). It is 0
// when threads or wall is not positive. With more runnable goroutines than
// cores it can exceed what a thread-per-core system would show, and with
// several locks per operation the shares of different rows add up.
func (s Stats) WaitShare(threads int, wall time.Duration) float64 {
	if threads <= 0 || wall <= 0 {
		return 0
	}
	return s.Wait.Seconds() / (float64(threads) * wall.Seconds())
}

// Snapshot is a value copy of a registry's counters.
type Snapshot struct {
	// Rows has one row per class and one total per group, sorted by name,
	// instance numbers in numeric order ("x", "x#2", "x#10").
	Rows []Stats
	// At is when the snapshot was taken. Start is when its counting
	// began: the registry's creation, or for a delta made by Sub the
	// earlier snapshot's At. At − Start is the interval String reports.
	At, Start time.Time
	// OSWaits and Signals are the sync array's, with InnoDB's
	// implementations (Options.Impl Builtin or Plugin): waits that slept
	// after spinning (SHOW ENGINE INNODB STATUS's "OS waits") and
	// releases that woke sleepers (its "signal count"). Zero otherwise.
	OSWaits, Signals uint64
}

// Sub returns the change from prev to s, row by row (see Stats.Sub). Rows
// missing from prev count from zero; the delta's Start is prev.At.
func (s Snapshot) Sub(prev Snapshot) Snapshot {
	old := make(map[string]Stats, len(prev.Rows))
	for _, r := range prev.Rows {
		old[r.Name] = r
	}
	d := Snapshot{Rows: make([]Stats, len(s.Rows)), At: s.At, Start: s.Start,
		OSWaits: s.OSWaits - prev.OSWaits, Signals: s.Signals - prev.Signals}
	if !prev.At.IsZero() {
		d.Start = prev.At
	}
	for i, r := range s.Rows {
		d.Rows[i] = r.Sub(old[r.Name])
	}
	return d
}

// Get returns the row named name: a class, or a group total.
func (s Snapshot) Get(name string) (Stats, bool) {
	for _, r := range s.Rows {
		if r.Name == name {
			return r, true
		}
	}
	return Stats{}, false
}

// WaitShare returns the wait share of the row named name (see
// Stats.WaitShare); 0 when there is no such row.
func (s Snapshot) WaitShare(name string, threads int, wall time.Duration) float64 {
	r, _ := s.Get(name)
	return r.WaitShare(threads, wall)
}

// Table prints the snapshot as an ASCII table titled LOCKS, with the wait
// share computed for threads workers over wall, followed by a line stating
// both. CONTENDED_PCT covers shared and exclusive acquisitions; WAIT_S
// includes READ_WAIT_S; HOLD_S is the sampled estimate of exclusive hold
// time and MAX_HOLD_US the longest sampled hold.
func (s Snapshot) Table(threads int, wall time.Duration) string {
	header := []string{"NAME", "LOCKS", "ACQUISITIONS", "CONTENDED", "CONTENDED_PCT",
		"READ_ACQUISITIONS", "READ_CONTENDED", "WAIT_S", "READ_WAIT_S", "WAIT_SHARE",
		"MAX_WAIT_US", "HOLD_S", "MAX_HOLD_US"}
	rows := make([][]string, 0, len(s.Rows))
	for _, r := range s.Rows {
		rows = append(rows, []string{
			r.Name,
			strconv.Itoa(r.Locks),
			strconv.FormatUint(r.Acquisitions, 10),
			strconv.FormatUint(r.Contended, 10),
			fmt.Sprintf("%.2f", r.ContentionPct()),
			strconv.FormatUint(r.ReadAcquisitions, 10),
			strconv.FormatUint(r.ReadContended, 10),
			fmt.Sprintf("%.6f", r.Wait.Seconds()),
			fmt.Sprintf("%.6f", r.ReadWait.Seconds()),
			fmt.Sprintf("%.1f%%", 100*r.WaitShare(threads, wall)),
			fmt.Sprintf("%.1f", float64(r.MaxWait)/1e3),
			fmt.Sprintf("%.6f", r.Hold.Seconds()),
			fmt.Sprintf("%.1f", float64(r.MaxHold)/1e3),
		})
	}
	var b strings.Builder
	table.Write(&b, "LOCKS", header, rows)
	fmt.Fprintf(&b, "wait share = wait / (%d threads × %.3fs)\n", threads, wall.Seconds())
	if s.OSWaits+s.Signals > 0 {
		fmt.Fprintf(&b, "sync array (InnoDB latches): OS waits %d, signal count %d\n", s.OSWaits, s.Signals)
	}
	return b.String()
}

// String prints Table with threads = GOMAXPROCS and wall = At − Start
// (since the registry was created, or since the earlier snapshot of a
// delta). Reports that know their worker count should call Table.
func (s Snapshot) String() string {
	return s.Table(runtime.GOMAXPROCS(0), s.At.Sub(s.Start))
}

// splitName splits an instance name into its group base and suffix; a
// name without one has ok false.
func splitName(name string) (base, suffix string, ok bool) {
	if g := groupOf(name); g != "" {
		return g, name[len(g)+1:], true
	}
	return name, "", false
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// compareNames orders names by group base, a group's total before its
// instances, and numeric instance suffixes by value.
func compareNames(a, b string) int {
	ab, as, aok := splitName(a)
	bb, bs, bok := splitName(b)
	if c := strings.Compare(ab, bb); c != 0 {
		return c
	}
	if aok != bok {
		if !aok {
			return -1
		}
		return 1
	}
	if isDigits(as) && isDigits(bs) {
		at, bt := strings.TrimLeft(as, "0"), strings.TrimLeft(bs, "0")
		if c := cmp.Compare(len(at), len(bt)); c != 0 {
			return c
		}
		if c := strings.Compare(at, bt); c != 0 {
			return c
		}
	}
	return strings.Compare(as, bs)
}

func sortRows(rows []Stats) {
	slices.SortFunc(rows, func(a, b Stats) int { return compareNames(a.Name, b.Name) })
}
