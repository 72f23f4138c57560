package storage

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zipsim/zipsim/compress"
	"github.com/zipsim/zipsim/internal/stripe"
	"github.com/zipsim/zipsim/page"
)

// Transparent page compression (MySQL 5.7 COMPRESSION=, WL#7696), done in
// the I/O layer as InnoDB's os0file.cc does (os_file_compress_page on write,
// os_file_decompress_page on read, the hole punched by os_file_io →
// os_file_punch_hole):
//
//   - On write, bytes [38, PageSize) of the page are compressed; the 38-byte
//     FIL header is kept. The output must save at least one filesystem
//     block, so the limit is PageSize − FSBlockSize − 38 bytes; a page that
//     does not fit is written whole.
//   - The slot then holds the page's FIL header with its type replaced by
//     page.TypeCompressed and its Aux field holding the original type (high
//     16 bits) and the compressed length clen (low 16 bits), then the
//     compressed bytes, zero-padded to roundup(38+clen, FSBlockSize). That
//     many bytes are written and the rest of the slot is punched out
//     (fallocate PUNCH_HOLE|KEEP_SIZE). InnoDB writes a version, algorithm
//     and original size in its v1 header too; zipsim's FIL header has room
//     only for Aux, and the algorithm and size are the tablespace's.
//   - A page whose Aux field is in use is refused with an error, since the
//     slot header needs Aux: only ZBLOB pages use it, and they belong to
//     ROW_FORMAT=COMPRESSED tables, which cannot use transparent
//     compression. Page 0 never reaches this path: the header page is
//     always written uncompressed.
//   - The slot is recorded as compressed (Usage.Holes) as soon as the
//     image is written, before the punch: if the punch fails the slot
//     still holds a compressed image, only its tail is still allocated.
//   - A write that fails may have written none, part or all of the image,
//     so the slot's entry is then set from its FIL type on the device, as
//     Open's scan would set it.
//   - Nothing extends the device to the end of a new last slot: the space
//     size is the page count in the header (FSP_SIZE), so a compressed
//     last slot is short on the device and reads past its end are zeros.
//   - On read, a slot of type page.TypeCompressed is decompressed (exactly
//     PageSize − 38 bytes must come out) and its type and Aux restored, so
//     the buffer pool only ever sees the uncompressed page, and the page's
//     own checksum, set by the caller before the write, verifies again.
//
// A page takes 4K, 8K, 12K or 16K on disk with 16K pages and 4K blocks.

// writeTransparent is WritePage for a space with transparent compression.
func (t *Tablespace) writeTransparent(s stripe.Stripe, pageNo uint32, buf []byte) error {
	f := page.Fil(buf)
	typ := f.Type()
	if typ == page.TypeCompressed {
		return fmt.Errorf("storage: write page %d: type %v is reserved for slots written by transparent page compression", pageNo, typ)
	}
	if aux := f.Aux(); aux != 0 {
		return fmt.Errorf("storage: write page %d: FIL Aux field is %#x, but transparent page compression keeps its slot header there; only ZBLOB pages use Aux, and ROW_FORMAT=COMPRESSED tables, which have them, cannot use transparent compression", pageNo, aux)
	}
	bp := t.bufs.Get().(*[]byte)
	defer t.bufs.Put(bp)
	img := append((*bp)[:0], buf[:page.FilHeaderSize]...)
	start := time.Now()
	// compress2's parameters, as InnoDB's file layer deflates [os_file_compress_page].
	img, err := t.codec.CompressFileLimit(img, buf[page.FilHeaderSize:], t.limit)
	s.Add(cCompressNanos, uint64(time.Since(start)))
	if errors.Is(err, compress.ErrDoesNotFit) {
		s.Add(cPagesNoSaving, 1)
		return t.writeWhole(s, pageNo, buf)
	}
	if err != nil {
		return fmt.Errorf("storage: write page %d: compress: %w", pageNo, err)
	}
	clen := len(img) - page.FilHeaderSize
	fsb := t.opts.FSBlockSize
	n := (len(img) + fsb - 1) / fsb * fsb
	img = img[:n]
	clear(img[page.FilHeaderSize+clen:])
	fi := page.Fil(img)
	fi.SetType(page.TypeCompressed)
	fi.SetAux(uint32(typ)<<16 | uint32(clen))
	if err := t.writeAt(pageNo, img); err != nil {
		t.recheck(pageNo)
		return err
	}
	s.Add(cWrites, 1)
	s.Add(cBytesWritten, uint64(n))
	s.Add(cPagesCompressed, 1)
	// The slot holds a compressed image now, whatever the punch does.
	t.holes.set(pageNo)
	off := int64(pageNo) << t.shift
	if err := t.dev.PunchHole(off+int64(n), int64(t.phys-n)); err != nil {
		return fmt.Errorf("storage: write page %d: punch hole after the compressed image: %w", pageNo, err)
	}
	return nil
}

