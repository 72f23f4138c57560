package page

import (
	"encoding/binary"
	"fmt"
)

// Index page layout. Offsets of the index header are relative to
// PageHeader, as InnoDB's PAGE_* constants are.
const (
	PageHeader = FilHeaderSize // PAGE_HEADER

	hdrNDirSlots  = 0  // PAGE_N_DIR_SLOTS: directory slots (= records, the directory is dense)
	hdrHeapTop    = 2  // PAGE_HEAP_TOP: end of the record heap
	hdrNHeap      = 4  // PAGE_N_HEAP: records in the heap, infimum and supremum included
	hdrFree       = 6  // PAGE_FREE: first record of the free list, 0 if none
	hdrGarbage    = 8  // PAGE_GARBAGE: bytes in deleted records and reuse slack
	hdrLastInsert = 10 // PAGE_LAST_INSERT: last inserted record, 0 after a delete
	hdrDirection  = 12 // PAGE_DIRECTION
	hdrNDirection = 14 // PAGE_N_DIRECTION: consecutive inserts in that direction
	hdrNRecs      = 16 // PAGE_N_RECS: user records in the directory
	hdrMaxTrxID   = 18 // PAGE_MAX_TRX_ID
	hdrLevel      = 26 // PAGE_LEVEL: 0 for leaves
	hdrIndexID    = 28 // PAGE_INDEX_ID
	hdrFlags      = 36 // zipsim: replaces PAGE_BTR_SEG_LEAF; bit 0 = clustered index

	flagClustered = 1

	// PageData is PAGE_DATA: header end, where the zip image's stream begins.
	PageData = PageHeader + 56
	// Infimum and Supremum are the origins of the two system records
	// [PAGE_NEW_INFIMUM, PAGE_NEW_SUPREMUM].
	Infimum   = PageData + RecHeaderSize    // 99
	Supremum  = Infimum + 8 + RecHeaderSize // 112
	HeapStart = Supremum + 8                // 120: PAGE_NEW_SUPREMUM_END = PAGE_ZIP_START

	dirSlotSize = 2
)

// Insert directions [PAGE_LEFT .. PAGE_NO_DIRECTION], used by the B-tree's
// split-point heuristics for sequential inserts.
const (
	DirLeft        = 1
	DirRight       = 2
	DirNoDirection = 5

	maxDirection = DirNoDirection
)

// IndexPage is a view of an uncompressed B-tree page held in a caller-owned
// buffer whose length is the logical page size. Like InnoDB's compact format
// it has a FIL header, an index header, infimum and supremum records, a heap
// of records with 5-byte headers linked in key order, a free list of deleted
// records, and a directory at the end; unlike InnoDB's sparse directory (one
// slot per 4..8 records) the directory is dense, one 2-byte slot per record
// in key order, so a binary search lands on the record directly.
//
// Methods trust the buffer: use Check on images from outside (storage, fuzz)
// before reading them. A page's methods are not safe for concurrent use; the
// buffer pool's page latch serializes access.
type IndexPage []byte

// IndexOptions describe a new index page.
type IndexOptions struct {
	PageNo    uint32
	SpaceID   uint32
	IndexID   uint64
	Level     int    // 0 for leaves
	Clustered bool   // records carry DB_TRX_ID/DB_ROLL_PTR and may have BLOB references
	Prev      uint32 // 0 means none (FIL_NULL is stored)
	Next      uint32 // 0 means none
}

var infimumData = [8]byte{'i', 'n', 'f', 'i', 'm', 'u', 'm', 0}
var supremumData = [8]byte{'s', 'u', 'p', 'r', 'e', 'm', 'u', 'm'}

// CreateIndex formats buf as an empty index page [page_create]. len(buf) must
// be a supported page size.
func CreateIndex(buf []byte, o IndexOptions) (IndexPage, error) {
	if err := CheckPageSize(len(buf)); err != nil {
		return nil, err
	}
	if o.Level < 0 || o.Level > 0xffff {
		return nil, fmt.Errorf("page: level %d out of range 0..65535", o.Level)
	}
	clear(buf)
	p := IndexPage(buf)
	f := Fil(buf)
	f.SetPageNo(o.PageNo)
	f.SetSpaceID(o.SpaceID)
	f.SetType(TypeIndex)
	f.SetPrev(orNull(o.Prev))
	f.SetNext(orNull(o.Next))
	p.set16(hdrHeapTop, HeapStart)
	p.set16(hdrNHeap, 2)
	p.set16(hdrDirection, DirNoDirection)
	p.set16(hdrLevel, o.Level)
	binary.BigEndian.PutUint64(buf[PageHeader+hdrIndexID:], o.IndexID)
	if o.Clustered {
		buf[PageHeader+hdrFlags] = flagClustered
	}
	p.writeSystemRecords()
	return p, nil
}

