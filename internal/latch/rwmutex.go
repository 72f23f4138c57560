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
	x         *rwExtra     // counted modes only
}

// rwExtra is what an instrumented RWMutex touches only on contended
// shared acquisitions or in InnoDB's implementations, kept off the lock so
// that it stays within 120 bytes (bufpool's frame layout).
type rwExtra struct {
	rcont atomic.Uint64
	rwait atomic.Int64 // the shared part of cold.wait
	ib    *builtinRW   // modeBuiltin only; rw is then unused
	pl    *pluginRW    // modePlugin only; rw is then unused
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
	// Set everything a Snapshot reads before registering, as Mutex.Init.
	m.mode = r.mode()
	m.x = new(rwExtra)
	switch m.mode {
	case modeBuiltin:
		m.x.ib = new(builtinRW)
		m.x.ib.init(r.arr)
	case modePlugin:
		m.x.pl = new(pluginRW)
		m.x.pl.init(r.arr)
	}
	r.register(name, nil, m)
}

// Lock locks m for writing: TryLock first, then a timed Lock, as
// Mutex.Lock does.
func (m *RWMutex) Lock() {
	if m.mode != modeCounted {
		if m.mode > modeCounted {
			m.lockInno()
			return
		}
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
	countAcquired(&m.acq, &m.holdStart, t1)
}

// lockInno is Lock for InnoDB's implementations. An acquisition is
// contended when the first attempt finds the lock taken, or readers still
// inside; a builtin lock's own mutex is entered untimed, as InnoDB counted
// its waits as mutex spins, not as rw-lock waits.
func (m *RWMutex) lockInno() {
	var t1 int64
	claimed := false
	var ok bool
	if m.mode == modeBuiltin {
		ok = m.x.ib.lockFast(&claimed)
	} else {
		ok = m.x.pl.lockFast(&claimed)
	}
	if !ok {
		t0 := now()
		m.cold.contended.Add(1)
		if m.mode == modeBuiltin {
			m.x.ib.lockSlow(claimed)
		} else {
			m.x.pl.lockSlow(claimed)
		}
		t1 = now()
		m.cold.addWait(t1 - t0)
	}
	countAcquired(&m.acq, &m.holdStart, t1)
}

// TryLock tries to lock m for writing and reports whether it succeeded.
// Only a success is counted.
func (m *RWMutex) TryLock() bool {
	if m.mode > modeCounted {
		return m.tryLockInno()
	}
	if !m.rw.TryLock() {
		return false
	}
	if m.mode == modeCounted {
		countAcquired(&m.acq, &m.holdStart, 0)
	}
	return true
}

func (m *RWMutex) tryLockInno() bool {
	var ok bool
	if m.mode == modeBuiltin {
		ok = m.x.ib.tryLock()
	} else {
		ok = m.x.pl.tryLock()
	}
	if ok {
		countAcquired(&m.acq, &m.holdStart, 0)
	}
	return ok
}

// Unlock unlocks m for writing.
func (m *RWMutex) Unlock() {
	if m.holdStart != 0 {
		m.cold.endHold(m.holdStart)
		m.holdStart = 0
	}
	if m.mode > modeCounted {
		m.unlockInno()
		return
	}
	m.rw.Unlock()
}

func (m *RWMutex) unlockInno() {
	if m.mode == modeBuiltin {
		m.x.ib.unlock()
	} else {
		m.x.pl.unlock()
	}
}

// RLock locks m for reading: TryRLock first, then a timed RLock.
func (m *RWMutex) RLock() {
	if m.mode != modeCounted {
		if m.mode > modeCounted {
			m.rlockInno()
			return
		}
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
	m.x.rcont.Add(1)
	m.rw.RLock()
	w := now() - t0
	m.cold.addWait(w)
	m.x.rwait.Add(w)
	m.countRead()
}

// rlockInno is RLock for InnoDB's implementations, timed as lockInno is:
// only a writer holding or claiming the lock makes it contended.
func (m *RWMutex) rlockInno() {
	var ok bool
	if m.mode == modeBuiltin {
		ok = m.x.ib.rlockFast()
	} else {
		ok = m.x.pl.tryRLock()
	}
	if !ok {
		t0 := now()
		m.x.rcont.Add(1)
		if m.mode == modeBuiltin {
			m.x.ib.rlockSlow()
		} else {
			m.x.pl.rlockSlow()
		}
		w := now() - t0
		m.cold.addWait(w)
		m.x.rwait.Add(w)
	}
	m.countRead()
}

// TryRLock tries to lock m for reading and reports whether it succeeded.
// Only a success is counted. Under the builtin implementation it waits
// for the lock's own mutex, as rw_lock_s_lock_func_nowait did.
func (m *RWMutex) TryRLock() bool {
	if m.mode > modeCounted {
		return m.tryRLockInno()
	}
	if !m.rw.TryRLock() {
		return false
	}
	if m.mode == modeCounted {
		m.countRead()
	}
	return true
}

func (m *RWMutex) tryRLockInno() bool {
	var ok bool
	if m.mode == modeBuiltin {
		ok = m.x.ib.rlockFast()
	} else {
		ok = m.x.pl.tryRLock()
	}
	if ok {
		m.countRead()
	}
	return ok
}

// RUnlock undoes one RLock.
func (m *RWMutex) RUnlock() {
	if m.mode > modeCounted {
		m.runlockInno()
		return
	}
	m.rw.RUnlock()
}

func (m *RWMutex) runlockInno() {
	if m.mode == modeBuiltin {
		m.x.ib.runlock()
	} else {
		m.x.pl.runlock()
	}
}

// read adds m's counters to s.
func (m *RWMutex) read(s *lockSums) {
	acq := m.acq.load()
	s.acq += acq
	s.racq += m.racq.load()
	s.rcont += m.x.rcont.Load()
	s.rwait += m.x.rwait.Load()
	s.add(&m.cold, acq)
}
