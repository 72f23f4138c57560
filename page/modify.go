package page

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
)

// ErrNoSpace means a record does not fit in the page's free space or in the
// first deleted record; a reorganization may make room (compare
// MaxInsertSizeAfterReorganize), otherwise the page must split.
var ErrNoSpace = errors.New("page: not enough space for the record")

// ErrShapeChanged means an in-place update would change the record's size or
// key; InnoDB then deletes and reinserts the record instead.
var ErrShapeChanged = errors.New("page: update changes the record's size or key")

// ErrSlot reports a directory slot outside the page's records.
var ErrSlot = errors.New("page: no such directory slot")

func (p IndexPage) checkSlot(i int) error {
	if i < 0 || i >= p.NRecs() {
		return fmt.Errorf("%w: slot %d of page %d, which has %d records", ErrSlot, i, p.PageNo(), p.NRecs())
	}
	return nil
}

// maxHeapNo bounds heap numbers, which take 13 bits in the record header.
const maxHeapNo = 1<<13 - 1

// Insert inserts r so that it becomes directory slot i [page_cur_insert_rec_low].
// The space of the first deleted record is reused when the new record fits
// inside it without moving the record origin (InnoDB's rule for compressed
// pages, applied to every page here so that one page layout serves both);
// otherwise the record is appended at the heap top. It returns the record
// origin, or ErrNoSpace leaving the page unchanged. The caller keeps keys in
// order: slot i must come from Search.
func (p IndexPage) Insert(i int, r Record) (int, error) {
	k := p.Kind()
	d, err := checkRecord(k, &r)
	if err != nil {
		return 0, err
	}
	n := p.NRecs()
	if i < 0 || i > n {
		return 0, fmt.Errorf("%w: insert at slot %d of page %d, which has %d records", ErrSlot, i, p.PageNo(), n)
	}
	ex := extraLen(k, d, len(r.Key))
	size := ex + RecHeaderSize + d
	var origin, heapNo int
	if f := p.FreeHead(); f != 0 && p.dirStart()-dirSlotSize >= p.HeapTop() {
		fr := p.layout(f)
		if ex <= f-RecHeaderSize-fr.start && d <= fr.dataLen {
			origin, heapNo = f, p.heapNo(f)
			p.set16(hdrFree, p.u16(f-2))
			p.set16(hdrGarbage, p.Garbage()-size)
		}
	}
	if origin == 0 {
		top := p.HeapTop()
		if size+dirSlotSize > p.dirStart()-top {
			return 0, ErrNoSpace
		}
		if p.NHeap() >= maxHeapNo {
			return 0, ErrNoSpace
		}
		origin, heapNo = top+ex+RecHeaderSize, p.NHeap()
		p.set16(hdrHeapTop, top+size)
		p.set16(hdrNHeap, heapNo+1)
	}
	p.writeRecord(origin, heapNo, k, d, &r)

	// Open directory slot i: slots i..n-1 move one slot down.
	lo := p.slotPos(n - 1)
	if i < n {
		copy(p[lo-dirSlotSize:], p[lo:p.slotPos(i)+dirSlotSize])
	}
	p.put16(p.slotPos(i), origin)
	n++
	p.set16(hdrNRecs, n)
	p.set16(hdrNDirSlots, n)

	prev, next := p.neighbours(i, n)
	p.setNext(prev, origin)
	p.setNext(origin, next)
	p.noteInsert(prev, origin, next)
	return origin, nil
}

// neighbours returns the origins of the records before and after slot i of
// n, infimum and supremum at the ends.
func (p IndexPage) neighbours(i, n int) (prev, next int) {
	prev, next = Infimum, Supremum
	if i > 0 {
		prev = p.Offset(i - 1)
	}
	if i+1 < n {
		next = p.Offset(i + 1)
	}
	return prev, next
}

// noteInsert maintains PAGE_LAST_INSERT, PAGE_DIRECTION and PAGE_N_DIRECTION
// as page_cur_insert_rec_low does; splits use them to detect sequential
// inserts.
func (p IndexPage) noteInsert(prev, origin, next int) {
	last := p.LastInsert()
	dir, nd := p.Direction()
	switch {
	case last == 0:
		dir, nd = DirNoDirection, 0
	case last == prev && dir != DirLeft:
		dir, nd = DirRight, nd+1
	case next == last && dir != DirRight:
		dir, nd = DirLeft, nd+1
	default:
		dir, nd = DirNoDirection, 0
	}
	p.set16(hdrDirection, dir)
	p.set16(hdrNDirection, nd)
	p.set16(hdrLastInsert, origin)
}