// writeWhole writes an uncompressed page in a space with transparent
// compression, which fills any hole the slot had.
func (t *Tablespace) writeWhole(s stripe.Stripe, pageNo uint32, buf []byte) error {
	if err := t.writeAt(pageNo, buf); err != nil {
		t.recheck(pageNo)
		return err
	}
	s.Add(cWrites, 1)
	s.Add(cBytesWritten, uint64(len(buf)))
	t.holes.unset(pageNo)
	return nil
}

// decompress restores a page read from a compressed slot in buf.
func (t *Tablespace) decompress(s stripe.Stripe, pageNo uint32, buf []byte) error {
	f := page.Fil(buf)
	aux := f.Aux()
	orig, clen := page.Type(aux>>16), int(aux&0xFFFF)
	if clen == 0 || clen > t.limit {
		return &page.CorruptError{PageNo: pageNo, Reason: fmt.Sprintf("transparent compression: compressed length %d is outside 1..%d", clen, t.limit)}
	}
	if orig == page.TypeCompressed {
		return &page.CorruptError{PageNo: pageNo, Reason: "transparent compression: original page type is COMPRESSED"}
	}
	bp := t.bufs.Get().(*[]byte)
	defer t.bufs.Put(bp)
	src := append((*bp)[:0], buf[page.FilHeaderSize:page.FilHeaderSize+clen]...)
	want := t.opts.PageSize - page.FilHeaderSize
	dst := buf[page.FilHeaderSize:page.FilHeaderSize:len(buf)]
	start := time.Now()
	out, err := t.codec.DecompressLimit(dst, src, want)
	s.Add(cDecompressNanos, uint64(time.Since(start)))
	s.Add(cDecompressions, 1)
	if err != nil {
		return &page.CorruptError{PageNo: pageNo, Reason: fmt.Sprintf("transparent compression: %v", err)}
	}
	if len(out) != want {
		return &page.CorruptError{PageNo: pageNo, Reason: fmt.Sprintf("transparent compression: decompressed to %d bytes, want %d", len(out), want)}
	}
	if &out[0] != &buf[page.FilHeaderSize] {
		copy(buf[page.FilHeaderSize:], out)
	}
	f.SetType(orig)
	f.SetAux(0)
	return nil
}

// scanHoles rebuilds the set of compressed slots on Open by reading the FIL
// header of every slot: one 38-byte read per page.
func (t *Tablespace) scanHoles() error {
	n := t.Pages()
	hdr := make([]byte, page.FilHeaderSize)
	for p := uint32(1); p < n; p++ {
		compressed, err := t.slotCompressed(p, hdr)
		if err != nil {
			return fmt.Errorf("storage: scan page %d: %w", p, err)
		}
		if compressed {
			t.holes.set(p)
		}
	}
	return nil
}

// recheck sets a slot's place in the set from the device after a failed
// write, which may have written none, part or all of the image: the set
// then holds what Open's scan would find. If the device cannot even be
// read, the slot keeps its old state.
func (t *Tablespace) recheck(pageNo uint32) {
	switch compressed, err := t.slotCompressed(pageNo, make([]byte, page.FilHeaderSize)); {
	case err != nil:
	case compressed:
		t.holes.set(pageNo)
	default:
		t.holes.unset(pageNo)
	}
}

// slotCompressed reads the FIL header of slot p into hdr, 38 bytes, to tell
// whether the slot holds a compressed image. It reads around a Latency
// wrapper: InnoDB does no such read, so it should cost no modelled time.
func (t *Tablespace) slotCompressed(p uint32, hdr []byte) (bool, error) {
	dev := t.dev
	for {
		u, ok := dev.(interface{ Unwrap() Device })
		if !ok {
			break
		}
		dev = u.Unwrap()
	}
	if err := dev.ReadAt(hdr, int64(p)<<t.shift); err != nil {
		return false, err
	}
	return page.Fil(hdr).Type() == page.TypeCompressed, nil
}

// slotSet is the set of slots stored compressed, with its size. A mutex is
// enough: it is touched once per transparent write, next to a compression
// that takes tens of microseconds. The count is an atomic so that Usage
// reads it without the lock, and it changes under the lock with the bits,
// so it is always the number of slots in the set. Words are kept in a map
// so that a page far out costs one word, not a bitmap up to it.
type slotSet struct {
	mu    sync.Mutex
	words map[uint32]uint64 // slot/64 → bits; guarded by mu
	n     atomic.Int64
}

// set marks slot p.
func (ss *slotSet) set(p uint32) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.words == nil {
		ss.words = make(map[uint32]uint64)
	}
	w, bit := ss.words[p/64], uint64(1)<<(p%64)
	if w&bit == 0 {
		ss.words[p/64] = w | bit
		ss.n.Add(1)
	}
}

// unset clears slot p.
func (ss *slotSet) unset(p uint32) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	w, bit := ss.words[p/64], uint64(1)<<(p%64)
	if w&bit != 0 {
		// The word stays in the map even when it becomes 0, so that a page
		// flipping between compressed and whole allocates nothing.
		ss.words[p/64] = w &^ bit
		ss.n.Add(-1)
	}
}

// count returns the number of slots in the set.
func (ss *slotSet) count() int64 { return ss.n.Load() }
