package btree

import (
	"bytes"
	"context"

	"github.com/zipsim/zipsim/bufpool"
	"github.com/zipsim/zipsim/internal/stripe"
	"github.com/zipsim/zipsim/page"
)

// Delete removes key; ErrNotFound if it is not there. zipsim has no MVCC,
// so this is the purge of a delete-marked record [btr_cur_optimistic_delete,
// then btr_cur_pessimistic_delete]: on a compressed page it clears the
// record through the dense directory and never recompresses.
func (ix *Index) Delete(ctx context.Context, key []byte) error {
	if cb := ix.o.ChangeBuffer; cb != nil {
		if err := cb.contractIfFull(ctx); err != nil {
			return err
		}
	}
	st := ix.ctr.Stripe()
	done, err := ix.deleteOptimistic(ctx, key, st)
	if err == nil && !done {
		err = ctx.Err()
	}
	if err != nil || done {
		return err
	}
	ix.lockTree()
	defer ix.unlockTree()
	defer ix.endTree()
	ctx = modifyTree(ctx)
	lp, err := ix.seekLeafX(ctx, key, intentDelete)
	if err != nil {
		return err
	}
	if !lp.found {
		lp.g.Release()
		return ix.errNotFound
	}
	size := lp.p.RecSize(lp.slot)
	err = pageDelete(lp.p, lp.z, lp.slot)
	if err == nil {
		err = ix.markDirty(&lp.g)
	}
	lp.g.Release()
	if err != nil {
		return err
	}
	ix.countDelete(size, st)
	return ix.compressIfUseful(ctx, lp.path, 0, st)
}

func (ix *Index) countDelete(size int, st stripe.Stripe) {
	st.Add(cDeletes, 1)
	st.Add(cRows, ^uint64(0))
	st.Add(cLeafData, uint64(-size))
}

// deleteOptimistic deletes from the leaf, found by Index.leaf, when the
// leaf stays full enough
// [btr_cur_can_delete_without_compress]: a non-root page that would fall
// below the merge limit, become empty, or that is alone on its level goes
// pessimistic so that it can be merged.
func (ix *Index) deleteOptimistic(ctx context.Context, key []byte, st stripe.Stripe) (bool, error) {
	op := cbNone
	if ix.o.ChangeBuffer != nil {
		op = cbDelete
	}
	g, buffered, err := ix.leaf(ctx, key, bufpool.Exclusive, op, nil)
	if err != nil || buffered {
		return buffered, err
	}
	defer g.Release()
	p, z := page.IndexPage(g.Frame()), g.Zip()
	slot, found := p.Search(key, bytes.Compare)
	if !found {
		return false, ix.errNotFound
	}
	size := p.RecSize(slot)
	if p.PageNo() != ix.root && (p.DataSize()-size < ix.mergeLimit() || p.NRecs() < 2 ||
		(p.Fil().Prev() == page.FilNull && p.Fil().Next() == page.FilNull)) {
		return false, nil
	}
	if err := pageDelete(p, z, slot); err != nil {
		return false, err
	}
	ix.countDelete(size, st)
	return true, ix.markDirty(&g)
}

// mergeLimit is BTR_CUR_PAGE_COMPRESS_LIMIT: the data size under which a
// page is merged with a sibling.
func (ix *Index) mergeLimit() int { return ix.pageSize * ix.o.MergeThresholdPct / 100 }
