package btree

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/zipsim/zipsim/bufpool"
	"github.com/zipsim/zipsim/internal/stripe"
	"github.com/zipsim/zipsim/page"
)

// BulkLoad fills an empty index from next, which yields rows in strictly
// ascending key order, building it bottom-up as MySQL 5.7's sorted index
// build does [btr/btr0bulk.cc: BtrBulk::insert, PageBulk::isSpaceAvailable,
// PageBulk::compress, BtrBulk::pageSplit, BtrBulk::finish]: each level
// fills one page at a time; compressed pages are filled until their free
// space falls below the adaptive pad (0 until padding has learned
// something, so the first pages are filled to the brim), uncompressed ones
// until the fill factor's reserve; a finished compressed page that does not
// compress is split in half and both halves compressed, again and again.
// The top page is finally copied into the root. The index lock is held
// exclusively throughout (and SX in SX mode), and the adaptive hash index
// takes no guess on the index meanwhile: pages of the load may have held
// the index's keys before, in the slots old cells name, and a load that
// fails gives them back.
func (ix *Index) BulkLoad(ctx context.Context, next func() (key, value []byte, ok bool, err error)) error {
	ix.lockTree()
	defer ix.unlockTree()
	if ix.o.SXIndexLock {
		ix.lock.Lock()
		defer ix.lock.Unlock()
	}
	ix.bulkLoading.Store(true)
	defer ix.bulkLoading.Store(false)
	rg, err := ix.fix(ctx, ix.root, bufpool.Shared)
	if err != nil {
		return err
	}
	empty := page.IndexPage(rg.Frame()).NRecs() == 0 && ix.height.Load() == 1
	rg.Release()
	if !empty {
		return fmt.Errorf("%w: %q", ErrNotEmpty, ix.o.Name)
	}
	b := bulk{ix: ix, ctx: ctx, st: ix.ctr.Stripe()}
	if err := b.load(next); err != nil {
		b.abort()
		return err
	}
	return nil
}

// load builds the tree from next and counts its rows once it stands.
func (b *bulk) load(next func() (key, value []byte, ok bool, err error)) error {
	ix := b.ix
	var last []byte
	rows, data := 0, 0
	for {
		key, value, ok, err := next()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		if err := ix.checkSize(key, value); err != nil {
			return err
		}
		if rows > 0 && bytes.Compare(key, last) <= 0 {
			return fmt.Errorf("%w: %x after %x", ErrUnsorted, key, last)
		}
		last = append(last[:0], key...)
		ix.noteKey(len(key))
		r, err := ix.leafRecord(key, value)
		if err != nil {
			return err
		}
		if err := b.add(0, r); err != nil {
			return err
		}
		rows++
		data += recSize(ix.kind, &r)
	}
	if rows == 0 {
		return nil
	}
	if err := b.finish(); err != nil {
		return err
	}
	b.st.Add(cInserts, uint64(rows))
	b.st.Add(cRows, uint64(rows))
	b.st.Add(cLeafData, uint64(data))
	return nil
}

// bulkLevel is one level's PageBulk: the page being filled and the last
// page finished, which the next one links to.
type bulkLevel struct {
	g       bufpool.Guard
	open    bool
	openKey []byte // the open page's first key
	tail    uint32 // last finished page, FilNull before the first
	pages   int    // finished pages
	// The first finished page's node pointer waits until a second page
	// shows that the level is not the top.
	firstKey []byte
	firstNo  uint32
}

// take hands the open page and its first key over to commit, which
// releases it.
func (lv *bulkLevel) take() (bufpool.Guard, []byte) {
	g := lv.g
	lv.g, lv.open = bufpool.Guard{}, false
	return g, lv.openKey
}

type bulk struct {
	ix     *Index
	ctx    context.Context
	st     stripe.Stripe
	levels []*bulkLevel
	pages  []uint32 // allocated, for abort
}

func (b *bulk) level(l int) *bulkLevel {
	for len(b.levels) <= l {
		b.levels = append(b.levels, &bulkLevel{tail: page.FilNull})
	}
	return b.levels[l]
}

