package bufpool

import (
	"errors"
	"fmt"

	"github.com/zipsim/zipsim/internal/stripe"
	"github.com/zipsim/zipsim/page"
)

// writePage writes a pinned page to its tablespace [buf_flush_write_block_low],
// waiting for a write of it already in flight and for its frame latch.
func (in *instance) writePage(pg *Page, st stripe.Stripe) error {
	pg.io.Lock()
	f, _ := in.latchForWrite(pg, true)
	return in.writeLatched(pg, f, st, flushAsked)
}

// flushKind says who wrote a page, for the counters.
type flushKind uint8

const (
	flushAsked  flushKind = iota // Flush and Close
	flushSingle                  // a fixer's dirty victim [buf_flush_single_page_from_LRU]
	flushBatch                   // the page cleaner [buf_flush_LRU_list_batch]
)

// latchForWrite holds writers of pinned pg off for a copy: it returns the
// page's frame latched shared, or nil with the page hash latch held shared
// when the page is compressed-only (attaching a frame needs that latch
// exclusively). Without wait it gives up (false) rather than wait for a
// frame latch, as a fixer that may hold other pages' latches must
// [buf_flush_page: rw_lock_s_lock_gen_nowait].
func (in *instance) latchForWrite(pg *Page, wait bool) (*frame, bool) {
	hp := in.part(pg.id)
	for {
		hp.mu.RLock()
		f := pg.frame
		if f == nil {
			return nil, true
		}
		hp.mu.RUnlock()
		if wait {
			f.latch.RLock()
		} else if !f.latch.TryRLock() {
			return nil, false
		}
		if f.page.Load() == pg {
			return f, true
		}
		f.latch.RUnlock() // the frame was taken back meanwhile: look again
	}
}

// writeLatched writes pinned pg, whose io mutex the caller holds along with
// what latchForWrite returned (f's latch, or the page hash latch when f is
// nil), and releases them: the zip image on a compressed table (only the
// compressed copy goes to disk), the frame otherwise. The bytes are copied
// under the latch and the page is marked clean then; a write that fails
// marks it dirty again. They are stamped (FIL trailer, checksum) in the
// copy, as buf_flush_init_for_writing stamps the frame, so that readers
// never see them change.
func (in *instance) writeLatched(pg *Page, f *frame, st stripe.Stripe, kind flushKind) error {
	defer pg.io.Unlock()
	bp := in.pool.writeBuf.Get().(*[]byte)
	defer in.pool.writeBuf.Put(bp)
	hp := in.part(pg.id)
	src := pg.zip
	if src == nil {
		src = f.buf
	}
	buf := (*bp)[:len(src)]
	copy(buf, src)
	wasDirty := pg.dirty.Swap(false)
	if f != nil {
		f.latch.RUnlock()
	} else {
		hp.mu.RUnlock()
	}
	if !wasDirty {
		return nil
	}
	if pg.zip == nil {
		page.StampTrailer(buf)
	}
	page.SetChecksum(buf)
	if err := pg.space.ts.WritePage(pg.id.PageNo, buf); err != nil {
		pg.dirty.Store(true)
		return fmt.Errorf("bufpool: write page %v: %w", pg.id, err)
	}
	in.pool.stat.io()
	st.Add(cWrites, 1)
	switch kind {
	case flushSingle:
		st.Add(cSingleFlush, 1)
	case flushBatch:
		st.Add(cBatchFlush, 1)
	}
	if in.zipClean != nil {
		// A compressed-only page that became clean joins zip_clean
		// [buf_flush_remove → buf_LRU_insert_zip_clean]. Its state is
		// looked at again: a frame may have come or gone since the copy.
		in.lruMu.Lock()
		hp.mu.RLock()
		if pg.state == stateZipOnly && !pg.dirty.Load() && !pg.cleanNode.InList() && pg.lruNode.InList() {
			in.scanStripe = st
			in.insertZipClean(pg)
		}
		hp.mu.RUnlock()
		in.lruMu.Unlock()
	}
	return nil
}

// Flush writes every dirty page [buf_flush_lists]. Pages changed during the
// flush may stay dirty. It waits for each dirty page's latch, so the caller
// must hold no guard on a dirty page (it would wait for itself).
func (p *Pool) Flush() error {
	var errs []error
	for _, in := range p.inst {
		st := in.stats.Stripe()
		for _, pg := range in.pinDirty() {
			if err := in.writePage(pg, st); err != nil {
				errs = append(errs, err)
			}
			in.unfix(pg)
		}
	}
	return errors.Join(errs...)
}

// pinDirty pins and returns the instance's dirty pages, found through the
// page hash so that the replacement policy is not disturbed.
func (in *instance) pinDirty() []*Page {
	var dirty []*Page
	for i := range in.hash {
		hp := &in.hash[i]
		hp.mu.RLock()
		for _, pg := range hp.t.all() {
			if pg.dirty.Load() {
				pg.fix.Add(1)
				dirty = append(dirty, pg)
			}
		}
		hp.mu.RUnlock()
	}
	return dirty
}

// Close flushes every dirty page and closes the registered tablespaces
// cleanly. Guards must be released first; the pool refuses fixes after.
func (p *Pool) Close() error {
	if p.closed.Swap(true) {
		return ErrClosed
	}
	p.stopCleaner()
	errs := []error{p.Flush()}
	for _, sp := range *p.spaces.Load() {
		errs = append(errs, sp.ts.Close())
	}
	return errors.Join(errs...)
}

// Abandon stops the pool's background work (the page cleaner, whose
// writes already in flight finish first) and refuses fixes after,
// flushing nothing and closing no tablespace: for a caller that can no
// longer trust its files, as Store.Close when its catalog cannot be
// written. It reports ErrClosed on a closed pool.
func (p *Pool) Abandon() error {
	if p.closed.Swap(true) {
		return ErrClosed
	}
	p.stopCleaner()
	return nil
}
