package page

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
	"time"
)

// Decompress rebuilds the uncompressed page in dst (whose length is the
// logical page size) from the zip image [page_zip_decompress]: it inflates
// the stream into the records it holds, replays the modification log over
// them, then restores the uncompressed fields, the record headers, the
// record list and the directory. It counts one UNCOMPRESS_OPS on success.
// A damaged image is a *CorruptError naming the page; dst is then garbage.
// The FIL trailer stays zero: only a write to storage stamps it.
// Decompress is also how a caller undoes a change that did not recompress:
// the image still holds the page as it was.
func (z *Zip) Decompress(dst []byte, env Env) error {
	start := time.Now()
	if err := z.decompress(dst, env); err != nil {
		return err
	}
	env.Stats.RecordUncompress(len(z.data), IndexPage(dst).IndexID(), time.Since(start))
	return nil
}

func (z *Zip) decompress(dst []byte, env Env) error {
	d := z.data
	zs := len(d)
	if zs == 0 {
		return fmt.Errorf("page: Decompress on a Zip without a block")
	}
	if err := CheckPageSize(len(dst)); err != nil {
		return err
	}
	if zs > len(dst) {
		return fmt.Errorf("page: zip size %d exceeds the page size %d", zs, len(dst))
	}
	pageNo := Fil(d).PageNo()
	bad := func(format string, args ...any) error {
		return &CorruptError{PageNo: pageNo, Reason: "zip image: " + fmt.Sprintf(format, args...)}
	}
	if typ := Fil(d).Type(); typ != TypeIndex {
		return bad("type %v is not INDEX", typ)
	}
	k := z.kind()
	t := k.TrailerLen()
	nHeap := z.hdr16(hdrNHeap)
	if nHeap < 2 || nHeap > maxHeapNo {
		return bad("n_heap %d out of range", nHeap)
	}
	nDense := nHeap - 2
	nRecs := z.hdr16(hdrNRecs)
	if nRecs > nDense || z.hdr16(hdrNDirSlots) != nRecs {
		return bad("%d records, %d directory slots, n_heap %d", nRecs, z.hdr16(hdrNDirSlots), nHeap)
	}
	fixed := nDense * (dirSlotSize + t)
	mStart := zipStream + int(binary.BigEndian.Uint16(d[zipStreamLen:]))
	if mStart+1+fixed > zs {
		return bad("a %d-byte stream and the trailer of %d records exceed %d bytes", mStart-zipStream, nDense, zs)
	}
	dirLo := len(dst) - FilTrailerSize - dirSlotSize*nRecs
	heapTop := z.hdr16(hdrHeapTop)
	if heapTop < HeapStart || heapTop > dirLo {
		return bad("heap top %d outside %d..%d", heapTop, HeapStart, dirLo)
	}

	s := getScratch(nDense)
	defer scratchPool.Put(s)
	for i := 0; i < nDense; i++ {
		v := int(binary.BigEndian.Uint16(d[zs-dirSlotSize*(i+1):]))
		o := v & zipDirMask
		if i >= nRecs && v != o {
			return bad("free-list directory entry %d has flags %#x", i, v&^zipDirMask)
		}
		if o < HeapStart+RecHeaderSize || o >= heapTop {
			return bad("directory entry %d points at %d, outside the heap", i, o)
		}
		s.byHeap[i] = uint16(o)
	}
	// Heap numbers follow addresses, so sorting the origins numbers them
	// [page_zip_dir_sort].
	slices.Sort(s.byHeap)
	for i := 1; i < nDense; i++ {
		if s.byHeap[i] == s.byHeap[i-1] {
			return bad("two directory entries point at %d", s.byHeap[i])
		}
	}

	in, err := env.codec().DecompressLimit(s.stream[:0], d[zipStream:mStart], len(dst)-HeapStart)
	if err != nil {
		return bad("stream: %v", err)
	}
	s.stream = in
	clear(dst)
	copy(dst[:PageData], d[:PageData])
	p := IndexPage(dst)

	// Records compressed with the page come from the stream, in heap order.
	// Records created since then are not in it: the stream ends inside the
	// bytes before the first of them, and the log must supply them.
	pos, sp := HeapStart, 0
	exhausted := false
	for h := 0; h < nDense && !exhausted; h++ {
		o := int(s.byHeap[h])
		gap := o - RecHeaderSize - pos
		if gap < 0 {
			return bad("record at %d overlaps the record before it", o)
		}
		if len(in)-sp < gap {
			sp += copy(dst[pos:], in[sp:])
			exhausted = true
			break
		}
		sp += copy(dst[pos:pos+gap], in[sp:])
		r, ok := p.layoutChecked(o, k, pos)
		if !ok || r.end() > dirLo {
			return bad("record at %d has invalid lengths", o)
		}
		var n int
		if n, ok = p.readData(r, k, in[sp:]); !ok {
			return bad("stream ends inside the record at %d", o)
		}
		sp += n
		s.state[h] |= recWritten
		pos = r.end()
	}
	if !exhausted {
		if heapTop-pos != len(in)-sp {
			return bad("stream holds %d bytes after the last record, the heap %d", len(in)-sp, heapTop-pos)
		}
		copy(dst[pos:], in[sp:])
	}

	mEnd, err := z.applyLog(p, s, k, mStart, zs-fixed, heapTop, bad)
	if err != nil {
		return err
	}

	// Every record must now exist, in order, inside the heap.
	prevEnd := HeapStart
	for h := 0; h < nDense; h++ {
		o := int(s.byHeap[h])
		if s.state[h]&recWritten == 0 {
			return bad("record at %d (heap number %d) is neither in the stream nor in the log", o, h+2)
		}
		r, ok := p.layoutChecked(o, k, prevEnd)
		if !ok || r.end() > heapTop {
			return bad("record at %d overlaps its neighbours or the heap top", o)
		}
		prevEnd = r.end()
	}
	heapOf := func(o int) int {
		h, _ := slices.BinarySearch(s.byHeap, uint16(o))
		return h
	}
	liveSize := 0
	for i := 0; i < nRecs; i++ {
		h := heapOf(int(binary.BigEndian.Uint16(d[zs-dirSlotSize*(i+1):])) & zipDirMask)
		s.state[h] |= recLive
		liveSize += p.layout(int(s.byHeap[h])).size()
	}
	if g := z.hdr16(hdrGarbage); heapTop-HeapStart-liveSize != g {
		return bad("PAGE_GARBAGE is %d but the heap holds %d bytes outside live records", g, heapTop-HeapStart-liveSize)
	}

	// Fields kept uncompressed, by heap number; BLOB references only for
	// live records, deleted ones get zeros.
	dirStart := zs - dirSlotSize*nDense
	ext := dirStart - t*nDense
	nBlobs := 0
	for h := 0; h < nDense; h++ {
		o := int(s.byHeap[h])
		r := p.layout(o)
		live := s.state[h]&recLive != 0
		switch k {
		case ClusteredLeaf:
			sys := d[dirStart-(h+1)*TrxRollLen : dirStart-h*TrxRollLen]
			if !live && !isZero(sys) {
				return bad("deleted record at %d keeps DB_TRX_ID/DB_ROLL_PTR in the trailer", o)
			}
			copy(dst[o+r.keyLen:o+r.keyLen+TrxRollLen], sys)
			for j := 0; j < r.nExt; j++ {
				ro := r.end() - ExternRefSize*(r.nExt-j)
				if !live {
					clear(dst[ro : ro+ExternRefSize])
					continue
				}
				ext -= ExternRefSize
				if ext <= mEnd {
					return bad("BLOB references run into the modification log")
				}
				copy(dst[ro:ro+ExternRefSize], d[ext:])
				nBlobs++
			}
		case NodePage:
			child := d[dirStart-(h+1)*NodePtrSize : dirStart-h*NodePtrSize]
			if !live && !isZero(child) {
				return bad("deleted node pointer at %d keeps a child page number in the trailer", o)
			}
			copy(dst[r.end()-NodePtrSize:r.end()], child)
		}
	}

	// Record headers, directory, record list and free list
	// [page_zip_set_extra_bytes, page_zip_dir_decode].
	status := statusOrdinary
	if k == NodePage {
		status = statusNodePtr
	}
	for h := 0; h < nDense; h++ {
		p.put16(int(s.byHeap[h])-4, (h+2)<<3|status)
	}
	for i := 0; i < nRecs; i++ {
		v := int(binary.BigEndian.Uint16(d[zs-dirSlotSize*(i+1):]))
		o := v & zipDirMask
		if v&zipDirOwned == 0 {
			return bad("directory entry %d lacks the owned flag every live record has", i)
		}
		var info byte = 1
		if v&zipDirDeleted != 0 {
			info |= infoDeleted
		}
		dst[o-5] = info
		p.put16(p.slotPos(i), o)
	}
	first, prev := 0, 0
	for i := nRecs; i < nDense; i++ {
		o := int(binary.BigEndian.Uint16(d[zs-dirSlotSize*(i+1):]))
		dst[o-5] = 0
		if prev == 0 {
			first = o
		} else {
			p.setNext(prev, o)
		}
		prev = o
	}
	if prev != 0 {
		p.setNext(prev, 0)
	}
	if f := z.hdr16(hdrFree); f != first {
		return bad("PAGE_FREE is %d but the directory's free list starts at %d", f, first)
	}
	if li := z.hdr16(hdrLastInsert); li != 0 {
		h := heapOf(li)
		if h >= nDense || int(s.byHeap[h]) != li || s.state[h]&recLive == 0 {
			return bad("PAGE_LAST_INSERT %d is not a live record", li)
		}
	}
	if dir := z.hdr16(hdrDirection); dir > maxDirection {
		return bad("PAGE_DIRECTION %d out of range", dir)
	}
	if !isZero(dst[heapTop:dirLo]) {
		return bad("the modification log writes past the heap top %d", heapTop)
	}
	p.writeSystemRecords()
	z.mStart, z.mEnd, z.nBlobs, z.known = mStart, mEnd, nBlobs, true
	return nil
}

