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
// writing it, dirty or not unless cleanOnly, and returns its frame to the
// free list; the caller then gives its zip block and descriptor back with
// releaseDesc, outside the partition latch, as visitLRU does: freeing a
// block may relocate another page's. A pinned page is left alone (false),
// and with cleanOnly a dirty one. The caller holds the LRU mutex and the
// page's partition exclusively, so no one pins pg meanwhile; the zip
// mutex is taken here, as it guards a compressed-only descriptor.
func (in *instance) discard(hp *hashPart, pg *Page, cleanOnly bool) bool {
	in.zipMu.Lock()
	// Dirtied only while pinned: once unpinned, the flag is final.
	if pg.fix.Load() != 0 || cleanOnly && pg.dirty.Load() {
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

// EvictAll takes every unpinned clean page out of the pool and restarts
// the statistics that choose between evicting a frame and a whole page
// [buf_LRU_stat_t], leaving the pool as a restart leaves InnoDB's; dirty
// and pinned pages stay. zipsim.Open calls it once its verifying walks
// have read every page, so that a reopened store starts cold. The
// freed-page clock is not reset.
func (p *Pool) EvictAll() {
	for _, in := range p.inst {
		in.discardPages(func(*Page) bool { return true }, true)
	}
	p.stat.reset(p.opts.Clock())
}

// Evict takes the page out of the pool if it is there, unpinned, not
// being read and clean, and reports whether it did [buf_LRU_free_page
// with zip=true]. btree.Open drops each page its verifying walk read: under
// Legacy or Global locking each compressed read walks the LRU towards its
// tail, so a walk that kept every page would take time quadratic in the
// store (opening 1.5 GiB of KBS=8 pages in one pool took 11.5 minutes;
// evicting behind the walk, under 20 seconds).
func (p *Pool) Evict(id PageID) bool {
	if p.checkID("evict", id) != nil {
		return false
	}
	in := p.instanceOf(id)
	hp := in.part(id)
	in.lruMu.Lock()
	hp.mu.Lock()
	pg := hp.t.get(id)
	ok := pg != nil && in.discard(hp, pg, true)
	hp.mu.Unlock()
	in.lruMu.Unlock()
	if ok {
		in.releaseDesc(pg)
		in.stats.Stripe().Add(cEvictPage, 1)
	}
	return ok
}

// dropPages removes the instance's unpinned pages of space and returns how
// many pinned ones it had to leave.
func (in *instance) dropPages(space uint32) (pinned int) {
	return in.discardPages(func(pg *Page) bool { return pg.id.Space == space }, false)
}

// discardPages removes the instance's unpinned pages that match, without
// writing them, and returns how many matching pages it left pinned (or
// dirty, with cleanOnly). Lock order as in visitLRU: the LRU mutex, a page
// hash partition, the zip mutex.
func (in *instance) discardPages(match func(*Page) bool, cleanOnly bool) (left int) {
	st := in.stats.Stripe()
	var victims, dropped []*Page
	in.lruMu.Lock()
	defer in.lruMu.Unlock()
	for i := range in.hash {
		hp := &in.hash[i]
		hp.mu.Lock()
		victims = victims[:0]
		for _, pg := range hp.t.all() {
			if match(pg) {
				victims = append(victims, pg)
			}
		}
		for _, pg := range victims {
			if !in.discard(hp, pg, cleanOnly) {
				left++
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
	return left
}
