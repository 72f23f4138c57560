package lru

import "time"

// Policy decides the order in which pages are inserted, promoted and
// evicted. It has no lock of its own: the buffer pool's LRU mutex guards it.
// Add, Promote, Remove, Scan, Len and Stats need the caller to hold that lock.
// Access is the one method that is safe without it: it touches only atomics,
// so a page fix that finds nothing to do never takes the lock.
//
// The calling pattern on a page fix (InnoDB's buf_page_get_gen:
// buf_page_set_accessed, then buf_page_make_young_if_needed):
//
//	if p.Access(n, clock) {
//		mu.Lock()
//		p.Promote(n, clock())
//		mu.Unlock()
//	}
type Policy[T any] interface {
	// Name is a short name for reports: "midpoint", "lru", "clock".
	Name() string

	// Len returns the number of nodes the policy holds.
	Len() int

	// Add puts n, which must be in no list, into the policy: a page entered
	// the pool, read from storage or created. It resets n's policy state.
	Add(n *Node[T], now time.Time)

	// Access records an access to n (a page fix) without changing any list:
	// it may set n's first access time or reference bit atomically. It
	// reports whether the caller should take its lock and call Promote
	// (InnoDB: buf_page_set_accessed, then buf_page_peek_if_too_old). It is
	// safe without the caller's lock and concurrently with every other
	// method. It calls now only when the rule needs the time (a first
	// access, an old page): reading the clock costs more than the rest of
	// a hit on some machines (about 40 ns on ours).
	Access(n *Node[T], now func() time.Time) (promote bool)

	// Promote moves n towards the protected end after Access asked for it.
	// Things may have changed since Access returned: Promote does nothing
	// when n is no longer in this policy.
	Promote(n *Node[T], now time.Time)

	// Remove takes n, which must be in the policy, out of it. evicted says
	// that the page left the pool to free memory; such removals advance the
	// freed-page clock.
	Remove(n *Node[T], evicted bool)

	// Scan offers eviction candidates to visit in eviction order, at most
	// max steps (max <= 0: a full pass), stopping when visit returns true;
	// it returns the number of steps. visit may Remove the node it is
	// given. See each policy for what a step is.
	Scan(max int, visit func(n *Node[T]) bool) int

	// Stats returns the policy's counters.
	Stats() Stats
}

// Stats are a policy's counters, named after InnoDB's.
type Stats struct {
	// Len is the number of nodes in the policy (SHOW ENGINE INNODB STATUS
	// "LRU len").
	Len int
	// OldLen is the length of the old sublist (buf_pool->LRU_old_len,
	// "Old database pages"); 0 for policies without one.
	OldLen int
	// MadeYoung counts promotions of old pages
	// (Innodb_buffer_pool_pages_made_young, buf_pool->stat.n_pages_made_young).
	// The plain LRU counts every move to the front.
	MadeYoung uint64
	// NotMadeYoung counts accesses to old pages that were refused a promotion
	// because their first access was less than OldBlocksTime ago
	// (Innodb_buffer_pool_pages_not_made_young).
	NotMadeYoung uint64
	// FreedPageClock counts evicted removals (buf_pool->freed_page_clock).
	FreedPageClock uint64
}
