package btree

import (
	"bytes"
	"context"
	"sync"

	"github.com/zipsim/zipsim/bufpool"
	"github.com/zipsim/zipsim/page"
)

// cursorBatch is how many rows a cursor copies per visit of the tree: at
// least one leaf's worth, then it stops at the leaf's end.
const cursorBatch = 64

// Cursor iterates over an index in key order or in reverse, like InnoDB's
// persistent cursor [btr0pcur.cc]: it copies rows a leaf at a time with
// the index lock shared and page latches held, then releases everything
// and, when the copies are used up, finds its place again by searching
// for the last key it returned. Between refills other threads may change
// the index; the cursor sees every key that stays in the index for the
// whole iteration exactly once. With Options.SXIndexLock the shared lock
// no longer holds structure changes off, so a forward cursor couples its
// latches from one leaf to the next and a reverse one searches the tree
// for each leaf before the one it finished. It is not safe for concurrent
// use.
type Cursor struct {
	ix       *Index
	ctx      context.Context
	reverse  bool
	lo, hi   []byte // bounds: lo <= key < hi; nil is open
	pos      []byte // where the next refill starts, when hasPos
	hasPos   bool   // false: start at the first (last) key
	posIncl  bool   // pos itself may be returned
	arena    []byte
	ends     []int // per row: end of key, end of value in arena
	i        int
	finished bool
	err      error
	key, val []byte
	fence    []byte // a leaf's lower bound, for reverse refills in SX mode
}

// Seek returns a cursor positioned before the first key at or after key
// (reverse: the last key at or before key); nil starts at the first (last)
// key. The cursor stops at the end of the index.
func (ix *Index) Seek(ctx context.Context, key []byte, reverse bool) *Cursor {
	c := &Cursor{}
	c.reset(ix, ctx, reverse, nil, nil)
	c.setPos(key, true)
	return c
}

// reset prepares c for a new iteration, keeping its buffers.
func (c *Cursor) reset(ix *Index, ctx context.Context, reverse bool, lo, hi []byte) {
	*c = Cursor{ix: ix, ctx: ctx, reverse: reverse, lo: lo, hi: hi,
		pos: c.pos[:0], arena: c.arena[:0], ends: c.ends[:0], fence: c.fence[:0]}
}

// setPos starts the cursor at key (nil: at the first or last key).
func (c *Cursor) setPos(key []byte, incl bool) {
	c.hasPos, c.posIncl = key != nil, incl
	c.pos = append(c.pos[:0], key...)
}

// scanCursors keeps Scan's cursors, so that a scan allocates nothing.
var scanCursors = sync.Pool{New: func() any { return new(Cursor) }}

// Scan calls fn for every key in [from, to) (nil bounds are open) in
// ascending order, or descending when reverse is set, until fn returns
// false. fn's slices are valid only during the call; fn may use the index.
func (ix *Index) Scan(ctx context.Context, from, to []byte, reverse bool, fn func(key, value []byte) bool) error {
	c := scanCursors.Get().(*Cursor)
	defer func() {
		c.reset(nil, nil, false, nil, nil) // keep no references in the pool
		scanCursors.Put(c)
	}()
	c.reset(ix, ctx, reverse, from, to)
	if reverse {
		c.setPos(to, false)
	} else {
		c.setPos(from, true)
	}
	for c.Next() {
		if !fn(c.key, c.val) {
			break
		}
	}
	return c.err
}

// Next advances to the next row and reports whether there is one.
func (c *Cursor) Next() bool {
	if c.i >= len(c.ends)/2 {
		if c.finished || c.err != nil {
			return false
		}
		c.refill()
		if c.err != nil || len(c.ends) == 0 {
			return false
		}
	}
	start := c.endOf(c.i)
	kEnd, vEnd := c.ends[2*c.i], c.ends[2*c.i+1]
	c.key, c.val = c.arena[start:kEnd:kEnd], c.arena[kEnd:vEnd:vEnd]
	c.i++
	return true
}

// Key returns the current key; valid until the next call to Next.
func (c *Cursor) Key() []byte { return c.key }

// Value returns the current value; valid until the next call to Next.
func (c *Cursor) Value() []byte { return c.val }

// Err returns the error that stopped the cursor, if any.
func (c *Cursor) Err() error { return c.err }

func (c *Cursor) inRange(k []byte) bool {
	return (c.lo == nil || bytes.Compare(k, c.lo) >= 0) && (c.hi == nil || bytes.Compare(k, c.hi) < 0)
}

