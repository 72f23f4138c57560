package bufpool

import (
	"unsafe"

	"github.com/zipsim/zipsim/internal/latch"
	"github.com/zipsim/zipsim/internal/stripe"
	"github.com/zipsim/zipsim/lru"
)

// hashParts is the number of page hash latches per instance,
// innodb_page_hash_locks.
const hashParts = 16

// hashPart is one partition of the page hash with its latch
// [buf_page_hash_lock_get].
type hashPart struct {
	mu latch.RWMutex // written by every fix: a line of its own
	_  [128 - latchSize]byte
	t  pageHash // read by every fix
	_  [128 - unsafe.Sizeof(pageHash{})]byte
}

// sharedLocks are the pool-wide mutexes of Legacy and Global locking.
type sharedLocks struct {
	lru, free, zipFree, zip latch.Mutex
	zipClean                lru.List[*Page]
}

func newSharedLocks(r *latch.Registry) *sharedLocks {
	s := new(sharedLocks)
	s.lru.Init(r, "LRU_list_mutex")
	s.free.Init(r, "free_list_mutex")
	s.zipFree.Init(r, "zip_free_mutex")
	s.zip.Init(r, "buf_pool_zip_mutex")
	return s
}

// instance is one buffer pool instance [buf_pool_t]. Lock order: lruMu,
// then a page hash latch, then zipMu, then freeMu or zipFreeMu; frame
// latches are taken without any of these held, except by a fixer that
// has just attached a frame under them.
type instance struct {
	pool   *Pool
	id     int
	frames []frame
	global bool // Global locking: every fix takes lruMu

	// Split: the instance's own mutexes. Legacy, Global: the pool's shared ones.
	own       sharedLocks
	lruMu     *latch.Mutex // LRU, unzip_LRU, zip_clean, eviction
	freeMu    *latch.Mutex // free frames and the descriptor free list
	zipFreeMu *latch.Mutex // the buddy allocator
	zipMu     *latch.Mutex // descriptors of compressed-only pages

	lru      lru.Policy[*Page]
	unzip    lru.List[*Page]
	zipClean *lru.List[*Page] // Legacy only

	hash []hashPart // hashParts partitions, in their own allocation: 4 KiB, so 4 KiB-aligned

	free     []int32 // free frame indexes
	descFree *Page   // free descriptors
	buddy    buddy

	// Scan state, guarded by lruMu: the visit functions (bound once, so a
	// scan allocates nothing) report through these fields.
	scanMax        int
	scanFreed      bool
	scanFlush      *Page
	scanFlushFrame *frame // scanFlush's frame, latched shared; nil if compressed-only
	scanStripe     stripe.Stripe
	visitUnzipFn   func(*lruNode) bool
	visitLRUFn     func(*lruNode) bool

	stats *stripe.Counters
}

func newInstance(p *Pool, id, frames int, shared *sharedLocks) (*instance, error) {
	size := p.opts.PageSize
	in := &instance{pool: p, id: id, frames: make([]frame, frames), free: make([]int32, frames), stats: stripe.New(nStats)}
	in.global = p.opts.Locking == Global
	var arena []byte // PerMiss frames get memory as they leave the free list
	if p.opts.Frames == Arena {
		arena = newArena(in.frames, frames*size)
	}
	for i := range in.frames {
		f := &in.frames[i]
		if arena != nil {
			f.buf = arena[i*size : (i+1)*size : (i+1)*size]
		}
		f.idx = int32(i)
		f.latch.Init(p.latches, "block_lock")
		in.free[i] = int32(frames - 1 - i) // pop from the end: frame 0 first
	}
	if shared != nil {
		in.lruMu, in.freeMu, in.zipFreeMu, in.zipMu = &shared.lru, &shared.free, &shared.zipFree, &shared.zip
		in.zipClean = &shared.zipClean
	} else {
		in.own.lru.Init(p.latches, "LRU_list_mutex")
		in.own.free.Init(p.latches, "free_list_mutex")
		in.own.zipFree.Init(p.latches, "zip_free_mutex")
		in.own.zip.Init(p.latches, "zip_mutex")
		in.lruMu, in.freeMu, in.zipFreeMu, in.zipMu = &in.own.lru, &in.own.free, &in.own.zipFree, &in.own.zip
	}
	in.hash = make([]hashPart, hashParts)
	for i := range in.hash {
		in.hash[i].mu.Init(p.latches, "page_hash_latch")
		in.hash[i].t.init(frames / hashParts)
	}
	var err error
	if in.lru, err = p.newPolicy(frames); err != nil {
		return nil, err
	}
	in.buddy.init(in, size)
	in.visitUnzipFn, in.visitLRUFn = in.visitUnzip, in.visitLRU
	return in, nil
}

// part returns the page hash partition of id.
func (in *instance) part(id PageID) *hashPart {
	h := uint64(id.Space)*0x9e3779b97f4a7c15 ^ uint64(id.PageNo)*0xc2b2ae3d27d4eb4f
	return &in.hash[(h>>32)%hashParts]
}

// allocDesc takes a descriptor from the free list or makes new ones. Only
// compressed-only pages need more descriptors than frames, so the slab
// grows only while the pool fills with compressed pages.
func (in *instance) allocDesc() *Page {
	in.freeMu.Lock()
	p := in.descFree
	if p != nil {
		in.descFree = p.nextFree
	}
	in.freeMu.Unlock()
	if p == nil {
		const chunk = 64
		slab := make([]Page, chunk)
		in.freeMu.Lock()
		for i := 1; i < chunk; i++ {
			slab[i].nextFree = in.descFree
			in.descFree = &slab[i]
		}
		in.freeMu.Unlock()
		p = &slab[0]
	}
	p.nextFree = nil
	p.inst = in
	p.zunit = -1
	p.lruNode.Value, p.unzipNode.Value, p.cleanNode.Value = p, p, p
	return p
}

// freeDesc returns a descriptor to the free list; the caller holds freeMu.
func (in *instance) freeDescLocked(p *Page) {
	*p = Page{nextFree: in.descFree}
	in.descFree = p
}