// readData copies the compressed part of record r's data from src into the
// page, skipping the fields kept uncompressed, and returns how many bytes it
// used.
func (p IndexPage) readData(r recLayout, k Kind, src []byte) (int, bool) {
	o := r.origin
	switch k {
	case ClusteredLeaf:
		a := r.keyLen
		b := r.dataLen - r.keyLen - TrxRollLen - ExternRefSize*r.nExt
		if len(src) < a+b {
			return 0, false
		}
		copy(p[o:o+a], src)
		copy(p[o+a+TrxRollLen:o+a+TrxRollLen+b], src[a:])
		return a + b, true
	case SecondaryLeaf:
		if len(src) < r.dataLen {
			return 0, false
		}
		return copy(p[o:r.end()], src), true
	}
	n := r.dataLen - NodePtrSize
	if len(src) < n {
		return 0, false
	}
	return copy(p[o:o+n], src), true
}

// applyLog replays the modification log from mStart, never reading at or
// past lend, and returns the offset of its end marker [page_zip_apply_log].
func (z *Zip) applyLog(p IndexPage, s *zipScratch, k Kind, mStart, lend, heapTop int, bad func(string, ...any) error) (int, error) {
	d := z.data
	nHeap := len(s.byHeap) + 2
	lp := mStart
	for {
		if lp >= lend {
			return 0, bad("modification log has no end marker")
		}
		v := int(d[lp])
		lp++
		if v == 0 {
			return lp - 1, nil
		}
		if v&0x80 != 0 {
			if lp >= lend {
				return 0, bad("modification log entry cut short")
			}
			v = (v&0x7f)<<8 | int(d[lp])
			lp++
		}
		hn := v>>1 + 1
		if hn < 2 || hn >= nHeap {
			return 0, bad("modification log names heap number %d of %d", hn, nHeap)
		}
		h := hn - 2
		o := int(s.byHeap[h])
		if v&1 != 0 {
			if s.state[h]&recWritten == 0 {
				return 0, bad("modification log clears record %d before writing it", hn)
			}
			r, ok := p.layoutChecked(o, k, HeapStart)
			if !ok || r.end() > heapTop {
				return 0, bad("modification log clears a damaged record at %d", o)
			}
			clear(p[o:r.end()])
			continue
		}
		// The extra bytes come backwards, nearest the header first.
		q := o - RecHeaderSize
		fields := 1
		if k != NodePage {
			fields = 2
		}
		for f := 0; f < fields; f++ {
			if lp >= lend || q <= HeapStart {
				return 0, bad("modification log entry for %d cut short", o)
			}
			c := d[lp]
			lp++
			q--
			p[q] = c
			if c >= 0x80 {
				if lp >= lend || q <= HeapStart {
					return 0, bad("modification log entry for %d cut short", o)
				}
				q--
				p[q] = d[lp]
				lp++
			}
		}
		if k == ClusteredLeaf {
			if lp >= lend || q <= HeapStart {
				return 0, bad("modification log entry for %d cut short", o)
			}
			q--
			p[q] = d[lp]
			lp++
		}
		r, ok := p.layoutChecked(o, k, q)
		if !ok || r.start != q || r.end() > heapTop {
			return 0, bad("modification log writes a record at %d with invalid lengths", o)
		}
		if lp >= lend {
			return 0, bad("modification log entry for %d cut short", o)
		}
		n, ok := p.readData(r, k, d[lp:lend-1])
		if !ok {
			return 0, bad("modification log entry for %d runs past the log", o)
		}
		lp += n
		s.state[h] |= recWritten
	}
}

