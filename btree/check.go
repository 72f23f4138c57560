package btree

import (
	"bytes"
	"context"
	"fmt"

	"github.com/zipsim/zipsim/bufpool"
	"github.com/zipsim/zipsim/page"
)

// Check walks the whole index with structure changes held off and returns every
// violation it finds [btr_validate_index, btr_validate_level,
// page_zip_validate]: each page well formed and of this index and level,
// keys ascending within and across pages, node pointer keys bounding
// their children (slot 0 stands for the parent's own bound and holds the
// empty key), no empty page
// but the root, leaf and node links matching the left-to-right order of
// each level, every zip image decompressing to its frame, and the counted
// rows, leaf bytes and pages per level matching the tree, and every
// adaptive hash guess that a page would confirm leading where a descent
// leads, and, in SX mode, no key longer than the longest the index knows
// of (by which that mode sizes node pointers). The counts are exact only
// while no write runs.
func (ix *Index) Check(ctx context.Context) []error {
	ix.lockStructure()
	defer ix.unlockStructure()
	c := checker{ix: ix, levels: make([][]link, ix.height.Load())}
	buf := ix.scratch.Get().(*[]byte)
	c.scratch = *buf
	defer ix.scratch.Put(buf)
	c.visit(ctx, ix.root, int(ix.height.Load())-1, nil, nil)
	for level, pages := range c.levels {
		for i, l := range pages {
			wantPrev, wantNext := uint32(page.FilNull), uint32(page.FilNull)
			if i > 0 {
				wantPrev = pages[i-1].no
			}
			if i+1 < len(pages) {
				wantNext = pages[i+1].no
			}
			if l.prev != wantPrev || l.next != wantNext {
				c.errorf("level %d page %d: links prev %d next %d, want %d and %d", level, l.no, l.prev, l.next, wantPrev, wantNext)
			}
		}
		if n := ix.perLevel[level].Load(); n != int64(len(pages)) {
			c.errorf("level %d: %d pages counted, %d in the tree", level, n, len(pages))
		}
	}
	for l := len(c.levels); l < maxLevels; l++ {
		if n := ix.perLevel[l].Load(); n != 0 {
			c.errorf("level %d is above the root but counts %d pages", l, n)
		}
	}
	if rows := int64(ix.ctr.Sum(cRows)); rows != c.rows {
		c.errorf("%d rows counted, %d in the tree", rows, c.rows)
	}
	if data := int64(ix.ctr.Sum(cLeafData)); data != c.data {
		c.errorf("%d leaf bytes counted, %d in the tree", data, c.data)
	}
	if ix.o.AdaptiveHash != nil {
		c.errs = append(c.errs, ix.checkHash(ctx)...)
	}
	return c.errs
}

type link struct{ no, prev, next uint32 }

type checker struct {
	ix      *Index
	errs    []error
	levels  [][]link
	rows    int64
	data    int64
	scratch []byte
}

func (c *checker) errorf(format string, args ...any) {
	c.errs = append(c.errs, fmt.Errorf("btree: index %q: "+format, append([]any{c.ix.o.Name}, args...)...))
}

// visit checks page pageNo at level, whose keys must lie in [lo, hi)
// (nil bounds are open), and its subtree.
func (c *checker) visit(ctx context.Context, pageNo uint32, level int, lo, hi []byte) {
	g, err := c.ix.fix(ctx, pageNo, bufpool.Shared)
	if err != nil {
		c.errorf("page %d: %v", pageNo, err)
		return
	}
	p := page.IndexPage(g.Frame())
	if errs := p.Check(bytes.Compare); len(errs) > 0 {
		for _, e := range errs {
			c.errorf("page %d: %v", pageNo, e)
		}
		g.Release()
		return
	}
	if z := g.Zip(); z != nil {
		if err := z.Validate(p, c.ix.env, c.scratch); err != nil {
			c.errorf("page %d: zip image: %v", pageNo, err)
		}
	}
	switch {
	case p.PageNo() != pageNo:
		c.errorf("page %d: header says page %d", pageNo, p.PageNo())
	case p.IndexID() != c.ix.o.ID:
		c.errorf("page %d: index id %d", pageNo, p.IndexID())
	case p.Level() != level:
		c.errorf("page %d: level %d, want %d", pageNo, p.Level(), level)
	case p.IsClustered() != c.ix.o.Clustered:
		c.errorf("page %d: clustered flag %v", pageNo, p.IsClustered())
	}
	if level >= 0 && level < len(c.levels) {
		c.levels[level] = append(c.levels[level], link{pageNo, p.Fil().Prev(), p.Fil().Next()})
	}
	n := p.NRecs()
	if n == 0 && pageNo != c.ix.root {
		c.errorf("page %d at level %d is empty", pageNo, level)
	}
	if n == 0 && level > 0 {
		c.errorf("node page %d has no node pointers", pageNo)
	}
	// Slot 0 of a node page stands for minus infinity and holds the empty
	// key (minKey); every other key is real.
	first := 0
	if level > 0 && n > 0 {
		if k := p.Key(0); len(k) != 0 {
			c.errorf("node page %d: slot 0 holds key %x, not the empty key", pageNo, k)
		}
		first = 1
	}
	for i := first; i < n; i++ {
		k := p.Key(i)
		if lo != nil && bytes.Compare(k, lo) < 0 {
			c.errorf("page %d slot %d: key %x below the parent's bound %x", pageNo, i, k, lo)
		}
		if hi != nil && bytes.Compare(k, hi) >= 0 {
			c.errorf("page %d slot %d: key %x not below the next bound %x", pageNo, i, k, hi)
		}
		if limit := c.ix.maxKeyLen(); c.ix.o.SXIndexLock && len(k) > limit {
			c.errorf("page %d slot %d: a %d-byte key, longer than the %d bytes structure changes size node pointers for", pageNo, i, len(k), limit)
		}
	}
	if level == 0 && c.ix.o.ExternRefs != nil {
		for i := range n {
			want, err := c.ix.o.ExternRefs(p.Value(i))
			if err == nil && want != p.NExt(i) {
				err = fmt.Errorf("the value holds %d off-page references, the record says %d", want, p.NExt(i))
			}
			if err != nil {
				c.errorf("page %d slot %d: %v", pageNo, i, err)
			}
		}
	}
	if level == 0 {
		c.rows += int64(n)
		c.data += int64(p.DataSize())
		g.Release()
		return
	}
	type child struct {
		no     uint32
		lo, hi []byte
	}
	children := make([]child, n)
	for i := range n {
		ch := child{no: p.Child(i), lo: lo, hi: hi}
		if i > 0 {
			ch.lo = append([]byte(nil), p.Key(i)...)
		}
		if i+1 < n {
			ch.hi = append([]byte(nil), p.Key(i+1)...)
		}
		children[i] = ch
	}
	g.Release()
	for _, ch := range children {
		c.visit(ctx, ch.no, level-1, ch.lo, ch.hi)
	}
}
