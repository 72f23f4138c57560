package page

import (
	"encoding/binary"
	"fmt"
)

// Flags in the top byte of an external reference's 8-byte length
// [BTR_EXTERN_OWNER_FLAG, BTR_EXTERN_INHERITED_FLAG].
const (
	externNotOwner  = 0x80
	externInherited = 0x40
)

// ExternRef is the 20-byte reference a record keeps for a column stored
// off-page [btr0cur.cc, BTR_EXTERN_*]: space id, first page, the offset of
// the chain pointer on that page (FIL_PAGE_DATA for BLOB pages, FIL_PAGE_NEXT
// for compressed ones) and the column's uncompressed length with two flags.
type ExternRef struct {
	SpaceID uint32
	PageNo  uint32
	Offset  uint32
	Length  uint32 // the value's length; InnoDB keeps 32 bits of an 8-byte field
	// NotOwner is set when this record does not own the value and must not
	// free it (a value inherited by an update not yet committed).
	NotOwner  bool
	Inherited bool
}

// Compressed reports whether the reference points at a ZBLOB chain.
func (r ExternRef) Compressed() bool { return r.Offset == FilNext }

// Encode stores the reference in b[:ExternRefSize].
func (r ExternRef) Encode(b []byte) {
	binary.BigEndian.PutUint32(b[0:], r.SpaceID)
	binary.BigEndian.PutUint32(b[4:], r.PageNo)
	binary.BigEndian.PutUint32(b[8:], r.Offset)
	var flags byte
	if r.NotOwner {
		flags |= externNotOwner
	}
	if r.Inherited {
		flags |= externInherited
	}
	binary.BigEndian.PutUint32(b[12:], uint32(flags)<<24)
	binary.BigEndian.PutUint32(b[16:], r.Length)
}

// DecodeExternRef parses a reference. A reference of zeros (a value still
// being written, InnoDB's field_ref_zero), an unknown offset, a page number
// that cannot start a chain or bits set in the unused length bytes are
// errors.
func DecodeExternRef(b []byte) (ExternRef, error) {
	if len(b) < ExternRefSize {
		return ExternRef{}, fmt.Errorf("page: external reference of %d bytes, want %d", len(b), ExternRefSize)
	}
	b = b[:ExternRefSize]
	if isZero(b) {
		return ExternRef{}, fmt.Errorf("page: external reference is zero: the value was never written")
	}
	r := ExternRef{
		SpaceID: binary.BigEndian.Uint32(b[0:]),
		PageNo:  binary.BigEndian.Uint32(b[4:]),
		Offset:  binary.BigEndian.Uint32(b[8:]),
		Length:  binary.BigEndian.Uint32(b[16:]),
	}
	hi := binary.BigEndian.Uint32(b[12:])
	r.NotOwner = hi&(externNotOwner<<24) != 0
	r.Inherited = hi&(externInherited<<24) != 0
	if hi&^((externNotOwner|externInherited)<<24) != 0 {
		return ExternRef{}, fmt.Errorf("page: external reference to page %d: length %#x exceeds 32 bits", r.PageNo, uint64(hi)<<32|uint64(r.Length))
	}
	if r.Offset != FilHeaderSize && r.Offset != FilNext {
		return ExternRef{}, fmt.Errorf("page: external reference to page %d: offset %d is neither %d (BLOB) nor %d (ZBLOB)", r.PageNo, r.Offset, FilHeaderSize, FilNext)
	}
	if r.PageNo == 0 || r.PageNo == FilNull {
		return ExternRef{}, fmt.Errorf("page: external reference names page %d, which cannot hold a BLOB", r.PageNo)
	}
	return r, nil
}
