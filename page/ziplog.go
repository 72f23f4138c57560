package page

import (
	"encoding/binary"
	"fmt"
)

// The Log* and Write* methods mirror a change that was just made to the
// uncompressed page into the zip image, as InnoDB's page_zip_* functions do
// after each change to the uncompressed frame. Log entries [page0zip.ic]:
// a write is (heap_no-1)<<1 in one or two bytes, the record's extra bytes
// backwards, then its data without the fields kept uncompressed; a clear is
// (heap_no-1)<<1|1. A 0 byte ends the log. The Write* methods change only
// the uncompressed parts of the image and need no log space.

func (z *Zip) dirGet(i int) int {
	return int(binary.BigEndian.Uint16(z.data[len(z.data)-dirSlotSize*(i+1):]))
}
func (z *Zip) dirPut(i, v int) {
	binary.BigEndian.PutUint16(z.data[len(z.data)-dirSlotSize*(i+1):], uint16(v))
}

// dirRotate moves dense directory entry from to index to, shifting the
// entries between, and stores v there.
func (z *Zip) dirRotate(from, to, v int) {
	d := z.data
	a := func(k int) int { return len(d) - dirSlotSize*(k+1) }
	switch {
	case from > to:
		copy(d[a(from):a(to)], d[a(from-1):a(to)+dirSlotSize])
	case from < to:
		copy(d[a(to)+dirSlotSize:a(from)+dirSlotSize], d[a(to):a(from)])
	}
	z.dirPut(to, v)
}

// copyHeader mirrors the page header [page_zip_write_header].
func (z *Zip) copyHeader(p IndexPage) { copy(z.data[FilPageNo:PageData], p[FilPageNo:PageData]) }

// logEntryLen is the size of a write entry for record r.
func logEntryLen(hn int, k Kind, r recLayout) int {
	n := 1
	if hn-1 >= 64 {
		n = 2
	}
	n += r.origin - RecHeaderSize - r.start
	switch k {
	case ClusteredLeaf:
		n += r.dataLen - TrxRollLen - ExternRefSize*r.nExt
	case SecondaryLeaf:
		n += r.dataLen
	default:
		n += r.dataLen - NodePtrSize
	}
	return n
}

// prevExterns counts the BLOB references of live records with a smaller
// heap number [page_zip_get_n_prev_extern]: the array is in heap order.
func prevExterns(p IndexPage, hn int) int {
	n := 0
	for i, nr := 0, p.NRecs(); i < nr; i++ {
		o := p.Offset(i)
		if p.heapNo(o) < hn {
			n += p.layout(o).nExt
		}
	}
	return n
}

func (z *Zip) mustKnow(p IndexPage) error {
	if !z.known {
		return fmt.Errorf("page %d: zip descriptor unknown; Compress or Decompress first", p.PageNo())
	}
	if z.kind() != p.Kind() {
		return fmt.Errorf("page %d: zip image holds a %v page, the page is a %v", p.PageNo(), z.kind(), p.Kind())
	}
	return nil
}

func (z *Zip) mismatch(p IndexPage, what string) error {
	return fmt.Errorf("%w on page %d: %s (n_heap %d/%d, n_recs %d/%d)",
		ErrMismatch, p.PageNo(), what, p.NHeap(), z.hdr16(hdrNHeap), p.NRecs(), z.hdr16(hdrNRecs))
}

// mustKnowSlot is mustKnow plus a check that slot i exists on both copies.
func (z *Zip) mustKnowSlot(p IndexPage, i int) error {
	if err := z.mustKnow(p); err != nil {
		return err
	}
	if err := p.checkSlot(i); err != nil {
		return err
	}
	if p.NRecs() != z.hdr16(hdrNRecs) || p.NHeap() != z.hdr16(hdrNHeap) || z.dirGet(i)&zipDirMask != p.Offset(i) {
		return z.mismatch(p, fmt.Sprintf("slot %d", i))
	}
	return nil
}

