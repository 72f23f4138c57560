package page

import (
	"encoding/binary"
	"fmt"
)

// Uncompressed BLOB pages [btr0cur.cc, FIL_PAGE_TYPE_BLOB]: after the FIL
// header, the length of the part on this page and the next page number, then
// the part, then the FIL trailer: 16330 bytes of payload on a 16K page.
const (
	blobPartLen = FilHeaderSize     // BTR_BLOB_HDR_PART_LEN
	blobNext    = FilHeaderSize + 4 // BTR_BLOB_HDR_NEXT_PAGE_NO
	blobData    = FilHeaderSize + 8 // BTR_BLOB_HDR_SIZE after FIL_PAGE_DATA
)

// BlobPayload returns the value bytes one uncompressed BLOB page holds.
func BlobPayload(pageSize int) int { return pageSize - blobData - FilTrailerSize }

// FormatBlobPage formats b (a whole page) as one page of an uncompressed
// BLOB chain holding part, followed by page next (FilNull at the end).
func FormatBlobPage(b []byte, pageNo, spaceID uint32, part []byte, next uint32) error {
	if err := CheckPageSize(len(b)); err != nil {
		return err
	}
	if len(part) > BlobPayload(len(b)) {
		return fmt.Errorf("page: BLOB part of %d bytes exceeds the %d-byte payload of a %d-byte page", len(part), BlobPayload(len(b)), len(b))
	}
	clear(b)
	f := Fil(b)
	f.SetPageNo(pageNo)
	f.SetSpaceID(spaceID)
	f.SetType(TypeBlob)
	f.SetPrev(FilNull)
	f.SetNext(FilNull)
	binary.BigEndian.PutUint32(b[blobPartLen:], uint32(len(part)))
	binary.BigEndian.PutUint32(b[blobNext:], next)
	copy(b[blobData:], part)
	return nil
}

// ParseBlobPage validates one uncompressed BLOB page and returns its part
// (aliasing b) and the next page number.
func ParseBlobPage(b []byte) (part []byte, next uint32, err error) {
	if CheckPageSize(len(b)) != nil {
		return nil, 0, &CorruptError{Reason: fmt.Sprintf("BLOB page of %d bytes", len(b))}
	}
	f := Fil(b)
	if f.Type() != TypeBlob {
		return nil, 0, &CorruptError{PageNo: f.PageNo(), Reason: fmt.Sprintf("type %v where a BLOB page was expected", f.Type())}
	}
	n := binary.BigEndian.Uint32(b[blobPartLen:])
	if n > uint32(BlobPayload(len(b))) {
		return nil, 0, &CorruptError{PageNo: f.PageNo(), Reason: fmt.Sprintf("BLOB part length %d exceeds the payload %d", n, BlobPayload(len(b)))}
	}
	return b[blobData : blobData+int(n)], binary.BigEndian.Uint32(b[blobNext:]), nil
}

// Compressed BLOB pages [FIL_PAGE_TYPE_ZBLOB, ZBLOB2]: the FIL header, then
// a piece of one compressed stream up to the end of the zip-size block. The
// first page of a chain is ZBLOB, the others ZBLOB2, FIL_PAGE_NEXT links
// them. zipsim keeps the piece's length in the Aux field because its codecs,
// unlike zlib, cannot ignore the zero fill after the stream's end.

// ZBlobPayload returns the compressed bytes one ZBLOB page holds.
func ZBlobPayload(zipSize int) int { return zipSize - FilHeaderSize }

// FormatZBlobPage formats b (a zip-size block) as one page of a compressed
// BLOB chain.
func FormatZBlobPage(b []byte, pageNo, spaceID uint32, first bool, chunk []byte, next uint32) error {
	if ZipSSize(len(b)) == 0 {
		return fmt.Errorf("page: ZBLOB page of %d bytes: use a zip size (1024..16384)", len(b))
	}
	if len(chunk) > ZBlobPayload(len(b)) {
		return fmt.Errorf("page: ZBLOB piece of %d bytes exceeds the %d-byte payload", len(chunk), ZBlobPayload(len(b)))
	}
	clear(b)
	f := Fil(b)
	f.SetPageNo(pageNo)
	f.SetSpaceID(spaceID)
	f.SetType(TypeZBlob2)
	if first {
		f.SetType(TypeZBlob)
	}
	f.SetPrev(FilNull)
	f.SetNext(next)
	f.SetAux(uint32(len(chunk)))
	copy(b[FilHeaderSize:], chunk)
	return nil
}

// ParseZBlobPage validates one compressed BLOB page and returns its piece of
// the stream (aliasing b) and the next page number.
func ParseZBlobPage(b []byte, first bool) (chunk []byte, next uint32, err error) {
	if ZipSSize(len(b)) == 0 {
		return nil, 0, &CorruptError{Reason: fmt.Sprintf("ZBLOB page of %d bytes", len(b))}
	}
	f := Fil(b)
	want := TypeZBlob2
	if first {
		want = TypeZBlob
	}
	if f.Type() != want {
		return nil, 0, &CorruptError{PageNo: f.PageNo(), Reason: fmt.Sprintf("type %v where %v was expected", f.Type(), want)}
	}
	n := f.Aux()
	if n > uint32(ZBlobPayload(len(b))) {
		return nil, 0, &CorruptError{PageNo: f.PageNo(), Reason: fmt.Sprintf("ZBLOB piece length %d exceeds the payload %d", n, ZBlobPayload(len(b)))}
	}
	return b[FilHeaderSize : FilHeaderSize+int(n)], f.Next(), nil
}
