package lru

import (
	"fmt"
	"time"
)

// Clock is CLOCK, or second chance (Corbató 1968): the pages sit on a
// circle swept by a hand. An access only sets the page's reference bit; the
// hand, looking for a victim, clears set bits and passes those pages by, and
// offers the first page whose bit is clear. Hits never move a page and never
// take the lock, which is why CLOCK and its descendants (Clock-Pro, the
// Linux page cache's active/inactive lists, LeanStore's cooling) replace LRU
// in systems where a hit must be cheap.
//
// The circle is a List: the hand moves from the back towards the front and
// wraps from the front to the back. Add inserts a page just behind the hand,
// so the hand reaches it last; with no accesses, eviction order is insertion
// order (FIFO).
//
// Concurrency: Access is lock-free (one load, and one store when the bit was
// clear); every other method needs the caller's lock.
type Clock[T any] struct {
	list      List[T]
	hand      *Node[T] // next node the hand examines; nil when empty
	evictions uint64
}

var _ Policy[int] = (*Clock[int])(nil)

// NewClock returns an empty CLOCK policy.
func NewClock[T any]() *Clock[T] { return &Clock[T]{} }

// Name returns "clock".
func (p *Clock[T]) Name() string { return "clock" }

// Len returns the number of nodes on the circle. The caller must hold the
// lock.
func (p *Clock[T]) Len() int { return p.list.Len() }

// Add inserts n just behind the hand with its reference bit clear. The caller
// must hold the lock.
func (p *Clock[T]) Add(n *Node[T], now time.Time) {
	n.resetPolicyState()
	if p.hand == nil {
		p.list.PushBack(n)
		p.hand = n
		return
	}
	p.list.insertAfter(n, p.hand)
}

// Access sets n's reference bit, loading it first so that a hot page's cache
// line is not written on every hit, and never asks for Promote. Safe without
// the lock.
func (p *Clock[T]) Access(n *Node[T], now func() time.Time) bool {
	if !n.ref.Load() {
		n.ref.Store(true)
	}
	return false
}

// Promote does nothing: CLOCK never moves a page on a hit.
func (p *Clock[T]) Promote(n *Node[T], now time.Time) {}

// Remove takes n off the circle, moving the hand on if it pointed at n;
// evicted removals count in FreedPageClock. The caller must hold the lock.
func (p *Clock[T]) Remove(n *Node[T], evicted bool) {
	p.list.mustHold(n, "Clock.Remove")
	if p.hand == n {
		next := p.advance(n)
		if next == n {
			next = nil
		}
		p.hand = next
	}
	p.list.unlink(n)
	n.ref.Store(false)
	if evicted {
		p.evictions++
	}
}

// advance returns the node the hand reaches after n: towards the front,
// wrapping from the front to the back.
func (p *Clock[T]) advance(n *Node[T]) *Node[T] {
	if m := n.prev; m != &p.list.root {
		return m
	}
	return p.list.root.prev
}

// Scan sweeps the hand. Each step examines the node under the hand: a set
// reference bit is cleared and the node passed by; a clear one is offered to
// visit, and the hand moves past it unless visit removed it. Both kinds of
// step count towards max and the returned total; max <= 0 means 2*Len(),
// enough for a full pass even when every bit is set. Whatever max is, one
// Scan offers at most Len() nodes (counted at the start), so with no bits set
// Scan(0) offers every node exactly once and no Scan offers a node twice.
// visit may Remove the node it is given. The caller must hold the lock.
func (p *Clock[T]) Scan(max int, visit func(n *Node[T]) bool) int {
	maxOffers := p.list.Len()
	if max <= 0 {
		max = 2 * maxOffers
	}
	steps, offers := 0, 0
	for p.hand != nil && steps < max && offers < maxOffers {
		n := p.hand
		steps++
		if n.ref.Load() {
			n.ref.Store(false)
			p.hand = p.advance(n)
			continue
		}
		offers++
		stop := visit(n)
		if p.hand == n && n.list == &p.list {
			p.hand = p.advance(n)
		}
		if stop {
			break
		}
	}
	return steps
}

// Stats returns the counters; only Len and FreedPageClock (evicted
// removals) apply. The caller must hold the lock.
func (p *Clock[T]) Stats() Stats {
	return Stats{Len: p.list.Len(), FreedPageClock: p.evictions}
}

// Check verifies the list's links and that the hand is on the circle (nil
// only when it is empty). The caller must hold the lock.
func (p *Clock[T]) Check() error {
	if err := p.list.Check(); err != nil {
		return err
	}
	if (p.hand == nil) != (p.list.Len() == 0) || (p.hand != nil && p.hand.list != &p.list) {
		return fmt.Errorf("lru: clock: hand is off the circle (%d nodes)", p.list.Len())
	}
	return nil
}