// writeRecord writes extra bytes, header and data of r at origin.
func (p IndexPage) writeRecord(origin, heapNo int, k Kind, d int, r *Record) {
	pos := putVarBack(p, origin-RecHeaderSize, d)
	if k != NodePage {
		pos = putVarBack(p, pos, len(r.Key))
	}
	if k == ClusteredLeaf {
		p[pos-1] = byte(r.NExt)
	}
	status := statusOrdinary
	if k == NodePage {
		status = statusNodePtr
	}
	p[origin-5] = 1 // n_owned: every record owns its own dense slot
	if r.DeleteMarked {
		p[origin-5] |= infoDeleted
	}
	p.put16(origin-4, heapNo<<3|status)
	o := origin + copy(p[origin:], r.Key)
	switch k {
	case ClusteredLeaf:
		if r.Sys != nil {
			copy(p[o:o+TrxRollLen], r.Sys)
		} else {
			clear(p[o : o+TrxRollLen])
		}
		copy(p[o+TrxRollLen:], r.Value)
	case SecondaryLeaf:
		copy(p[o:], r.Value)
	default:
		binary.BigEndian.PutUint32(p[o:], r.Child)
	}
}

// Delete removes the record in slot i from the directory and the record
// list and puts it at the head of the free list [page_cur_delete_rec,
// page_mem_free]. Its bytes stay in the heap as garbage until a
// reorganization; on a compressed page Zip.LogDelete may clear them. Its
// DB_TRX_ID, DB_ROLL_PTR, child page number and BLOB references are zeroed
// at once, so read the references first if the BLOBs are to be freed. It
// returns the record's origin.
func (p IndexPage) Delete(i int) (int, error) {
	if err := p.checkSlot(i); err != nil {
		return 0, err
	}
	n := p.NRecs()
	origin := p.Offset(i)
	prev, next := p.neighbours(i, n)
	p.setNext(prev, next)

	// Close directory slot i: slots i+1..n-1 move one slot up.
	lo := p.slotPos(n - 1)
	copy(p[lo+dirSlotSize:], p[lo:p.slotPos(i)])
	clear(p[lo : lo+dirSlotSize])
	p.set16(hdrNRecs, n-1)
	p.set16(hdrNDirSlots, n-1)

	// A deleted record keeps no BLOB references, DB_TRX_ID/DB_ROLL_PTR or
	// child page number. The zip image keeps those fields outside its stream
	// and drops or zeroes them for deleted records, so clearing them here
	// keeps the two copies byte-identical even when the space is later
	// reused by a smaller record (InnoDB leaves them, and its
	// page_zip_validate can then fail, as page0zip.cc admits).
	r := p.layout(origin)
	switch p.Kind() {
	case ClusteredLeaf:
		clear(p[r.origin+r.keyLen : r.origin+r.keyLen+TrxRollLen])
		clear(p[r.end()-ExternRefSize*r.nExt : r.end()])
	case NodePage:
		clear(p[r.end()-NodePtrSize : r.end()])
	}
	p[origin-5] = 0 // info bits and n_owned are 0 on the free list
	p.setNext(origin, p.FreeHead())
	p.set16(hdrFree, origin)
	p.set16(hdrGarbage, p.Garbage()+r.size())
	p.set16(hdrLastInsert, 0)
	return origin, nil
}

// UpdateInPlace overwrites the record in slot i with r, delete mark
// included, when r has the same key, data length and external reference
// count [btr_cur_update_in_place]. Otherwise it returns ErrShapeChanged and
// the caller deletes and reinserts.
func (p IndexPage) UpdateInPlace(i int, r Record) error {
	if err := p.checkSlot(i); err != nil {
		return err
	}
	k := p.Kind()
	d, err := checkRecord(k, &r)
	if err != nil {
		return err
	}
	cur := p.layout(p.Offset(i))
	if d != cur.dataLen || r.NExt != cur.nExt || !bytes.Equal(r.Key, p[cur.origin:cur.origin+cur.keyLen]) {
		return ErrShapeChanged
	}
	o := cur.origin + cur.keyLen
	switch k {
	case ClusteredLeaf:
		if r.Sys != nil {
			copy(p[o:o+TrxRollLen], r.Sys)
		}
		copy(p[o+TrxRollLen:], r.Value)
	case SecondaryLeaf:
		copy(p[o:], r.Value)
	default:
		binary.BigEndian.PutUint32(p[o:], r.Child)
	}
	p.setDeleteMark(cur.origin, r.DeleteMarked)
	return nil
}

// Update replaces the record in slot i with r, which must have the same
// key [btr_cur_optimistic_update]: in place when the size is unchanged,
// otherwise by deleting the old record and inserting the new one in the
// same slot. It reports whether the record was rewritten in place. When the
// new record does not fit it returns ErrNoSpace and puts the old record
// back, delete mark and insert-direction fields included, in the space it
// was deleted from. On a compressed page call Delete and Insert yourself so
// that each step can be mirrored into the zip image.
func (p IndexPage) Update(i int, r Record) (inPlace bool, err error) {
	if err := p.checkSlot(i); err != nil {
		return false, err
	}
	if !bytes.Equal(r.Key, p.Key(i)) {
		return false, ErrShapeChanged
	}
	switch err := p.UpdateInPlace(i, r); {
	case err == nil:
		return true, nil
	case !errors.Is(err, ErrShapeChanged):
		return false, err
	}
	bp := recordPool.Get().(*[]byte)
	defer recordPool.Put(bp)
	old := p.copyRecord(i, bp)
	var saved [hdrNRecs - hdrLastInsert]byte
	copy(saved[:], p[PageHeader+hdrLastInsert:])
	if _, err := p.Delete(i); err != nil {
		return false, err
	}
	if _, err := p.Insert(i, r); err != nil {
		if _, rerr := p.Insert(i, old); rerr != nil {
			return false, fmt.Errorf("page %d: restoring the record after a failed update: %w", p.PageNo(), rerr)
		}
		copy(p[PageHeader+hdrLastInsert:], saved[:])
		return false, err
	}
	return false, nil
}

