package page

import (
	"bytes"
	"fmt"
)

// Check validates the page's structure and returns every violation it finds
// [page_validate, page_simple_validate_new]: header fields in range, system
// records intact, every directory slot and free-list entry a well-formed
// record inside the heap, heap numbers unique and in address order, records
// not overlapping, the record list following the directory, PAGE_GARBAGE
// matching the heap and free space zeroed. The FIL trailer is not checked:
// it is stamped only when a page goes to storage. When cmp is not nil keys must ascend strictly. Check never panics,
// whatever the bytes, so it also validates images from outside.
func (p IndexPage) Check(cmp func(a, b []byte) int) []error {
	var errs []error
	fail := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("page %d: %s", Fil(p).PageNo(), fmt.Sprintf(format, args...)))
	}
	if err := CheckPageSize(len(p)); err != nil {
		return []error{err}
	}
	if t := Fil(p).Type(); t != TypeIndex {
		fail("type %v is not INDEX", t)
		return errs
	}
	nHeap, nRecs, top := p.NHeap(), p.NRecs(), p.HeapTop()
	if nHeap < 2 || nHeap > maxHeapNo {
		fail("n_heap %d out of range 2..%d", nHeap, maxHeapNo)
		return errs
	}
	if nRecs > nHeap-2 {
		fail("n_recs %d exceeds n_heap-2 = %d", nRecs, nHeap-2)
		return errs
	}
	if s := p.get16(hdrNDirSlots); s != nRecs {
		fail("n_dir_slots %d differs from n_recs %d", s, nRecs)
	}
	dirLo := len(p) - FilTrailerSize - dirSlotSize*nRecs
	if top < HeapStart || top > dirLo {
		fail("heap top %d outside %d..%d", top, HeapStart, dirLo)
		return errs
	}
	if d := p.get16(hdrDirection); d > maxDirection {
		fail("PAGE_DIRECTION %d out of range", d)
	}
	if p[Infimum-5] != 1 || p.u16(Infimum-4) != statusInfimum || !bytes.Equal(p[Infimum:Infimum+8], infimumData[:]) {
		fail("infimum record damaged")
	}
	if p[Supremum-5] != 1 || p.u16(Supremum-4) != 1<<3|statusSupremum || p.u16(Supremum-2) != 0 || !bytes.Equal(p[Supremum:Supremum+8], supremumData[:]) {
		fail("supremum record damaged")
	}

	k := p.Kind()
	status := statusOrdinary
	if k == NodePage {
		status = statusNodePtr
	}
	byHeap := make([]int, nHeap)
	spans := make([]recLayout, nHeap)
	// rec validates the record at origin o and files it under its heap number.
	rec := func(o int, what string) (recLayout, bool) {
		if o < HeapStart+RecHeaderSize || o >= top {
			fail("%s at %d is outside the heap", what, o)
			return recLayout{}, false
		}
		r, ok := p.layoutChecked(o, k, HeapStart)
		if !ok || r.end() > top {
			fail("%s at %d has lengths that do not fit the heap or the %v format", what, o, k)
			return r, false
		}
		h, st := p.heapNo(o), p.u16(o-4)&7
		if st != status {
			fail("%s at %d has status %d, want %d", what, o, st, status)
		}
		if h < 2 || h >= nHeap {
			fail("%s at %d has heap number %d outside 2..%d", what, o, h, nHeap-1)
			return r, false
		}
		if byHeap[h] != 0 {
			fail("%s at %d shares heap number %d with the record at %d", what, o, h, byHeap[h])
			return r, false
		}
		byHeap[h], spans[h] = o, r
		return r, true
	}

	live := 0
	next := p.u16(Infimum - 2)
	var prevKey []byte
	for i := 0; i < nRecs; i++ {
		o := p.Offset(i)
		if next != o {
			fail("record list reaches %d where directory slot %d holds %d", next, i, o)
		}
		r, ok := rec(o, fmt.Sprintf("slot %d", i))
		if !ok {
			next = 0
			continue
		}
		next = p.u16(o - 2)
		live += r.size()
		if info := p[o-5]; info&^infoDeleted != 1 {
			fail("slot %d: info byte %#x, want n_owned 1 and no flags but delete-marked", i, info)
		}
		key := p[o : o+r.keyLen]
		if cmp != nil && prevKey != nil && cmp(prevKey, key) >= 0 {
			fail("slot %d: key is not greater than the key of slot %d", i, i-1)
		}
		prevKey = key
	}
	if next != Supremum && nRecs > 0 {
		fail("record list ends at %d, not at the supremum", next)
	} else if nRecs == 0 && next != Supremum {
		fail("infimum of an empty page points at %d", next)
	}
	if li := p.LastInsert(); li != 0 {
		found := false
		for i := 0; i < nRecs && !found; i++ {
			found = p.Offset(i) == li
		}
		if !found {
			fail("PAGE_LAST_INSERT %d is not a live record", li)
		}
	}

	steps := 0
	for f := p.FreeHead(); f != 0; steps++ {
		if steps >= nHeap {
			fail("free list does not end")
			break
		}
		r, ok := rec(f, "free record")
		if !ok {
			break
		}
		if p[f-5] != 0 {
			fail("free record at %d has info byte %#x, want 0", f, p[f-5])
		}
		switch {
		case k == ClusteredLeaf && !isZero(p[r.end()-ExternRefSize*r.nExt:r.end()]):
			fail("free record at %d keeps BLOB references", f)
		case k == ClusteredLeaf && !isZero(p[f+r.keyLen:f+r.keyLen+TrxRollLen]):
			fail("free record at %d keeps DB_TRX_ID/DB_ROLL_PTR", f)
		case k == NodePage && !isZero(p[r.end()-NodePtrSize:r.end()]):
			fail("free record at %d keeps a child page number", f)
		}
		f = p.u16(f - 2)
	}

	prevEnd := HeapStart
	for h := 2; h < nHeap; h++ {
		o := byHeap[h]
		if o == 0 {
			fail("heap number %d is neither in the directory nor on the free list", h)
			continue
		}
		if spans[h].start < prevEnd {
			fail("record at %d (heap number %d) overlaps the record before it in heap order", o, h)
		}
		prevEnd = spans[h].end()
	}
	if g := p.Garbage(); top-HeapStart-live != g {
		fail("PAGE_GARBAGE %d, but the heap holds %d bytes outside live records", g, top-HeapStart-live)
	}
	if !isZero(p[top:dirLo]) {
		fail("free space between heap top %d and directory %d is not zero", top, dirLo)
	}
	return errs
}
