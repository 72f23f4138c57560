package page

import (
	"fmt"
	"math"
	"sync"
)

// BlobStore is the page access a BLOB chain needs from the layer that owns
// pages (the buffer pool, or a map in tests).
type BlobStore interface {
	// AllocPage returns a fresh page number for a chain page.
	AllocPage() (uint32, error)
	// WritePage lets fill format page pageNo, a page-size frame for BLOB
	// pages or a zip-size block for ZBLOB pages, and stores it.
	WritePage(pageNo uint32, fill func(b []byte) error) error
	// ReadPage lets use read page pageNo while the store holds it.
	ReadPage(pageNo uint32, use func(b []byte) error) error
}

// BlobFormat says how a table stores off-page values.
type BlobFormat struct {
	PageSize int    // logical page size; 0 means 16384
	ZipSize  int    // 0: uncompressed BLOB pages; otherwise ZBLOB pages of this size
	SpaceID  uint32 // written into every page and the reference
	Env      Env    // the codec of ZBLOB streams; nil means zlib level 6
}

func (f BlobFormat) check() (BlobFormat, error) {
	if f.PageSize == 0 {
		f.PageSize = DefaultPageSize
	}
	if f.ZipSize == 0 {
		return f, CheckPageSize(f.PageSize)
	}
	return f, CheckZipSize(f.PageSize, f.ZipSize)
}

// maxChainPages bounds how many pages a chain for a value of n bytes may
// have, so a damaged chain that loops is caught.
func (f BlobFormat) maxChainPages(n uint32) int {
	if f.ZipSize == 0 {
		return int(n)/BlobPayload(f.PageSize) + 1
	}
	// Stored output never exceeds the input by more than any codec's bound.
	return (int(n)+int(n)/4+1024)/ZBlobPayload(f.ZipSize) + 1
}

var blobBufPool = sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}

// WriteBlob stores value as a chain of new pages and returns the reference
// to it [btr_store_big_rec_extern_fields]. Uncompressed tables cut the value
// into BlobPayload-sized parts; compressed ones deflate it as one stream and
// cut the stream into ZBlobPayload-sized pieces, so the ratio is not bounded
// by the page size as B-tree pages are. Pages are never updated in place: a
// new value gets a new chain. If a page write fails, pages already written
// stay allocated and the error is returned.
func WriteBlob(st BlobStore, f BlobFormat, value []byte) (ExternRef, error) {
	f, err := f.check()
	if err != nil {
		return ExternRef{}, err
	}
	if uint64(len(value)) > math.MaxUint32 {
		return ExternRef{}, fmt.Errorf("page: a value of %d bytes exceeds the 4 GiB an external reference can describe", len(value))
	}
	data, payload, offset := value, BlobPayload(f.PageSize), uint32(FilHeaderSize)
	if f.ZipSize != 0 {
		bp := blobBufPool.Get().(*[]byte)
		defer blobBufPool.Put(bp)
		if *bp, err = f.Env.codec().CompressValue((*bp)[:0], value); err != nil {
			return ExternRef{}, err
		}
		data, payload, offset = *bp, ZBlobPayload(f.ZipSize), FilNext
	}
	n := max(1, (len(data)+payload-1)/payload)
	pages := make([]uint32, n)
	for i := range pages {
		if pages[i], err = st.AllocPage(); err != nil {
			return ExternRef{}, err
		}
	}
	for i, no := range pages {
		part := data[min(i*payload, len(data)):min((i+1)*payload, len(data))]
		next := uint32(FilNull)
		if i+1 < n {
			next = pages[i+1]
		}
		first := i == 0
		err := st.WritePage(no, func(b []byte) error {
			if f.ZipSize != 0 {
				return FormatZBlobPage(b, no, f.SpaceID, first, part, next)
			}
			return FormatBlobPage(b, no, f.SpaceID, part, next)
		})
		if err != nil {
			return ExternRef{}, err
		}
	}
	return ExternRef{SpaceID: f.SpaceID, PageNo: pages[0], Offset: offset, Length: uint32(len(value))}, nil
}

// walkBlob visits the pieces of the chain ref points at, in order, checking
// types, lengths and termination. A chain that comes back to a page it
// already visited is corrupt, so a damaged chain costs one read per distinct
// page however long its reference claims the value is.
func walkBlob(st BlobStore, f BlobFormat, ref ExternRef, visit func(pageNo uint32, piece []byte) error) error {
	if (f.ZipSize != 0) != ref.Compressed() {
		return fmt.Errorf("page: reference to page %d has offset %d, which does not suit this table's BLOB format", ref.PageNo, ref.Offset)
	}
	limit := f.maxChainPages(ref.Length)
	// One walker and one bound method per chain, not a closure per page:
	// reads go through an interface, so whatever they get escapes.
	w := &chainWalk{zip: f.ZipSize != 0, visit: visit}
	read := w.page
	w.no = ref.PageNo
	for ; ; w.i++ {
		if w.i >= limit {
			return &CorruptError{PageNo: w.no, Reason: fmt.Sprintf("BLOB chain from page %d is longer than %d pages", ref.PageNo, limit)}
		}
		if !w.seen.add(w.no) {
			return &CorruptError{PageNo: w.no, Reason: fmt.Sprintf("BLOB chain from page %d comes back to page %d", ref.PageNo, w.no)}
		}
		if err := st.ReadPage(w.no, read); err != nil {
			return err
		}
		if w.next == FilNull {
			return nil
		}
		w.no = w.next
	}
}

