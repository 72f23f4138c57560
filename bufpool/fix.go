package bufpool

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/zipsim/zipsim/internal/stripe"
	"github.com/zipsim/zipsim/page"
	"github.com/zipsim/zipsim/storage"
)

// ErrExists is returned by Create for a page the pool already holds.
var ErrExists = errors.New("bufpool: page already in the pool")

// maxFixAttempts bounds retries of a fix that keeps racing with others
// (a page evicted or failed to load between lookup and latch).
const maxFixAttempts = 1000

// Fix finds the page, reading it from its tablespace if needed, and returns
// a guard holding it pinned and latched in mode [buf_page_get_gen]. A page
// of a compressed table that is in the pool only compressed gets a frame
// and is decompressed first, with the frame latched exclusively so that
// concurrent fixers wait; that counts as one UNCOMPRESS_OPS. ctx is checked
// while the pool waits for a frame.
func (p *Pool) Fix(ctx context.Context, id PageID, mode Mode) (Guard, error) {
	if err := p.checkID("fix", id); err != nil {
		return Guard{}, err
	}
	in := p.instanceOf(id)
	st := in.stats.Stripe()
	hp := in.part(id)
	for attempt := 0; attempt < maxFixAttempts; attempt++ {
		in.lockForFix()
		hp.mu.RLock()
		pg := hp.t.get(id)
		if pg == nil {
			hp.mu.RUnlock()
			in.unlockForFix()
			g, err := in.read(ctx, id, mode, st, false)
			if errors.Is(err, errRetry) {
				continue
			}
			return g, err
		}
		if pg.state == stateZipOnly {
			in.pin(pg)
			hp.mu.RUnlock()
			in.unlockForFix()
			if !awaitRead(pg) { // FixZip is reading it
				in.unfix(pg)
				continue
			}
			g, err := in.attachAndUnzip(ctx, pg, mode, st)
			if errors.Is(err, errRetry) {
				continue
			}
			return g, err
		}
		pg.fix.Add(1)
		f := pg.frame // a pinned page keeps its frame unless its load fails
		hp.mu.RUnlock()
		in.unlockForFix()
		if g, ok := in.latch(pg, f, mode); ok {
			st.Add(cHitFrame, 1)
			return g, nil
		}
	}
	return Guard{}, fmt.Errorf("bufpool: page %v: gave up after %d attempts to fix it while others evicted or failed to load it", id, maxFixAttempts)
}

// Peek fixes the page as Fix does when it is in the pool with a frame,
// and otherwise reports false at once, reading and decompressing nothing
// [buf_page_get_known_nowait; BUF_PEEK_IF_IN_POOL]. The B-tree's adaptive
// hash index checks its guesses through it: a guess that needs I/O or an
// inflate is worth no more than a descent. It waits for the latch, as Fix
// does.
func (p *Pool) Peek(id PageID, mode Mode) (Guard, bool) {
	if p.checkID("peek", id) != nil {
		return Guard{}, false
	}
	in := p.instanceOf(id)
	hp := in.part(id)
	in.lockForFix()
	hp.mu.RLock()
	pg := hp.t.get(id)
	if pg == nil || pg.state != stateFrame {
		hp.mu.RUnlock()
		in.unlockForFix()
		return Guard{}, false
	}
	pg.fix.Add(1)
	f := pg.frame
	hp.mu.RUnlock()
	in.unlockForFix()
	g, ok := in.latch(pg, f, mode)
	if ok {
		in.stats.Stripe().Add(cHitFrame, 1)
	}
	return g, ok
}

// Contains reports whether the page is in the pool in any state: with a
// frame, compressed only, or being read [buf_page_peek]. The change buffer
// asks it before buffering a change, under its own shard latch, so that a
// page read after the answer finds the change waiting for it.
func (p *Pool) Contains(id PageID) bool {
	if p.checkID("contains", id) != nil {
		return false
	}
	hp := p.instanceOf(id).part(id)
	hp.mu.RLock()
	ok := hp.t.get(id) != nil
	hp.mu.RUnlock()
	return ok
}

// lockForFix takes the buffer pool mutex that Global locking holds over a
// fix's lookup and pin; unlockForFix lets it go.
func (in *instance) lockForFix() {
	if in.global {
		in.lruMu.Lock()
	}
}