func orNull(n uint32) uint32 {
	if n == 0 {
		return FilNull
	}
	return n
}

func (p IndexPage) writeSystemRecords() {
	p[Infimum-5] = 0x01 // n_owned 1
	p.set16(Infimum-4-PageHeader, 0<<3|statusInfimum)
	copy(p[Infimum:], infimumData[:])
	p[Supremum-5] = 0x01
	p.set16(Supremum-4-PageHeader, 1<<3|statusSupremum)
	p.set16(Supremum-2-PageHeader, 0)
	copy(p[Supremum:], supremumData[:])
	p.relink()
}

// get16/set16 address the index header (offsets relative to PageHeader).
func (p IndexPage) get16(off int) int { return int(binary.BigEndian.Uint16(p[PageHeader+off:])) }
func (p IndexPage) set16(off, v int)  { binary.BigEndian.PutUint16(p[PageHeader+off:], uint16(v)) }

// u16/put16 address the page directly.
func (p IndexPage) u16(off int) int       { return int(binary.BigEndian.Uint16(p[off:])) }
func (p IndexPage) put16(off, v int)      { binary.BigEndian.PutUint16(p[off:], uint16(v)) }
func (p IndexPage) setNext(rec, next int) { p.put16(rec-2, next) }

// Fil returns the page's FIL header.
func (p IndexPage) Fil() Fil { return Fil(p) }

// PageNo returns the page number.
func (p IndexPage) PageNo() uint32 { return Fil(p).PageNo() }

// Level returns PAGE_LEVEL, 0 for leaves.
func (p IndexPage) Level() int { return p.get16(hdrLevel) }

// IsLeaf reports whether the page is a leaf.
func (p IndexPage) IsLeaf() bool { return p.Level() == 0 }

// IsClustered reports whether the page belongs to a clustered index.
func (p IndexPage) IsClustered() bool { return p[PageHeader+hdrFlags]&flagClustered != 0 }

// Kind returns the page's record kind.
func (p IndexPage) Kind() Kind {
	switch {
	case !p.IsLeaf():
		return NodePage
	case p.IsClustered():
		return ClusteredLeaf
	}
	return SecondaryLeaf
}

// IndexID returns PAGE_INDEX_ID.
func (p IndexPage) IndexID() uint64 { return binary.BigEndian.Uint64(p[PageHeader+hdrIndexID:]) }

// MaxTrxID returns PAGE_MAX_TRX_ID.
func (p IndexPage) MaxTrxID() uint64 { return binary.BigEndian.Uint64(p[PageHeader+hdrMaxTrxID:]) }

// SetMaxTrxID sets PAGE_MAX_TRX_ID.
func (p IndexPage) SetMaxTrxID(id uint64) {
	binary.BigEndian.PutUint64(p[PageHeader+hdrMaxTrxID:], id)
}

// Empty removes every record, deleted ones included, and sets the level,
// keeping the FIL header, the index id and flags [btr_page_empty]. The
// B-tree empties the root this way when it raises the tree.
func (p IndexPage) Empty(level int) error {
	if level < 0 || level > 0xffff {
		return fmt.Errorf("page: level %d out of range 0..65535", level)
	}
	clear(p[PageHeader : PageHeader+hdrMaxTrxID])
	clear(p[HeapStart : len(p)-FilTrailerSize])
	p.set16(hdrHeapTop, HeapStart)
	p.set16(hdrNHeap, 2)
	p.set16(hdrDirection, DirNoDirection)
	p.set16(hdrLevel, level)
	p.writeSystemRecords()
	return nil
}

// SetLevel sets PAGE_LEVEL. Only an empty page may change level (the B-tree
// raises the root this way); see also Empty.
func (p IndexPage) SetLevel(level int) error {
	if p.NRecs() != 0 || p.NHeap() != 2 {
		return fmt.Errorf("page %d: level can change only on an empty page", p.PageNo())
	}
	if level < 0 || level > 0xffff {
		return fmt.Errorf("page: level %d out of range 0..65535", level)
	}
	p.set16(hdrLevel, level)
	return nil
}

// NRecs returns PAGE_N_RECS, the user records in the directory.
func (p IndexPage) NRecs() int { return p.get16(hdrNRecs) }

// NHeap returns PAGE_N_HEAP: user records, deleted ones included, plus 2.
func (p IndexPage) NHeap() int { return p.get16(hdrNHeap) }

