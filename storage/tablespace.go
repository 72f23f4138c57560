package storage

import (
	"cmp"
	"errors"
	"fmt"
	"math/bits"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zipsim/zipsim/compress"
	"github.com/zipsim/zipsim/internal/stripe"
	"github.com/zipsim/zipsim/page"
)

// Options describe a tablespace. The zero value is an uncompressed table of
// 16 KiB pages with space id 0.
type Options struct {
	// PageSize is the logical page size, innodb_page_size: 4096, 8192 or
	// 16384. 0 means 16384.
	PageSize int
	// ZipSize is KEY_BLOCK_SIZE in bytes for ROW_FORMAT=COMPRESSED: 1024,
	// 2048, 4096, 8192 or 16384, at most PageSize. Slots are then ZipSize
	// bytes. 0 means an uncompressed table.
	ZipSize int
	// SpaceID is stored in the header page's FIL header.
	SpaceID uint32
	// Compression turns on transparent page compression (MySQL 5.7
	// COMPRESSION=): "" or "none" for off, otherwise a compress setting such
	// as "zlib" (zlib:6), "zlib:1", "zstd", "s2". It cannot be combined with
	// ZipSize. Options() reports the canonical text, or "" when off.
	Compression string
	// FSBlockSize is the filesystem block that transparent compression
	// rounds to and punches holes in: a power of two from 512 to 65536. 0
	// means the device's block size (BlockSizer), or 4096 for a device that
	// does not report one. Any other value must equal the device's block
	// size, since InnoDB takes it from the filesystem and a mismatch would
	// misreport the space saved. Without Compression it is ignored and
	// Options() reports 0.
	FSBlockSize int
}

// normalize fills in defaults and validates o. devBlock is the device's
// block size, 0 when unknown. It returns the compression setting and
// whether transparent compression is on.
func (o Options) normalize(devBlock int) (Options, compress.Setting, bool, error) {
	if o.PageSize == 0 {
		o.PageSize = page.DefaultPageSize
	}
	if err := page.CheckPageSize(o.PageSize); err != nil {
		return o, compress.Setting{}, false, fmt.Errorf("storage: %w", err)
	}
	if o.ZipSize != 0 {
		if err := page.CheckZipSize(o.PageSize, o.ZipSize); err != nil {
			return o, compress.Setting{}, false, fmt.Errorf("storage: %w (or 0 for an uncompressed table)", err)
		}
	}
	text := strings.TrimSpace(o.Compression)
	var set compress.Setting
	if text != "" {
		var err error
		if set, err = compress.ParseSetting(text); err != nil {
			return o, compress.Setting{}, false, fmt.Errorf("storage: transparent compression %q: %w (or \"\" / \"none\" for off)", o.Compression, err)
		}
	}
	if text == "" || set.Algorithm == compress.None {
		// The block size only matters to transparent compression; a plain
		// space records none, so it opens on any filesystem.
		o.Compression, o.FSBlockSize = "", 0
		return o, compress.Setting{}, false, nil
	}
	o.Compression = set.String()
	if o.ZipSize != 0 {
		return o, compress.Setting{}, false, fmt.Errorf("storage: transparent page compression (Compression=%q) cannot be combined with ZipSize %d: InnoDB skips it for ROW_FORMAT=COMPRESSED pages; use ZipSize 0 or Compression \"\"", o.Compression, o.ZipSize)
	}
	fromDevice := o.FSBlockSize == 0 && devBlock != 0
	if o.FSBlockSize == 0 {
		o.FSBlockSize = cmp.Or(devBlock, 4096)
	}
	if !validFSBlock(o.FSBlockSize) {
		if fromDevice {
			return o, compress.Setting{}, false, fmt.Errorf("storage: the device's block size %d is not supported as a filesystem block size: zipsim needs a power of two from 512 to 65536", devBlock)
		}
		return o, compress.Setting{}, false, fmt.Errorf("storage: filesystem block size %d is not supported: use 0 (the device's) or a power of two from 512 to 65536", o.FSBlockSize)
	}
	if devBlock != 0 && o.FSBlockSize != devBlock {
		return o, compress.Setting{}, false, blockMismatch(o.FSBlockSize, devBlock)
	}
	if o.PageSize < 2*o.FSBlockSize {
		return o, compress.Setting{}, false, fmt.Errorf("storage: transparent page compression needs a page of at least two filesystem blocks, but the page size is %d and the block %d: InnoDB disables it there; use a device with blocks of %d bytes or less", o.PageSize, o.FSBlockSize, o.PageSize/2)
	}
	return o, set, true, nil
}