// abort drops the open pages' latches after an error and gives every page
// built back to the space: none is reachable from the root yet.
func (b *bulk) abort() {
	for _, lv := range b.levels {
		lv.g.Release()
	}
	for _, no := range b.pages {
		b.ix.giveBack(no)
	}
}

// add appends r to the open page of level l, finishing it first when r
// does not fit [BtrBulk::insert].
func (b *bulk) add(l int, r page.Record) error {
	lv := b.level(l)
	kind := b.ix.kind
	if l > 0 {
		kind = page.NodePage
	}
	size := recSize(kind, &r)
	next := uint32(page.FilNull)
	if lv.open && !b.fits(page.IndexPage(lv.g.Frame()), size) {
		// The next page's number goes into the full one before it is
		// finished, as BtrBulk::pageCommit links them: no page is fixed
		// again to be linked.
		var err error
		if next, err = b.alloc(); err != nil {
			return err
		}
		page.IndexPage(lv.g.Frame()).Fil().SetNext(next)
		g, key := lv.take()
		if err := b.commit(l, g, key); err != nil {
			return err
		}
	}
	if !lv.open {
		g, err := b.newPage(l, next)
		if err != nil {
			return err
		}
		lv.g, lv.open = g, true
		// The page's key for the level above; a node page keeps the
		// empty key in slot 0 (see minKey).
		lv.openKey = append([]byte(nil), r.Key...)
		if l > 0 {
			r.Key = minKey
		}
	}
	p := page.IndexPage(lv.g.Frame())
	if _, err := p.Insert(p.NRecs(), r); err != nil {
		return fmt.Errorf("btree: bulk load into page %d: %w", p.PageNo(), err)
	}
	return nil
}

// fits is PageBulk::isSpaceAvailable. At least two records go on a page
// whatever the reserve, so that the tree does not grow too tall.
func (b *bulk) fits(p page.IndexPage, size int) bool {
	free := p.MaxInsertSize()
	if size > free {
		return false
	}
	if p.NRecs() < 2 {
		return true
	}
	ix := b.ix
	reserve := ix.pageSize * (100 - ix.o.FillFactor) / 100
	if ix.o.FillFactor == 100 && ix.o.Clustered {
		reserve = ix.pageSize / 16 // dict_index_get_space_reserve, as 5.6
	}
	if ix.zip != 0 {
		reserve = ix.pageSize - ix.pad.optimal()
	}
	return free-size >= reserve
}

// alloc takes a page number for the load; abort gives them all back.
func (b *bulk) alloc() (uint32, error) {
	no, err := b.ix.o.Alloc.AllocPage()
	if err == nil {
		b.pages = append(b.pages, no)
	}
	return no, err
}

// newPage formats page no (a fresh one when FilNull) at level l.
func (b *bulk) newPage(l int, no uint32) (bufpool.Guard, error) {
	if no == page.FilNull {
		var err error
		if no, err = b.alloc(); err != nil {
			return bufpool.Guard{}, err
		}
	}
	return b.ix.newPage(b.ctx, no, l, page.FilNull, page.FilNull)
}

// commit finishes page g of level l [PageBulk::commit, PageBulk::compress,
// BtrBulk::pageSplit]: link it after the level's last page, compress it
// (splitting in half while that fails), release it and pass its node
// pointer (key, page) up.
func (b *bulk) commit(l int, g bufpool.Guard, key []byte) error {
	ix := b.ix
	lv := b.level(l)
	p, z := page.IndexPage(g.Frame()), g.Zip()
	pageNo := p.PageNo()
	p.Fil().SetPrev(lv.tail)
	if z != nil {
		err := ix.compress(p, z)
		if errors.Is(err, page.ErrDoesNotFit) && p.NRecs() >= 2 {
			ng, nkey, err := b.splitHalf(l, p)
			if err != nil {
				g.Release()
				return err
			}
			if err := b.commit(l, g, key); err != nil {
				ng.Release()
				return err
			}
			return b.commit(l, ng, nkey)
		}
		if err != nil {
			g.Release()
			return fmt.Errorf("btree: bulk load: compress page %d (%d records, %d bytes): %w", pageNo, p.NRecs(), p.DataSize(), err)
		}
	}
	err := ix.markDirty(&g)
	g.Release()
	if err != nil {
		return err
	}
	lv.tail = pageNo
	lv.pages++
	switch lv.pages {
	case 1:
		lv.firstKey, lv.firstNo = key, pageNo
		return nil
	case 2:
		// The level's first page starts every level above: its key is
		// the empty minus infinity.
		if err := b.add(l+1, page.Record{Key: minKey, Child: lv.firstNo}); err != nil {
			return err
		}
	}
	return b.add(l+1, page.Record{Key: key, Child: pageNo})
}

