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

// leafRecord builds the leaf record for key and value, with the number
// of off-page references ending the value.
func (ix *Index) leafRecord(key, value []byte) (page.Record, error) {
	r := page.Record{Key: key, Value: value}
	if ix.o.ExternRefs == nil {
		return r, nil
	}
	n, err := ix.o.ExternRefs(value)
	if err == nil && (n < 0 || n > page.MaxExtern || n*page.ExternRefSize > len(value)) {
		err = fmt.Errorf("%d references in a %d-byte value", n, len(value))
	}
	if err != nil {
		return r, fmt.Errorf("btree: index %q: off-page references: %w", ix.o.Name, err)
	}
	r.NExt = n
	return r, nil
}

var errEmptyKey = errors.New("btree: empty key (node pages keep the empty key for minus infinity)")

// checkSize returns ErrTooBig for a record that no page of the index can
// take [page_zip_rec_needs_ext, page_zip_is_too_big]: without off-page
// columns such a row cannot be stored, and letting it in would split
// forever.
func (ix *Index) checkSize(key, value []byte) error {
	if len(key) == 0 {
		return errEmptyKey
	}
	size := page.RecordSize(ix.kind, len(key), len(value))
	if len(key)+len(value)+page.TrxRollLen > page.MaxRecDataLen ||
		page.RecNeedsExt(size, ix.o.Fields, ix.pageSize, ix.zip) {
		return fmt.Errorf("%w: a %d-byte record does not fit an empty page of index %q (page %d, zip %d); it would need off-page columns",
			ErrTooBig, size, ix.o.Name, ix.pageSize, ix.zip)
	}
	if ix.nodePtrTooBig(len(key)) {
		return fmt.Errorf("%w: a %d-byte key cannot give two node pointers on an empty %d-byte page of index %q",
			ErrTooBig, len(key), max(ix.zip, ix.pageSize), ix.o.Name)
	}
	return nil
}

// nodePtrTooBig is page_zip_is_too_big's node pointer rule (and
// dict_index_too_big_for_tree's for uncompressed pages): two node pointers
// must fit half of an empty page, or splits never end.
func (ix *Index) nodePtrTooBig(keyLen int) bool {
	return nodePtrTooBig(ix.pageSize, ix.zip, ix.o.Fields, keyLen)
}

func nodePtrTooBig(pageSize, zipSize, fields, keyLen int) bool {
	size := page.RecordSize(page.NodePage, keyLen, 0)
	if zipSize == 0 {
		return 2*size > page.FreeSpaceOfEmpty(pageSize)
	}
	free := page.EmptySize(fields, zipSize)
	if free == 0 {
		return true
	}
	// A zip record has no 5-byte header but a 2-byte directory slot.
	return size-(page.RecHeaderSize-2) > (free-1)/2
}

// CheckKeyLen returns ErrTooBig when keys of keyLen bytes cannot give two
// node pointers on an empty page of an index whose leaf records have
// fields fields: CREATE TABLE's "KEY_BLOCK_SIZE too small" refusal
// [page_zip_is_too_big, dict_index_too_big_for_tree]. zipSize 0 means an
// uncompressed index.
func CheckKeyLen(pageSize, zipSize, fields, keyLen int) error {
	if nodePtrTooBig(pageSize, zipSize, fields, keyLen) {
		return fmt.Errorf("%w: keys of %d bytes cannot give two node pointers on an empty %d-byte page; KEY_BLOCK_SIZE is too small",
			ErrTooBig, keyLen, max(zipSize, pageSize))
	}
	return nil
}

// Insert adds key with value; ErrDuplicate if key is there
// [btr_cur_optimistic_insert, then btr_cur_pessimistic_insert]. On a
// clustered index the record's DB_TRX_ID and DB_ROLL_PTR are zero.
func (ix *Index) Insert(ctx context.Context, key, value []byte) error {
	return ix.InsertSys(ctx, key, value, nil)
}

// InsertSys is Insert with the record's DB_TRX_ID and DB_ROLL_PTR
// (page.TrxRollLen bytes, clustered indexes only; nil for zeros), as the
// inserting transaction writes them [row_ins_clust_index_entry,
// trx_undo_report_row_operation].
func (ix *Index) InsertSys(ctx context.Context, key, value, sys []byte) error {
	if cb := ix.o.ChangeBuffer; cb != nil {
		if err := cb.contractIfFull(ctx); err != nil {
			return err
		}
	}
	r, st, pessimistic, err := ix.leafWrite(ctx, key, value, sys, ix.insertOptimistic, ix.insertPessimistic, cInsertsPessimistic)
	if err == nil && pessimistic {
		ix.countInsert(r, st)
	}
	return err
}