// validFSBlock reports whether n is a filesystem block size zipsim handles.
func validFSBlock(n int) bool { return n >= 512 && n <= 65536 && n&(n-1) == 0 }

// blockMismatch is the error for a filesystem block size that is not the
// device's.
func blockMismatch(fsBlock, devBlock int) error {
	return fmt.Errorf("storage: filesystem block size %d differs from the device's block size %d: InnoDB takes the block size from the filesystem, and rounding to one block while the device allocates in another misreports the space saved; use FSBlockSize 0 or %d", fsBlock, devBlock, devBlock)
}

// deviceBlockSize returns dev's block size, or 0 when it does not report
// one.
func deviceBlockSize(dev Device) int {
	if b, ok := dev.(BlockSizer); ok {
		return max(b.BlockSize(), 0)
	}
	return 0
}

// physical returns the slot size for normalized options.
func (o Options) physical() int {
	if o.ZipSize != 0 {
		return o.ZipSize
	}
	return o.PageSize
}

// ErrPageOutOfRange is returned (wrapped, with the page number) by ReadPage
// and WritePage for page 0, which is the header, for page.FilNull, which
// means "no page", and by ReadPage for a page at or past Pages().
var ErrPageOutOfRange = errors.New("storage: page number out of range")

// Tablespace is a file-per-table InnoDB .ibd on a Device: slot 0 holds the
// header page, slot n ≥ 1 holds page n, each slot PhysicalSize() bytes (the
// zip size of a ROW_FORMAT=COMPRESSED table, else the page size). With
// transparent page compression the slots hold compressed images followed by
// punched holes (see transparent.go). See the package documentation for the
// concurrency rules.
type Tablespace struct {
	dev    Device
	opts   Options
	phys   int
	shift  uint          // log2(phys)
	pages  atomic.Uint32 // slots in the space, header included: FSP_SIZE
	codec  *compress.Codec
	limit  int // largest compressed length that saves a block: PageSize − FSBlockSize − 38
	stats  *stripe.Counters
	holes  slotSet
	bufs   sync.Pool // *[]byte scratch of PageSize bytes
	closed atomic.Bool

	hdrMu    sync.Mutex // serializes header writes, which Sync may do concurrently
	hdr      []byte     // header slot buffer; guarded by hdrMu
	hdrPages uint32     // page count the header on the device holds; guarded by hdrMu
}

func newTablespace(dev Device, o Options, s compress.Setting, tpc bool, pages uint32) (*Tablespace, error) {
	t := &Tablespace{dev: dev, opts: o, phys: o.physical(), stats: stripe.New(cCount)}
	t.shift = uint(bits.TrailingZeros(uint(t.phys)))
	t.pages.Store(pages)
	t.hdr = make([]byte, t.phys)
	if tpc {
		c, err := compress.Shared(s)
		if err != nil {
			return nil, fmt.Errorf("storage: %w", err)
		}
		t.codec = c
		t.limit = o.PageSize - o.FSBlockSize - page.FilHeaderSize
		size := o.PageSize
		t.bufs.New = func() any { b := make([]byte, size); return &b }
	}
	return t, nil
}

// probePunch checks that dev can punch holes, with a range past its end
// that holds no data.
func probePunch(dev Device, o Options) error {
	off := (dev.Size() + int64(o.FSBlockSize) - 1) / int64(o.FSBlockSize) * int64(o.FSBlockSize)
	if err := dev.PunchHole(off, int64(o.FSBlockSize)); err != nil {
		return fmt.Errorf("storage: transparent page compression (Compression=%q) needs hole punching, but the device cannot punch: %w; InnoDB would silently turn it off, zipsim refuses: use a filesystem with fallocate PUNCH_HOLE (ext4, XFS, btrfs), a Memory device, or Compression \"\"", o.Compression, err)
	}
	return nil
}

