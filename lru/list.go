package lru

import (
	"fmt"
	"sync/atomic"
)

// Node is an intrusive list element. Embed it by value in the object that
// owns it (a page descriptor) and set Value to that owner, so that a list
// walk leads back to the owner without an allocation or a map lookup:
//
//	type page struct {
//		lru   lru.Node[*page] // common LRU (a Policy)
//		unzip lru.Node[*page] // unzip_LRU (a List)
//		...
//	}
//	p.lru.Value, p.unzip.Value = p, p
//
// A Node belongs to at most one list at a time. Its links and its list
// membership are guarded by the lock of the list that holds it. The policy
// state that Access touches without that lock (the old flag, the first access
// time, the freed-page-clock stamp and the reference bit) is kept in atomics,
// as InnoDB reads buf_page_t::old, access_time and freed_page_clock without
// buf_pool->mutex in buf_page_peek_if_too_old.
//
// A Node must not be copied once it has been put in a list.
type Node[T any] struct {
	// Value is the owner of the node, set by the caller; the package never
	// reads or writes it.
	Value T

	prev, next *Node[T]
	list       *List[T] // the list holding the node; nil when in none

	// Policy state. Each policy uses its own subset; a node is in one
	// policy at a time, and Add resets all of them.
	old        atomic.Bool   // Midpoint: in the old sublist (buf_page_t::old)
	ref        atomic.Bool   // Clock: reference bit
	freedClock atomic.Uint64 // Midpoint: freed-page clock when last put at the head (buf_page_t::freed_page_clock)
	accessed   atomic.Int64  // Midpoint: first access since Add, ns from the policy's epoch; 0 = never (buf_page_t::access_time)
}

// InList reports whether n is in a list. The caller must hold the lock of the
// list that may hold n.
func (n *Node[T]) InList() bool { return n.list != nil }

// Old reports whether n is in the old sublist of a Midpoint policy
// (buf_page_is_old). It is safe to call without the list's lock; the answer
// may then be stale by the time it returns.
func (n *Node[T]) Old() bool { return n.old.Load() }

// Next returns the node after n, towards the back (the eviction end), or nil
// if n is the last node or in no list. The caller must hold the list's lock.
func (n *Node[T]) Next() *Node[T] {
	if p := n.next; n.list != nil && p != &n.list.root {
		return p
	}
	return nil
}

// Prev returns the node before n, towards the front, or nil if n is the
// first node or in no list. The caller must hold the list's lock.
func (n *Node[T]) Prev() *Node[T] {
	if p := n.prev; n.list != nil && p != &n.list.root {
		return p
	}
	return nil
}

// resetPolicyState clears what a previous stay in a policy left in n, as
// buf_page_init_low does for a page entering the pool (freed_page_clock = 0,
// access_time = 0).
func (n *Node[T]) resetPolicyState() {
	n.old.Store(false)
	n.ref.Store(false)
	n.freedClock.Store(0)
	n.accessed.Store(0)
}

// List is a doubly linked list of Nodes around a sentinel: every operation is
// O(1) and none allocates. The front is the most recently used end, the back
// the eviction end. The zero value is an empty list ready to use. A List has
// no lock of its own: its owner's lock guards every method. A List must not be
// copied after first use (the sentinel points to itself).
//
// The buffer pool uses a List directly for unzip_LRU
// (buf_unzip_LRU_add_block puts a block at the front, or at the back when
// "old"; buf_LRU_free_from_unzip_LRU_list scans from the back).
type List[T any] struct {
	root Node[T] // sentinel: root.next is the front, root.prev the back
	len  int
}

func (l *List[T]) lazyInit() {
	if l.root.next == nil {
		l.root.next = &l.root
		l.root.prev = &l.root
	}
}

// Len returns the number of nodes in l.
func (l *List[T]) Len() int { return l.len }

// Front returns the first node of l, or nil if l is empty.
func (l *List[T]) Front() *Node[T] {
	if l.len == 0 {
		return nil
	}
	return l.root.next
}

