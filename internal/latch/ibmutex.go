package latch

import (
	"runtime"
	"sync/atomic"
)

// ibMutex is InnoDB's mutex_t [sync0sync.c, 5.0 to 5.6]: a lock word set
// by test-and-set, a waiters flag, and an event. A failed test-and-set
// spins up to the policy's rounds reading the word, yields, tries again,
// and then waits in the sync array (mutex_spin_wait); a release that finds
// the waiters flag set wakes every waiter, which then race for the word
// again (mutex_exit, mutex_signal_object). The builtin's test-and-set was
// pthread_mutex_trylock, the plugin's an atomic exchange; both are one
// locked instruction, a compare-and-swap here.
type ibMutex struct {
	word    atomic.Uint32
	waiters atomic.Uint32
	ev      event
	arr     *syncArray
}

func (m *ibMutex) init(a *syncArray) {
	m.arr = a
	m.ev.init()
}

// tryEnter is mutex_test_and_set.
func (m *ibMutex) tryEnter() bool { return m.word.CompareAndSwap(0, 1) }

// enter is mutex_enter.
func (m *ibMutex) enter() {
	if !m.tryEnter() {
		m.spinWait()
	}
}

// spinWait is mutex_spin_wait.
func (m *ibMutex) spinWait() {
	for {
		i := 0
		for {
			for m.word.Load() != 0 && i < m.arr.rounds {
				m.arr.spin()
				i++
			}
			if i == m.arr.rounds {
				runtime.Gosched() // os_thread_yield
			}
			if m.tryEnter() {
				return
			}
			if i++; i >= m.arr.rounds {
				break
			}
		}
		c := m.arr.reserve(&m.ev)
		// Set waiters, then try four more times: a release between the
		// last try and the flag would otherwise leave this thread asleep.
		m.waiters.Store(1)
		for range 4 {
			if m.tryEnter() {
				m.arr.free()
				return
			}
		}
		m.arr.wait(&m.ev, c)
	}
}

// exit is mutex_exit: clear the word, then wake every waiter if any.
func (m *ibMutex) exit() {
	if m.word.Swap(0) == 0 {
		panic("latch: Unlock of unlocked Mutex")
	}
	if m.waiters.Load() != 0 {
		m.waiters.Store(0)
		m.arr.signal(&m.ev)
	}
}