// Create makes a new tablespace on an empty device and leaves it open. The
// header page is written and synced before it returns. The tablespace owns
// the device from then on (Close closes it); on error the caller still does.
func Create(dev Device, opts Options) (*Tablespace, error) {
	o, s, tpc, err := opts.normalize(deviceBlockSize(dev))
	if err != nil {
		return nil, err
	}
	if n := dev.Size(); n != 0 {
		return nil, fmt.Errorf("storage: Create needs an empty device, but this one holds %d bytes; use Open for an existing tablespace", n)
	}
	if tpc {
		if err := probePunch(dev, o); err != nil {
			return nil, err
		}
	}
	t, err := newTablespace(dev, o, s, tpc, 1)
	if err != nil {
		return nil, err
	}
	if err := t.writeHeader(stateOpen); err != nil {
		return nil, err
	}
	return t, nil
}

// Open opens the tablespace on dev. It reads the first 1024 bytes to learn
// the slot size, then checks the whole header page: a missing magic or a bad
// checksum is ErrHeaderDamaged (wrapping a *page.CorruptError), a space whose
// header still says "open" is ErrNotClean. The space size comes from the
// header (FSP_SIZE); the device must hold more than all slots but the last
// and at most all of them, since a last slot stored compressed ends early.
// The device's block size (BlockSizer) must be the one the space was
// created with. With transparent compression Open scans the header of every
// slot to count the compressed ones (one small read per page, done on the
// device under any Latency wrapper so it costs no modelled time). Before
// returning it marks the header "open" and syncs, so that a crash leaves
// the space not clean; Close marks it clean again. As with Create, the
// device is the caller's to close if Open fails.
func Open(dev Device) (*Tablespace, error) {
	size := dev.Size()
	if size == 0 {
		return nil, errors.New("storage: the device is empty: there is no tablespace to open (use Create)")
	}
	probe := make([]byte, headerProbe)
	if err := dev.ReadAt(probe, 0); err != nil {
		return nil, fmt.Errorf("storage: read header: %w", err)
	}
	phys, err := probePhysical(probe)
	if err != nil {
		return nil, err
	}
	slot := make([]byte, phys)
	if err := dev.ReadAt(slot, 0); err != nil {
		return nil, fmt.Errorf("storage: read header: %w", err)
	}
	h, err := decodeHeader(slot)
	if err != nil {
		return nil, err
	}
	// Validate the header on its own first; the device is checked below.
	o, s, tpc, err := Options{
		PageSize: h.pageSize, ZipSize: h.zipSize, SpaceID: h.spaceID,
		Compression: h.compression, FSBlockSize: h.fsBlock,
	}.normalize(0)
	if err != nil {
		return nil, damaged("invalid options: %v", err)
	}
	// The setting text only has to parse: a later compress package may
	// spell the canonical form differently.
	if o.physical() != h.physical || o.PageSize != h.pageSize || o.FSBlockSize != h.fsBlock || (h.compression != "") != tpc {
		return nil, damaged("inconsistent sizes: physical %d, page %d, zip %d, filesystem block %d, compression %q", h.physical, h.pageSize, h.zipSize, h.fsBlock, h.compression)
	}
	if h.state != stateClean {
		return nil, fmt.Errorf("%w (space id %d: the header is still marked open, so the last session crashed or never called Close)", ErrNotClean, h.spaceID)
	}
	// WritePage keeps (pages−1)×phys < size ≤ pages×phys: every write lands
	// inside the space, and only a write that put bytes in a new last slot
	// grows the space (one that fails before reaching the device does not),
	// so the last slot always holds data: its first block when stored
	// compressed, all of it when whole. There is no legitimate zero-data
	// last slot, and a size outside the range is a truncated or overwritten
	// device.
	if hi := int64(h.pages) * int64(phys); size > hi {
		return nil, fmt.Errorf("storage: the device holds %d bytes, more than the %d slots of %d bytes (%d bytes) its header records: data was written past the end of the space, or the header is stale", size, h.pages, phys, hi)
	}
	if lo := int64(h.pages-1) * int64(phys); size <= lo {
		return nil, fmt.Errorf("storage: the device holds %d bytes, but its header records %d slots of %d bytes, so it needs more than %d: the tablespace is truncated", size, h.pages, phys, lo)
	}
	if db := deviceBlockSize(dev); tpc && db != 0 && db != o.FSBlockSize {
		return nil, blockMismatch(o.FSBlockSize, db)
	}
	if tpc {
		if err := probePunch(dev, o); err != nil {
			return nil, err
		}
	}
	t, err := newTablespace(dev, o, s, tpc, h.pages)
	if err != nil {
		return nil, err
	}
	if tpc {
		if err := t.scanHoles(); err != nil {
			return nil, err
		}
	}
	if err := t.writeHeader(stateOpen); err != nil {
		return nil, err
	}
	return t, nil
}

