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

// splitPlan says how a page splits: slots [0, cut) end on the left page,
// [cut, n) on the right one. up means the new page is the right one
// (FSP_UP), else the left one (FSP_DOWN). insertLeft says which half takes
// the tuple; insertEmpty means the tuple is the first record of the new
// right page (InnoDB's insert_empty).
type splitPlan struct {
	cut         int
	up          bool
	insertLeft  bool
	insertEmpty bool
}

// splitToRight is btr_page_get_split_rec_to_right: after an insert right
// behind the previous one (an ascending run), split at the insert point
// leaving one record after it on the left page, or move the tuple alone
// when the insert is at the end. It returns the split slot, or -1 for
// "the tuple starts the new page".
func splitToRight(p page.IndexPage, slot int) (int, bool) {
	if slot == 0 || p.LastInsert() != p.Offset(slot-1) {
		return 0, false
	}
	n := p.NRecs()
	if slot >= n-1 {
		return -1, true
	}
	return slot + 1, true
}

// splitToLeft is btr_page_get_split_rec_to_left: after an insert right
// before the previous one (a descending run), the new page goes to the
// left and takes the records before the insert point.
func splitToLeft(p page.IndexPage, slot int) (int, bool) {
	if slot >= p.NRecs() || p.LastInsert() != p.Offset(slot) {
		return 0, false
	}
	if slot > 1 {
		return slot - 1, true
	}
	return slot, true
}

// dirReserved is page_dir_calc_reserved_space: InnoDB's sparse directory
// for n records, which split arithmetic keeps.
func dirReserved(n int) int { return (2*n + 3) / 4 }

// sizedSplitRec is btr_page_get_split_rec, used from the second pass on:
// fill the left half to half of all the data (the tuple included), capped
// for a compressed page at what an empty compressed page holds
// (page_zip_empty_size). It returns the virtual position (0..n, the tuple
// at slot) of the first record of the right half, or -1 for the tuple.
func (ix *Index) sizedSplitRec(p page.IndexPage, slot, tupleSize int) int {
	n := p.NRecs()
	free := page.FreeSpaceOfEmpty(ix.pageSize)
	if ix.zip != 0 {
		free = min(free, page.EmptySize(ix.o.Fields, ix.zip))
	}
	totalData := p.DataSize() + tupleSize
	totalSpace := totalData + dirReserved(n+1)
	size := func(v int) int {
		switch {
		case v == slot:
			return tupleSize
		case v < slot:
			return p.RecSize(v)
		}
		return p.RecSize(v - 1)
	}
	incl, k, v := 0, 0, -1
	for {
		v++
		incl += size(v)
		k++
		if incl+dirReserved(k) >= totalSpace/2 || v == n {
			break
		}
	}
	if incl+dirReserved(k) <= free && v+1 <= n {
		v++
	}
	return v
}

// planSplit chooses the split as btr_page_split_and_insert does: the
// sequential-insert heuristics, else the middle record on the first pass;
// btr_page_get_split_rec on later ones, where a compressed page sends a
// tuple that belongs on the right to an empty page to stop splitting.
func (ix *Index) planSplit(p page.IndexPage, slot int, tupleSize, iter int) splitPlan {
	n := p.NRecs()
	split := -1 // an existing slot, or -1 for the tuple
	up := true
	switch {
	case iter > 0:
		v := ix.sizedSplitRec(p, slot, tupleSize)
		switch {
		case v == slot:
			split = -1
		case v < slot:
			split = v
		default:
			split = v - 1
		}
	default:
		if s, ok := splitToRight(p, slot); ok {
			split = s
		} else if s, ok := splitToLeft(p, slot); ok {
			split, up = s, false
		} else if n > 1 {
			split = n / 2 // page_get_middle_rec
		} else if slot == 0 {
			split = 0
		}
	}
	if split >= 0 {
		pl := splitPlan{cut: split, up: up, insertLeft: slot <= split}
		if !pl.insertLeft && ix.zip != 0 && iter > 0 {
			return splitPlan{cut: slot, up: true, insertEmpty: true}
		}
		return pl
	}
	if slot == 0 && n > 0 {
		return splitPlan{cut: 0, up: true, insertLeft: true}
	}
	return splitPlan{cut: slot, up: true, insertEmpty: true}
}