// leafWrite runs a write of one leaf record as InnoDB does: first
// optimistic, descending under the shared index lock (BTR_MODIFY_LEAF),
// then, when the tree must change, pessimistic under the exclusive lock
// (BTR_MODIFY_TREE), which may release it early and say so in its first
// result (a result, not a *bool, so that nothing escapes to the heap).
// Cancellation is checked only before the tree starts to change. It
// reports whether the pessimistic path ran, counting it in counter. sys,
// when not nil, is the record's DB_TRX_ID and DB_ROLL_PTR.
func (ix *Index) leafWrite(ctx context.Context, key, value, sys []byte,
	optimistic func(context.Context, page.Record, stripe.Stripe) (bool, error),
	pessimistic func(context.Context, page.Record, stripe.Stripe) (unlocked bool, err error),
	counter int) (page.Record, stripe.Stripe, bool, error) {
	st := ix.ctr.Stripe()
	r, err := ix.leafRecord(key, value)
	if err == nil {
		err = ix.checkSize(key, value)
	}
	if err == nil && sys != nil {
		r.Sys, err = sys, ix.checkSys(sys)
	}
	if err != nil {
		return r, st, false, err
	}
	ix.noteKey(len(key))
	done, err := optimistic(ctx, r, st)
	if err == nil && !done {
		err = ctx.Err()
	}
	if err != nil || done {
		return r, st, false, err
	}
	ix.lockTree()
	unlocked, err := pessimistic(modifyTree(ctx), r, st)
	ix.endTree()
	if !unlocked {
		ix.unlockTree()
	}
	if err != nil {
		return r, st, true, err
	}
	st.Add(counter, 1)
	return r, st, true, nil
}

// modifyTree returns the context for a structure change: once pages start
// to change it must run to its end, as an InnoDB mini-transaction does, so
// cancellation is checked before it starts (by the caller's ctx.Err())
// and not after.
func modifyTree(ctx context.Context) context.Context {
	if ctx == context.Background() || ctx == context.TODO() {
		return ctx // never cancelled, by the standard library's word: no wrapper to allocate
	}
	return context.WithoutCancel(ctx)
}

func (ix *Index) countInsert(r page.Record, st stripe.Stripe) {
	st.Add(cInserts, 1)
	st.Add(cRows, 1)
	st.Add(cLeafData, uint64(recSize(ix.kind, &r)))
}

// insertOptimistic tries the insert on one leaf, found by Index.leaf.
// done is false when the tree must change.
func (ix *Index) insertOptimistic(ctx context.Context, r page.Record, st stripe.Stripe) (done bool, err error) {
	op := cbNone
	if ix.o.ChangeBuffer != nil {
		op = cbInsert
	}
	g, buffered, err := ix.leaf(ctx, r.Key, bufpool.Exclusive, op, r.Value)
	if err != nil || buffered {
		return buffered, err
	}
	defer g.Release()
	p := page.IndexPage(g.Frame())
	slot, found := p.Search(r.Key, bytes.Compare)
	if found {
		return false, ix.errDuplicate
	}
	ok, err := ix.leafInsert(p, g.Zip(), slot, r, st)
	if err != nil || !ok {
		return false, err
	}
	if err := ix.markDirty(&g); err != nil {
		return false, err
	}
	st.Add(cInsertsOptimistic, 1)
	ix.countInsert(r, st)
	return true, nil
}

// leafInsert applies btr_cur_optimistic_insert's rules before inserting:
// a compressed leaf refuses a record that would bring its data to the
// padded optimal size; any page refuses when even a reorganization would
// not make room, or (clustered leaves in a sequential run, compressed ones
// only with Options.CompressedLeafReserve) when less than 1/16 of the page
// would stay free for updates. An uncompressed page is reorganized once
// when its garbage holds the room.
func (ix *Index) leafInsert(p page.IndexPage, z *page.Zip, slot int, r page.Record, st stripe.Stripe) (bool, error) {
	size := recSize(ix.kind, &r)
	// An empty leaf takes any record that fits it: splitting it would
	// leave an empty page behind.
	if z != nil && p.NRecs() > 0 && p.DataSize()+size >= ix.pad.optimal() {
		st.Add(cPadRefusals, 1)
		return false, nil
	}
	if !ix.hasRoom(p, size) {
		return false, nil
	}
	if (z == nil || ix.o.CompressedLeafReserve) && ix.reserveRefuses(p, slot, size) {
		return false, nil
	}
	return ix.insertOrReorganize(p, z, slot, r, st)
}