// LogInsert mirrors the record that IndexPage.Insert just put in slot i
// [page_zip_dir_add_slot, page_zip_dir_insert, page_zip_write_rec with
// create]. A record appended to the heap gets a new dense directory slot and
// trailer slot; one that reused a deleted record takes over its slot. Call
// Available(RecordSize, true) before inserting into the page: then the entry
// fits. Otherwise ErrLogFull leaves the image unchanged and the caller must
// recompress the page or restore it from the image.
func (z *Zip) LogInsert(p IndexPage, i int) error {
	if err := z.mustKnow(p); err != nil {
		return err
	}
	if err := p.checkSlot(i); err != nil {
		return err
	}
	k := p.Kind()
	t := k.TrailerLen()
	o := p.Offset(i)
	r := p.layout(o)
	hn := p.heapNo(o)
	oldDense, oldRecs := z.nDense(), z.hdr16(hdrNRecs)
	newHeap := p.NHeap()-2 == oldDense+1
	switch {
	case p.NRecs() != oldRecs+1:
		return z.mismatch(p, "not one insert apart")
	case newHeap && hn != oldDense+2:
		return z.mismatch(p, fmt.Sprintf("new record has heap number %d", hn))
	case !newHeap && p.NHeap()-2 != oldDense:
		return z.mismatch(p, "heap sizes")
	}
	growth := ExternRefSize * r.nExt
	if newHeap {
		growth += dirSlotSize + t
	}
	if z.mEnd+logEntryLen(hn, k, r)+1 > len(z.data)-z.trailerLen()-growth {
		return ErrLogFull
	}
	from := oldDense
	if newHeap {
		z.addSlot(t, oldDense)
	} else {
		from = -1
		for j := oldRecs; j < oldDense; j++ {
			if z.dirGet(j)&zipDirMask == o {
				from = j
				break
			}
		}
		if from < 0 {
			return z.mismatch(p, fmt.Sprintf("reused record %d is not on the image's free list", o))
		}
	}
	z.dirRotate(from, i, o|zipDirOwned)
	z.copyHeader(p)
	z.writeRec(p, i, r, hn, k, true)
	return nil
}

// addSlot grows the dense directory by one slot, moving the trailer down by
// one slot and the BLOB array down by one slot and one trailer entry
// [page_zip_dir_add_slot].
func (z *Zip) addSlot(t, n int) {
	d := z.data
	dir := len(d) - dirSlotSize*n
	trl := dir - t*n
	ext := trl - ExternRefSize*z.nBlobs
	copy(d[ext-dirSlotSize-t:], d[ext:trl])
	copy(d[trl-dirSlotSize:], d[trl:dir])
	clear(d[trl-dirSlotSize-t : trl-dirSlotSize])
}

// LogUpdate mirrors an IndexPage.UpdateInPlace of the record in slot i
// [page_zip_write_rec without create]: a whole copy of the record goes to the
// log, so every in-place update costs log space. Check Available(RecordSize,
// false) first; ErrLogFull leaves the image unchanged.
func (z *Zip) LogUpdate(p IndexPage, i int) error {
	if err := z.mustKnowSlot(p, i); err != nil {
		return err
	}
	k := p.Kind()
	o := p.Offset(i)
	r := p.layout(o)
	hn := p.heapNo(o)
	if z.mEnd+logEntryLen(hn, k, r)+1 > len(z.data)-z.trailerLen() {
		return ErrLogFull
	}
	z.copyHeader(p)
	z.writeRec(p, i, r, hn, k, false)
	return nil
}