func (in *instance) unlockForFix() {
	if in.global {
		in.lruMu.Unlock()
	}
}

// pin adds a fix to pg, found under its page hash latch held shared. The
// descriptor of a compressed-only page is guarded by the zip mutex, which
// every fix of one takes [buf_page_get_mutex].
func (in *instance) pin(pg *Page) {
	if pg.state == stateZipOnly {
		in.zipMu.Lock()
		pg.fix.Add(1)
		in.zipMu.Unlock()
		return
	}
	pg.fix.Add(1)
}

// youngAdder is a policy that distinguishes pages created in the pool,
// which InnoDB puts at the LRU head, from pages read, which go to the
// midpoint [buf_page_create, buf_LRU_add_block(old=FALSE)].
type youngAdder interface {
	AddYoung(n *lruNode, now time.Time)
}

// addLRU puts a page entering the pool into the policy: at the head when
// it was created, at the midpoint when it was read. The caller holds the
// LRU mutex.
func (in *instance) addLRU(pg *Page, created bool) {
	if y, ok := in.lru.(youngAdder); ok && created {
		y.AddYoung(&pg.lruNode, in.pool.opts.Clock())
		return
	}
	in.lru.Add(&pg.lruNode, in.pool.opts.Clock())
}

// freedClockAdvancer is a policy whose freed-page clock also counts frames
// freed from unzip_LRU [buf_LRU_block_remove_hashed].
type freedClockAdvancer interface {
	AdvanceFreedPageClock()
}

// checkID rejects calls on a closed pool and page numbers no tablespace
// stores; page 0 is also the page hash's empty-slot key.
func (p *Pool) checkID(op string, id PageID) error {
	if p.closed.Load() {
		return ErrClosed
	}
	if id.PageNo == 0 || id.PageNo == page.FilNull {
		return fmt.Errorf("%w: %s page %v: pages are numbered 1..%d; page 0 is the tablespace header", storage.ErrPageOutOfRange, op, id, uint32(page.FilNull-1))
	}
	return nil
}

// errRetry tells Fix to look the page up again.
var errRetry = errors.New("bufpool: retry")

// latch latches a pinned page's frame and checks that the frame still
// belongs to the page, which a failed load may have undone meanwhile.
func (in *instance) latch(pg *Page, f *frame, mode Mode) (Guard, bool) {
	if mode == Exclusive {
		f.latch.Lock()
	} else {
		f.latch.RLock()
	}
	if f.page.Load() != pg {
		if mode == Exclusive {
			f.latch.Unlock()
		} else {
			f.latch.RUnlock()
		}
		in.unfix(pg)
		return Guard{}, false
	}
	in.touch(pg)
	return Guard{pg: pg, f: f, mode: mode}, true
}

// touch records the access in the replacement policy; only a page that
// must move takes the LRU mutex [buf_page_make_young_if_needed].
func (in *instance) touch(pg *Page) {
	if !in.lru.Access(&pg.lruNode, in.pool.opts.Clock) {
		return
	}
	in.lruMu.Lock()
	if pg.lruNode.InList() {
		in.lru.Promote(&pg.lruNode, in.pool.opts.Clock())
		if pg.unzipNode.InList() {
			in.unzip.MoveToFront(&pg.unzipNode)
		}
	}
	in.lruMu.Unlock()
}

// unfix drops a pin. The last pin of a page whose load failed frees its
// descriptor; otherwise the caller must not touch pg after this.
func (in *instance) unfix(pg *Page) {
	if pg.fix.Add(-1) == orphan {
		in.freeMu.Lock()
		in.freeDescLocked(pg)
		in.freeMu.Unlock()
	}
}

