package page

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/zipsim/zipsim/compress"
)

// Zip image layout beyond the copied header [page0zip.ic]. zipsim stores the
// compressed stream's length in the two bytes after PAGE_DATA, where InnoDB
// has its deflated index information: the codecs other than zlib cannot find
// the end of their stream by themselves.
const (
	zipStreamLen = PageData     // 2 bytes
	zipStream    = PageData + 2 // the compressed stream starts here

	zipDirOwned   = 0x4000 // PAGE_ZIP_DIR_SLOT_OWNED
	zipDirDeleted = 0x8000 // PAGE_ZIP_DIR_SLOT_DEL
	zipDirMask    = 0x3fff // PAGE_ZIP_DIR_SLOT_MASK
)

// ErrDoesNotFit is returned by Compress when the page does not fit its zip
// block: InnoDB's compression failure.
var ErrDoesNotFit = errors.New("page: compressed page does not fit the zip block")

// ErrMismatch is returned by the Log* and Write* methods when the page and
// the image do not describe the same page state: a change was not
// mirrored, or was mirrored twice.
var ErrMismatch = errors.New("page: page and zip image disagree")

// ErrLogFull is returned by the Log* methods when the modification log has no
// room for the change. Callers check Available first, as InnoDB checks
// page_zip_available; on ErrLogFull nothing was changed in the zip image.
var ErrLogFull = errors.New("page: modification log is full")

// Env is what zip images need from the compress layer: the codec and, when
// not nil, the INNODB_CMP counters that compressions and decompressions feed.
type Env struct {
	Codec *compress.Codec // nil means zlib level 6, InnoDB's default
	Stats *compress.Stats
}

func (e Env) codec() *compress.Codec {
	if e.Codec != nil {
		return e.Codec
	}
	c, _ := compress.Shared(compress.DefaultSetting) // valid by construction
	return c
}

// Zip is a compressed page: its zip block and the fields InnoDB keeps in
// page_zip_des_t (m_start, m_end, n_blobs). A zip image holds, in order: the
// uncompressed page header (PAGE_DATA bytes), the stream length, one
// compressed stream of the records in heap order without their 5-byte
// headers and without the fields kept uncompressed, the modification log
// ended by a 0 byte, zero-filled free space, the BLOB reference array, the
// per-record uncompressed trailer (DB_TRX_ID+DB_ROLL_PTR on clustered leaves,
// the child page number on node pages) indexed by heap number, and the dense
// directory of every record (2 bytes each, live records in key order, then
// the free list) at the very end.
//
// The descriptor fields are known after Compress or Decompress; an image just
// read from storage must be decompressed before it is modified. A Zip is not
// safe for concurrent use.
type Zip struct {
	data   []byte
	mStart int
	mEnd   int
	nBlobs int
	known  bool
}

// NewZip returns a descriptor for block, whose length must be a zip size.
func NewZip(block []byte) (*Zip, error) {
	z := new(Zip)
	if err := z.Init(block); err != nil {
		return nil, err
	}
	return z, nil
}

// Init attaches the descriptor to block (for instance one just read from
// storage), forgetting what it knew about the previous one.
func (z *Zip) Init(block []byte) error {
	if ZipSSize(len(block)) == 0 {
		return fmt.Errorf("page: zip block of %d bytes: the size must be 1024, 2048, 4096, 8192 or 16384", len(block))
	}
	*z = Zip{data: block}
	return nil
}

// Data returns the zip block.
func (z *Zip) Data() []byte { return z.data }

// Size returns the zip block size.
func (z *Zip) Size() int { return len(z.data) }

// MStart returns the offset where the modification log starts.
func (z *Zip) MStart() int { return z.mStart }

// MEnd returns the offset of the modification log's terminating 0 byte.
func (z *Zip) MEnd() int { return z.mEnd }

// LogNonEmpty reports page_zip_des_t::m_nonempty: the log holds entries, so
// recompressing may reclaim space.
func (z *Zip) LogNonEmpty() bool { return z.mEnd > z.mStart }