// HeapTop returns PAGE_HEAP_TOP.
func (p IndexPage) HeapTop() int { return p.get16(hdrHeapTop) }

// FreeHead returns PAGE_FREE, the origin of the first deleted record, or 0.
func (p IndexPage) FreeHead() int { return p.get16(hdrFree) }

// Garbage returns PAGE_GARBAGE: bytes of deleted records plus the slack left
// when a deleted record's space was reused by a smaller one.
func (p IndexPage) Garbage() int { return p.get16(hdrGarbage) }

// Direction returns PAGE_DIRECTION and PAGE_N_DIRECTION.
func (p IndexPage) Direction() (dir, n int) { return p.get16(hdrDirection), p.get16(hdrNDirection) }

// LastInsert returns PAGE_LAST_INSERT, the origin of the last inserted
// record, or 0.
func (p IndexPage) LastInsert() int { return p.get16(hdrLastInsert) }

// DataSize returns the bytes of live records [page_get_data_size]. The
// adaptive padding rule compares it with the optimal page size.
func (p IndexPage) DataSize() int { return p.HeapTop() - HeapStart - p.Garbage() }

// dirStart is the lowest byte of the directory.
func (p IndexPage) dirStart() int { return len(p) - FilTrailerSize - dirSlotSize*p.NRecs() }

func (p IndexPage) slotPos(i int) int { return len(p) - FilTrailerSize - dirSlotSize*(i+1) }

// Offset returns the origin of the record in directory slot i.
func (p IndexPage) Offset(i int) int { return p.u16(p.slotPos(i)) }

// FreeSpaceOfEmpty returns page_get_free_space_of_empty for a page size: the
// space for records on an empty page, counted with InnoDB's two-slot sparse
// directory so that rules derived from it (a record must be smaller than
// half of it) keep InnoDB's values, 8126 bytes for 16K pages.
func FreeSpaceOfEmpty(pageSize int) int {
	return pageSize - HeapStart - FilTrailerSize - 2*dirSlotSize
}

// MaxInsertSize returns the largest record that fits at the heap top now,
// its directory slot accounted for.
func (p IndexPage) MaxInsertSize() int {
	n := p.dirStart() - p.HeapTop() - dirSlotSize
	if n < 0 {
		return 0
	}
	return n
}

// MaxInsertSizeAfterReorganize returns MaxInsertSize plus the garbage a
// reorganization would reclaim [page_get_max_insert_size_after_reorganize].
func (p IndexPage) MaxInsertSizeAfterReorganize() int {
	return p.MaxInsertSize() + p.Garbage()
}

// recLayout is a parsed record. start is where its extra bytes begin.
type recLayout struct {
	origin, start, dataLen, keyLen, nExt int
}

func (r recLayout) end() int  { return r.origin + r.dataLen }
func (r recLayout) size() int { return r.end() - r.start }

// layout parses the record at origin on a trusted page.
func (p IndexPage) layout(origin int) recLayout {
	r, _ := p.layoutChecked(origin, p.Kind(), HeapStart)
	return r
}

// layoutChecked parses the record at origin without reading below lo or past
// the page, and checks the lengths against the page kind.
func (p IndexPage) layoutChecked(origin int, k Kind, lo int) (recLayout, bool) {
	r := recLayout{origin: origin}
	if origin-RecHeaderSize < lo || origin > len(p) {
		return r, false
	}
	var ok bool
	pos := origin - RecHeaderSize
	if r.dataLen, pos, ok = getVarBack(p, pos, lo); !ok {
		return r, false
	}
	switch k {
	case NodePage:
		r.keyLen = r.dataLen - NodePtrSize
	default:
		if r.keyLen, pos, ok = getVarBack(p, pos, lo); !ok {
			return r, false
		}
	}
	if k == ClusteredLeaf {
		if pos-1 < lo {
			return r, false
		}
		pos--
		r.nExt = int(p[pos])
	}
	r.start = pos
	if r.keyLen < 0 || r.end() > len(p) {
		return r, false
	}
	switch k {
	case ClusteredLeaf:
		ok = r.keyLen+TrxRollLen+ExternRefSize*r.nExt <= r.dataLen
	case SecondaryLeaf:
		ok = r.keyLen <= r.dataLen
	default:
		ok = true
	}
	return r, ok
}

func (p IndexPage) heapNo(origin int) int { return p.u16(origin-4) >> 3 }

func (p IndexPage) info(origin int) byte { return p[origin-5] }

// Key returns the key bytes of the record in slot i. The slice aliases the page.
func (p IndexPage) Key(i int) []byte {
	r := p.layout(p.Offset(i))
	return p[r.origin : r.origin+r.keyLen]
}