// attachAndUnzip gives a pinned compressed-only page a frame and
// decompresses it, or copies it if it is not an index page (see inflate)
// [buf_page_get_gen, BUF_BLOCK_ZIP_PAGE case: buf_relocate,
// buf_unzip_LRU_add_block, buf_zip_decompress].
func (in *instance) attachAndUnzip(ctx context.Context, pg *Page, mode Mode, st stripe.Stripe) (Guard, error) {
	f, err := in.getFreeFrame(ctx, st)
	if err != nil {
		in.unfix(pg)
		return Guard{}, err
	}
	hp := in.part(pg.id)
	in.lruMu.Lock()
	hp.mu.Lock()
	in.zipMu.Lock()
	if pg.state != stateZipOnly {
		// Another fixer attached a frame first: use theirs.
		in.zipMu.Unlock()
		hp.mu.Unlock()
		in.pushFree(f)
		in.lruMu.Unlock()
		in.unfix(pg)
		return Guard{}, errRetry
	}
	// Latched before it is published: concurrent fixers of pg wait here
	// until the page is decompressed, and a fixer still holding f from
	// an earlier page finds f.page changed once it gets the latch. A free
	// frame's latch is held by no one but such a fixer, briefly.
	f.latch.Lock()
	f.hashInfo.Store(0)
	f.page.Store(pg)
	pg.frame = f
	pg.state = stateFrame
	in.unzip.PushFront(&pg.unzipNode)
	if in.zipClean != nil && pg.cleanNode.InList() {
		in.zipClean.Remove(&pg.cleanNode)
	}
	in.zipMu.Unlock()
	hp.mu.Unlock()
	in.lruMu.Unlock()

	unzipped, err := in.inflate(pg, f)
	if err != nil {
		in.detach(pg, f, st)
		f.latch.Unlock()
		in.unfix(pg)
		return Guard{}, err
	}
	if unzipped {
		st.Add(cHitUnzip, 1)
	} else {
		st.Add(cHitZip, 1)
	}
	if mode == Shared {
		f.latch.Unlock()
		f.latch.RLock()
	}
	in.touch(pg)
	return Guard{pg: pg, f: f, mode: mode}, nil
}

// detach takes the frame back from a page whose decompression failed; the
// page stays in the pool compressed-only, back on zip_clean if clean. The
// caller holds f's latch exclusively.
func (in *instance) detach(pg *Page, f *frame, st stripe.Stripe) {
	hp := in.part(pg.id)
	in.lruMu.Lock()
	hp.mu.Lock()
	in.zipMu.Lock()
	in.unzip.Remove(&pg.unzipNode)
	pg.frame = nil
	f.page.Store(nil)
	pg.state = stateZipOnly
	if in.zipClean != nil && !pg.dirty.Load() {
		in.scanStripe = st
		in.insertZipClean(pg)
	}
	in.zipMu.Unlock()
	hp.mu.Unlock()
	in.pushFree(f)
	in.lruMu.Unlock()
}

// read brings a page into the pool [buf_read_page → buf_page_init_for_read,
// buf_LRU_add_block]: a descriptor, a zip block on compressed tables and a
// frame, inserted into the page hash and at the LRU midpoint with the frame
// latched exclusively and the read marked in flight (for FixZip, which
// latches no frame), then the I/O and, on compressed tables, the first
// decompression (InnoDB reads compressed-only and decompresses on the fix
// that follows; this is that fix; Legacy walks zip_clean for the
// compressed-only moment, as buf_page_init_for_read did in the 5.1
// plugin before Bug #61341's fix). With create set it makes a new page
// instead of reading one [buf_page_create].
func (in *instance) read(ctx context.Context, id PageID, mode Mode, st stripe.Stripe, create bool) (Guard, error) {
	sp, err := in.pool.space(id.Space)
	if err != nil {
		return Guard{}, err
	}
	pg := in.allocDesc()
	pg.id, pg.space = id, sp
	pg.fix.Store(1) // pinned from the start, so the buddy allocator never moves its block
	if sp.zipSize != 0 {
		if err := in.allocZip(ctx, pg, st); err != nil {
			in.releaseDesc(pg)
			return Guard{}, err
		}
	}
	f, err := in.getFreeFrame(ctx, st)
	if err != nil {
		in.releaseDesc(pg)
		return Guard{}, err
	}
	hp := in.part(id)
	in.lruMu.Lock()
	hp.mu.Lock()
	if hp.t.get(id) != nil {
		hp.mu.Unlock()
		in.pushFree(f)
		in.lruMu.Unlock()
		in.releaseDesc(pg)
		if create {
			return Guard{}, ErrExists // expected by callers that reuse page numbers: not wrapped, so it costs no allocation
		}
		return Guard{}, errRetry
	}
	f.latch.Lock() // before publishing, as in attachAndUnzip
	if !create {
		beginRead(pg)
	}
	pg.frame = f
	f.hashInfo.Store(0)
	f.page.Store(pg)
	pg.state = stateFrame
	hp.t.put(id, pg)
	in.addLRU(pg, create)
	if pg.zip != nil {
		in.unzip.PushFront(&pg.unzipNode)
		if in.zipClean != nil && !create {
			// The 5.1 plugin reads a compressed page compressed-only and
			// puts it on zip_clean from the LRU midpoint, walking towards
			// the tail past every page with a frame, before the fix that
			// follows takes it off again to decompress it: the walk Bug
			// #61341 measured at 50,000 steps and more.
			in.zipMu.Lock()
			in.scanStripe = st
			st.Add(cZipCleanReadSteps, in.insertZipClean(pg))
			st.Add(cZipCleanReadInserts, 1)
			in.zipClean.Remove(&pg.cleanNode)
			in.zipMu.Unlock()
		}
	}
	hp.mu.Unlock()
	in.lruMu.Unlock()

	if create {
		clear(f.buf)
		if pg.zip != nil {
			clear(pg.zip)
		}
		pg.dirty.Store(true)
		st.Add(cCreates, 1)
	} else {
		err := in.load(pg, f, st)
		if err != nil {
			in.drop(pg)
		}
		endRead(pg)
		if err != nil {
			f.latch.Unlock()
			in.unfix(pg)
			return Guard{}, err
		}
	}
	if mode == Shared {
		f.latch.Unlock()
		f.latch.RLock()
	}
	in.touch(pg)
	return Guard{pg: pg, f: f, mode: mode}, nil
}

