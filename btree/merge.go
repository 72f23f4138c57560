package btree

import (
	"context"
	"errors"

	"github.com/zipsim/zipsim/bufpool"
	"github.com/zipsim/zipsim/internal/stripe"
	"github.com/zipsim/zipsim/page"
)

// compressIfUseful merges the page at the end of path (at level) into a
// sibling when its data fell below the merge limit
// [btr_cur_compress_if_useful, btr_compress], discards it when it is empty
// and cannot merge [btr_discard_page], and lifts the root's only child
// into the root [btr_lift_page_up]. The index lock is held exclusively.
//
// zipsim merges only siblings under the same parent. InnoDB also merges
// across parents, rewriting the grandparent's node pointer; here a page
// that is its parent's only child waits until the parent itself merges.
func (ix *Index) compressIfUseful(ctx context.Context, path []uint32, level int, st stripe.Stripe) error {
	pageNo := path[len(path)-1]
	if pageNo == ix.root {
		return ix.liftRoot(ctx, st)
	}
	g, err := ix.fixTree(ctx, pageNo, bufpool.Exclusive)
	if err != nil {
		return err
	}
	p := page.IndexPage(g.Frame())
	data, n := p.DataSize(), p.NRecs()
	g.Release()
	if data >= ix.mergeLimit() && n > 0 {
		return nil
	}
	parentNo := path[len(path)-2]
	pg, err := ix.fixTree(ctx, parentNo, bufpool.Exclusive)
	if err != nil {
		return err
	}
	pp := page.IndexPage(pg.Frame())
	i := childSlot(pp, pageNo)
	// A node page's slot 0 holds the empty key: merging gives it the
	// separator its parent keeps for it.
	// The separators live in xSeps: a level's merge is done with them
	// before compressIfUseful moves on to the level above.
	var left, right uint32 = page.FilNull, page.FilNull
	var sepPage, sepRight []byte
	if i > 0 {
		left = pp.Child(i - 1)
		sepPage = append(ix.xSeps[0][:0], pp.Key(i)...)
		ix.xSeps[0] = sepPage
	}
	if i >= 0 && i+1 < pp.NRecs() {
		right = pp.Child(i + 1)
		sepRight = append(ix.xSeps[1][:0], pp.Key(i+1)...)
		ix.xSeps[1] = sepRight
	}
	pg.Release()
	if i < 0 {
		return errors.New("btree: merge: page not found in its parent")
	}
	merged := false
	if n == 0 {
		// btr_cur_pessimistic_delete discards a page it empties: nothing
		// to move, so no sibling is recompressed.
		if err := ix.discard(ctx, pageNo, parentNo, i, st); err != nil {
			return err
		}
		return ix.compressIfUseful(ctx, path[:len(path)-1], level+1, st)
	}
	if left != page.FilNull {
		if merged, err = ix.mergeInto(ctx, pageNo, left, parentNo, i, true, sepPage, st); err != nil {
			return err
		}
	}
	if !merged && right != page.FilNull {
		if merged, err = ix.mergeInto(ctx, pageNo, right, parentNo, i, false, sepRight, st); err != nil {
			return err
		}
	}
	if !merged {
		return nil
	}
	return ix.compressIfUseful(ctx, path[:len(path)-1], level+1, st)
}