// chainWalk is walkBlob's position in a chain.
type chainWalk struct {
	zip      bool
	visit    func(pageNo uint32, piece []byte) error
	i        int
	no, next uint32
	seen     visited
}

// page parses page w.no, the w.i-th of the chain, and visits its piece.
func (w *chainWalk) page(b []byte) error {
	var piece []byte
	var err error
	if w.zip {
		piece, w.next, err = ParseZBlobPage(b, w.i == 0)
	} else {
		piece, w.next, err = ParseBlobPage(b)
	}
	if err != nil {
		return err
	}
	if got := Fil(b).PageNo(); got != w.no {
		return &CorruptError{PageNo: w.no, Reason: fmt.Sprintf("BLOB chain page holds page number %d", got)}
	}
	return w.visit(w.no, piece)
}

// visited is a set of page numbers that allocates only for long chains.
type visited struct {
	short [32]uint32
	n     int
	long  map[uint32]struct{}
}

// add inserts no and reports whether it was new.
func (v *visited) add(no uint32) bool {
	if v.long == nil {
		for _, s := range v.short[:v.n] {
			if s == no {
				return false
			}
		}
		if v.n < len(v.short) {
			v.short[v.n] = no
			v.n++
			return true
		}
		v.long = make(map[uint32]struct{}, 2*len(v.short))
		for _, s := range v.short {
			v.long[s] = struct{}{}
		}
	}
	if _, ok := v.long[no]; ok {
		return false
	}
	v.long[no] = struct{}{}
	return true
}

// ReadBlob appends the value ref points at to dst [btr_copy_externally_stored_field].
// A compressed chain's pieces are gathered and inflated in one call,
// bounded by ref.Length; btr_copy_zblob_prefix inflates page by page, which
// costs the same CPU and less memory.
func ReadBlob(st BlobStore, f BlobFormat, ref ExternRef, dst []byte) ([]byte, error) {
	f, err := f.check()
	if err != nil {
		return dst, err
	}
	start := len(dst)
	if f.ZipSize == 0 {
		err = walkBlob(st, f, ref, func(no uint32, part []byte) error {
			if len(dst)-start+len(part) > int(ref.Length) {
				return &CorruptError{PageNo: no, Reason: fmt.Sprintf("BLOB chain holds more than the %d bytes its reference says", ref.Length)}
			}
			dst = append(dst, part...)
			return nil
		})
		if err == nil && len(dst)-start != int(ref.Length) {
			err = &CorruptError{PageNo: ref.PageNo, Reason: fmt.Sprintf("BLOB chain holds %d bytes, its reference says %d", len(dst)-start, ref.Length)}
		}
		if err != nil {
			return dst[:start], err
		}
		return dst, nil
	}
	bp := blobBufPool.Get().(*[]byte)
	defer blobBufPool.Put(bp)
	stream := (*bp)[:0]
	err = walkBlob(st, f, ref, func(_ uint32, piece []byte) error {
		stream = append(stream, piece...)
		return nil
	})
	*bp = stream
	if err != nil {
		return dst, err
	}
	out, err := f.Env.codec().DecompressLimit(dst, stream, int(ref.Length))
	if err != nil {
		return dst, &CorruptError{PageNo: ref.PageNo, Reason: fmt.Sprintf("ZBLOB stream: %v", err)}
	}
	if len(out)-start != int(ref.Length) {
		return dst, &CorruptError{PageNo: ref.PageNo, Reason: fmt.Sprintf("ZBLOB stream inflates to %d bytes, its reference says %d", len(out)-start, ref.Length)}
	}
	return out, nil
}

// BlobPages returns the page numbers of the chain ref points at and the
// bytes its pages hold (the value, or its compressed stream), checking the
// chain as ReadBlob does without decompressing; callers use it to free a
// chain or to account its pages.
func BlobPages(st BlobStore, f BlobFormat, ref ExternRef) (pages []uint32, stored int, err error) {
	f, err = f.check()
	if err != nil {
		return nil, 0, err
	}
	err = walkBlob(st, f, ref, func(no uint32, piece []byte) error {
		pages = append(pages, no)
		stored += len(piece)
		return nil
	})
	if err == nil && f.ZipSize == 0 && stored != int(ref.Length) {
		err = &CorruptError{PageNo: ref.PageNo, Reason: fmt.Sprintf("BLOB chain holds %d bytes, its reference says %d", stored, ref.Length)}
	}
	return pages, stored, err
}