// load reads a page from storage into its new frame (and zip block).
func (in *instance) load(pg *Page, f *frame, st stripe.Stripe) error {
	if pg.zip == nil {
		return in.readBlock(pg, f.buf, st)
	}
	if err := in.readBlock(pg, pg.zip, st); err != nil {
		return err
	}
	if _, err := in.inflate(pg, f); err != nil {
		return fmt.Errorf("bufpool: read page %v: %w", pg.id, err)
	}
	return nil
}

// readBlock reads a page's image from storage into buf, its zip block on a
// compressed table, else its frame, and verifies the checksum
// [buf_read_page_low, buf_page_io_complete].
func (in *instance) readBlock(pg *Page, buf []byte, st stripe.Stripe) error {
	if err := pg.space.ts.ReadPage(pg.id.PageNo, buf); err != nil {
		return fmt.Errorf("bufpool: read page %v: %w", pg.id, err)
	}
	in.pool.stat.io()
	st.Add(cReads, 1)
	if err := page.Verify(buf); err != nil {
		return fmt.Errorf("bufpool: read page %v: %w", pg.id, err)
	}
	return nil
}

// drop removes a page whose load failed, with or without a frame. Fixers
// that found it meanwhile hold pins: the descriptor is freed by the last
// unfix.
func (in *instance) drop(pg *Page) {
	hp := in.part(pg.id)
	in.lruMu.Lock()
	hp.mu.Lock()
	zipOnly := pg.state == stateZipOnly
	if zipOnly {
		in.zipMu.Lock()
	}
	f := in.removePage(hp, pg, false)
	pg.fix.Or(orphan)
	if zipOnly {
		in.zipMu.Unlock()
	}
	hp.mu.Unlock()
	if f != nil {
		in.pushFree(f)
	}
	in.freeZip(pg)
	in.lruMu.Unlock()
}

// releaseDesc frees a descriptor that is not, or no longer, in the page
// hash and the lists, with its zip block.
func (in *instance) releaseDesc(pg *Page) {
	in.freeZip(pg)
	in.freeMu.Lock()
	in.freeDescLocked(pg)
	in.freeMu.Unlock()
}

// Create makes a new page in the pool without reading it, zeroed, dirty and
// latched exclusively [buf_page_create]. The caller formats it (and on a
// compressed table compresses it into Zip) before releasing it.
func (p *Pool) Create(ctx context.Context, id PageID) (Guard, error) {
	if err := p.checkID("create", id); err != nil {
		return Guard{}, err
	}
	in := p.instanceOf(id)
	return in.read(ctx, id, Exclusive, in.stats.Stripe(), true)
}