// mergeInto moves every record of page into its sibling sib (the left one
// when toLeft) and removes page from its level and its parent, or reports
// false when the records do not fit sib or do not compress there
// [btr_can_merge_with_page, btr_compress]. On node pages sep is the
// parent's key for the right one of the two, whose slot 0 record (with
// the empty key) ends up inside the merged page.
func (ix *Index) mergeInto(ctx context.Context, pageNo, sib, parentNo uint32, slot int, toLeft bool, sep []byte, st stripe.Stripe) (bool, error) {
	g, err := ix.fixTree(ctx, pageNo, bufpool.Exclusive)
	if err != nil {
		return false, err
	}
	defer g.Release()
	sg, err := ix.fixTree(ctx, sib, bufpool.Exclusive)
	if err != nil {
		return false, err
	}
	defer sg.Release()
	p := page.IndexPage(g.Frame())
	sp, sz := page.IndexPage(sg.Frame()), sg.Zip()
	n := p.NRecs()
	node := p.Level() > 0
	// The room the records need in sib, directory slots included. On node
	// pages a record with the empty key becomes one with sep: page's
	// first when merging left, sib's own first (rewritten, its old copy
	// left as garbage) when merging right.
	need := 0
	for j := range n {
		need += p.RecSize(j) + 2
	}
	sepSize := 0
	if node {
		sepSize = page.RecordSize(page.NodePage, len(sep), 0)
		if toLeft {
			need += sepSize - p.RecSize(0)
		} else {
			need += sepSize
		}
	}
	// MaxInsertSize counts one directory slot in but is clamped at 0, so
	// adding that slot back could promise 2 bytes a full heap lacks: the
	// checks leave it out.
	if need > sp.MaxInsertSizeAfterReorganize() {
		st.Add(cMergeFailures, 1)
		return false, nil
	}
	if sz != nil && sp.IsLeaf() && sp.DataSize()+p.DataSize() >= ix.pad.optimal() {
		st.Add(cPadRefusals, 1)
		st.Add(cMergeFailures, 1)
		return false, nil
	}
	if need > sp.MaxInsertSize() {
		if err := ix.reorganize(sp, sz, st); err != nil {
			if errors.Is(err, page.ErrDoesNotFit) {
				st.Add(cMergeFailures, 1)
				return false, nil
			}
			return false, err
		}
	}
	// A merge that runs out of room halfway puts sib back as it was:
	// from its image on a compressed page, from a copy otherwise.
	buf := ix.scratch.Get().(*[]byte)
	defer ix.scratch.Put(buf)
	if sz == nil {
		copy(*buf, sp)
	}
	if err := ix.mergeRecords(p, sp, toLeft, sep); err != nil {
		if sz != nil {
			if rerr := ix.restore(sp, sz, st); rerr != nil {
				return false, errors.Join(err, rerr)
			}
		} else {
			copy(sp, *buf)
		}
		if !errors.Is(err, page.ErrNoSpace) {
			return false, err
		}
		st.Add(cMergeFailures, 1)
		return false, nil
	}
	if sz != nil {
		err := ix.compress(sp, sz)
		if errors.Is(err, page.ErrDoesNotFit) {
			err = ix.zipReorganize(sp, sz)
		}
		if errors.Is(err, page.ErrDoesNotFit) {
			st.Add(cMergeFailures, 1)
			return false, ix.restore(sp, sz, st)
		}
		if err != nil {
			return false, err
		}
	}
	if err := ix.markDirty(&sg); err != nil {
		return false, err
	}
	prev, next, level := p.Fil().Prev(), p.Fil().Next(), p.Level()
	g.Release()
	sg.Release()
	if err := ix.unlink(ctx, prev, next, pageNo); err != nil {
		return false, err
	}
	// The left entry keeps the lower bound: a merge to the right points
	// page's entry at sib and drops sib's own.
	pg, err := ix.fixTree(ctx, parentNo, bufpool.Exclusive)
	if err != nil {
		return false, err
	}
	defer pg.Release()
	pp, pz := page.IndexPage(pg.Frame()), pg.Zip()
	drop := slot
	if !toLeft {
		if err := pp.SetChild(slot, sib); err != nil {
			return false, err
		}
		if pz != nil {
			if err := pz.WriteChild(pp, slot); err != nil {
				return false, err
			}
		}
		drop = slot + 1
	}
	if err := pageDelete(pp, pz, drop); err != nil {
		return false, err
	}
	if err := ix.markDirty(&pg); err != nil {
		return false, err
	}
	ix.freePage(pageNo, level)
	st.Add(cMerges, 1)
	return true, nil
}