// splitAndInsert splits the page at the end of path (at level) and inserts
// r, repeating on the half that should take r until it fits
// [btr_page_split_and_insert]. The index lock is held exclusively (SX in
// SX mode). When unlocked is not nil the exclusive lock may be released
// early, as InnoDB does for uncompressed leaves once the tree is changed
// and the record is sure to fit; *unlocked then says so. Compressed leaves
// keep it to the end: their insert may still fail and split again. The SX
// lock is always kept to the end (treelatch.go).
func (ix *Index) splitAndInsert(ctx context.Context, path []uint32, level int, r page.Record, st stripe.Stripe, unlocked *bool) error {
	kind := ix.kind
	if level > 0 {
		kind = page.NodePage
	}
	size := recSize(kind, &r)
	for iter := 0; ; iter++ {
		if iter > 0 {
			st.Add(cSplitIterations, 1)
			var err error
			if path, err = ix.path(ctx, ix.xSplitPaths[level][:0], r.Key, level); err != nil {
				return err
			}
			ix.xSplitPaths[level] = path
		}
		if path[len(path)-1] == ix.root {
			child, err := ix.raiseRoot(ctx, st)
			if err != nil {
				return err
			}
			path = append(ix.xSplitPaths[level][:0], ix.root, child)
			ix.xSplitPaths[level] = path
		}
		done, err := ix.splitOnce(ctx, path, level, r, size, iter, st, unlocked)
		if err != nil || done {
			return err
		}
		if unlocked != nil && *unlocked {
			return fmt.Errorf("btree: index %q: the record did not fit the half it was sure to fit", ix.o.Name)
		}
		if iter > 64 {
			return fmt.Errorf("btree: index %q: a %d-byte record still does not fit after %d splits", ix.o.Name, size, iter)
		}
	}
}

