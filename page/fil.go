package page

import (
	"encoding/binary"
	"fmt"

	"github.com/cespare/xxhash/v2"
)

// The FIL header: the first FilHeaderSize bytes of every page, whatever its
// type (InnoDB fil0fil.h, FIL_PAGE_*). zipsim keeps InnoDB's 38-byte size but
// widens the checksum to xxhash64, so the later fields sit 4 bytes further on
// than InnoDB's up to the type field, and the 8-byte FIL_PAGE_FILE_FLUSH_LSN
// becomes a 4-byte Aux field.
const (
	FilChecksum = 0  // 8 bytes: xxhash64 of the page from byte 8 on (InnoDB: 4-byte checksum at 0)
	FilPageNo   = 8  // 4 bytes: FIL_PAGE_OFFSET
	FilPrev     = 12 // 4 bytes: FIL_PAGE_PREV
	FilNext     = 16 // 4 bytes: FIL_PAGE_NEXT
	FilLSN      = 20 // 8 bytes: FIL_PAGE_LSN, a modification counter
	FilType     = 28 // 2 bytes: FIL_PAGE_TYPE
	FilAux      = 30 // 4 bytes: type-specific (ZBLOB: payload length; transparent compression: original type and length)
	FilSpaceID  = 34 // 4 bytes: FIL_PAGE_SPACE_ID

	// FilHeaderSize is FIL_PAGE_DATA, where a page's own content starts.
	FilHeaderSize = 38
	// FilTrailerSize is FIL_PAGE_DATA_END, the trailer of uncompressed pages.
	// StampTrailer writes the low 32 bits of the LSN in its last 4 bytes
	// when a page goes to storage; pages in memory leave it as it is.
	FilTrailerSize = 8
)

// FilNull is FIL_NULL, the page number meaning "none" in prev/next links.
const FilNull = 0xFFFFFFFF

// Type is FIL_PAGE_TYPE. The values are InnoDB's.
type Type uint16

// Page types used by zipsim.
const (
	TypeAllocated  Type = 0     // FIL_PAGE_TYPE_ALLOCATED: a fresh page
	TypeFSPHeader  Type = 8     // FIL_PAGE_TYPE_FSP_HDR: the tablespace header page
	TypeBlob       Type = 10    // FIL_PAGE_TYPE_BLOB: uncompressed off-page column
	TypeZBlob      Type = 11    // FIL_PAGE_TYPE_ZBLOB: first page of a compressed BLOB
	TypeZBlob2     Type = 12    // FIL_PAGE_TYPE_ZBLOB2: later pages of a compressed BLOB
	TypeCompressed Type = 14    // FIL_PAGE_COMPRESSED: written by transparent page compression
	TypeIndex      Type = 17855 // FIL_PAGE_INDEX: a B-tree node
)

// String returns InnoDB's name for the type without its FIL_PAGE_ prefix.
func (t Type) String() string {
	switch t {
	case TypeAllocated:
		return "ALLOCATED"
	case TypeFSPHeader:
		return "FSP_HDR"
	case TypeBlob:
		return "BLOB"
	case TypeZBlob:
		return "ZBLOB"
	case TypeZBlob2:
		return "ZBLOB2"
	case TypeCompressed:
		return "COMPRESSED"
	case TypeIndex:
		return "INDEX"
	}
	return fmt.Sprintf("TYPE(%d)", uint16(t))
}

// Fil reads and writes the FIL header of a page image. Its methods do not
// check the length of the slice: it must hold at least FilHeaderSize bytes.
type Fil []byte

// PageNo returns FIL_PAGE_OFFSET.
func (f Fil) PageNo() uint32 { return binary.BigEndian.Uint32(f[FilPageNo:]) }

// SetPageNo sets FIL_PAGE_OFFSET.
func (f Fil) SetPageNo(n uint32) { binary.BigEndian.PutUint32(f[FilPageNo:], n) }

// Prev returns FIL_PAGE_PREV.
func (f Fil) Prev() uint32 { return binary.BigEndian.Uint32(f[FilPrev:]) }