// refill copies the next rows after pos.
func (c *Cursor) refill() {
	if c.i > 0 {
		last := c.arena[c.endOf(c.i-1):c.ends[2*(c.i-1)]]
		c.setPos(last, false)
	}
	c.arena, c.ends, c.i = c.arena[:0], c.ends[:0], 0
	ix := c.ix
	ix.lock.RLock()
	defer ix.lock.RUnlock()
	sx := ix.o.SXIndexLock
	var g bufpool.Guard
	var err error
	switch {
	case c.reverse && sx:
		g, err = c.seekBefore()
	case c.reverse && !c.hasPos:
		g, err = ix.descendEdge(c.ctx)
	default:
		g, err = ix.descend(c.ctx, c.pos, bufpool.Shared)
	}
	if err != nil {
		c.err = err
		return
	}
	if c.finished {
		return
	}
	defer func() { g.Release() }()
	p := page.IndexPage(g.Frame())
	var slot int
	if c.reverse {
		slot = c.lastBefore(p)
	} else if c.hasPos {
		s, found := p.Search(c.pos, bytes.Compare)
		slot = s
		if found && !c.posIncl {
			slot++
		}
	}
	for {
		if c.reverse {
			for ; slot >= 0; slot-- {
				if !c.take(p, slot) {
					return
				}
			}
		} else {
			for ; slot < p.NRecs(); slot++ {
				if !c.take(p, slot) {
					return
				}
			}
		}
		next := p.Fil().Next()
		if c.reverse {
			next = p.Fil().Prev()
		}
		if next == page.FilNull {
			c.finished = true
			return
		}
		if len(c.ends)/2 >= cursorBatch {
			return
		}
		switch {
		case sx && c.reverse:
			// The next refill finds the leaf before through the tree,
			// as btr_pcur_move_backward_from_page restores its position:
			// latching the left leaf while holding this one would go
			// against the left-to-right order structure changes latch
			// leaves in.
			return
		case sx:
			// A structure change may free the next leaf once this latch
			// goes: couple the latches left to right, as
			// btr_pcur_move_to_next_page does.
			ng, err := ix.fix(c.ctx, next, bufpool.Shared)
			g.Release()
			if g = ng; err != nil {
				c.err = err
				return
			}
		default:
			// Under the shared index lock no page leaves its level, so
			// the link stays valid after the current latch is released.
			g.Release()
			if g, err = ix.fix(c.ctx, next, bufpool.Shared); err != nil {
				c.err = err
				return
			}
		}
		p = page.IndexPage(g.Frame())
		slot = 0
		if c.reverse {
			slot = p.NRecs() - 1
		}
	}
}

// lastBefore returns the slot of the last key of p a reverse cursor may
// return: before pos (at it when posIncl), or p's last without a position.
// It is -1 when there is none.
func (c *Cursor) lastBefore(p page.IndexPage) int {
	if !c.hasPos {
		return p.NRecs() - 1
	}
	s, found := p.Search(c.pos, bytes.Compare)
	if found && c.posIncl {
		return s
	}
	return s - 1
}

// seekBefore latches the leaf that holds the last key a reverse cursor in
// SX mode may return, searching the tree for it rather than following a
// leaf's link to the left (a structure change may free the leaf it names
// once the latch that read it goes). A leaf whose keys before pos are all
// gone sends the search on below the leaf's lower bound; with none, the
// cursor is finished [btr_pcur_move_backward_from_page: the position is
// restored with BTR_SEARCH_PREV, a descent that latches the leaf before].
func (c *Cursor) seekBefore() (bufpool.Guard, error) {
	ix := c.ix
	for {
		if !c.hasPos {
			g, err := ix.descendEdge(c.ctx)
			if err == nil && page.IndexPage(g.Frame()).NRecs() == 0 {
				g.Release()
				c.finished = true
			}
			return g, err
		}
		g, fenced, err := ix.descendBefore(c.ctx, c.pos, c.posIncl, &c.fence)
		if err != nil {
			return g, err
		}
		if c.lastBefore(page.IndexPage(g.Frame())) >= 0 {
			return g, nil
		}
		g.Release()
		if !fenced {
			c.finished = true
			return bufpool.Guard{}, nil
		}
		c.setPos(c.fence, false)
	}
}

// take copies slot of p, or reports false when the key is out of range,
// which ends the iteration.
func (c *Cursor) take(p page.IndexPage, slot int) bool {
	k := p.Key(slot)
	if !c.inRange(k) {
		c.finished = true
		return false
	}
	c.arena = append(c.arena, k...)
	c.ends = append(c.ends, len(c.arena))
	c.arena = append(c.arena, p.Value(slot)...)
	c.ends = append(c.ends, len(c.arena))
	return true
}

func (c *Cursor) endOf(i int) int {
	if i == 0 {
		return 0
	}
	return c.ends[2*i-1]
}

// descendBefore latches, shared, the leaf whose range holds the last keys
// before key (at or before it when incl), coupling latches top-down as
// descend does. It sets *fence to the leaf's lower bound, the key of the
// lowest node pointer on the way that is not a page's first, and reports
// whether there is one; the leftmost leaf has none.
func (ix *Index) descendBefore(ctx context.Context, key []byte, incl bool, fence *[]byte) (bufpool.Guard, bool, error) {
	g, level, err := ix.fixRoot(ctx, bufpool.Shared)
	fenced := false
	for ; err == nil && level > 0; level-- {
		p := page.IndexPage(g.Frame())
		s, found := p.Search(key, bytes.Compare)
		if !found || !incl {
			s = max(s-1, 0)
		}
		if s > 0 {
			*fence, fenced = append((*fence)[:0], p.Key(s)...), true
		}
		var cg bufpool.Guard
		cg, err = ix.fix(ctx, p.Child(s), bufpool.Shared)
		g.Release()
		g = cg
	}
	return g, fenced, err
}

// descendEdge latches the rightmost leaf, shared.
func (ix *Index) descendEdge(ctx context.Context) (bufpool.Guard, error) {
	g, level, err := ix.fixRoot(ctx, bufpool.Shared)
	if err != nil {
		return g, err
	}
	for ; level > 0; level-- {
		p := page.IndexPage(g.Frame())
		cg, err := ix.fix(ctx, p.Child(p.NRecs()-1), bufpool.Shared)
		g.Release()
		if err != nil {
			return cg, err
		}
		g = cg
	}
	return g, nil
}