// CopyFrom makes z a byte copy of src, descriptor included, as
// page_zip_copy_recs does when a split falls back to copying the whole
// compressed page; no compression or decompression is counted. The blocks
// must be the same size.
func (z *Zip) CopyFrom(src *Zip) error {
	if len(z.data) != len(src.data) {
		return fmt.Errorf("page: copy a %d-byte zip image into a %d-byte block", len(src.data), len(z.data))
	}
	copy(z.data, src.data)
	z.mStart, z.mEnd, z.nBlobs, z.known = src.mStart, src.mEnd, src.nBlobs, src.known
	return nil
}

// NBlobs returns the number of BLOB references in the image.
func (z *Zip) NBlobs() int { return z.nBlobs }

// Known reports whether the descriptor fields are valid (after Compress or
// Decompress).
func (z *Zip) Known() bool { return z.known }

func (z *Zip) hdr16(off int) int { return int(binary.BigEndian.Uint16(z.data[PageHeader+off:])) }

func (z *Zip) kind() Kind {
	switch {
	case z.hdr16(hdrLevel) != 0:
		return NodePage
	case z.data[PageHeader+hdrFlags]&flagClustered != 0:
		return ClusteredLeaf
	}
	return SecondaryLeaf
}

func (z *Zip) nDense() int { return z.hdr16(hdrNHeap) - 2 }

// trailerLen is page_zip_get_trailer_len: the dense directory, the
// uncompressed columns and the BLOB references.
func (z *Zip) trailerLen() int {
	return z.nDense()*(dirSlotSize+z.kind().TrailerLen()) + z.nBlobs*ExternRefSize
}

// Available reports whether a record of length bytes (RecordSize) can be
// written to the modification log, with InnoDB's page_zip_available
// arithmetic: length minus the 5-byte header plus 2 bytes for the encoded
// heap number, plus the whole trailer, plus a directory slot when create is
// set, must stay below the zip size. Like InnoDB's it overestimates by the
// uncompressed fields counted both in the record and in the trailer, so a
// true answer guarantees that LogInsert or LogUpdate succeed. It is false
// while the descriptor is unknown.
func (z *Zip) Available(length int, create bool) bool {
	if !z.known {
		return false
	}
	trailer := z.trailerLen()
	if create {
		trailer += dirSlotSize
	}
	return length-(RecHeaderSize-2)+trailer+z.mEnd < len(z.data)
}

// MaxInsertSize is page_zip_max_ins_size: a record shorter than this is
// sure to fit the log. It reserves a directory slot but not the uncompressed
// fields, so it is a few bytes below the largest record Available(…, true)
// accepts, as in InnoDB.
func (z *Zip) MaxInsertSize() int {
	return len(z.data) - z.trailerLen() - dirSlotSize - z.mEnd - (RecHeaderSize - 2)
}

// EmptySize is page_zip_empty_size: the space guaranteed for records on an
// empty compressed page of an index with nFields fields, or 0 when the zip
// size is too small for such an index.
func EmptySize(nFields, zipSize int) int {
	const overhead = PageData + dirSlotSize + TrxRollLen + 1 + 1 - RecHeaderSize
	n := zipSize - overhead - compress.ZlibBound(2*(nFields+1))
	if n < 0 {
		return 0
	}
	return n
}

// RecNeedsExt is page_zip_rec_needs_ext: whether a record of recSize bytes
// must move columns off-page. On compressed tables (zipSize > 0) it must fit
// an empty compressed page without its header, less one byte for the encoded
// heap number; on every table it must stay below half of an empty page.
func RecNeedsExt(recSize, nFields, pageSize, zipSize int) bool {
	const recMaxDataSize = 16384 // REC_MAX_DATA_SIZE
	if recSize >= recMaxDataSize {
		return true
	}
	if recSize >= FreeSpaceOfEmpty(pageSize)/2 {
		return true
	}
	return zipSize > 0 && recSize-(RecHeaderSize-2-1) >= EmptySize(nFields, zipSize)
}
