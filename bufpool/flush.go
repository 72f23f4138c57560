package bufpool

import (
	"errors"
	"fmt"

	"github.com/zipsim/zipsim/internal/stripe"
	"github.com/zipsim/zipsim/page"
)

// writePage writes a pinned page to its tablespace [buf_flush_write_block_low]:
// the zip image on a compressed table (only the compressed copy goes to
// disk), the frame otherwise. The bytes are copied while writers are held
// off (the frame latch in shared mode, or for a compressed-only page the
// page hash latch, which a frame attach needs exclusively) and the page is
// marked clean then; a write that fails marks it dirty again. They are
// stamped (FIL trailer, checksum) in the copy, as buf_flush_init_for_writing
// stamps the frame, so that readers never see them change.
func (in *instance) writePage(pg *Page, st stripe.Stripe) error {
	bp := in.pool.writeBuf.Get().(*[]byte)
	defer in.pool.writeBuf.Put(bp)
	hp := in.part(pg.id)
	hp.mu.RLock()
	f := pg.frame
	if f != nil {
		hp.mu.RUnlock()
		f.latch.RLock()
	}
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
	if in.zipClean != nil && f == nil {
		// A compressed-only page that became clean joins zip_clean
		// [buf_flush_remove → buf_LRU_insert_zip_clean].
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
// flush may stay dirty.
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
	errs := []error{p.Flush()}
	for _, sp := range *p.spaces.Load() {
		errs = append(errs, sp.ts.Close())
	}
	return errors.Join(errs...)
}