// Back returns the last node of l (the eviction end), or nil if l is empty.
func (l *List[T]) Back() *Node[T] {
	if l.len == 0 {
		return nil
	}
	return l.root.prev
}

// insertAfter links n after at, which is in l or is l's sentinel.
func (l *List[T]) insertAfter(n, at *Node[T]) {
	if n.list != nil {
		panic("lru: node is already in a list")
	}
	n.prev = at
	n.next = at.next
	at.next.prev = n
	at.next = n
	n.list = l
	l.len++
}

// unlink takes n, which is in l, out of it.
func (l *List[T]) unlink(n *Node[T]) {
	n.prev.next = n.next
	n.next.prev = n.prev
	n.prev, n.next, n.list = nil, nil, nil
	l.len--
}

func (l *List[T]) mustHold(n *Node[T], op string) {
	if n.list != l {
		panic("lru: " + op + ": node is not in this list")
	}
}

// PushFront inserts n, which must be in no list, at the front of l.
func (l *List[T]) PushFront(n *Node[T]) {
	l.lazyInit()
	l.insertAfter(n, &l.root)
}

// PushBack inserts n, which must be in no list, at the back of l.
func (l *List[T]) PushBack(n *Node[T]) {
	l.lazyInit()
	l.insertAfter(n, l.root.prev)
}

// InsertAfter inserts n, which must be in no list, right after mark (towards
// the back); mark must be in l (UT_LIST_INSERT_AFTER).
func (l *List[T]) InsertAfter(n, mark *Node[T]) {
	l.mustHold(mark, "InsertAfter mark")
	l.insertAfter(n, mark)
}

// Remove takes n out of l; n must be in l.
func (l *List[T]) Remove(n *Node[T]) {
	l.mustHold(n, "Remove")
	l.unlink(n)
}

// MoveToFront moves n, which must be in l, to the front of l.
func (l *List[T]) MoveToFront(n *Node[T]) {
	l.mustHold(n, "MoveToFront")
	if l.root.next == n {
		return
	}
	l.unlink(n)
	l.insertAfter(n, &l.root)
}

// Scan visits nodes from the back (the eviction end) towards the front, at
// most max of them (max <= 0 means Len() at the start), and stops early when
// visit returns true. It returns the number of nodes visited. visit may
// Remove the node it is given, or move it to the front; it must not remove
// any other node.
func (l *List[T]) Scan(max int, visit func(n *Node[T]) bool) int {
	if max <= 0 {
		max = l.len
	}
	count := 0
	for n := l.Back(); n != nil && count < max; {
		prev := n.Prev() // read before visit, which may unlink n
		count++
		if visit(n) {
			break
		}
		n = prev
	}
	return count
}

// Check walks l both ways and reports the first inconsistency: a broken
// link, a node that names another list, or a length that differs from Len.
// It is O(Len) and meant for tests and pool-wide invariant checks.
func (l *List[T]) Check() error {
	if l.root.next == nil {
		if l.len != 0 {
			return fmt.Errorf("lru: list never initialised but Len is %d", l.len)
		}
		return nil
	}
	count := 0
	for n := l.root.next; n != &l.root; n = n.next {
		if n.list != l {
			return fmt.Errorf("lru: node %d from the front does not name this list", count)
		}
		if n.next.prev != n {
			return fmt.Errorf("lru: node %d from the front: next.prev does not point back", count)
		}
		count++
		if count > l.len {
			return fmt.Errorf("lru: more nodes than Len %d going forward", l.len)
		}
	}
	if count != l.len {
		return fmt.Errorf("lru: %d nodes going forward, Len is %d", count, l.len)
	}
	count = 0
	for n := l.root.prev; n != &l.root; n = n.prev {
		count++
		if count > l.len {
			return fmt.Errorf("lru: more nodes than Len %d going backward", l.len)
		}
	}
	if count != l.len {
		return fmt.Errorf("lru: %d nodes going backward, Len is %d", count, l.len)
	}
	return nil
}