// writeRec stores the uncompressed fields of record r and appends it to the
// log [page_zip_write_rec]. The space was checked by the caller.
func (z *Zip) writeRec(p IndexPage, i int, r recLayout, hn int, k Kind, create bool) {
	d := z.data
	o := r.origin
	v := z.dirGet(i) &^ zipDirDeleted
	if p.info(o)&infoDeleted != 0 {
		v |= zipDirDeleted
	}
	z.dirPut(i, v)

	dirStart := len(d) - dirSlotSize*z.nDense()
	switch k {
	case ClusteredLeaf:
		copy(d[dirStart-(hn-1)*TrxRollLen:], p[o+r.keyLen:o+r.keyLen+TrxRollLen])
		if r.nExt > 0 {
			trl := dirStart - TrxRollLen*z.nDense()
			bno := prevExterns(p, hn)
			if create {
				ext := trl - ExternRefSize*z.nBlobs
				top := trl - ExternRefSize*bno
				copy(d[ext-ExternRefSize*r.nExt:], d[ext:top])
				z.nBlobs += r.nExt
			}
			for j := 0; j < r.nExt; j++ {
				ro := r.end() - ExternRefSize*(r.nExt-j)
				copy(d[trl-ExternRefSize*(bno+j+1):], p[ro:ro+ExternRefSize])
			}
		}
	case NodePage:
		copy(d[dirStart-(hn-1)*NodePtrSize:], p[r.end()-NodePtrSize:r.end()])
	}

	m := z.mEnd
	if x := hn - 1; x >= 64 {
		d[m] = byte(0x80 | x>>7)
		m++
	}
	d[m] = byte((hn - 1) << 1)
	m++
	for q := o - RecHeaderSize - 1; q >= r.start; q-- {
		d[m] = p[q]
		m++
	}
	switch k {
	case ClusteredLeaf:
		m += copy(d[m:], p[o:o+r.keyLen])
		m += copy(d[m:], p[o+r.keyLen+TrxRollLen:r.end()-ExternRefSize*r.nExt])
	case SecondaryLeaf:
		m += copy(d[m:], p[o:r.end()])
	default:
		m += copy(d[m:], p[o:r.end()-NodePtrSize])
	}
	z.mEnd = m
}

// LogDelete mirrors an IndexPage.Delete of the record that was in slot i and
// is now the head of the page's free list [page_zip_dir_delete,
// page_zip_clear_rec]: its directory entry moves to the free part, its BLOB
// references leave the array, and when the log has room for a 1..2-byte
// clear entry its data is zeroed on both copies. Deleting never fails for
// lack of space.
func (z *Zip) LogDelete(p IndexPage, i int) error {
	if err := z.mustKnow(p); err != nil {
		return err
	}
	k := p.Kind()
	o := p.FreeHead()
	oldRecs := z.hdr16(hdrNRecs)
	if o == 0 || p.NHeap() != z.hdr16(hdrNHeap) || p.NRecs() != oldRecs-1 || i < 0 || i >= oldRecs || z.dirGet(i)&zipDirMask != o {
		return z.mismatch(p, fmt.Sprintf("delete of slot %d", i))
	}
	r := p.layout(o)
	hn := p.heapNo(o)
	d := z.data
	z.dirRotate(i, oldRecs-1, o)
	nDense := z.nDense()
	dirStart := len(d) - dirSlotSize*nDense
	if k == ClusteredLeaf && r.nExt > 0 {
		trl := dirStart - TrxRollLen*nDense
		ext := trl - ExternRefSize*z.nBlobs
		top := trl - ExternRefSize*prevExterns(p, hn)
		n := ExternRefSize * r.nExt
		copy(d[ext+n:top], d[ext:top-n])
		clear(d[ext : ext+n])
		z.nBlobs -= r.nExt
	}
	z.copyHeader(p)
	// The uncompressed fields are cleared whether or not the log has room,
	// as IndexPage.Delete cleared them on the page.
	switch k {
	case ClusteredLeaf:
		clear(d[dirStart-(hn-1)*TrxRollLen : dirStart-(hn-2)*TrxRollLen])
	case NodePage:
		clear(d[dirStart-(hn-1)*NodePtrSize : dirStart-(hn-2)*NodePtrSize])
	}

	entry := 1
	if hn-1 >= 64 {
		entry = 2
	}
	if z.mEnd+entry+z.trailerLen() >= len(d) {
		return nil // no room to log the clearing; the data stays
	}
	clear(p[o:r.end()])
	m := z.mEnd
	if x := hn - 1; x >= 64 {
		d[m] = byte(0x80 | x>>7)
		m++
	}
	d[m] = byte((hn-1)<<1 | 1)
	z.mEnd = m + 1
	return nil
}

