package latch

import (
	"sync"
	"sync/atomic"
)

// A lock's mode, set once by Init.
const (
	modeZero    uint8 = iota // never initialised: a plain lock, not reported
	modePlain                // initialised with a nil or disabled Registry
	modeCounted              // instrumented and registered in a Class
	modeBuiltin              // modeCounted, implemented as Impl Builtin (builtin.go)
	modePlugin               // modeCounted, implemented as Impl Plugin (plugin.go)
)

// sampleEvery is the hold-time sampling period: acquisitions number
// 1, 1+sampleEvery, 1+2×sampleEvery, ... of each lock are timed from lock to
// unlock. Sampling the first acquisition means every lock that was ever
// released has at least one sample, which matters for classes of many
// rarely taken locks (page latches).
const sampleEvery = 64

// sampled reports whether the n-th acquisition (counting from 1) of a lock
// has its hold time measured.
func sampled(n uint64) bool { return n%sampleEvery == 1 }

// coldCounters are the counters that change only on contended acquisitions
// or sampled releases. They follow the hot words (the sync lock, the
// acquisition count, the sampled start time and the mode) so that an
// uncontended Lock and Unlock touch one cache line when the lock starts on
// a line boundary.
type coldCounters struct {
	contended atomic.Uint64
	wait      atomic.Int64 // nanoseconds, all waits
	maxWait   atomic.Int64
	hold      atomic.Int64  // nanoseconds, sampled exclusive holds only
	samples   atomic.Uint64 // completed sampled holds
	maxHold   atomic.Int64
}

// addWait records one contended acquisition's wait of w nanoseconds.
func (c *coldCounters) addWait(w int64) {
	c.wait.Add(w)
	storeMax(&c.maxWait, w)
}

// endHold records a sampled hold that started at start; the caller still
// holds the lock.
func (c *coldCounters) endHold(start int64) {
	d := now() - start
	c.hold.Add(d)
	c.samples.Add(1)
	storeMax(&c.maxHold, d)
}

// Mutex is a sync.Mutex that counts its acquisitions, contended
// acquisitions, wait time and (sampled) hold time, and reports them under
// the name given to Init. See the package documentation for the method.
//
// A Mutex must be initialised with Init before first use and must not be
// copied after that (go vet's copylocks check flags copies). A Mutex that
// was never initialised works as a plain sync.Mutex and is not reported.
// Its hot words fit in the first 40 bytes; place it at the start of a
// cache-line-aligned struct to keep them on one line. In InnoDB's
// implementations the lock word itself is behind ib.
type Mutex struct {
	mu        sync.Mutex
	mode      uint8
	acq       ownedCounter // all acquisitions, counted once acquired
	holdStart int64        // now()|1 at a sampled acquisition, else 0; guarded by mu
	ib        *ibMutex     // modeBuiltin and modePlugin only; mu is then unused
	cold      coldCounters
}

// Init registers m in r under the class name (see Registry for names and
// classes). With a nil or disabled r, m becomes a plain sync.Mutex that
// counts nothing. Init must be called once, before any other method and
// before m is shared; a second call panics.
func (m *Mutex) Init(r *Registry, name string) {
	if !m.initPlain(r, name) {
		return
	}
	// Everything a Snapshot may read is set before the lock is
	// registered, since a Snapshot may run while Init does.
	m.mode = r.mode()
	if m.mode != modeCounted {
		m.ib = new(ibMutex)
		m.ib.init(r.arr)
	}
	r.register(name, m, nil)
}

// InitOS is Init for a mutex that InnoDB takes from the operating system
// (os_fast_mutex_t, os_mutex_t) rather than one of its own: it counts and
// reports as Init's do but is Go's sync.Mutex whatever r's Impl.
func (m *Mutex) InitOS(r *Registry, name string) {
	if !m.initPlain(r, name) {
		return
	}
	m.mode = modeCounted
	r.register(name, m, nil)
}