// splitOnce performs one pass of btr_page_split_and_insert on the page at
// the end of path: allocate a page, move half of the records, link it,
// insert r into its half and attach the new page to the parent. It
// reports whether r was inserted.
func (ix *Index) splitOnce(ctx context.Context, path []uint32, level int, r page.Record, size, iter int, st stripe.Stripe, unlocked *bool) (bool, error) {
	pageNo := path[len(path)-1]
	g, err := ix.fixTree(ctx, pageNo, bufpool.Exclusive)
	if err != nil {
		return false, err
	}
	defer g.Release()
	p, z := page.IndexPage(g.Frame()), g.Zip()
	if p.NRecs() == 0 {
		return false, fmt.Errorf("btree: index %q: a %d-byte record does not fit the empty page %d", ix.o.Name, size, pageNo)
	}
	slot, _ := p.Search(r.Key, bytes.Compare)
	if level == 0 && !ix.o.NoSiblingInsert {
		if ok, err := ix.insertIntoRightSibling(ctx, path, p, slot, r, st); err != nil || ok {
			return ok, err
		}
	}
	pl := ix.planSplit(p, slot, size, iter)
	ix.countSplit(p, z, level, slot, size, st)

	newNo, err := ix.o.Alloc.AllocPage()
	if err != nil {
		return false, err
	}
	prev, next := p.Fil().Prev(), p.Fil().Next()
	var ng bufpool.Guard
	if pl.up {
		ng, err = ix.newPage(ctx, newNo, level, pageNo, next)
	} else {
		ng, err = ix.newPage(ctx, newNo, level, prev, pageNo)
	}
	if err != nil {
		ix.giveBack(newNo)
		return false, err
	}
	ng = ix.keepNew(newNo, ng)
	defer ng.Release()
	ix.perLevel[level].Add(1)
	np, nz := page.IndexPage(ng.Frame()), ng.Zip()

	// The new node pointer's key: the right half's first key, taken before
	// the move blanks slot 0 of a node page.
	sep := r.Key
	if !pl.insertEmpty {
		sep = append(ix.xSplitSeps[level][:0], p.Key(pl.cut)...)
		ix.xSplitSeps[level] = sep
	}
	n := p.NRecs()
	lo, hi := pl.cut, n
	if !pl.up {
		lo, hi = 0, pl.cut
	}
	if err := ix.moveRecords(p, z, np, nz, lo, hi, !pl.insertEmpty, st); err != nil {
		return false, err
	}
	// Link the new page into its level.
	if pl.up {
		p.Fil().SetNext(newNo)
		if err := ix.relink(ctx, next, func(f page.Fil) { f.SetPrev(newNo) }); err != nil {
			return false, err
		}
	} else {
		p.Fil().SetPrev(newNo)
		if err := ix.relink(ctx, prev, func(f page.Fil) { f.SetNext(newNo) }); err != nil {
			return false, err
		}
	}
	if z != nil {
		z.WriteHeader(p)
	}

	left, right := p, np
	lz, rz := z, nz
	if !pl.up {
		left, right, lz, rz = np, p, nz, z
	}
	// btr_attach_half_pages: the parent learns of the new page first. The
	// halves stay latched; no other descent runs, and a thread that
	// latched a leaf before the lock was taken may still hold it, which
	// the fixes below wait for.
	if pl.up {
		err = ix.attach(ctx, path, level, pageNo, newNo, sep, st)
	} else {
		err = ix.attachLeft(ctx, path, level, pageNo, newNo, sep, st)
	}
	if err != nil {
		return false, err
	}
	tp, tz := right, rz
	if pl.insertLeft {
		tp, tz = left, lz
	}
	// In SX mode the lock stays to the end with the pages the change
	// latched (endTree), which it guards.
	if unlocked != nil && level == 0 && tz == nil && tp.MaxInsertSizeAfterReorganize() >= size && !ix.o.SXIndexLock {
		ix.unlockTree()
		*unlocked = true
	}
	// The tuple's slot in its half follows from the plan; a search could
	// not place it before a node page's blank slot 0.
	ts := slot - pl.cut
	if pl.insertLeft {
		ts = slot
	}
	if level > 0 && ts == 0 {
		r.Key = minKey // the tuple starts an empty node page
	}
	ok, err := ix.insertOrReorganize(tp, tz, ts, r, st)
	if err == nil && !ok && pl.insertEmpty && level > 0 {
		// The new page kept its first key for the tuple, which did not
		// fit: the next pass must find slot 0 blank.
		err = ix.blankSlot0(right, rz, st)
	}
	if err != nil {
		return false, err
	}
	if err := ix.markDirty(&g); err != nil {
		return false, err
	}
	return ok, ix.markDirty(&ng)
}

