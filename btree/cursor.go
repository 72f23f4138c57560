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
// whole iteration exactly once. It is not safe for concurrent use.
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
		pos: c.pos[:0], arena: c.arena[:0], ends: c.ends[:0]}
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
	var g bufpool.Guard
	var err error
	if c.reverse && !c.hasPos {
		g, err = ix.descendEdge(c.ctx)
	} else {
		g, err = ix.descend(c.ctx, c.pos, bufpool.Shared)
	}
	if err != nil {
		c.err = err
		return
	}
	defer func() { g.Release() }()
	p := page.IndexPage(g.Frame())
	var slot int
	if c.reverse {
		slot = p.NRecs() - 1
		if c.hasPos {
			s, found := p.Search(c.pos, bytes.Compare)
			slot = s - 1
			if found && c.posIncl {
				slot = s
			}
		}
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
		// Under the shared index lock no page leaves its level, so the
		// link stays valid after the current latch is released.
		g.Release()
		if g, err = ix.fix(c.ctx, next, bufpool.Shared); err != nil {
			c.err = err
			return
		}
		p = page.IndexPage(g.Frame())
		slot = 0
		if c.reverse {
			slot = p.NRecs() - 1
		}
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

// descendEdge latches the rightmost leaf, shared.
func (ix *Index) descendEdge(ctx context.Context) (bufpool.Guard, error) {
	g, err := ix.fix(ctx, ix.root, bufpool.Shared)
	if err != nil {
		return g, err
	}
	for level := int(ix.height.Load()) - 1; level > 0; level-- {
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
