package latch

import (
	"strconv"
	"strings"
	"sync"
	"time"
)

// Options configures a Registry. The zero value counts.
type Options struct {
	// Disabled makes every lock initialised with the registry a plain
	// sync lock: Lock and Unlock go straight to the sync package and count
	// nothing, nothing is registered, and Snapshot has no rows. Benchmarks
	// compare a disabled registry with an enabled one to measure what the
	// instrumentation costs.
	Disabled bool
	// Impl is how every lock initialised with the registry is implemented:
	// Go's sync locks (the zero value) or one of InnoDB's. The locks count
	// either way; Disabled makes plain sync locks regardless.
	Impl Impl
}

// Impl is a lock implementation.
type Impl uint8

const (
	// Go is sync.Mutex and sync.RWMutex: an atomic fast path, a few
	// rounds of spinning for mutexes, then parking the goroutine.
	Go Impl = iota
	// Builtin is the builtin InnoDB of MySQL 5.0 and 5.1, without atomic
	// builtins (builtin.go, ibmutex.go): test-and-set mutexes that spin
	// 20 short rounds, then sleep in a sync array shared by the
	// registry's locks (its own mutex reports as sync_array_mutex), and
	// rw-locks whose every acquisition and release enters the lock's own
	// mutex.
	Builtin
	// Plugin is the InnoDB plugin 1.0.4 to MySQL 5.6 with atomic builtins
	// (plugin.go, ibmutex.go): the same mutexes and sync array, spinning
	// 30 rounds with PAUSE, and rw-locks of one atomic lock word.
	Plugin
)

// String returns "go", "builtin" or "plugin".
func (i Impl) String() string {
	switch i {
	case Go:
		return "go"
	case Builtin:
		return "builtin"
	case Plugin:
		return "plugin"
	}
	return "Impl(" + strconv.Itoa(int(i)) + ")"
}

// Registry holds the lock classes of one buffer pool or store, by name.
//
// A name is a class: every lock initialised with the same name adds to
// one row (all page latches of a pool can share "block_lock"). A name of
// the form "base#suffix" is an instance of the group "base": each
// instance keeps its own row ("LRU_list_mutex#0", "LRU_list_mutex#1") and
// Snapshot adds a total row named "base" summing them. A bare name cannot
// also be a group, so registering "x" and "x#0" in one registry panics.
//
// A Registry is safe for concurrent use. Init appends to its class under
// one registry mutex, so creating locks in bulk is serial but fast; locks
// themselves never touch the registry after Init.
type Registry struct {
	disabled bool
	start    time.Time

	mu      sync.Mutex
	classes map[string]*Class
	groups  map[string]int // group base name → instance classes
	impl    Impl
	arr     *syncArray // Builtin and Plugin: the sync array of every lock
}

// NewRegistry returns an empty registry. Its creation time is the start of
// the interval that Snapshot.String reports over.
func NewRegistry(opts Options) *Registry {
	r := &Registry{
		disabled: opts.Disabled,
		start:    time.Now(),
		classes:  make(map[string]*Class),
		groups:   make(map[string]int),
	}
	if opts.Disabled {
		return r
	}
	switch opts.Impl {
	case Builtin, Plugin:
		a := &syncArray{spinPolicy: builtinSpin}
		if opts.Impl == Plugin {
			a.spinPolicy, a.atomicSignals = pluginSpin, true
		}
		a.mu.InitOS(r, "sync_array_mutex")
		r.arr, r.impl = a, opts.Impl
	}
	return r
}

// Impl returns how locks initialised with r are implemented; Go for a nil
// or disabled registry.
func (r *Registry) Impl() Impl {
	if r == nil {
		return Go
	}
	return r.impl
}

// mode is the mode of a lock initialised with an enabled r.
func (r *Registry) mode() uint8 {
	switch r.impl {
	case Builtin:
		return modeBuiltin
	case Plugin:
		return modePlugin
	}
	return modeCounted
}

// enabled reports whether locks initialised with r count; false for a nil
// or disabled registry.
func (r *Registry) enabled() bool { return r != nil && !r.disabled }

// Class is the set of locks registered under one name. Locks are kept by
// pointer and never removed, so they must stay where they are (in the
// preallocated arrays a pool builds at start-up) for the registry's life.
type Class struct {
	reg     *Registry
	name    string
	mutexes []*Mutex
	rws     []*RWMutex
}

// Name returns the class name.
func (c *Class) Name() string { return c.name }