// insertIntoRightSibling is btr_insert_into_right_sibling (MySQL 5.7,
// MariaDB 10.2+): a record that belongs after the last record of the full
// leaf p goes to the start of the next leaf instead, if that leaf takes it
// as it stands (page_cur_tuple_insert: no pad or reserve rule), and the
// parent's pointer to the next leaf takes the record's key. It reports
// whether the record went there. zipsim offers the record only to a next
// leaf under the same parent, as its merges stay under one parent: a
// parent's first pointer has the empty key, so moving the boundary between
// two parents would mean rewriting the grandparent's pointer.
func (ix *Index) insertIntoRightSibling(ctx context.Context, path []uint32, p page.IndexPage, slot int, r page.Record, st stripe.Stripe) (bool, error) {
	next := p.Fil().Next()
	if slot != p.NRecs() || next == page.FilNull || len(path) < 2 {
		return false, nil
	}
	pg, err := ix.fixTree(ctx, path[len(path)-2], bufpool.Exclusive)
	if err != nil {
		return false, err
	}
	pp, pz := page.IndexPage(pg.Frame()), pg.Zip()
	i := childSlot(pp, path[len(path)-1])
	switch {
	case i < 0 || i+1 < pp.NRecs() && pp.Child(i+1) != next:
		pg.Release()
		return false, fmt.Errorf("btree: index %q: page %d and its next page %d disagree with their parent %d", ix.o.Name, path[len(path)-1], next, pp.PageNo())
	case i+1 >= pp.NRecs():
		pg.Release()
		return false, nil
	}
	ng, err := ix.fixTree(ctx, next, bufpool.Exclusive)
	if err != nil {
		pg.Release()
		return false, err
	}
	// A compressed page may have been reorganized even when the record did
	// not fit: it changed, as InnoDB's mini-transaction logs it.
	ok, err := ix.pageInsert(page.IndexPage(ng.Frame()), ng.Zip(), 0, r, st)
	if err == nil && (ok || ng.Zip() != nil) {
		err = ix.markDirty(&ng)
	}
	ng.Release()
	if err != nil || !ok {
		pg.Release()
		return false, err
	}
	st.Add(cSiblingInserts, 1)
	// The pointer moves down to the record's key [btr_cur_pessimistic_delete
	// of the father's pointer, then btr_insert_on_non_leaf_level].
	ptr := page.Record{Key: r.Key, Child: next}
	err = pageDelete(pp, pz, i+1)
	if err == nil {
		ok, err = ix.insertOrReorganize(pp, pz, i+1, ptr, st)
	}
	if err == nil {
		err = ix.markDirty(&pg)
	}
	pg.Release()
	if err != nil || ok {
		return err == nil, err
	}
	return true, ix.splitAndInsert(ctx, path[:len(path)-1], 1, ptr, st, nil)
}

// countSplit classifies a split: Zip when the uncompressed page had room
// for the record and only its compressed form (or the pad) refused it,
// not the update reserve that CompressedLeafReserve applies to both.
func (ix *Index) countSplit(p page.IndexPage, z *page.Zip, level, slot, size int, st stripe.Stripe) {
	zipCause := z != nil && ix.hasRoom(p, size) &&
		!(level == 0 && ix.o.CompressedLeafReserve && ix.reserveRefuses(p, slot, size))
	switch {
	case level == 0 && zipCause:
		st.Add(cLeafSplitsZip, 1)
	case level == 0:
		st.Add(cLeafSplitsSpace, 1)
	case zipCause:
		st.Add(cNodeSplitsZip, 1)
	default:
		st.Add(cNodeSplitsSpace, 1)
	}
}

// relink changes the FIL links of page pageNo (if any) with set.
func (ix *Index) relink(ctx context.Context, pageNo uint32, set func(page.Fil)) error {
	if pageNo == page.FilNull {
		return nil
	}
	g, err := ix.fixTree(ctx, pageNo, bufpool.Exclusive)
	if err != nil {
		return err
	}
	defer g.Release()
	p := page.IndexPage(g.Frame())
	set(p.Fil())
	if z := g.Zip(); z != nil {
		z.WriteHeader(p)
	}
	return ix.markDirty(&g)
}

