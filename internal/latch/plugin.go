package latch

import (
	"runtime"
	"sync/atomic"
)

// xLockDecr is X_LOCK_DECR: what an exclusive acquisition takes off the
// lock word, more than any number of readers.
const xLockDecr = 0x00100000

// pluginRW is the rw_lock_t of the InnoDB plugin 1.0.4 to 5.6 with atomic
// builtins (INNODB_RW_LOCKS_USE_ATOMICS) [sync0rw.c, sync0rw.ic, the
// Google SMP patch]: one lock word, xLockDecr when free, less one per
// reader, 0 when held exclusively, and negative while a writer that has
// taken it waits for the readers still inside (WAIT_EX). A shared
// acquisition is one compare-and-swap and its release one atomic add; no
// mutex is entered. Waits spin as the builtin's do (with the plugin's
// longer rounds) and then sleep in the sync array, on the lock's event or,
// for the writer waiting for readers, on its wait_ex_event, which only the
// last reader's release sets.
type pluginRW struct {
	word    atomic.Int32
	waiters atomic.Uint32
	ev      event // readers and writers waiting for the lock to be free
	waitEx  event // the writer waiting for readers to leave
	arr     *syncArray
}

func (l *pluginRW) init(a *syncArray) {
	l.word.Store(xLockDecr)
	l.arr = a
	l.ev.init()
	l.waitEx.init()
}

// decr is rw_lock_lock_word_decr: take amount off the word while it is
// positive.
func (l *pluginRW) decr(amount int32) bool {
	for w := l.word.Load(); w > 0; w = l.word.Load() {
		if l.word.CompareAndSwap(w, w-amount) {
			return true
		}
	}
	return false
}

// tryRLock is rw_lock_s_lock_low, and rw_lock_s_lock_nowait.
func (l *pluginRW) tryRLock() bool { return l.decr(1) }

// rlockSlow is rw_lock_s_lock_spin: spin while a writer holds or waits,
// retry, and after a full spin reserve a cell, set waiters, retry once
// more and sleep.
func (l *pluginRW) rlockSlow() {
	i := 0
	for {
		for i < l.arr.rounds && l.word.Load() <= 0 {
			l.arr.spin()
			i++
		}
		if i == l.arr.rounds {
			runtime.Gosched()
		}
		if l.decr(1) {
			return
		}
		if i < l.arr.rounds {
			continue
		}
		c := l.arr.reserve(&l.ev)
		l.waiters.Store(1) // before the retry, so that the release signals
		if l.decr(1) {
			l.arr.free()
			return
		}
		l.arr.wait(&l.ev, c)
		i = 0
	}
}

// lockFast is rw_lock_x_lock_low's decrement. It may take the lock while
// readers remain (WAIT_EX); the caller must then finish with
// lockSlow(true).
func (l *pluginRW) lockFast(claimed *bool) bool {
	if !l.decr(xLockDecr) {
		return false
	}
	if l.word.Load() == 0 {
		return true
	}
	*claimed = true
	return false
}

// waitReaders is rw_lock_x_lock_wait: after the decrement, spin and sleep
// on wait_ex_event until the readers have left.
func (l *pluginRW) waitReaders() {
	i := 0
	for l.word.Load() < 0 {
		if i < l.arr.rounds {
			l.arr.spin()
			i++
			continue
		}
		c := l.arr.reserve(&l.waitEx)
		if l.word.Load() < 0 {
			l.arr.wait(&l.waitEx, c)
		} else {
			l.arr.free()
		}
		i = 0
	}
}

// xLockLow is rw_lock_x_lock_low: decrement, then wait for readers.
func (l *pluginRW) xLockLow() bool {
	if !l.decr(xLockDecr) {
		return false
	}
	l.waitReaders()
	return true
}

// lockSlow is rw_lock_x_lock_func's loop.
func (l *pluginRW) lockSlow(claimed bool) {
	if claimed {
		l.waitReaders()
		return
	}
	i := 0
	for {
		if l.xLockLow() {
			return
		}
		for i < l.arr.rounds && l.word.Load() <= 0 {
			l.arr.spin()
			i++
		}
		if i < l.arr.rounds {
			continue
		}
		runtime.Gosched()
		c := l.arr.reserve(&l.ev)
		l.waiters.Store(1)
		if l.xLockLow() {
			l.arr.free()
			return
		}
		l.arr.wait(&l.ev, c)
		i = 0
	}
}

// tryLock is rw_lock_x_lock_func_nowait: a free word becomes 0.
func (l *pluginRW) tryLock() bool { return l.word.CompareAndSwap(xLockDecr, 0) }

// runlock is rw_lock_s_unlock_func: the last reader out wakes a writer
// waiting for it. Others sleeping on the lock's event need no wake-up yet:
// that writer goes first, and its release wakes them.
func (l *pluginRW) runlock() {
	// Misuse is caught before the word changes (best effort: the check
	// and the add are two steps).
	if w := l.word.Load(); w == 0 || w >= xLockDecr {
		panic("latch: RUnlock of RWMutex not locked for reading")
	}
	if l.word.Add(1) == 0 {
		l.arr.signal(&l.waitEx)
	}
}

// unlock is rw_lock_x_unlock_func: the lock is free again, and any
// waiters wake.
func (l *pluginRW) unlock() {
	// Held exclusively, the word is 0 and no reader can change it.
	if l.word.Load() != 0 {
		panic("latch: Unlock of RWMutex not locked for writing")
	}
	l.word.Add(xLockDecr)
	if l.waiters.Load() != 0 {
		l.waiters.Store(0)
		l.arr.signal(&l.ev)
	}
}