// initPlain panics on a second Init and makes m a plain lock for a nil or
// disabled r, reporting whether m is still to be registered.
func (m *Mutex) initPlain(r *Registry, name string) bool {
	if m.mode != modeZero {
		panic("latch: Mutex " + name + " initialised twice")
	}
	if !r.enabled() {
		m.mode = modePlain
		return false
	}
	return true
}

// Lock locks m. An instrumented lock first tries TryLock: on success it
// counts one acquisition and reads no clock (except for a sampled hold);
// on failure it counts a contended acquisition and times the wait
// (lockSlow).
func (m *Mutex) Lock() {
	if m.mode != modeCounted {
		if m.mode > modeCounted {
			m.lockInno()
			return
		}
		m.mu.Lock()
		return
	}
	if !m.mu.TryLock() {
		m.lockSlow(nil)
		return
	}
	if sampled(m.acq.inc()) {
		m.holdStart = now() | 1
	}
}

// lockSlow is the contended path: the wait is timed from just before
// blocking to just after acquiring, so it includes the time the runtime
// took to schedule this goroutine once the lock was handed to it. In
// InnoDB's implementations it is mutex_spin_wait after a failed
// test-and-set. onWait, when not nil, runs first (LockOr).
func (m *Mutex) lockSlow(onWait func()) {
	t0 := now()
	m.cold.contended.Add(1)
	switch {
	case onWait != nil:
		onWait()
		if m.mode > modeCounted {
			m.ib.enter()
		} else {
			m.mu.Lock()
		}
	case m.mode > modeCounted:
		m.ib.spinWait()
	default:
		m.mu.Lock()
	}
	t1 := now()
	m.cold.addWait(t1 - t0)
	countAcquired(&m.acq, &m.holdStart, t1)
}

// lockInno is Lock for InnoDB's implementations: a failed test-and-set
// makes the acquisition contended.
func (m *Mutex) lockInno() {
	if !m.ib.tryEnter() {
		m.lockSlow(nil)
		return
	}
	countAcquired(&m.acq, &m.holdStart, 0)
}

// LockOr locks m as Lock does, but when m is taken it first calls onWait:
// a caller that gives something up while it waits (InnoDB's lock wait
// leaving the concurrency gate) does it there. The acquisition counts as
// contended and its wait is timed from before onWait. It reports whether
// it had to wait (onWait ran).
func (m *Mutex) LockOr(onWait func()) bool {
	if m.TryLock() {
		return false
	}
	if m.mode < modeCounted {
		onWait()
		m.mu.Lock()
		return true
	}
	m.lockSlow(onWait)
	return true
}

// countAcquired counts an exclusive acquisition that the caller has just
// made and starts its hold's timing if it is sampled; t1 is when a timed
// wait ended, or 0 if the clock was not read.
func countAcquired(acq *ownedCounter, holdStart *int64, t1 int64) {
	if sampled(acq.inc()) {
		if t1 == 0 {
			t1 = now()
		}
		*holdStart = t1 | 1
	}
}

// TryLock tries to lock m and reports whether it succeeded. A success
// counts as an uncontended acquisition; a failure counts nothing.
func (m *Mutex) TryLock() bool {
	if m.mode > modeCounted {
		if !m.ib.tryEnter() {
			return false
		}
	} else if !m.mu.TryLock() {
		return false
	}
	if m.mode >= modeCounted {
		countAcquired(&m.acq, &m.holdStart, 0)
	}
	return true
}

// Unlock unlocks m. As with sync.Mutex, another goroutine may unlock it.
func (m *Mutex) Unlock() {
	if m.holdStart != 0 {
		m.cold.endHold(m.holdStart)
		m.holdStart = 0
	}
	if m.mode > modeCounted {
		m.ib.exit()
		return
	}
	m.mu.Unlock()
}

// read adds m's counters to s.
func (m *Mutex) read(s *lockSums) {
	acq := m.acq.load()
	s.acq += acq
	s.add(&m.cold, acq)
}