// SetPrev sets FIL_PAGE_PREV.
func (f Fil) SetPrev(n uint32) { binary.BigEndian.PutUint32(f[FilPrev:], n) }

// Next returns FIL_PAGE_NEXT.
func (f Fil) Next() uint32 { return binary.BigEndian.Uint32(f[FilNext:]) }

// SetNext sets FIL_PAGE_NEXT.
func (f Fil) SetNext(n uint32) { binary.BigEndian.PutUint32(f[FilNext:], n) }

// LSN returns FIL_PAGE_LSN.
func (f Fil) LSN() uint64 { return binary.BigEndian.Uint64(f[FilLSN:]) }

// SetLSN sets FIL_PAGE_LSN.
func (f Fil) SetLSN(n uint64) { binary.BigEndian.PutUint64(f[FilLSN:], n) }

// Type returns FIL_PAGE_TYPE.
func (f Fil) Type() Type { return Type(binary.BigEndian.Uint16(f[FilType:])) }

// SetType sets FIL_PAGE_TYPE.
func (f Fil) SetType(t Type) { binary.BigEndian.PutUint16(f[FilType:], uint16(t)) }

// Aux returns the type-specific Aux field.
func (f Fil) Aux() uint32 { return binary.BigEndian.Uint32(f[FilAux:]) }

// SetAux sets the type-specific Aux field.
func (f Fil) SetAux(v uint32) { binary.BigEndian.PutUint32(f[FilAux:], v) }

// SpaceID returns FIL_PAGE_SPACE_ID.
func (f Fil) SpaceID() uint32 { return binary.BigEndian.Uint32(f[FilSpaceID:]) }

// SetSpaceID sets FIL_PAGE_SPACE_ID.
func (f Fil) SetSpaceID(n uint32) { binary.BigEndian.PutUint32(f[FilSpaceID:], n) }

// StampTrailer copies the low 32 bits of FIL_PAGE_LSN into the FIL trailer
// of an uncompressed page image, as buf_flush_init_for_writing does just
// before a write. Zip images have no trailer. Comparisons of a page with
// its zip image leave the trailer out, as page_zip_validate does.
func StampTrailer(b []byte) {
	binary.BigEndian.PutUint32(b[len(b)-4:], uint32(Fil(b).LSN()))
}

// Checksum computes the checksum of a page image: xxhash64 over everything
// after the checksum field. It is the same for uncompressed pages, zip images
// and BLOB pages, like InnoDB's buf_calc_page_crc32 / page_zip_calc_checksum
// pair but with one function for both.
func Checksum(b []byte) uint64 { return xxhash.Sum64(b[FilPageNo:]) }

// SetChecksum stores Checksum(b) in the page's checksum field. The buffer pool
// calls it just before a page goes to storage.
func SetChecksum(b []byte) {
	binary.BigEndian.PutUint64(b[FilChecksum:], Checksum(b))
}

// Verify checks a page image read from storage. An all-zero image (a slot
// that was never written) is valid, as in InnoDB's buf_page_is_corrupted.
// Otherwise a stored checksum that does not match is an error naming the page
// number found in the header.
func Verify(b []byte) error {
	if len(b) < FilHeaderSize {
		return fmt.Errorf("page: image of %d bytes is shorter than the %d-byte FIL header", len(b), FilHeaderSize)
	}
	stored := binary.BigEndian.Uint64(b[FilChecksum:])
	if stored == 0 && isZero(b) {
		return nil
	}
	if got := Checksum(b); got != stored {
		return &CorruptError{PageNo: Fil(b).PageNo(), Reason: fmt.Sprintf("checksum mismatch: stored %#016x, computed %#016x", stored, got)}
	}
	return nil
}

func isZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// CorruptError reports a page image that cannot be trusted: a bad checksum
// or a structure that does not decode. Decoders return it instead of panicking.
type CorruptError struct {
	PageNo uint32 // from the image's FIL header; it may itself be damaged
	Reason string
}

// Error says which page is corrupt and why.
func (e *CorruptError) Error() string {
	return fmt.Sprintf("page %d: corrupt: %s", e.PageNo, e.Reason)
}
