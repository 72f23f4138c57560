package latch

import (
	"sync"
	"sync/atomic"
)

// RWMutex is a sync.RWMutex that counts shared and exclusive acquisitions
// separately, with their contended acquisitions and wait times, and samples
// the hold time of exclusive holds. Shared holds are not timed: readers
// overlap, so one start field cannot serve them.
//
// A shared acquisition is contended when TryRLock fails, which happens only
// while a writer holds the lock or waits for it; an exclusive one is
// contended when TryLock fails, because of a writer or of readers.
//
// A RWMutex must be initialised with Init before first use and must not be
// copied after that. A RWMutex that was never initialised works as a plain
// sync.RWMutex and is not reported. Its hot words fit in the first 56 bytes.
type RWMutex struct {
	rw        sync.RWMutex
	racq      ownedCounter // shared acquisitions, see countRead
	acq       ownedCounter // exclusive acquisitions
	holdStart int64        // as in Mutex, exclusive holds only
	mode      uint8
	cold      coldCounters // exclusive contention, all waits, exclusive holds
	rcont     atomic.Uint64
	rwait     atomic.Int64 // the shared part of cold.wait
}

// Init registers m in r under the class name, as Mutex.Init does.
func (m *RWMutex) Init(r *Registry, name string) {
	if m.mode != modeZero {
		panic("latch: RWMutex " + name + " initialised twice")
	}
	if !r.enabled() {
		m.mode = modePlain
		return
	}
	r.register(name, nil, m)
	m.mode = modeCounted
}

// Lock locks m for writing: TryLock first, then a timed Lock, as
// Mutex.Lock does.
func (m *RWMutex) Lock() {
	if m.mode != modeCounted {
		m.rw.Lock()
		return
	}
	if !m.rw.TryLock() {
		m.lockSlow()
		return
	}
	if sampled(m.acq.inc()) {
		m.holdStart = now() | 1
	}
}

func (m *RWMutex) lockSlow() {
	t0 := now()
	m.cold.contended.Add(1)
	m.rw.Lock()
	t1 := now()
	m.cold.addWait(t1 - t0)
	if sampled(m.acq.inc()) {
		m.holdStart = t1 | 1
	}
}

// TryLock tries to lock m for writing and reports whether it succeeded.
// Only a success is counted.
func (m *RWMutex) TryLock() bool {
	if !m.rw.TryLock() {
		return false
	}
	if m.mode == modeCounted && sampled(m.acq.inc()) {
		m.holdStart = now() | 1
	}
	return true
}

// Unlock unlocks m for writing.
func (m *RWMutex) Unlock() {
	if m.holdStart != 0 {
		m.cold.endHold(m.holdStart)
		m.holdStart = 0
	}
	m.rw.Unlock()
}

// RLock locks m for reading: TryRLock first, then a timed RLock.
func (m *RWMutex) RLock() {
	if m.mode != modeCounted {
		m.rw.RLock()
		return
	}
	if !m.rw.TryRLock() {
		m.rlockSlow()
		return
	}
	m.countRead()
}

// countRead counts a shared acquisition with the plain increment of
// ownedCounter, as InnoDB counts its latch statistics in ib_counter_t
// slots without atomics: readers hold the lock together, so overlapping
// increments can be lost and the count is a lower bound. A locked add
// would cost ~5 ns per acquisition, more than 5% of the buffer pool's hit
// path, which takes two shared latches. Contended acquisitions and waits,
// which reports rely on, are counted exactly; race-detector builds count
// exactly too.
func (m *RWMutex) countRead() { m.racq.inc() }

func (m *RWMutex) rlockSlow() {
	t0 := now()
	m.rcont.Add(1)
	m.rw.RLock()
	w := now() - t0
	m.cold.addWait(w)
	m.rwait.Add(w)
	m.countRead()
}

// TryRLock tries to lock m for reading and reports whether it succeeded.
// Only a success is counted.
func (m *RWMutex) TryRLock() bool {
	if !m.rw.TryRLock() {
		return false
	}
	if m.mode == modeCounted {
		m.countRead()
	}
	return true
}

// RUnlock undoes one RLock.
func (m *RWMutex) RUnlock() { m.rw.RUnlock() }

// read adds m's counters to s.
func (m *RWMutex) read(s *lockSums) {
	acq := m.acq.load()
	s.acq += acq
	s.racq += m.racq.load()
	s.rcont += m.rcont.Load()
	s.rwait += m.rwait.Load()
	s.add(&m.cold, acq)
}
