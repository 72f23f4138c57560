package bufpool

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/zipsim/zipsim/internal/latch"
	"github.com/zipsim/zipsim/lru"
	"github.com/zipsim/zipsim/page"
)

// lruNode is a page's node in a replacement list.
type lruNode = lru.Node[*Page]

// PageID names a page: its tablespace and page number.
type PageID struct {
	Space  uint32
	PageNo uint32
}

// String formats the id as space:page_no.
func (id PageID) String() string { return fmt.Sprintf("%d:%d", id.Space, id.PageNo) }

// Page states [buf_page_state].
const (
	// stateZipOnly: only the compressed copy, in a buddy block
	// (BUF_BLOCK_ZIP_PAGE / ZIP_DIRTY). In the LRU, not in unzip_LRU.
	stateZipOnly uint8 = iota + 1
	// stateFrame: the page has a frame (BUF_BLOCK_FILE_PAGE). On a
	// compressed table it has both copies and is in unzip_LRU too.
	stateFrame
)

// Page is a page descriptor, InnoDB's buf_page_t: the pool's record of one
// page, whether it has a frame or only a compressed copy. Its fields are
// the pool's; a Policy sees it only through the lru nodes.
type Page struct {
	// fix is the buffer-fix count: guards pin the page, and a pinned page
	// is never evicted, relocated or detached from its frame. It changes
	// under the page hash latch (shared is enough) and is read under the
	// exclusive one. The orphan bit marks a page whose load failed: out of
	// the hash and the lists, its descriptor is freed by the unfix that
	// leaves only that bit, decided in one atomic step. The ioRead bit
	// marks a read in flight (see ioread.go). It has a cache line
	// of its own: every fix writes it, while the fields below are read by
	// every fix and written rarely.
	fix atomic.Int32
	_   [124]byte

	id    PageID
	space *space
	state uint8 // guarded by the page hash latch (writes also hold the LRU mutex)

	// dirty is set by exclusive guards and cleared by flushes.
	dirty atomic.Bool
	// io is held from the copy of a page for writing until the write is
	// done, so that two writes of one page never overlap and the newer
	// copy always lands last [io_fix = BUF_IO_WRITE], and by a read from
	// before the page is published until its block is in [BUF_IO_READ].
	io sync.Mutex

	frame *frame    // stateFrame only
	zip   []byte    // the compressed copy on compressed spaces, a buddy block
	zipd  page.Zip  // its page_zip_des_t
	zunit int32     // the zip block's first buddyUnit in the instance arena, -1 if none
	inst  *instance // the owning instance

	lruNode   lru.Node[*Page] // the common LRU (the Policy)
	unzipNode lru.Node[*Page] // unzip_LRU: pages with both copies
	cleanNode lru.Node[*Page] // zip_clean, Legacy only: clean compressed-only pages in LRU order

	nextFree *Page // descriptor free list
	_        [pagePad]byte
}

// pagePad rounds a Page up to whole 128-byte lines, so that in a slab no
// page's fix count shares a line with its neighbour's fields; TestLayout
// checks it.
const pagePad = 72

// Fix-count bits above the pins: a page whose load failed, and a page
// whose read is in flight.
const (
	orphan = 1 << 30
	ioRead = 1 << 29
)

// ID returns the page's id.
func (p *Page) ID() PageID { return p.id }

// frame is an uncompressed page frame, InnoDB's buf_block_t: 16 KiB (the
// page size) of the instance arena and the page latch. The latch, which
// every fix writes, has a cache line of its own, apart from the fields
// every fix reads.
type frame struct {
	latch latch.RWMutex // block->lock: shared for readers, exclusive for writers and decompression
	_     [128 - latchSize]byte

	buf []byte
	// page is nil when the frame is free or carved into zip blocks. It is
	// set under the LRU mutex, the page hash latch and, when a page gets
	// the frame, the frame latch held exclusively, so that a fixer whose
	// frame pointer went stale sees the change when it gets the latch.
	page  atomic.Pointer[Page]
	idx   int32
	buddy bool // carved into zip blocks by the buddy allocator
	// hashInfo is the B-tree's word about the page in this frame (see
	// Guard.HashInfo); written a few times per page, read by guesses.
	hashInfo atomic.Uint32
	_        [128 - 24 - 8 - 4 - 1 - 3 - 4]byte
}

// latchSize is the size of latch.RWMutex, checked by TestLayout.
const latchSize = 112
