package latch

import "sync"

// event is os_event_t [os0sync.c]: a manual-reset event whose waiters wake
// together when it is set. A waiter passes the signal count that reset
// returned, so a set between its reset and its wait is not lost
// (os_event_wait_low's reset_sig_count).
type event struct {
	mu    sync.Mutex
	cond  sync.Cond
	isSet bool
	sigs  uint64
}

func (e *event) init() { e.cond.L = &e.mu }

// reset is os_event_reset: it clears the event and returns the signal
// count to wait against.
func (e *event) reset() uint64 {
	e.mu.Lock()
	e.isSet = false
	c := e.sigs
	e.mu.Unlock()
	return c
}

// set is os_event_set: every waiter wakes (pthread_cond_broadcast).
func (e *event) set() {
	e.mu.Lock()
	if !e.isSet {
		e.isSet = true
		e.sigs++
		e.cond.Broadcast()
	}
	e.mu.Unlock()
}

// wait is os_event_wait_low: it returns at once if the event was set since
// the reset that returned c.
func (e *event) wait(c uint64) {
	e.mu.Lock()
	for !e.isSet && e.sigs == c {
		e.cond.Wait()
	}
	e.mu.Unlock()
}
