package latch

import (
	"runtime"
	"sync/atomic"
)

// States of a builtin rw-lock's writer field [sync0rw.h, 5.0/5.1].
const (
	rwNotLocked int32 = iota
	rwEx              // held exclusively
	rwWaitEx          // a writer has claimed it and waits for readers to leave
)

// builtinRW is the builtin's rw_lock_t [sync0rw.c, sync0rw.ic, 5.0/5.1]:
// a writer field, a reader count and a waiters flag, all changed under the
// lock's own mutex, so every shared acquisition and release enters that
// mutex, and readers of one hot latch serialize on it (the plugin replaced
// this with one atomic lock word, INNODB_RW_LOCKS_USE_ATOMICS). A writer
// that finds readers claims the lock (WAIT_EX), which keeps new readers
// out, and waits for the readers to leave. Waits spin like the mutex's,
// then sleep in the sync array on the lock's one event, which every
// release that finds waiters sets, waking readers and writers alike.
type builtinRW struct {
	mu      ibMutex
	writer  atomic.Int32
	readers atomic.Int32
	waiters atomic.Uint32
	ev      event
	arr     *syncArray
}

func (l *builtinRW) init(a *syncArray) {
	l.mu.init(a)
	l.arr = a
	l.ev.init()
}

// sLockLow is rw_lock_s_lock_low; the caller holds l.mu.
func (l *builtinRW) sLockLow() bool {
	if l.writer.Load() != rwNotLocked {
		return false
	}
	l.readers.Add(1)
	return true
}

// xLockLow is rw_lock_x_lock_low; the caller holds l.mu. claimed says
// whether this caller has set WAIT_EX; only it may turn that into EX.
func (l *builtinRW) xLockLow(claimed *bool) bool {
	switch l.writer.Load() {
	case rwNotLocked:
		if l.readers.Load() == 0 {
			l.writer.Store(rwEx)
			return true
		}
		l.writer.Store(rwWaitEx)
		*claimed = true
	case rwWaitEx:
		if *claimed && l.readers.Load() == 0 {
			l.writer.Store(rwEx)
			*claimed = false
			return true
		}
	}
	return false
}

// rlockFast is rw_lock_s_lock_func's first attempt: enter the lock's
// mutex, waiting if need be, and take the lock unless a writer holds or
// claims it. It is also rw_lock_s_lock_func_nowait.
func (l *builtinRW) rlockFast() bool {
	l.mu.enter()
	ok := l.sLockLow()
	l.mu.exit()
	return ok
}

// rlockSlow is rw_lock_s_lock_spin, after a failed rlockFast: spin while a
// writer holds or claims the lock, try once under the mutex, and otherwise
// reserve a cell, set waiters and sleep, in that order, so that the
// release that follows must wake it.
func (l *builtinRW) rlockSlow() {
	for {
		i := 0
		for l.writer.Load() != rwNotLocked && i < l.arr.rounds {
			l.arr.spin()
			i++
		}
		if i == l.arr.rounds {
			runtime.Gosched()
		}
		l.mu.enter()
		if l.sLockLow() {
			l.mu.exit()
			return
		}
		c := l.arr.reserve(&l.ev)
		l.waiters.Store(1)
		l.mu.exit()
		l.arr.wait(&l.ev, c)
	}
}

// lockFast is rw_lock_x_lock_func's first attempt under the lock's mutex.
// It may claim the lock (WAIT_EX) without getting it; the caller must then
// finish with lockSlow(true).
func (l *builtinRW) lockFast(claimed *bool) bool {
	l.mu.enter()
	ok := l.xLockLow(claimed)
	l.mu.exit()
	return ok
}

// tryLock is rw_lock_x_lock_func_nowait: only a free lock is taken, and a
// failure claims nothing.
func (l *builtinRW) tryLock() bool {
	l.mu.enter()
	ok := l.writer.Load() == rwNotLocked && l.readers.Load() == 0
	if ok {
		l.writer.Store(rwEx)
	}
	l.mu.exit()
	return ok
}

// lockSlow is the rest of rw_lock_x_lock_func after a failed lockFast:
// spin while the writer field is taken (or, having claimed it, while
// readers remain), try again under the mutex, and once the spin rounds
// are spent (they add up over retries, as in InnoDB) reserve a cell, try
// once more, set waiters and sleep.
func (l *builtinRW) lockSlow(claimed bool) {
	i := 0
	for {
		if claimed {
			for l.readers.Load() != 0 && i < l.arr.rounds {
				l.arr.spin()
				i++
			}
		} else {
			for l.writer.Load() != rwNotLocked && i < l.arr.rounds {
				l.arr.spin()
				i++
			}
		}
		if i < l.arr.rounds {
			if l.lockFast(&claimed) {
				return
			}
			continue
		}
		runtime.Gosched()
		c := l.arr.reserve(&l.ev)
		l.mu.enter()
		if l.xLockLow(&claimed) {
			l.mu.exit()
			l.arr.free()
			return
		}
		l.waiters.Store(1)
		l.mu.exit()
		l.arr.wait(&l.ev, c)
		i = 0
		if l.lockFast(&claimed) {
			return
		}
	}
}

// runlock is rw_lock_s_unlock_func: the last reader wakes the waiters.
func (l *builtinRW) runlock() {
	l.mu.enter()
	if l.readers.Load() <= 0 {
		l.mu.exit()
		panic("latch: RUnlock of RWMutex not locked for reading")
	}
	n := l.readers.Add(-1)
	wake := n == 0 && l.waiters.Load() != 0
	if wake {
		l.waiters.Store(0)
	}
	l.mu.exit()
	if wake {
		l.arr.signal(&l.ev)
	}
}

// unlock is rw_lock_x_unlock_func.
func (l *builtinRW) unlock() {
	l.mu.enter()
	if l.writer.Load() != rwEx {
		l.mu.exit()
		panic("latch: Unlock of RWMutex not locked for writing")
	}
	l.writer.Store(rwNotLocked)
	wake := l.waiters.Load() != 0
	if wake {
		l.waiters.Store(0)
	}
	l.mu.exit()
	if wake {
		l.arr.signal(&l.ev)
	}
}
