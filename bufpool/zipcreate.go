package bufpool

import (
	"context"
	"fmt"
	"time"
)

// CreateZip makes page id of a compressed table a new page held
// compressed-only and dirty, its zip block zeroed and then formatted by
// fill: how InnoDB writes a ZBLOB page [buf_page_create, the block written
// in btr_store_big_rec_extern_fields, then btr_blob_free(all=FALSE)
// freeing the uncompressed frame]. fill runs before the page is published,
// so no fixer or flush sees the block half written; then the page enters
// the page hash and the LRU head, as Create's pages do. A page of that
// number already in the pool (a freed page its tablespace reuses), with a
// frame or not, clean or dirty, is discarded without being written, as
// DropSpace removes pages; its pins are waited for, up to ctx and a few
// seconds (ErrInUse). An error from fill frees everything and is
// returned.
func (p *Pool) CreateZip(ctx context.Context, id PageID, fill func(block []byte) error) error {
	if err := p.checkID("create", id); err != nil {
		return err
	}
	sp, err := p.space(id.Space)
	if err != nil {
		return err
	}
	if sp.zipSize == 0 {
		return notCompressed(id)
	}
	in := p.instanceOf(id)
	st := in.stats.Stripe()
	pg := in.allocDesc()
	pg.id, pg.space = id, sp
	pg.fix.Store(1) // pinned, so the buddy allocator never moves its block
	if err := in.allocZip(ctx, pg, st); err != nil {
		in.releaseDesc(pg)
		return err
	}
	clear(pg.zip)
	if err := fill(pg.zip); err != nil {
		in.releaseDesc(pg)
		return fmt.Errorf("bufpool: create page %v: fill its block: %w", id, err)
	}
	pg.state = stateZipOnly
	pg.dirty.Store(true)

	hp := in.part(id)
	deadline := time.Now().Add(dropWait)
	for {
		in.lruMu.Lock()
		hp.mu.Lock()
		old := hp.t.get(id)
		if old == nil || in.discard(hp, old, false) {
			hp.t.put(id, pg)
			in.addLRU(pg, true)
			hp.mu.Unlock()
			in.lruMu.Unlock()
			if old != nil {
				in.releaseDesc(old)
			}
			break
		}
		hp.mu.Unlock()
		in.lruMu.Unlock()
		if err := awaitPins(ctx, deadline); err != nil {
			in.releaseDesc(pg)
			return fmt.Errorf("%w: page %v, which CreateZip would replace", err, id)
		}
	}
	st.Add(cCreates, 1)
	in.touch(pg)
	in.unfix(pg)
	return nil
}
