package btree

import (
	"bytes"
	"context"
	"fmt"

	"github.com/zipsim/zipsim/bufpool"
	"github.com/zipsim/zipsim/internal/stripe"
	"github.com/zipsim/zipsim/page"
)

// Update replaces the value stored under key; ErrNotFound if key is not
// there [btr_cur_update_in_place, btr_cur_optimistic_update, then
// btr_cur_pessimistic_update]. On a clustered index an update in place
// keeps the record's DB_TRX_ID and DB_ROLL_PTR, any other update zeroes
// them: UpdateSys sets them.
func (ix *Index) Update(ctx context.Context, key, value []byte) error {
	return ix.UpdateSys(ctx, key, value, nil)
}

// UpdateSys is Update that also sets the record's DB_TRX_ID and
// DB_ROLL_PTR (page.TrxRollLen bytes, clustered indexes only), as the
// updating transaction does [row_upd_rec_sys_fields].
func (ix *Index) UpdateSys(ctx context.Context, key, value, sys []byte) error {
	_, _, _, err := ix.leafWrite(ctx, key, value, sys, ix.updateOptimistic, ix.updatePessimistic, cUpdatesPessimistic)
	return err
}

// updateOptimistic changes the record on its leaf, found by Index.leaf.
// done is false when the tree must change.
func (ix *Index) updateOptimistic(ctx context.Context, r page.Record, st stripe.Stripe) (bool, error) {
	g, _, err := ix.leaf(ctx, r.Key, bufpool.Exclusive, cbNone, nil)
	if err != nil {
		return false, err
	}
	defer g.Release()
	p, z := page.IndexPage(g.Frame()), g.Zip()
	slot, found := p.Search(r.Key, bytes.Compare)
	if !found {
		return false, ix.errNotFound
	}
	oldSize, newSize := p.RecSize(slot), recSize(ix.kind, &r)
	if newSize == oldSize && r.NExt == p.NExt(slot) {
		if z != nil && !z.Available(newSize, false) {
			if ok, err := ix.updateAllocZip(p, z, newSize, false, st); err != nil || !ok {
				return false, err
			}
		}
		if err := p.UpdateInPlace(slot, r); err != nil {
			return false, err
		}
		if z != nil {
			if err := z.LogUpdate(p, slot); err != nil {
				return false, err
			}
		}
		st.Add(cUpdates, 1)
		st.Add(cUpdatesInPlace, 1)
		return true, ix.markDirty(&g)
	}
	// btr_cur_optimistic_update: room in the log first (which may
	// reorganize), then a page that would fall below the merge limit or
	// lacks room goes pessimistic. A compressed page is not reorganized for
	// room in the frame: it might not compress afterwards.
	if z != nil && !z.Available(newSize, true) {
		if ok, err := ix.updateAllocZip(p, z, newSize, true, st); err != nil || !ok {
			return false, err
		}
	}
	if p.DataSize()-oldSize+newSize < ix.mergeLimit() {
		return false, nil
	}
	maxSize := oldSize + p.MaxInsertSizeAfterReorganize()
	if z != nil {
		maxSize = p.MaxInsertSize()
	}
	if !((maxSize >= ix.pageSize/32 && maxSize >= newSize) || p.NRecs() <= 1) {
		return false, nil
	}
	ok, err := ix.replace(p, z, slot, r, st)
	if err != nil || !ok {
		return false, err
	}
	st.Add(cUpdates, 1)
	st.Add(cLeafData, uint64(newSize-oldSize))
	return true, ix.markDirty(&g)
}

// updateAllocZip is btr_cur_update_alloc_zip for a change that the log
// cannot take: a freshly compressed page without garbage cannot gain room;
// a create-update whose record and the leaf's data (the old record still
// counted, as InnoDB does) reach the padded optimal size fails;
// otherwise reorganize (one compress) and look again.
func (ix *Index) updateAllocZip(p page.IndexPage, z *page.Zip, newSize int, create bool, st stripe.Stripe) (bool, error) {
	if !z.LogNonEmpty() && p.Garbage() == 0 {
		return false, nil
	}
	if create && p.IsLeaf() && p.DataSize()+newSize >= ix.pad.optimal() {
		st.Add(cPadRefusals, 1)
		return false, nil
	}
	if err := ix.reorganize(p, z, st); err != nil {
		return false, ignoreNoFit(err)
	}
	return z.Available(newSize, create), nil
}

// replace deletes slot and inserts r in its place [page_cur_delete_rec,
// btr_cur_insert_if_possible]. When the insert does not fit after all the
// old record goes back, so a failed replace changes nothing.
func (ix *Index) replace(p page.IndexPage, z *page.Zip, slot int, r page.Record, st stripe.Stripe) (bool, error) {
	buf := ix.scratch.Get().(*[]byte)
	defer ix.scratch.Put(buf)
	old := copyRecord((*buf)[:0], p.Record(slot))
	if err := pageDelete(p, z, slot); err != nil {
		return false, err
	}
	ok, err := ix.insertOrReorganize(p, z, slot, r, st)
	if err != nil || ok {
		return ok, err
	}
	back, err := ix.pageInsert(p, z, slot, old, st)
	if err == nil && !back {
		err = fmt.Errorf("btree: index %q: page %d cannot take back the record it held", ix.o.Name, p.PageNo())
	}
	return false, err
}

// copyRecord copies r's bytes into buf and returns a record over them.
func copyRecord(buf []byte, r page.Record) page.Record {
	buf = append(buf, r.Key...)
	k := len(buf)
	buf = append(buf, r.Value...)
	v := len(buf)
	buf = append(buf, r.Sys...)
	c := r
	c.Key, c.Value = buf[:k:k], buf[k:v:v]
	if r.Sys != nil {
		c.Sys = buf[v:]
	}
	return c
}

// updatePessimistic deletes the old record and inserts the new one with
// the index lock exclusive, splitting or merging as needed. It keeps the
// lock to the end, so leafWrite's early-release flag goes unused.
func (ix *Index) updatePessimistic(ctx context.Context, r page.Record, st stripe.Stripe) (bool, error) {
	lp, err := ix.seekLeafX(ctx, r.Key, intentBoth)
	if err != nil {
		return false, err
	}
	if !lp.found {
		lp.g.Release()
		return false, ix.errNotFound
	}
	oldSize := lp.p.RecSize(lp.slot)
	err = pageDelete(lp.p, lp.z, lp.slot)
	ok := false
	if err == nil {
		ok, err = ix.insertOrReorganize(lp.p, lp.z, lp.slot, r, st)
	}
	if err == nil {
		err = ix.markDirty(&lp.g)
	}
	lp.g.Release()
	if err != nil {
		return false, err
	}
	if !ok {
		if err := ix.splitAndInsert(ctx, lp.path, 0, r, st, nil); err != nil {
			return false, err
		}
	} else if err := ix.compressIfUseful(ctx, lp.path, 0, st); err != nil {
		return false, err
	}
	st.Add(cUpdates, 1)
	st.Add(cLeafData, uint64(recSize(ix.kind, &r)-oldSize))
	return false, nil
}