// Len returns how many locks the class has.
func (c *Class) Len() int {
	c.reg.mu.Lock()
	defer c.reg.mu.Unlock()
	return len(c.mutexes) + len(c.rws)
}

// Stats sums the class's locks now. It reads every lock, so it takes time
// proportional to the class size (see BenchmarkSnapshot).
func (c *Class) Stats() Stats {
	c.reg.mu.Lock()
	defer c.reg.mu.Unlock()
	s := c.sums()
	return s.stats(c.name)
}

// Class returns the class registered under name, or nil.
func (r *Registry) Class(name string) *Class {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.classes[name]
}

// groupOf returns the group base of an instance name ("x" for "x#3"), or
// "" when name has no '#' or nothing before it.
func groupOf(name string) string {
	if i := strings.IndexByte(name, '#'); i > 0 {
		return name[:i]
	}
	return ""
}

// register adds one lock (m or rw) to the class name, creating the class.
func (r *Registry) register(name string, m *Mutex, rw *RWMutex) {
	if name == "" {
		panic("latch: empty lock name")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.classes[name]
	if c == nil {
		g := groupOf(name)
		switch {
		case g != "" && r.classes[g] != nil:
			panic("latch: instance name " + name + " clashes with class " + g)
		case g == "" && r.groups[name] > 0:
			panic("latch: class name " + name + " clashes with its instances " + name + "#...")
		}
		if g != "" {
			r.groups[g]++
		}
		c = &Class{reg: r, name: name}
		r.classes[name] = c
	}
	if m != nil {
		c.mutexes = append(c.mutexes, m)
	} else {
		c.rws = append(c.rws, rw)
	}
}

// lockSums accumulates raw counters over locks; stats turns it into a row.
type lockSums struct {
	locks                  int
	acq, cont, racq, rcont uint64
	wait, rwait            int64
	maxWait, maxHold       int64
	hold                   float64 // estimated nanoseconds
}

// add adds the cold counters of one lock with acq exclusive acquisitions.
// The lock's hold estimate is its mean sampled hold times its acquisitions.
func (s *lockSums) add(c *coldCounters, acq uint64) {
	s.locks++
	s.cont += c.contended.Load()
	s.wait += c.wait.Load()
	s.maxWait = max(s.maxWait, c.maxWait.Load())
	s.maxHold = max(s.maxHold, c.maxHold.Load())
	if n := c.samples.Load(); n > 0 {
		s.hold += float64(c.hold.Load()) / float64(n) * float64(acq)
	}
}

// merge adds another sum (for group totals).
func (s *lockSums) merge(o *lockSums) {
	s.locks += o.locks
	s.acq += o.acq
	s.cont += o.cont
	s.racq += o.racq
	s.rcont += o.rcont
	s.wait += o.wait
	s.rwait += o.rwait
	s.maxWait = max(s.maxWait, o.maxWait)
	s.maxHold = max(s.maxHold, o.maxHold)
	s.hold += o.hold
}

// sums reads every lock of c; the caller holds c.reg.mu.
func (c *Class) sums() lockSums {
	var s lockSums
	for _, m := range c.mutexes {
		m.read(&s)
	}
	for _, m := range c.rws {
		m.read(&s)
	}
	return s
}

// Snapshot reads every registered lock and returns one row per class plus
// one total row per group, sorted by name (instance numbers in numeric
// order). Locks keep running while it reads, so a row's counters are not
// one instant's; each counter is exact. A nil registry gives an empty
// snapshot.
func (r *Registry) Snapshot() Snapshot {
	if r == nil {
		t := time.Now()
		return Snapshot{At: t, Start: t}
	}
	r.mu.Lock()
	rows := make([]Stats, 0, len(r.classes)+len(r.groups))
	groups := make(map[string]*lockSums, len(r.groups))
	var inst map[string]int
	for name, c := range r.classes {
		s := c.sums()
		rows = append(rows, s.stats(name))
		if g := groupOf(name); g != "" {
			t := groups[g]
			if t == nil {
				t = new(lockSums)
				groups[g] = t
				if inst == nil {
					inst = make(map[string]int)
				}
			}
			t.merge(&s)
			inst[g]++
		}
	}
	r.mu.Unlock()
	at := time.Now()
	for g, t := range groups {
		row := t.stats(g)
		row.Instances = inst[g]
		rows = append(rows, row)
	}
	sortRows(rows)
	snap := Snapshot{Rows: rows, At: at, Start: r.start}
	if r.arr != nil {
		snap.OSWaits, snap.Signals = r.arr.counts()
	}
	return snap
}