// writeHeader writes the header page with the given state and the current
// page count, and syncs.
func (t *Tablespace) writeHeader(state byte) error {
	t.hdrMu.Lock()
	err := t.writeHeaderLocked(state)
	t.hdrMu.Unlock()
	if err != nil {
		return err
	}
	if err := t.dev.Sync(); err != nil {
		return fmt.Errorf("storage: sync header: %w", err)
	}
	return nil
}

// writeHeaderLocked writes the header page, with t.hdrMu held.
func (t *Tablespace) writeHeaderLocked(state byte) error {
	pages := t.pages.Load()
	h := header{
		spaceID: t.opts.SpaceID, physical: t.phys, pageSize: t.opts.PageSize, zipSize: t.opts.ZipSize,
		fsBlock: t.opts.FSBlockSize, pages: pages, compression: t.opts.Compression, state: state,
	}
	h.encode(t.hdr)
	if err := t.dev.WriteAt(t.hdr, 0); err != nil {
		return fmt.Errorf("storage: write header: %w", err)
	}
	t.hdrPages = pages
	return nil
}

// Options returns the tablespace's options with defaults filled in and the
// compression setting in canonical form ("" when off).
func (t *Tablespace) Options() Options { return t.opts }

// PhysicalSize returns the slot size: ZipSize for a compressed table, else
// PageSize.
func (t *Tablespace) PhysicalSize() int { return t.phys }

// Device returns the device the tablespace is on.
func (t *Tablespace) Device() Device { return t.dev }

// Pages returns the number of slots, the header page included: the space
// size (FSP_SIZE) that the header records. It is at most 2^32−1, since
// page.FilNull is not a page.
func (t *Tablespace) Pages() uint32 { return t.pages.Load() }

// checkArgs validates a page number and buffer for ReadPage/WritePage.
func (t *Tablespace) checkArgs(op string, pageNo uint32, buf []byte) error {
	if t.closed.Load() {
		return ErrClosed
	}
	if pageNo == 0 {
		return fmt.Errorf("%w: %s page 0: page 0 is the tablespace header, which the tablespace manages itself; pages start at 1", ErrPageOutOfRange, op)
	}
	if pageNo == page.FilNull {
		return fmt.Errorf("%w: %s page %d: it is FIL_NULL, InnoDB's \"no page\"; the largest page number is %d", ErrPageOutOfRange, op, pageNo, uint32(page.FilNull-1))
	}
	if len(buf) != t.phys {
		return fmt.Errorf("storage: %s page %d: buffer of %d bytes, want the physical page size %d", op, pageNo, len(buf), t.phys)
	}
	return nil
}

// extend grows the space to include page pageNo after a write to it.
func (t *Tablespace) extend(pageNo uint32) {
	for {
		n := t.pages.Load()
		if pageNo < n || t.pages.CompareAndSwap(n, pageNo+1) {
			return
		}
	}
}

// writeAt writes a page image (a whole slot or a compressed one) at the
// start of slot pageNo and grows the space to include it. A failed write
// grows the space only if the device grew into the slot, so that Open's
// bounds on the device size hold either way.
func (t *Tablespace) writeAt(pageNo uint32, b []byte) error {
	off := int64(pageNo) << t.shift
	err := t.dev.WriteAt(b, off)
	if err == nil || t.dev.Size() > off {
		t.extend(pageNo)
	}
	if err != nil {
		return fmt.Errorf("storage: write page %d: %w", pageNo, err)
	}
	return nil
}

