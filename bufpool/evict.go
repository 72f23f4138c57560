package bufpool

import (
	"context"
	"fmt"
	"time"

	"github.com/zipsim/zipsim/internal/stripe"
)

// Scan limits [buf_LRU_free_from_common_LRU_list].
const (
	lruSearchScanThreshold = 100 // BUF_LRU_SEARCH_SCAN_THRESHOLD: common LRU, first try
	// stuckTries is how many tries in a row may free nothing before the
	// pool gives up. InnoDB warns after 20 iterations and keeps trying;
	// zipsim returns ErrNoFreeFrame. Tries that free a page's zip block
	// count as progress even if no frame comes back yet: the buddy
	// allocator merges blocks into frames only once enough are free.
	stuckTries = 30
)

// pushFree returns a frame to the free list.
func (in *instance) pushFree(f *frame) {
	in.freeMu.Lock()
	in.releaseFrame(f) // under freeMu, which Check reads free frames under
	in.free = append(in.free, f.idx)
	in.freeMu.Unlock()
}

// getFreeFrame returns a free frame, evicting to make one when the free
// list is empty [buf_LRU_get_free_block]: the first try scans unzip_LRU up
// to the scan depth and the common LRU up to 100 pages; later tries scan
// everything; when nothing clean could be freed, one dirty page from the
// LRU tail is written first [buf_flush_single_page_from_LRU]; tries after
// the second sleep 10 ms.
func (in *instance) getFreeFrame(ctx context.Context, st stripe.Stripe) (*frame, error) {
	stuck := 0
	for try := 0; ; try++ {
		in.freeMu.Lock()
		if n := len(in.free); n > 0 {
			f := &in.frames[in.free[n-1]]
			in.free = in.free[:n-1]
			in.takeFrame(f)
			in.freeMu.Unlock()
			return f, nil
		}
		in.freeMu.Unlock()
		if try == 0 {
			in.pool.wakeCleaner()
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if stuck == stuckTries {
			return nil, fmt.Errorf("%w: instance %d has %d frames, all fixed or dirty beyond reach after %d tries", ErrNoFreeFrame, in.id, len(in.frames), try)
		}
		freed, flush, flushFrame := in.scanAndFree(try > 0, st)
		switch {
		case freed:
			stuck = 0
		case flush != nil:
			stuck = 0
			err := in.flushVictim(flush, flushFrame, st, flushSingle)
			in.unfix(flush)
			if err != nil {
				return nil, err
			}
		default:
			stuck++
			if try > 1 {
				time.Sleep(10 * time.Millisecond)
			}
		}
	}
}

// scanAndFree looks for a victim under the LRU mutex, held for the whole
// scan [buf_LRU_scan_and_free_block]. It reports whether it freed something
// (a frame, or a page whose zip block went back to the buddy allocator)
// and, when it freed nothing, may return a dirty page it pinned and
// io-fixed for the caller to write, with its frame latched shared (nil for
// a compressed-only page).
func (in *instance) scanAndFree(all bool, st stripe.Stripe) (freed bool, flush *Page, flushFrame *frame) {
	now := in.pool.opts.Clock()
	in.lruMu.Lock()
	defer in.lruMu.Unlock()
	st.Add(cScans, 1)
	in.scanStripe = st
	in.scanFlush, in.scanFlushFrame = nil, nil
	scanned := 0
	if in.evictFromUnzip(now) {
		depth := in.pool.opts.LRUScanDepth
		if all {
			depth = 0
		}
		in.scanFreed = false
		scanned += in.unzip.Scan(depth, in.visitUnzipFn)
		freed = in.scanFreed
	}
	if !freed {
		limit := lruSearchScanThreshold
		if all {
			limit = 0
		}
		in.scanFreed = false
		scanned += in.lru.Scan(limit, in.visitLRUFn)
		freed = in.scanFreed
	}
	st.Add(cScanned, uint64(scanned))
	in.scanMax = max(in.scanMax, scanned)
	if freed && in.scanFlush != nil {
		pg := in.scanFlush
		if f := in.scanFlushFrame; f != nil {
			f.latch.RUnlock()
		}
		pg.io.Unlock()
		in.unfix(pg)
		in.scanFlush, in.scanFlushFrame = nil, nil
	}
	return freed, in.scanFlush, in.scanFlushFrame
}

// flushVictim writes the dirty page a scan pinned and io-fixed
// [buf_flush_single_page_from_LRU], with the frame latch the scan took
// without waiting. A compressed-only page is latched now, also without
// waiting; when that fails the write is skipped and the next try scans
// again.
func (in *instance) flushVictim(pg *Page, f *frame, st stripe.Stripe, kind flushKind) error {
	if f == nil {
		var ok bool
		if f, ok = in.latchForWrite(pg, false); !ok {
			pg.io.Unlock()
			return nil
		}
	}
	return in.writeLatched(pg, f, st, kind)
}

// evictFromUnzip decides whether to free only a frame: when unzip_LRU holds
// more than 10% of the LRU and the load looks I/O-bound or nothing has been
// evicted yet [buf_LRU_evict_from_unzip_LRU]. The caller holds the LRU
// mutex.
func (in *instance) evictFromUnzip(now time.Time) bool {
	n := in.unzip.Len()
	if n == 0 || n <= in.lru.Len()/10 {
		return false
	}
	if in.lru.Stats().FreedPageClock == 0 {
		return true
	}
	return in.pool.stat.ioBound(now)
}

// visitUnzip frees the frame of an unfixed page with both copies; the
// page stays in the LRU compressed-only, dirty or not, because its zip
// image is current [buf_LRU_free_page with zip=false].
func (in *instance) visitUnzip(n *lruNode) bool {
	pg := n.Value
	hp := in.part(pg.id)
	hp.mu.Lock()
	if pg.fix.Load() != 0 {
		hp.mu.Unlock()
		return false
	}
	f := pg.frame
	in.zipMu.Lock()
	in.unzip.Remove(&pg.unzipNode)
	pg.frame = nil
	f.page.Store(nil)
	pg.state = stateZipOnly
	if in.zipClean != nil && !pg.dirty.Load() {
		in.insertZipClean(pg)
	}
	in.zipMu.Unlock()
	hp.mu.Unlock()
	if a, ok := in.lru.(freedClockAdvancer); ok {
		a.AdvanceFreedPageClock()
	}
	in.pushFree(f)
	in.scanStripe.Add(cEvictFrame, 1)
	in.scanFreed = true
	return true
}

// insertZipClean puts a page that just became compressed-only and clean on
// the zip_clean list in LRU order, finding its place by walking the LRU
// towards the tail, as the 5.1 plugin's buf_LRU_insert_zip_clean does under
// the pool mutex: the O(N) step behind MySQL Bug #61341 and seed 000.
func (in *instance) insertZipClean(pg *Page) (steps uint64) {
	b := pg.lruNode.Next()
	steps = 1
	for b != nil && !b.Value.cleanNode.InList() {
		b = b.Next()
		steps++
	}
	in.scanStripe.Add(cZipCleanInserts, 1)
	in.scanStripe.Add(cZipCleanSteps, steps)
	if b == nil {
		in.zipClean.PushBack(&pg.cleanNode)
		return steps
	}
	if prev := b.Value.cleanNode.Prev(); prev != nil {
		in.zipClean.InsertAfter(&pg.cleanNode, prev)
	} else {
		in.zipClean.PushFront(&pg.cleanNode)
	}
	return steps
}

// visitLRU frees a clean, unfixed page entirely [buf_LRU_free_page with
// zip=true]. The first dirty unfixed page it meets that no one is writing
// and whose frame latch is free is pinned, io-fixed and latched shared for
// the caller to write if nothing can be freed.
func (in *instance) visitLRU(n *lruNode) bool {
	pg := n.Value
	hp := in.part(pg.id)
	hp.mu.Lock()
	zipOnly := pg.state == stateZipOnly
	if zipOnly {
		in.zipMu.Lock() // a compressed-only descriptor is examined under the zip mutex
	}
	ok := pg.fix.Load() == 0 && !pg.dirty.Load()
	if !ok {
		if in.scanFlush == nil && pg.fix.Load() == 0 && pg.dirty.Load() && pg.io.TryLock() {
			// The caller may hold other pages' latches: take this one's
			// only if it is free now, never wait for it.
			if f := pg.frame; f == nil || f.latch.TryRLock() {
				pg.fix.Add(1)
				in.scanFlush, in.scanFlushFrame = pg, f
			} else {
				pg.io.Unlock()
			}
		}
		if zipOnly {
			in.zipMu.Unlock()
		}
		hp.mu.Unlock()
		return false
	}
	f := in.removePage(hp, pg, true)
	if zipOnly {
		in.zipMu.Unlock()
	}
	hp.mu.Unlock()
	if f != nil {
		in.pushFree(f)
	}
	in.freeZip(pg)
	in.freeMu.Lock()
	in.freeDescLocked(pg)
	in.freeMu.Unlock()
	in.scanStripe.Add(cEvictPage, 1)
	in.scanFreed = true
	return true
}

// removePage takes an unpinned page (or one whose load failed) out of the
// page hash and every list and detaches its frame, which it returns for
// the free list. evicted says whether the removal advances the policy's
// freed-page clock. The caller holds the LRU mutex, the page's hash
// partition and, for a compressed-only page, the zip mutex.
func (in *instance) removePage(hp *hashPart, pg *Page, evicted bool) *frame {
	hp.t.del(pg.id)
	in.lru.Remove(&pg.lruNode, evicted)
	if pg.unzipNode.InList() {
		in.unzip.Remove(&pg.unzipNode)
	}
	if in.zipClean != nil && pg.cleanNode.InList() {
		in.zipClean.Remove(&pg.cleanNode)
	}
	f := pg.frame
	pg.frame = nil
	if f != nil {
		f.page.Store(nil)
	}
	return f
}

// allocZip gives a pinned descriptor a zip block of its space's size
// [buf_buddy_alloc]: from the buddy free lists, else carved from a free
// frame, which may need an eviction.
func (in *instance) allocZip(ctx context.Context, pg *Page, st stripe.Stripe) error {
	b := &in.buddy
	zs := pg.space.zipSize
	cls := b.classOf(zs)
	in.zipFreeMu.Lock()
	u := int32(-1)
	var spare *frame
	if cls < b.classes {
		u = b.alloc(cls)
	}
	if u < 0 {
		in.zipFreeMu.Unlock() // a frame may need an eviction, which ranks above
		f, err := in.getFreeFrame(ctx, st)
		if err != nil {
			return err
		}
		in.zipFreeMu.Lock()
		if cls < b.classes {
			u = b.alloc(cls)
		}
		if u >= 0 {
			spare = f // someone freed a block meanwhile
		} else {
			u = b.carve(f, cls)
		}
	}
	// Set under zipFreeMu: a buddy merge reads an owner's block size.
	b.owner[u] = pg
	pg.zunit = u
	pg.zip = b.block(u, cls)
	in.zipFreeMu.Unlock()
	if spare != nil {
		in.pushFree(spare) // after zipFreeMu: the free-list mutexes do not nest
	}
	return pg.zipd.Init(pg.zip)
}

// freeZip returns a page's zip block to the buddy allocator, and a frame
// that becomes wholly free to the free list.
// The block is read under zipFreeMu: once the page is out of the page
// hash and unpinned, a merge elsewhere may relocate it until then.
func (in *instance) freeZip(pg *Page) {
	if pg.space == nil || pg.space.zipSize == 0 {
		return
	}
	b := &in.buddy
	in.zipFreeMu.Lock()
	if pg.zunit < 0 {
		in.zipFreeMu.Unlock()
		return
	}
	f := b.free(pg.zunit, b.classOf(len(pg.zip)))
	pg.zunit, pg.zip = -1, nil
	in.zipFreeMu.Unlock()
	if f != nil {
		in.pushFree(f)
	}
}
