package lru

import (
	"errors"
	"sync/atomic"
	"time"
)

var errHeadMismatch = errors.New("lru: the published head is not the list's front")

// LRU is the textbook least-recently-used list: pages enter at the front,
// every access moves the page to the front, and eviction takes the back. It
// is the baseline the midpoint and CLOCK policies are measured against.
//
// Cost: Access asks for Promote on every hit except a hit on the page already
// at the front, so almost every page fix takes the buffer pool's LRU mutex to
// move one node. That serialisation of hits is what InnoDB's make-young
// rules (and CLOCK's reference bits) exist to avoid; comparing the three
// under many threads shows its price.
//
// Concurrency: Access is lock-free (it reads one atomic pointer); every other
// method needs the caller's lock.
type LRU[T any] struct {
	list      List[T]
	moves     uint64
	evictions uint64

	_ [padBytes]byte

	head atomic.Pointer[Node[T]] // list.Front(), published for Access

	_ [padBytes]byte
}

var _ Policy[int] = (*LRU[int])(nil)

// NewLRU returns an empty plain LRU policy.
func NewLRU[T any]() *LRU[T] { return &LRU[T]{} }

// Name returns "lru".
func (p *LRU[T]) Name() string { return "lru" }

// Len returns the list's length. The caller must hold the lock.
func (p *LRU[T]) Len() int { return p.list.Len() }

// Add puts n at the front. The caller must hold the lock.
func (p *LRU[T]) Add(n *Node[T], now time.Time) {
	n.resetPolicyState()
	p.list.PushFront(n)
	p.head.Store(n)
}

// Access reports whether n needs moving: true unless n is already at the
// front. It changes nothing and is safe without the lock.
func (p *LRU[T]) Access(n *Node[T], now func() time.Time) bool {
	return p.head.Load() != n
}

// Promote moves n to the front if it is still in the list and not already
// there; MadeYoung counts the moves. The caller must hold the lock.
func (p *LRU[T]) Promote(n *Node[T], now time.Time) {
	if n.list != &p.list || p.list.Front() == n {
		return
	}
	p.list.MoveToFront(n)
	p.head.Store(n)
	p.moves++
}

// Remove takes n out of the list; evicted removals count in FreedPageClock.
// The caller must hold the lock.
func (p *LRU[T]) Remove(n *Node[T], evicted bool) {
	p.list.mustHold(n, "LRU.Remove")
	front := p.list.Front() == n
	p.list.unlink(n)
	if front {
		p.head.Store(p.list.Front())
	}
	if evicted {
		p.evictions++
	}
}

// Scan visits nodes from the back; see List.Scan. A step is one node offered
// to visit. The caller must hold the lock.
func (p *LRU[T]) Scan(max int, visit func(n *Node[T]) bool) int {
	return p.list.Scan(max, visit)
}

// Stats returns the counters: MadeYoung counts moves to the front,
// FreedPageClock evicted removals. The caller must hold the lock.
func (p *LRU[T]) Stats() Stats {
	return Stats{Len: p.list.Len(), MadeYoung: p.moves, FreedPageClock: p.evictions}
}

// Check verifies the list's links and that the published head is its front.
// The caller must hold the lock.
func (p *LRU[T]) Check() error {
	if err := p.list.Check(); err != nil {
		return err
	}
	if p.head.Load() != p.list.Front() {
		return errHeadMismatch
	}
	return nil
}