// ReadPage reads page pageNo (≥ 1, below Pages()) into buf, which must be
// PhysicalSize() bytes. A slot never written reads as zeros, and so does
// the part of a slot past the device's end. A slot stored with transparent
// compression is decompressed and its FIL header restored, so buf holds the
// page as it was given to WritePage; a slot that does not decode is a
// *page.CorruptError naming the page. ReadPage does not verify the page
// checksum: that is the caller's page.Verify.
func (t *Tablespace) ReadPage(pageNo uint32, buf []byte) error {
	if err := t.checkArgs("read", pageNo, buf); err != nil {
		return err
	}
	if n := t.Pages(); pageNo >= n {
		return fmt.Errorf("%w: read page %d: beyond the end of the space (%d pages, the header included)", ErrPageOutOfRange, pageNo, n)
	}
	if err := t.dev.ReadAt(buf, int64(pageNo)<<t.shift); err != nil {
		return fmt.Errorf("storage: read page %d: %w", pageNo, err)
	}
	s := t.stats.Stripe()
	s.Add(cReads, 1)
	s.Add(cBytesRead, uint64(len(buf)))
	if t.codec != nil && page.Fil(buf).Type() == page.TypeCompressed {
		return t.decompress(s, pageNo, buf)
	}
	return nil
}

// WritePage writes page pageNo (1 to page.FilNull−1) from buf, which must be
// PhysicalSize() bytes, extending the space if pageNo ≥ Pages() (slots
// skipped over read as zeros). The caller sets the page checksum first
// (page.SetChecksum); WritePage does not change it. With transparent
// compression the page may be stored compressed (see transparent.go); its
// FIL type must then not be page.TypeCompressed, which that mode reserves,
// and its Aux field must be 0, which that mode uses.
func (t *Tablespace) WritePage(pageNo uint32, buf []byte) error {
	if err := t.checkArgs("write", pageNo, buf); err != nil {
		return err
	}
	s := t.stats.Stripe()
	if t.codec != nil {
		return t.writeTransparent(s, pageNo, buf)
	}
	if err := t.writeAt(pageNo, buf); err != nil {
		return err
	}
	s.Add(cWrites, 1)
	s.Add(cBytesWritten, uint64(len(buf)))
	return nil
}

// Sync records the space size in the header page if the space has grown
// since the header was last written (fsp0fsp.cc updates FSP_SIZE when it
// extends a space), then syncs the device (fil_flush → os_file_flush).
func (t *Tablespace) Sync() error {
	if t.closed.Load() {
		return ErrClosed
	}
	t.stats.Add(cSyncs, 1)
	t.hdrMu.Lock()
	var err error
	if t.pages.Load() != t.hdrPages {
		err = t.writeHeaderLocked(stateOpen)
	}
	t.hdrMu.Unlock()
	if err != nil {
		return err
	}
	if err := t.dev.Sync(); err != nil {
		return fmt.Errorf("storage: sync: %w", err)
	}
	return nil
}

// Close syncs, writes the header marked clean with the space size, syncs
// again and closes the device. The tablespace cannot be used afterwards; a
// second Close returns ErrClosed. Calls in flight must have returned before
// Close is called.
func (t *Tablespace) Close() error {
	if t.closed.Swap(true) {
		return ErrClosed
	}
	var err error
	if serr := t.dev.Sync(); serr != nil {
		err = fmt.Errorf("storage: sync: %w", serr)
	} else {
		err = t.writeHeader(stateClean)
	}
	if cerr := t.dev.Close(); cerr != nil {
		err = errors.Join(err, fmt.Errorf("storage: close device: %w", cerr))
	}
	return err
}

// Stats returns a snapshot of the I/O counters.
func (t *Tablespace) Stats() IOStats {
	var v [cCount]uint64
	t.stats.SumAll(v[:])
	return IOStats{
		Reads: v[cReads], Writes: v[cWrites], BytesRead: v[cBytesRead], BytesWritten: v[cBytesWritten], Syncs: v[cSyncs],
		PagesCompressed: v[cPagesCompressed], PagesNoSaving: v[cPagesNoSaving],
		CompressTime: time.Duration(v[cCompressNanos]), Decompressions: v[cDecompressions], DecompressTime: time.Duration(v[cDecompressNanos]),
	}
}

// Usage reports the space the tablespace takes.
func (t *Tablespace) Usage() Usage {
	pages := int64(t.Pages())
	return Usage{
		Pages:          pages,
		LogicalBytes:   pages * int64(t.opts.PageSize),
		ApparentBytes:  t.dev.Size(),
		AllocatedBytes: t.dev.Allocated(),
		Holes:          t.holes.count(),
	}
}