// WriteDeleteMark mirrors IndexPage.SetDeleteMark on slot i
// [page_zip_rec_set_deleted].
func (z *Zip) WriteDeleteMark(p IndexPage, i int) error {
	if err := z.mustKnowSlot(p, i); err != nil {
		return err
	}
	o := p.Offset(i)
	v := z.dirGet(i)
	if p.info(o)&infoDeleted != 0 {
		v |= zipDirDeleted
	} else {
		v &^= zipDirDeleted
	}
	z.dirPut(i, v)
	return nil
}

// WriteSys mirrors IndexPage.SetSys on slot i
// [page_zip_write_trx_id_and_roll_ptr].
func (z *Zip) WriteSys(p IndexPage, i int) error {
	if err := z.mustKnowSlot(p, i); err != nil {
		return err
	}
	if p.Kind() != ClusteredLeaf {
		return fmt.Errorf("%w: Sys is on clustered leaves only", ErrRecord)
	}
	hn := p.HeapNo(i)
	dirStart := len(z.data) - dirSlotSize*z.nDense()
	copy(z.data[dirStart-(hn-1)*TrxRollLen:], p.Sys(i))
	return nil
}

// WriteChild mirrors IndexPage.SetChild on slot i [page_zip_write_node_ptr].
func (z *Zip) WriteChild(p IndexPage, i int) error {
	if err := z.mustKnowSlot(p, i); err != nil {
		return err
	}
	if p.Kind() != NodePage {
		return fmt.Errorf("%w: only node pointers have a child page number", ErrRecord)
	}
	hn := p.HeapNo(i)
	dirStart := len(z.data) - dirSlotSize*z.nDense()
	binary.BigEndian.PutUint32(z.data[dirStart-(hn-1)*NodePtrSize:], p.Child(i))
	return nil
}

// WriteExtRef mirrors IndexPage.SetExtRef of reference j in slot i
// [page_zip_write_blob_ptr].
func (z *Zip) WriteExtRef(p IndexPage, i, j int) error {
	if err := z.mustKnowSlot(p, i); err != nil {
		return err
	}
	if j < 0 || j >= p.NExt(i) {
		return fmt.Errorf("%w: reference %d of %d", ErrRecord, j, p.NExt(i))
	}
	hn := p.HeapNo(i)
	trl := len(z.data) - (dirSlotSize+TrxRollLen)*z.nDense()
	bno := prevExterns(p, hn) + j
	copy(z.data[trl-ExternRefSize*(bno+1):], p.ExtRef(i, j))
	return nil
}

// WriteHeader mirrors changes to the page header, such as PAGE_MAX_TRX_ID,
// the LSN or the prev/next links [page_zip_write_header].
func (z *Zip) WriteHeader(p IndexPage) { z.copyHeader(p) }

// Reorganize reorganizes p and recompresses it [page_zip_reorganize]. On
// failure it puts p back as it was and returns ErrDoesNotFit; the image is
// unchanged. scratch must hold at least len(p) bytes.
func (z *Zip) Reorganize(p IndexPage, env Env, scratch []byte) error {
	if err := p.Reorganize(scratch); err != nil {
		return err
	}
	if err := z.Compress(p, env); err != nil {
		copy(p, scratch[:len(p)])
		return err
	}
	return nil
}