// moveRecords moves slots [lo, hi) of src into the empty page dst
// [page_move_rec_list_end / page_move_rec_list_start]. A compressed dst is
// compressed (one compress), reorganized when that fails (a second), and
// when both fail restored and filled instead by copying src's whole image
// and deleting what does not belong (page_zip_copy_recs): no compression.
// Deleting the moved records from src never recompresses. On node pages
// the first record of each page gets the empty key (minKey), unless
// blankFirst is false because the caller puts a record before it.
func (ix *Index) moveRecords(src page.IndexPage, sz *page.Zip, dst page.IndexPage, dz *page.Zip, lo, hi int, blankFirst bool, st stripe.Stripe) error {
	for i := lo; i < hi; i++ {
		r := src.Record(i)
		if i == lo && blankFirst && dst.Level() > 0 {
			r.Key = minKey
		}
		if _, err := dst.Insert(i-lo, r); err != nil {
			return fmt.Errorf("btree: move record %d: %w", i, err)
		}
	}
	if dz != nil {
		err := ix.compress(dst, dz)
		if errors.Is(err, page.ErrDoesNotFit) {
			err = ix.zipReorganize(dst, dz)
		}
		if errors.Is(err, page.ErrDoesNotFit) {
			if err = ix.restore(dst, dz, st); err == nil {
				st.Add(cSplitCopies, 1)
				err = ix.copyTrim(src, sz, dst, dz, lo, hi)
			}
		}
		if err != nil {
			return err
		}
	}
	for i := hi - 1; i >= lo; i-- {
		if err := pageDelete(src, sz, i); err != nil {
			return err
		}
	}
	if blankFirst {
		if err := ix.blankSlot0(dst, dz, st); err != nil {
			return err
		}
	}
	return ix.blankSlot0(src, sz, st)
}

// minKey is the key of slot 0 on every node page: minus infinity. InnoDB
// flags the first node pointer of a level's first page so
// (REC_INFO_MIN_REC_FLAG) and keeps a real key elsewhere; zipsim uses the
// empty key on every node page, so that a page whose range grows downward
// (a discarded first child) never holds a key above keys routed to it.
var minKey = []byte{}

// blankSlot0 gives slot 0 of a node page the empty key, after a move left
// a real key there: one small delete and insert, through the log on a
// compressed page.
func (ix *Index) blankSlot0(p page.IndexPage, z *page.Zip, st stripe.Stripe) error {
	if p.Level() == 0 || p.NRecs() == 0 || len(p.Key(0)) == 0 {
		return nil
	}
	// The blank copy goes in first, so that a page with no room for it
	// keeps its pointer.
	ok, err := ix.pageInsert(p, z, 0, page.Record{Key: minKey, Child: p.Child(0)}, st)
	if err == nil && !ok {
		err = fmt.Errorf("btree: index %q: node page %d has no room to blank its first key", ix.o.Name, p.PageNo())
	}
	if err != nil {
		return err
	}
	return pageDelete(p, z, 1)
}

// copyTrim makes dst a byte copy of src, keeping dst's FIL header, and
// deletes every record outside [lo, hi) from it [page_zip_copy_recs, then
// page_delete_rec_list_start/end].
func (ix *Index) copyTrim(src page.IndexPage, sz *page.Zip, dst page.IndexPage, dz *page.Zip, lo, hi int) error {
	var fil [page.FilHeaderSize]byte
	copy(fil[:], dst)
	copy(dst, src)
	copy(dst, fil[:])
	if err := dz.CopyFrom(sz); err != nil {
		return err
	}
	dz.WriteHeader(dst)
	n := src.NRecs()
	for i := n - 1; i >= hi; i-- {
		if err := pageDelete(dst, dz, i); err != nil {
			return err
		}
	}
	for i := 0; i < lo; i++ {
		if err := pageDelete(dst, dz, 0); err != nil {
			return err
		}
	}
	return nil
}