// discard removes an empty page: its entry leaves the parent and the page
// leaves its level [btr_discard_page]. When the page is the parent's
// first child, slot 0 keeps its key (the parent's lower bound) and is
// pointed at the second child, whose own entry goes: a key left in slot 0
// must not be above keys that descend through it, or a later split of that
// child would put a smaller key after it.
func (ix *Index) discard(ctx context.Context, pageNo, parentNo uint32, slot int, st stripe.Stripe) error {
	g, err := ix.fixTree(ctx, pageNo, bufpool.Shared)
	if err != nil {
		return err
	}
	p := page.IndexPage(g.Frame())
	prev, next, level := p.Fil().Prev(), p.Fil().Next(), p.Level()
	g.Release()
	if err := ix.unlink(ctx, prev, next, pageNo); err != nil {
		return err
	}
	pg, err := ix.fixTree(ctx, parentNo, bufpool.Exclusive)
	if err != nil {
		return err
	}
	pp, pz := page.IndexPage(pg.Frame()), pg.Zip()
	if slot == 0 && pp.NRecs() > 1 {
		if err = pp.SetChild(0, pp.Child(1)); err == nil && pz != nil {
			err = pz.WriteChild(pp, 0)
		}
		slot = 1
	}
	if err == nil {
		err = pageDelete(pp, pz, slot)
	}
	if err == nil {
		err = ix.markDirty(&pg)
	}
	pg.Release()
	if err != nil {
		return err
	}
	ix.freePage(pageNo, level)
	st.Add(cDiscards, 1)
	return nil
}

// unlink takes a page out of its level's list.
func (ix *Index) unlink(ctx context.Context, prev, next, pageNo uint32) error {
	if err := ix.relink(ctx, prev, func(f page.Fil) { f.SetNext(next) }); err != nil {
		return err
	}
	return ix.relink(ctx, next, func(f page.Fil) { f.SetPrev(prev) })
}

// freePage gives a page back to the space.
func (ix *Index) freePage(pageNo uint32, level int) {
	ix.perLevel[level].Add(-1)
	ix.giveBack(pageNo)
}

// mergeRecords copies every record of p into sp's frame, after sp's
// records when toLeft, else before them; on node pages the record with the
// empty key that ends up inside sp gets sep.
func (ix *Index) mergeRecords(p, sp page.IndexPage, toLeft bool, sep []byte) error {
	n, node := p.NRecs(), p.Level() > 0
	at := 0
	if toLeft {
		at = sp.NRecs()
	}
	for j := range n {
		r := p.Record(j)
		if node && toLeft && j == 0 {
			r.Key = sep
		}
		if _, err := sp.Insert(at+j, r); err != nil {
			return err
		}
	}
	if node && !toLeft {
		child := sp.Child(n)
		if _, err := sp.Delete(n); err != nil {
			return err
		}
		if _, err := sp.Insert(n, page.Record{Key: sep, Child: child}); err != nil {
			return err
		}
	}
	return nil
}

// liftRoot handles the root after its children changed: a node root left
// with one child takes over the child's records [btr_lift_page_up], and
// one left with none becomes an empty leaf.
func (ix *Index) liftRoot(ctx context.Context, st stripe.Stripe) error {
	for ix.height.Load() > 1 {
		rg, err := ix.fixTree(ctx, ix.root, bufpool.Exclusive)
		if err != nil {
			return err
		}
		rp, rz := page.IndexPage(rg.Frame()), rg.Zip()
		if rp.NRecs() > 1 {
			rg.Release()
			return nil
		}
		if rp.NRecs() == 0 {
			err := ix.emptyPage(rp, rz, 0)
			if err == nil {
				err = ix.markDirty(&rg)
			}
			rg.Release()
			if err == nil {
				ix.height.Store(1)
				ix.setLevels([]int{1})
			}
			return err
		}
		childNo := rp.Child(0)
		cg, err := ix.fixTree(ctx, childNo, bufpool.Exclusive)
		if err != nil {
			rg.Release()
			return err
		}
		cp, cz := page.IndexPage(cg.Frame()), cg.Zip()
		level := cp.Level()
		err = ix.emptyPage(rp, rz, level)
		if err == nil {
			err = ix.moveRecords(cp, cz, rp, rz, 0, cp.NRecs(), true, st)
		}
		if err == nil {
			err = ix.markDirty(&rg)
		}
		cg.Release()
		rg.Release()
		if err != nil {
			return err
		}
		ix.giveBack(childNo)
		h := int(ix.height.Add(-1))
		ix.perLevel[h].Store(0)
		ix.perLevel[h-1].Store(1)
		st.Add(cLifts, 1)
	}
	return nil
}

// emptyPage empties a page and sets its level [btr_page_empty:
// page_create_zip is one compression on a compressed index].
func (ix *Index) emptyPage(rp page.IndexPage, rz *page.Zip, level int) error {
	if err := rp.Empty(level); err != nil {
		return err
	}
	if rz != nil {
		return ix.compress(rp, rz)
	}
	return nil
}
