package bufpool

import (
	"context"
	"errors"
	"fmt"

	"github.com/zipsim/zipsim/internal/stripe"
)

// ZipGuard is a page pinned by FixZip for its compressed copy: no frame and
// no latch, as InnoDB's buf_page_get_zip gives. It is for pages written
// once and never modified (ZBLOB pages), and for reading the headers of
// pages no one else uses yet (B-tree leaves while an index opens): the pin
// keeps the block from being evicted or relocated, but nothing keeps an
// exclusive Guard of the same page from changing it. Release it exactly
// once; the block must not be used after.
type ZipGuard struct {
	pg    *Page
	block []byte
}

// ID returns the page id.
func (g *ZipGuard) ID() PageID { return g.pg.id }

// Block returns the zip-size block, for reading only.
func (g *ZipGuard) Block() []byte { return g.block }

// Release unpins the page. Releasing a zero ZipGuard does nothing.
func (g *ZipGuard) Release() {
	if g.pg == nil {
		return
	}
	g.pg.inst.unfix(g.pg)
	g.pg, g.block = nil, nil
}

// FixZip pins page id of a compressed table and returns its zip block,
// reading only the block if the page is not in the pool, with no frame
// [buf_page_get_zip]. A page that also has a frame is pinned all the same
// and its block returned: the compressed copy is authoritative. A page
// whose read is in flight is waited for; one whose read fails is an error
// naming the page for the reader, and the fixers that waited read it
// again. ctx is checked while the pool waits for memory for the block.
func (p *Pool) FixZip(ctx context.Context, id PageID) (ZipGuard, error) {
	if err := p.checkID("fix", id); err != nil {
		return ZipGuard{}, err
	}
	in := p.instanceOf(id)
	st := in.stats.Stripe()
	hp := in.part(id)
	for attempt := 0; attempt < maxFixAttempts; attempt++ {
		hp.mu.RLock()
		pg := hp.t.get(id)
		if pg == nil {
			hp.mu.RUnlock()
			g, err := in.readZip(ctx, id, st)
			if errors.Is(err, errRetry) {
				continue
			}
			return g, err
		}
		if pg.space.zipSize == 0 {
			hp.mu.RUnlock()
			return ZipGuard{}, notCompressed(id)
		}
		in.pin(pg)
		hp.mu.RUnlock()
		if !awaitRead(pg) {
			in.unfix(pg)
			continue
		}
		in.touch(pg)
		st.Add(cHitZip, 1)
		return ZipGuard{pg: pg, block: pg.zip}, nil
	}
	return ZipGuard{}, fmt.Errorf("bufpool: page %v: gave up after %d attempts to fix it while others evicted it or failed to read it", id, maxFixAttempts)
}

// notCompressed is the error for a compressed-only access to a page of an
// uncompressed table.
func notCompressed(id PageID) error {
	return fmt.Errorf("bufpool: page %v: space %d is not compressed: its pages have no zip block (use Fix and Create)", id, id.Space)
}

// readZip brings a page in compressed-only [buf_read_page_low →
// buf_page_init_for_read with unzip=FALSE, buf_LRU_add_block(old=TRUE)]: a
// descriptor and a zip block, no frame, published at the LRU midpoint with
// its read in flight, then the I/O and the checksum. A clean
// compressed-only page joins Legacy's zip_clean at once
// [buf_page_init_for_read → buf_LRU_insert_zip_clean].
func (in *instance) readZip(ctx context.Context, id PageID, st stripe.Stripe) (ZipGuard, error) {
	sp, err := in.pool.space(id.Space)
	if err != nil {
		return ZipGuard{}, err
	}
	if sp.zipSize == 0 {
		return ZipGuard{}, notCompressed(id)
	}
	pg := in.allocDesc()
	pg.id, pg.space = id, sp
	pg.fix.Store(1) // pinned from the start, so the buddy allocator never moves its block
	if err := in.allocZip(ctx, pg, st); err != nil {
		in.releaseDesc(pg)
		return ZipGuard{}, err
	}
	hp := in.part(id)
	in.lruMu.Lock()
	hp.mu.Lock()
	if hp.t.get(id) != nil {
		hp.mu.Unlock()
		in.lruMu.Unlock()
		in.releaseDesc(pg)
		return ZipGuard{}, errRetry
	}
	beginRead(pg)
	pg.state = stateZipOnly
	hp.t.put(id, pg)
	in.addLRU(pg, false)
	if in.zipClean != nil {
		in.scanStripe = st
		st.Add(cZipCleanReadSteps, in.insertZipClean(pg))
		st.Add(cZipCleanReadInserts, 1)
	}
	hp.mu.Unlock()
	in.lruMu.Unlock()

	err = in.readBlock(pg, pg.zip, st)
	if err != nil {
		in.drop(pg)
	}
	endRead(pg)
	if err != nil {
		in.unfix(pg)
		return ZipGuard{}, err
	}
	in.touch(pg)
	return ZipGuard{pg: pg, block: pg.zip}, nil
}
