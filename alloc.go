package zipsim

import (
	"errors"
	"fmt"
	"slices"

	"github.com/zipsim/zipsim/internal/latch"
	"github.com/zipsim/zipsim/page"
)

// allocator hands out the pages of one tablespace to its indexes, the
// btree.Allocator they share [fsp0fsp.cc: fseg_alloc_free_page_general,
// fseg_free_page]. It keeps InnoDB's two sources of pages: the free list
// of pages given back (FSP_FREE, reused last in, first out) and the limit
// below which pages have been handed out (FSP_FREE_LIMIT). Page 0 is the
// tablespace header, storage's, so the limit starts at 1. Both go to the
// catalog at Close.
//
// zipsim allocates single pages where InnoDB gives each index segment
// fragment pages first and whole 64-page extents after, so the pages of
// two indexes loaded together interleave on disk.
type allocator struct {
	// mu is the space latch that fsp0fsp.cc takes (mtr_x_lock_space)
	// around every allocation.
	mu   latch.Mutex
	next uint32
	free []uint32
	// badFrees counts pages given back that were never handed out; Check
	// reports them, since FreePage cannot return an error.
	badFrees int
}

// errSpaceFull means a tablespace has handed out every page number.
var errSpaceFull = errors.New("zipsim: tablespace is full: every page number below FIL_NULL is in use")

func newAllocator(r *latch.Registry, space string, next uint32, free []uint32) *allocator {
	a := &allocator{next: next, free: free}
	a.mu.Init(r, "fil_space_latch#"+space)
	return a
}

// AllocPage returns the most recently freed page, or the next page never
// used.
func (a *allocator) AllocPage() (uint32, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if n := len(a.free); n > 0 {
		p := a.free[n-1]
		a.free = a.free[:n-1]
		return p, nil
	}
	if a.next >= page.FilNull {
		return 0, errSpaceFull
	}
	a.next++
	return a.next - 1, nil
}

// FreePage puts a page on the free list.
func (a *allocator) FreePage(pageNo uint32) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if pageNo == 0 || pageNo >= a.next {
		a.badFrees++
		return
	}
	a.free = append(a.free, pageNo)
}

// state returns the limit and a copy of the free list.
func (a *allocator) state() (next uint32, free []uint32) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.next, slices.Clone(a.free)
}

// giveBack frees every page handed out since state returned next and
// free and not given back yet, for a statement that fails after its
// index builds took pages (AddIndex, which has the space to itself).
func (a *allocator) giveBack(next uint32, free []uint32) {
	a.mu.Lock()
	defer a.mu.Unlock()
	isFree := make(map[uint32]bool, len(a.free))
	for _, p := range a.free {
		isFree[p] = true
	}
	for _, p := range free {
		if !isFree[p] {
			a.free = append(a.free, p)
			isFree[p] = true
		}
	}
	for p := next; p < a.next; p++ {
		if !isFree[p] {
			a.free = append(a.free, p)
		}
	}
}

// check returns what is wrong with the allocator's state: pages freed
// twice or never handed out, and pages neither free nor counted as used
// (the pages the indexes and off-page chains hold).
func (a *allocator) check(used int) []error {
	a.mu.Lock()
	next, free, bad := a.next, slices.Clone(a.free), a.badFrees
	a.mu.Unlock()
	var errs []error
	if bad > 0 {
		errs = append(errs, fmt.Errorf("allocator: %d pages given back that were never handed out", bad))
	}
	if err := checkFreeList(next, free); err != nil {
		errs = append(errs, err)
	}
	if got := used + len(free); got != int(next)-1 {
		errs = append(errs, fmt.Errorf("allocator: pages 1..%d were handed out, but the indexes and off-page chains hold %d and %d are free", next-1, used, len(free)))
	}
	return errs
}

// checkNotFree says whether any of pages, which something holds, is on
// the free list.
func (a *allocator) checkNotFree(pages map[uint32]bool) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, no := range a.free {
		if pages[no] {
			return fmt.Errorf("allocator: page %d is on the free list and in an off-page chain", no)
		}
	}
	return nil
}

// checkFreeList says whether free holds distinct pages below next.
func checkFreeList(next uint32, free []uint32) error {
	if next == 0 {
		return fmt.Errorf("allocator: page limit 0; page 0 is the tablespace header, so it starts at 1")
	}
	s := slices.Clone(free)
	slices.Sort(s)
	for i, p := range s {
		if p == 0 || p >= next {
			return fmt.Errorf("allocator: free page %d is outside 1..%d", p, next-1)
		}
		if i > 0 && s[i-1] == p {
			return fmt.Errorf("allocator: page %d is on the free list twice", p)
		}
	}
	return nil
}
