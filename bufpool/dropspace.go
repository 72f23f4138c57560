package bufpool

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"time"
)

// dropWait bounds how long DropSpace and CreateZip wait for pins that
// eviction holds while it writes a victim.
const dropWait = 5 * time.Second

// ErrInUse is returned by DropSpace when a page of the space stays pinned,
// and by CreateZip when the page it replaces does.
var ErrInUse = errors.New("bufpool: a page of the space is still in use")

// DropSpace forgets tablespace id: it is unregistered, so fixes of its pages
// fail from now on, and every page of it leaves the pool without being
// written, dirty or not [buf_LRU_flush_or_remove_pages with
// BUF_REMOVE_ALL_NO_WRITE, as DROP TABLE does]. The tablespace itself is
// not closed: it is the caller's to close or delete. The caller must have
// stopped using the space (no guards, fixes or Flush on it); pins that
// eviction takes to write a victim are waited for, up to ctx and a few
// seconds, then ErrInUse leaves the remaining pages in the pool.
func (p *Pool) DropSpace(ctx context.Context, id uint32) error {
	p.spaceMu.Lock()
	old := *p.spaces.Load()
	if _, ok := old[id]; !ok {
		p.spaceMu.Unlock()
		return fmt.Errorf("bufpool: space %d is not registered", id)
	}
	next := maps.Clone(old)
	delete(next, id)
	p.spaces.Store(&next)
	p.spaceMu.Unlock()

	deadline := time.Now().Add(dropWait)
	for _, in := range p.inst {
		for in.dropPages(id) > 0 {
			if err := awaitPins(ctx, deadline); err != nil {
				return fmt.Errorf("%w: space %d", err, id)
			}
		}
	}
	return nil
}

// awaitPins lets a millisecond pass before another try at removing pinned
// pages, or says why there will be none: ctx's error, or ErrInUse once
// the pins have outlasted deadline.
func awaitPins(ctx context.Context, deadline time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if time.Now().After(deadline) {
		return ErrInUse
	}
	time.Sleep(time.Millisecond)
	return nil
}

// discard takes unpinned pg out of the page hash and the lists without
// writing it, dirty or not, and returns its frame to the free list; the
// caller then gives its zip block and descriptor back with releaseDesc,
// outside the partition latch, as visitLRU does: freeing a block may
// relocate another page's. A pinned page is left alone (false). The caller
// holds the LRU mutex and the page's partition exclusively; the zip mutex
// is taken here, as it guards a compressed-only descriptor.
func (in *instance) discard(hp *hashPart, pg *Page) bool {
	in.zipMu.Lock()
	if pg.fix.Load() != 0 {
		in.zipMu.Unlock()
		return false
	}
	f := in.removePage(hp, pg, true)
	in.zipMu.Unlock()
	if f != nil {
		in.pushFree(f)
	}
	return true
}

// dropPages removes the instance's unpinned pages of space and returns how
// many pinned ones it had to leave. Lock order as in visitLRU: the LRU
// mutex, a page hash partition, the zip mutex.
func (in *instance) dropPages(space uint32) (pinned int) {
	st := in.stats.Stripe()
	var victims, dropped []*Page
	in.lruMu.Lock()
	defer in.lruMu.Unlock()
	for i := range in.hash {
		hp := &in.hash[i]
		hp.mu.Lock()
		victims = victims[:0]
		for _, pg := range hp.t.all() {
			if pg.id.Space == space {
				victims = append(victims, pg)
			}
		}
		for _, pg := range victims {
			if !in.discard(hp, pg) {
				pinned++
				continue
			}
			dropped = append(dropped, pg)
		}
		hp.mu.Unlock()
		for _, pg := range dropped {
			in.releaseDesc(pg)
			st.Add(cEvictPage, 1)
		}
		dropped = dropped[:0]
	}
	return pinned
}