// raiseRoot moves the root's records into a new page one level down and
// leaves the root with a single node pointer to it
// [btr_root_raise_and_insert]. It returns the new page, which the caller
// then splits.
func (ix *Index) raiseRoot(ctx context.Context, st stripe.Stripe) (uint32, error) {
	if ix.height.Load() >= maxLevels {
		return 0, fmt.Errorf("btree: index %q already has %d levels", ix.o.Name, maxLevels)
	}
	st.Add(cRootRaises, 1)
	rg, err := ix.fixTree(ctx, ix.root, bufpool.Exclusive)
	if err != nil {
		return 0, err
	}
	defer rg.Release()
	rp, rz := page.IndexPage(rg.Frame()), rg.Zip()
	level := rp.Level()
	newNo, err := ix.o.Alloc.AllocPage()
	if err != nil {
		return 0, err
	}
	ng, err := ix.newPage(ctx, newNo, level, page.FilNull, page.FilNull)
	if err != nil {
		ix.giveBack(newNo)
		return 0, err
	}
	ng = ix.keepNew(newNo, ng)
	defer ng.Release()
	np, nz := page.IndexPage(ng.Frame()), ng.Zip()
	if err := ix.moveRecords(rp, rz, np, nz, 0, rp.NRecs(), true, st); err != nil {
		return 0, err
	}
	if err := rp.Empty(level + 1); err != nil {
		return 0, err
	}
	if rz != nil {
		if err := ix.compress(rp, rz); err != nil {
			return 0, fmt.Errorf("btree: compress the emptied root: %w", err)
		}
	}
	ok, err := ix.pageInsert(rp, rz, 0, page.Record{Key: minKey, Child: newNo}, st)
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, fmt.Errorf("btree: index %q: one node pointer does not fit the empty root", ix.o.Name)
	}
	if err := ix.markDirty(&rg); err != nil {
		return 0, err
	}
	if err := ix.markDirty(&ng); err != nil {
		return 0, err
	}
	// The root moved up a level and newNo took its place on the old one.
	ix.perLevel[level+1].Store(1)
	ix.height.Add(1)
	return newNo, nil
}

// attach inserts the node pointer (sep, right) into the parent of left,
// right after left's [btr_attach_half_pages, FSP_UP].
func (ix *Index) attach(ctx context.Context, path []uint32, level int, left, right uint32, sep []byte, st stripe.Stripe) error {
	return ix.insertNodePtr(ctx, path, level, left, sep, right, page.FilNull, st)
}

// attachLeft points left's parent entry at the new left page and inserts
// (sep, page) after it for the old page, now the right half
// [btr_attach_half_pages, FSP_DOWN].
func (ix *Index) attachLeft(ctx context.Context, path []uint32, level int, pageNo, newLeft uint32, sep []byte, st stripe.Stripe) error {
	return ix.insertNodePtr(ctx, path, level, pageNo, sep, pageNo, newLeft, st)
}

// insertNodePtr finds the slot of child after in the parent (path[len-2])
// and inserts (key, child) after it; unless repoint is FilNull the existing
// slot is first pointed at repoint, the new page left of after. A parent that cannot take
// the pointer splits in turn [btr_insert_on_non_leaf_level].
func (ix *Index) insertNodePtr(ctx context.Context, path []uint32, level int, after uint32, key []byte, child, repoint uint32, st stripe.Stripe) error {
	parentPath := path[:len(path)-1]
	pg, err := ix.fixTree(ctx, parentPath[len(parentPath)-1], bufpool.Exclusive)
	if err != nil {
		return err
	}
	pp, pz := page.IndexPage(pg.Frame()), pg.Zip()
	i := childSlot(pp, after)
	if i < 0 {
		pg.Release()
		return fmt.Errorf("btree: index %q: page %d has no node pointer in page %d", ix.o.Name, after, pp.PageNo())
	}
	if repoint != page.FilNull {
		if err := pp.SetChild(i, repoint); err != nil {
			pg.Release()
			return err
		}
		if pz != nil {
			if err := pz.WriteChild(pp, i); err != nil {
				pg.Release()
				return err
			}
		}
	}
	r := page.Record{Key: key, Child: child}
	ok, err := ix.insertOrReorganize(pp, pz, i+1, r, st)
	if err == nil {
		err = ix.markDirty(&pg)
	}
	pg.Release()
	if err != nil || ok {
		return err
	}
	return ix.splitAndInsert(ctx, parentPath, level+1, r, st, nil)
}

// childSlot returns the slot of the node pointer to child, or -1.
func childSlot(p page.IndexPage, child uint32) int {
	for i := 0; i < p.NRecs(); i++ {
		if p.Child(i) == child {
			return i
		}
	}
	return -1
}