// splitHalf moves the upper half of p's data to a new page
// [PageBulk::getSplitRec, copyIn, copyOut]. Bulk pages are compressed only
// when finished, so the moves touch the frames alone. It returns the new
// page and its first key.
func (b *bulk) splitHalf(l int, p page.IndexPage) (bufpool.Guard, []byte, error) {
	n := p.NRecs()
	half, acc, cut := p.DataSize()/2, 0, 0
	for cut < n-1 {
		acc += p.RecSize(cut)
		cut++
		if acc >= half {
			break
		}
	}
	ng, err := b.newPage(l, page.FilNull)
	if err != nil {
		return ng, nil, err
	}
	key := append([]byte(nil), p.Key(cut)...)
	np := page.IndexPage(ng.Frame())
	np.Fil().SetNext(p.Fil().Next())
	p.Fil().SetNext(np.PageNo())
	for i := cut; i < n; i++ {
		r := p.Record(i)
		if i == cut && l > 0 {
			r.Key = minKey
		}
		if _, err := np.Insert(i-cut, r); err != nil {
			ng.Release()
			return ng, nil, err
		}
	}
	for i := n - 1; i >= cut; i-- {
		if _, err := p.Delete(i); err != nil {
			ng.Release()
			return ng, nil, err
		}
	}
	// copyOut moves the heap top back; a repack leaves the same page.
	buf := b.ix.scratch.Get().(*[]byte)
	err = p.Reorganize(*buf)
	b.ix.scratch.Put(buf)
	if err != nil {
		ng.Release()
	}
	return ng, key, err
}

// finish commits the open pages bottom-up and copies the single page of
// the top level into the root [BtrBulk::finish].
func (b *bulk) finish() error {
	ix := b.ix
	if err := b.ctx.Err(); err != nil {
		return err
	}
	// From here on the root changes: no stopping halfway.
	b.ctx = modifyTree(b.ctx)
	top := 0
	for l := 0; l < len(b.levels); l++ {
		lv := b.levels[l]
		if lv.open {
			g, key := lv.take()
			if err := b.commit(l, g, key); err != nil {
				return err
			}
		}
		if lv.pages == 1 {
			top = l
			break
		}
	}
	topNo := b.levels[top].firstNo
	rg, err := ix.fix(b.ctx, ix.root, bufpool.Exclusive)
	if err != nil {
		return err
	}
	defer rg.Release()
	tg, err := ix.fix(b.ctx, topNo, bufpool.Exclusive)
	if err != nil {
		return err
	}
	defer tg.Release()
	rp, rz := page.IndexPage(rg.Frame()), rg.Zip()
	tp, tz := page.IndexPage(tg.Frame()), tg.Zip()
	if err := ix.emptyPage(rp, rz, top); err != nil {
		return err
	}
	if err := ix.moveRecords(tp, tz, rp, rz, 0, tp.NRecs(), true, b.st); err != nil {
		return err
	}
	if err := ix.markDirty(&rg); err != nil {
		return err
	}
	tg.Release()
	ix.giveBack(topNo)
	counts := make([]int, top+1)
	for l := range top {
		counts[l] = b.levels[l].pages
	}
	counts[top] = 1
	ix.setLevels(counts)
	ix.height.Store(int32(top + 1))
	return nil
}
