package latch

import (
	"math/rand/v2"
	"sync/atomic"
)

// spinPolicy is how InnoDB's latches spin before they sleep: up to rounds
// rounds (innodb_sync_spin_loops), each an idle loop of a random 0 to
// delay units (innodb_spin_wait_delay, ut_rnd_interval), a unit being 50
// iterations of ut_delay's loop, and an iteration relax adds long
// (ut_delay [ut0ut.c]: 5.0 and the 5.1 builtin add an integer; from the
// plugin on each iteration also runs PAUSE, UT_RELAX_CPU).
type spinPolicy struct {
	rounds, delay, relax int
}

// The policies' defaults [srv0srv.c]. A PAUSE is taken as ten adds: about
// its latency on the Nehalem-era Xeons of 2010 (Skylake raised it to about
// 140 cycles).
var (
	builtinSpin = spinPolicy{rounds: 20, delay: 5, relax: 1}
	pluginSpin  = spinPolicy{rounds: 30, delay: 6, relax: 10}
)

// spin runs one round.
func (p *spinPolicy) spin() { utDelay(rand.IntN(p.delay+1) * 50 * p.relax) }

// utDelay is ut_delay's loop of n integer adds. It is not inlined so that
// the loop is run, not folded away.
//
//go:noinline
func utDelay(n int) int {
	j := 0
	for i := range n {
		j += i
	}
	return j
}

// syncArray is InnoDB's sync_primary_wait_array [sync0arr.c] (one array
// until 5.6 split it): every thread that stops spinning reserves a cell in
// it, marks it waiting and frees it after waking, and every release that
// wakes waiters counts a signal, each under the array's one OS mutex. So
// all waits of all latches of a registry pass through one mutex,
// sync_array_mutex. The array also holds its latches' spin policy.
type syncArray struct {
	spinPolicy
	// atomicSignals counts wake-ups with an atomic add outside mu, as
	// sync_array_object_signalled does with atomic builtins (the plugin).
	atomicSignals bool
	mu            Mutex
	cells         int // reserved cells; guarded by mu
	// Counted under mu, as InnoDB counts them, and atomic so that a
	// snapshot reads them without taking mu.
	waits   atomic.Uint64 // sleeps
	signals atomic.Uint64 // sg_count
}

// counts returns the waits and signals so far.
func (a *syncArray) counts() (waits, signals uint64) {
	return a.waits.Load(), a.signals.Load()
}

// reserve is sync_array_reserve_cell: it takes a cell and resets the
// latch's event, returning the count to wait against.
func (a *syncArray) reserve(e *event) uint64 {
	a.mu.Lock()
	a.cells++
	c := e.reset()
	a.mu.Unlock()
	return c
}

// free is sync_array_free_cell, for a thread that got the latch after
// reserving or once it has woken.
func (a *syncArray) free() {
	a.mu.Lock()
	a.cells--
	a.mu.Unlock()
}

// wait is sync_array_wait_event: mark the cell waiting, wait on the event,
// free the cell.
func (a *syncArray) wait(e *event, c uint64) {
	a.mu.Lock()
	a.waits.Add(1)
	a.mu.Unlock()
	e.wait(c)
	a.free()
}

// signal is a release that wakes a latch's waiters: os_event_set, then
// sync_array_object_signalled.
func (a *syncArray) signal(e *event) {
	e.set()
	if a.atomicSignals {
		a.signals.Add(1)
		return
	}
	a.mu.Lock()
	a.signals.Add(1)
	a.mu.Unlock()
}
