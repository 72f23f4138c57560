package storage

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/zipsim/zipsim/page"
)

// The tablespace header page, slot 0, zipsim's FSP header (InnoDB
// fsp0fsp.cc: fsp_header_init writes FSP_SPACE_ID, FSP_SIZE and
// FSP_SPACE_FLAGS, the flags encoding the page size and zip size). It is
// always written uncompressed in a slot of the physical size, and everything
// in it fits in the first MinZipSize (1024) bytes so that Open can read them
// before it knows the slot size:
//
//	 0  FIL header (38 bytes): checksum, page no 0, type FSP_HDR, space id
//	38  magic "ZIPSIMTS"
//	46  format version, uint16 (1)
//	48  physical (slot) size, uint32: ZipSize, or PageSize when uncompressed
//	52  logical page size, uint32
//	56  zip size, uint32 (0 = uncompressed table)
//	60  filesystem block size, uint32
//	64  space size in slots, header included, uint32 (FSP_SIZE): 1..2^32−1
//	68  state byte: 1 clean, 2 open
//	69  length of the transparent compression setting, 1 byte (0 = off)
//	70  the setting's canonical text (compress.Setting.String), at most 64 bytes
//
// The space size is the Tablespace's page count, not the device's: the last
// slot is short on the device when it is stored compressed. It is written by
// Create, by Sync when the space has grown, and by Close. Being a uint32, it
// also caps a space at 2^32−1 slots, page numbers 0..FilNull−1.
//
// The checksum (page.SetChecksum) covers the whole slot. Later format
// versions must keep the magic, version and physical size where they are.
const (
	hdrMagic    = page.FilHeaderSize
	hdrVersion  = hdrMagic + 8
	hdrPhysical = hdrVersion + 2
	hdrPageSize = hdrPhysical + 4
	hdrZipSize  = hdrPageSize + 4
	hdrFSBlock  = hdrZipSize + 4
	hdrPages    = hdrFSBlock + 4
	hdrState    = hdrPages + 4
	hdrCompLen  = hdrState + 1
	hdrComp     = hdrCompLen + 1
	hdrCompMax  = 64
	hdrEnd      = hdrComp + hdrCompMax

	headerProbe   = page.MinZipSize // bytes Open reads first
	formatVersion = 1

	stateClean = 1
	stateOpen  = 2
)

var _ [headerProbe - hdrEnd]struct{} // the header fits in the smallest slot

var magic = [8]byte{'Z', 'I', 'P', 'S', 'I', 'M', 'T', 'S'}

var (
	// ErrNotClean is returned by Open for a space that was not closed
	// cleanly: its header still says "open", so a crash or a missing Close
	// may have left pages half written. InnoDB would apply its redo log;
	// zipsim has none, so it refuses.
	ErrNotClean = errors.New("storage: tablespace was not closed cleanly; zipsim has no redo log to recover it")
	// ErrHeaderDamaged is returned (wrapped, usually with a
	// *page.CorruptError) by Open when page 0 is not a zipsim tablespace
	// header or fails its checksum.
	ErrHeaderDamaged = errors.New("storage: tablespace header is damaged")
)

// header is the decoded header page.
type header struct {
	spaceID     uint32
	physical    int
	pageSize    int
	zipSize     int
	fsBlock     int
	pages       uint32 // FSP_SIZE
	compression string // canonical setting text; "" when off
	state       byte
}

// encode writes the header into b, a zeroed slot of h.physical bytes, and
// sets its checksum.
func (h *header) encode(b []byte) {
	clear(b)
	f := page.Fil(b)
	f.SetPageNo(0)
	f.SetPrev(page.FilNull)
	f.SetNext(page.FilNull)
	f.SetType(page.TypeFSPHeader)
	f.SetSpaceID(h.spaceID)
	copy(b[hdrMagic:], magic[:])
	binary.BigEndian.PutUint16(b[hdrVersion:], formatVersion)
	binary.BigEndian.PutUint32(b[hdrPhysical:], uint32(h.physical))
	binary.BigEndian.PutUint32(b[hdrPageSize:], uint32(h.pageSize))
	binary.BigEndian.PutUint32(b[hdrZipSize:], uint32(h.zipSize))
	binary.BigEndian.PutUint32(b[hdrFSBlock:], uint32(h.fsBlock))
	binary.BigEndian.PutUint32(b[hdrPages:], h.pages)
	b[hdrState] = h.state
	// Canonical settings are far shorter than hdrCompMax
	// (TestHeaderFitsEverySetting).
	b[hdrCompLen] = byte(len(h.compression))
	copy(b[hdrComp:hdrComp+hdrCompMax], h.compression)
	page.SetChecksum(b)
}

// damaged wraps a reason as ErrHeaderDamaged with a *page.CorruptError.
func damaged(format string, args ...any) error {
	return fmt.Errorf("%w: %w", ErrHeaderDamaged, &page.CorruptError{PageNo: 0, Reason: fmt.Sprintf(format, args...)})
}

// probePhysical reads the slot size from the first headerProbe bytes of a
// device, after checking the magic.
func probePhysical(b []byte) (int, error) {
	if [8]byte(b[hdrMagic:hdrMagic+8]) != magic {
		return 0, damaged("no zipsim tablespace magic %q at byte %d (found %q)", magic[:], hdrMagic, b[hdrMagic:hdrMagic+8])
	}
	phys := int(binary.BigEndian.Uint32(b[hdrPhysical:]))
	// A slot is a zip size whatever the page size: 1024..16384.
	if err := page.CheckZipSize(page.MaxPageSize, phys); err != nil {
		return 0, damaged("physical page size: %v", err)
	}
	return phys, nil
}

// decodeHeader checks and decodes a whole header slot.
func decodeHeader(b []byte) (header, error) {
	if err := page.Verify(b); err != nil {
		// Report it as page 0 whatever page number the damaged FIL header holds.
		var ce *page.CorruptError
		if errors.As(err, &ce) {
			return header{}, damaged("%s", ce.Reason)
		}
		return header{}, damaged("%v", err)
	}
	if v := binary.BigEndian.Uint16(b[hdrVersion:]); v != formatVersion {
		return header{}, fmt.Errorf("storage: tablespace format version %d is not supported; this zipsim reads version %d", v, formatVersion)
	}
	f := page.Fil(b)
	if f.PageNo() != 0 || f.Type() != page.TypeFSPHeader {
		return header{}, damaged("header page has page number %d and type %v, want 0 and %v", f.PageNo(), f.Type(), page.TypeFSPHeader)
	}
	n := int(b[hdrCompLen])
	if n > hdrCompMax {
		return header{}, damaged("compression setting length %d exceeds %d", n, hdrCompMax)
	}
	h := header{
		spaceID:     f.SpaceID(),
		physical:    int(binary.BigEndian.Uint32(b[hdrPhysical:])),
		pageSize:    int(binary.BigEndian.Uint32(b[hdrPageSize:])),
		zipSize:     int(binary.BigEndian.Uint32(b[hdrZipSize:])),
		fsBlock:     int(binary.BigEndian.Uint32(b[hdrFSBlock:])),
		pages:       binary.BigEndian.Uint32(b[hdrPages:]),
		compression: string(b[hdrComp : hdrComp+n]),
		state:       b[hdrState],
	}
	if h.state != stateClean && h.state != stateOpen {
		return header{}, damaged("state byte %d is neither clean (%d) nor open (%d)", h.state, stateClean, stateOpen)
	}
	if h.pages == 0 {
		return header{}, damaged("space size is 0 pages; the header page alone makes 1")
	}
	return h, nil
}