// Value returns the value bytes of the record in slot i (leaves; external
// references included). The slice aliases the page.
func (p IndexPage) Value(i int) []byte {
	r := p.layout(p.Offset(i))
	switch p.Kind() {
	case ClusteredLeaf:
		return p[r.origin+r.keyLen+TrxRollLen : r.end()]
	case SecondaryLeaf:
		return p[r.origin+r.keyLen : r.end()]
	}
	return nil
}

// Sys returns DB_TRX_ID and DB_ROLL_PTR of the record in slot i of a
// clustered leaf (nil elsewhere). The slice aliases the page.
func (p IndexPage) Sys(i int) []byte {
	if p.Kind() != ClusteredLeaf {
		return nil
	}
	r := p.layout(p.Offset(i))
	return p[r.origin+r.keyLen : r.origin+r.keyLen+TrxRollLen]
}

// Child returns the child page number of the node pointer in slot i.
func (p IndexPage) Child(i int) uint32 {
	r := p.layout(p.Offset(i))
	return binary.BigEndian.Uint32(p[r.end()-NodePtrSize:])
}

// NExt returns the number of external references of the record in slot i.
func (p IndexPage) NExt(i int) int { return p.layout(p.Offset(i)).nExt }

// ExtRef returns the j-th external reference of the record in slot i. The
// slice aliases the page.
func (p IndexPage) ExtRef(i, j int) []byte {
	r := p.layout(p.Offset(i))
	o := r.end() - ExternRefSize*(r.nExt-j)
	return p[o : o+ExternRefSize]
}

// DeleteMarked reports whether the record in slot i is delete-marked.
func (p IndexPage) DeleteMarked(i int) bool { return p.info(p.Offset(i))&infoDeleted != 0 }

// HeapNo returns the heap number of the record in slot i.
func (p IndexPage) HeapNo(i int) int { return p.heapNo(p.Offset(i)) }

// RecSize returns the bytes the record in slot i takes on the page.
func (p IndexPage) RecSize(i int) int { return p.layout(p.Offset(i)).size() }

// Record returns the record in slot i; its slices alias the page.
func (p IndexPage) Record(i int) Record {
	r := p.layout(p.Offset(i))
	rec := Record{Key: p[r.origin : r.origin+r.keyLen], DeleteMarked: p.info(r.origin)&infoDeleted != 0}
	switch p.Kind() {
	case ClusteredLeaf:
		rec.Sys = p[r.origin+r.keyLen : r.origin+r.keyLen+TrxRollLen]
		rec.Value = p[r.origin+r.keyLen+TrxRollLen : r.end()]
		rec.NExt = r.nExt
	case SecondaryLeaf:
		rec.Value = p[r.origin+r.keyLen : r.end()]
	default:
		rec.Child = binary.BigEndian.Uint32(p[r.end()-NodePtrSize:])
	}
	return rec
}

// Search finds key among the records with a binary search on the directory
// [page_cur_search_with_match]. It returns the first slot whose key is not
// less than key, and whether that key is equal. cmp orders keys like
// bytes.Compare. On a node page the child to descend into is that slot when
// found, else the slot before it; zipsim has no REC_INFO_MIN_REC_FLAG, so
// the B-tree treats slot 0 of every node page as minus infinity.
func (p IndexPage) Search(key []byte, cmp func(a, b []byte) int) (slot int, found bool) {
	k := p.Kind()
	lo, hi := 0, p.NRecs()
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if cmp(p.keyAt(mid, k), key) < 0 {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo, lo < p.NRecs() && cmp(p.keyAt(lo, k), key) == 0
}

// keyAt is Key without the full layout parse, for the search loop.
func (p IndexPage) keyAt(i int, k Kind) []byte {
	o := p.Offset(i)
	pos := o - RecHeaderSize - 1
	n := int(p[pos])
	if n >= 0x80 {
		pos--
		n = (n&0x7f)<<8 | int(p[pos])
	}
	if k == NodePage {
		return p[o : o+n-NodePtrSize]
	}
	pos--
	n = int(p[pos])
	if n >= 0x80 {
		n = (n&0x7f)<<8 | int(p[pos-1])
	}
	return p[o : o+n]
}

// relink rewrites the next pointers of infimum and the user records from the
// directory order, the way page_zip_set_extra_bytes rebuilds them.
func (p IndexPage) relink() {
	prev := Infimum
	for i, n := 0, p.NRecs(); i < n; i++ {
		o := p.Offset(i)
		p.setNext(prev, o)
		prev = o
	}
	p.setNext(prev, Supremum)
}