// Validate decompresses the image into scratch and compares it with p byte
// for byte, leaving out the checksum field and the FIL trailer, which only
// a write to storage stamps [page_zip_validate]. It does not count in the
// CMP statistics. scratch must be at least len(p) bytes.
func (z *Zip) Validate(p IndexPage, env Env, scratch []byte) error {
	if len(scratch) < len(p) {
		return fmt.Errorf("page: Validate needs %d bytes of scratch", len(p))
	}
	tmp := Zip{data: z.data}
	env.Stats = nil
	if err := tmp.decompress(scratch[:len(p)], env); err != nil {
		return err
	}
	if z.known && (tmp.mStart != z.mStart || tmp.mEnd != z.mEnd || tmp.nBlobs != z.nBlobs) {
		return &CorruptError{PageNo: p.PageNo(), Reason: fmt.Sprintf("descriptor m_start/m_end/n_blobs %d/%d/%d, image says %d/%d/%d",
			z.mStart, z.mEnd, z.nBlobs, tmp.mStart, tmp.mEnd, tmp.nBlobs)}
	}
	end := len(p) - FilTrailerSize
	if i := mismatch(scratch[FilPageNo:end], p[FilPageNo:end]); i >= 0 {
		return &CorruptError{PageNo: p.PageNo(), Reason: fmt.Sprintf("decompressed page differs from the page at byte %d", i+FilPageNo)}
	}
	return nil
}

func mismatch(a, b []byte) int {
	if bytes.Equal(a, b) {
		return -1
	}
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return len(a)
}