var recordPool = sync.Pool{New: func() any { b := make([]byte, 0, MaxPageSize); return &b }}

// copyRecord copies the record in slot i into *buf and returns it with
// slices into that copy, which stays valid while the page changes.
func (p IndexPage) copyRecord(i int, buf *[]byte) Record {
	r := p.Record(i)
	b := append((*buf)[:0], r.Key...)
	b = append(b, r.Sys...)
	b = append(b, r.Value...)
	*buf = b
	out := Record{Key: b[:len(r.Key)], NExt: r.NExt, Child: r.Child, DeleteMarked: r.DeleteMarked}
	if r.Sys != nil {
		out.Sys = b[len(r.Key) : len(r.Key)+len(r.Sys)]
	}
	if r.Value != nil {
		out.Value = b[len(r.Key)+len(r.Sys):]
	}
	return out
}

// SetDeleteMark sets or clears the delete mark of the record in slot i
// [btr_rec_set_deleted_flag].
func (p IndexPage) SetDeleteMark(i int, on bool) error {
	if err := p.checkSlot(i); err != nil {
		return err
	}
	p.setDeleteMark(p.Offset(i), on)
	return nil
}

func (p IndexPage) setDeleteMark(origin int, on bool) {
	if on {
		p[origin-5] |= infoDeleted
	} else {
		p[origin-5] &^= infoDeleted
	}
}

// SetSys overwrites DB_TRX_ID and DB_ROLL_PTR of the record in slot i of a
// clustered leaf [row_upd_rec_sys_fields].
func (p IndexPage) SetSys(i int, sys []byte) error {
	if err := p.checkSlot(i); err != nil {
		return err
	}
	if p.Kind() != ClusteredLeaf || len(sys) != TrxRollLen {
		return fmt.Errorf("%w: Sys is %d bytes on clustered leaves only", ErrRecord, TrxRollLen)
	}
	copy(p.Sys(i), sys)
	return nil
}

// SetChild overwrites the child page number of the node pointer in slot i
// [btr_node_ptr_set_child_page_no].
func (p IndexPage) SetChild(i int, child uint32) error {
	if err := p.checkSlot(i); err != nil {
		return err
	}
	if p.Kind() != NodePage {
		return fmt.Errorf("%w: only node pointers have a child page number", ErrRecord)
	}
	r := p.layout(p.Offset(i))
	binary.BigEndian.PutUint32(p[r.end()-NodePtrSize:], child)
	return nil
}

// SetExtRef overwrites the j-th external reference of the record in slot i
// [btr_cur_set_ownership_of_extern_field and friends].
func (p IndexPage) SetExtRef(i, j int, ref []byte) error {
	if err := p.checkSlot(i); err != nil {
		return err
	}
	if len(ref) != ExternRefSize || j < 0 || j >= p.NExt(i) {
		return fmt.Errorf("%w: reference %d of %d must be %d bytes", ErrRecord, j, p.NExt(i), ExternRefSize)
	}
	copy(p.ExtRef(i, j), ref)
	return nil
}

// Reorganize rewrites the page with its records packed in key order, heap
// numbers renumbered and no garbage [btr_page_reorganize_low, which copies
// the records to a fresh page with page_copy_rec_list_end_no_locks]. On a
// compressed page use Zip.Reorganize, which also recompresses. scratch must hold at least len(p) bytes;
// it receives the old image, which a caller can copy back to undo.
func (p IndexPage) Reorganize(scratch []byte) error {
	if len(scratch) < len(p) {
		return fmt.Errorf("page: reorganize needs %d bytes of scratch, got %d", len(p), len(scratch))
	}
	old := IndexPage(scratch[:len(p)])
	copy(old, p)
	n := old.NRecs()
	last := old.LastInsert()
	clear(p[HeapStart : len(p)-FilTrailerSize])
	p.set16(hdrFree, 0)
	p.set16(hdrGarbage, 0)
	p.set16(hdrLastInsert, 0)
	top := HeapStart
	for i := 0; i < n; i++ {
		o := old.Offset(i)
		r := old.layout(o)
		origin := top + (o - r.start)
		copy(p[top:], old[r.start:r.end()])
		p.put16(origin-4, (2+i)<<3|old.u16(o-4)&7)
		p.put16(p.slotPos(i), origin)
		if o == last {
			p.set16(hdrLastInsert, origin)
		}
		top += r.size()
	}
	p.set16(hdrHeapTop, top)
	p.set16(hdrNHeap, 2+n)
	p.relink()
	return nil
}
