package bufpool

import (
	"errors"
	"sync/atomic"

	"github.com/zipsim/zipsim/page"
)

// Mode says how a guard latches its page.
type Mode uint8

const (
	// Shared latches the page for reading; many shared guards may hold a
	// page at once.
	Shared Mode = iota
	// Exclusive latches the page for writing.
	Exclusive
)

// String returns "shared" or "exclusive".
func (m Mode) String() string {
	if m == Exclusive {
		return "exclusive"
	}
	return "shared"
}

// ErrNotExclusive is returned by MarkDirty on a shared guard.
var ErrNotExclusive = errors.New("bufpool: only an exclusive guard may mark a page dirty")

// Guard is a fixed and latched page: the only way to touch a page's bytes.
// It pins the page (buf_fix_count) so the pool never evicts, relocates or
// detaches it, and holds the page latch (block->lock) in its mode. Release
// undoes both; a Guard must be released exactly once, and its slices must
// not be used after.
type Guard struct {
	pg       *Page
	f        *frame
	mode     Mode
	borrowed bool // a copy made by Borrow: Release only forgets the page
}

// ID returns the page id.
func (g *Guard) ID() PageID { return g.pg.id }

// Mode returns how the page is latched.
func (g *Guard) Mode() Mode { return g.mode }

// Frame returns the uncompressed page.
func (g *Guard) Frame() []byte { return g.f.buf }

// Zip returns the compressed page of a compressed table, nil otherwise. On
// a compressed table the zip image is what goes to storage: an exclusive
// guard that changes the frame must mirror the change into it (Zip's Log*
// and Write* methods, or Compress), as InnoDB's page_zip_* calls do.
func (g *Guard) Zip() *page.Zip {
	if g.pg.zip == nil {
		return nil
	}
	return &g.pg.zipd
}

// HashInfo returns a word the B-tree keeps about the page for as long as
// the page stays in this frame, for its adaptive hash index
// [buf_block_t::n_hash_helps and buf_block_t::index]. The pool stores 0
// in it whenever the frame takes a page and never reads it.
func (g *Guard) HashInfo() *atomic.Uint32 { return &g.f.hashInfo }

// MarkDirty records that the page changed and must be written before it
// leaves the pool.
func (g *Guard) MarkDirty() error {
	if g.mode != Exclusive {
		return ErrNotExclusive
	}
	g.pg.dirty.Store(true)
	return nil
}

// Borrow returns a copy of g whose Release leaves the page fixed and
// latched: g keeps both until it is released itself. A B-tree structure
// change holds the pages it latched in advance this way while code that
// fixes and releases pages one at a time works on them, as an InnoDB
// mini-transaction keeps every latch it took until it commits
// [mtr_t::memo].
func (g *Guard) Borrow() Guard {
	b := *g
	b.borrowed = true
	return b
}

// Release unlatches and unpins the page (a borrowed guard only forgets it).
func (g *Guard) Release() {
	if g.pg == nil {
		return
	}
	if g.borrowed {
		g.pg, g.f = nil, nil
		return
	}
	if g.mode == Exclusive {
		g.f.latch.Unlock()
	} else {
		g.f.latch.RUnlock()
	}
	g.pg.inst.unfix(g.pg)
	g.pg, g.f = nil, nil
}