// reserveRefuses is the update reserve of clustered leaves: in a
// sequential run (a split would go to the right or the left of slot) a
// record must leave 1/16 of the page free [btr_cur_optimistic_insert,
// dict_index_get_space_reserve].
func (ix *Index) reserveRefuses(p page.IndexPage, slot, size int) bool {
	if !ix.o.Clustered || p.NRecs() < 2 || ix.pageSize/16+size <= p.MaxInsertSizeAfterReorganize() {
		return false
	}
	if _, ok := splitToRight(p, slot); ok {
		return true
	}
	_, ok := splitToLeft(p, slot)
	return ok
}

// hasRoom is btr_cur_optimistic_insert's space rule: the record must fit
// after a reorganization, and a page with garbage is reorganized only when
// that frees a useful amount (BTR_CUR_PAGE_REORGANIZE_LIMIT, 1/32 page).
func (ix *Index) hasRoom(p page.IndexPage, size int) bool {
	maxSize := p.MaxInsertSizeAfterReorganize()
	if p.Garbage() > 0 {
		return !((maxSize < size || maxSize < ix.pageSize/32) && p.NRecs() > 1 && p.MaxInsertSize() < size)
	}
	return maxSize >= size
}

// insertPessimistic inserts r with the index lock held exclusively,
// splitting the leaf (and its ancestors) as needed. It reports whether
// splitAndInsert released the lock early.
func (ix *Index) insertPessimistic(ctx context.Context, r page.Record, st stripe.Stripe) (unlocked bool, err error) {
	lp, err := ix.seekLeafX(ctx, r.Key, intentInsert)
	if err != nil {
		return false, err
	}
	if lp.found {
		lp.g.Release()
		return false, ix.errDuplicate
	}
	// Another thread may have made room since the optimistic try.
	ok, err := ix.leafInsert(lp.p, lp.z, lp.slot, r, st)
	if err == nil && ok {
		err = ix.markDirty(&lp.g)
	}
	lp.g.Release()
	if err != nil || ok {
		return false, err
	}
	err = ix.splitAndInsert(ctx, lp.path, 0, r, st, &unlocked)
	return unlocked, err
}

// leafPos is a leaf latched exclusively for a pessimistic operation: the
// path to it from the root, and where the key is or would be.
type leafPos struct {
	path  []uint32
	g     bufpool.Guard
	p     page.IndexPage
	z     *page.Zip
	slot  int
	found bool
}

// seekLeafX latches key's leaf exclusively with the index lock held
// exclusively [btr_cur_search_to_nth_level, BTR_MODIFY_TREE], or in SX
// mode latches every page the change may touch (latchTree).
func (ix *Index) seekLeafX(ctx context.Context, key []byte, intent treeIntent) (leafPos, error) {
	if ix.o.SXIndexLock {
		return ix.latchTree(ctx, key, intent)
	}
	path, err := ix.path(ctx, ix.xPath[:0], key, 0)
	if err != nil {
		return leafPos{}, err
	}
	ix.xPath = path[:0]
	g, err := ix.fix(ctx, path[len(path)-1], bufpool.Exclusive)
	if err != nil {
		return leafPos{}, err
	}
	lp := leafPos{path: path, g: g, p: page.IndexPage(g.Frame()), z: g.Zip()}
	lp.slot, lp.found = lp.p.Search(key, bytes.Compare)
	return lp, nil
}

// path appends to dst the page numbers from the root down to the page at
// level whose range holds key. The caller holds the index lock
// exclusively (or SX), so the pages are not latched across levels.
func (ix *Index) path(ctx context.Context, dst []uint32, key []byte, level int) ([]uint32, error) {
	path := dst
	pageNo := ix.root
	for l := int(ix.height.Load()) - 1; ; l-- {
		path = append(path, pageNo)
		if l == level {
			return path, nil
		}
		g, err := ix.fixTree(ctx, pageNo, bufpool.Shared)
		if err != nil {
			return nil, err
		}
		p := page.IndexPage(g.Frame())
		pageNo = p.Child(nodeSlot(p, key))
		g.Release()
	}
}
