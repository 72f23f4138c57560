package zipsim

import (
	"context"
	"errors"
	"fmt"

	"github.com/zipsim/zipsim/btree"
	"github.com/zipsim/zipsim/bufpool"
	"github.com/zipsim/zipsim/page"
)

// Off-page columns [data0data.cc: dtuple_convert_big_rec; btr0cur.cc:
// btr_store_big_rec_extern_fields, btr_copy_externally_stored_field,
// btr_free_externally_stored_field]. A clustered record too big for its
// page moves its longest eligible columns, one at a time, to chains of
// BLOB pages (ZBLOB pages holding one deflate stream per value on
// compressed tables), keeping a 20-byte reference in the record and, on
// COMPACT, a 768-byte prefix. The references end the record's value, so
// the page layer keeps them in the zip image's BLOB pointer area.
//
// A chain is written before the record that refers to it and freed after
// the record stops referring to it, both under the row lock; readers read
// a chain while the record's leaf is latched (btree.Index.View), so a
// writer, which must latch the leaf to change the reference, never frees
// a chain under a reader.

const (
	// bigColumnLen: DYNAMIC and COMPRESSED move only columns longer than
	// this (DATA_BIG_COL); their length bytes have room for the flag.
	bigColumnLen = 255
	// externLocalMax: values this short never move
	// (BTR_EXTERN_LOCAL_STORED_MAX_SIZE).
	externLocalMax = 2 * page.ExternRefSize
	// antelopePrefix is what COMPACT keeps in the record
	// (DICT_ANTELOPE_MAX_INDEX_COL_LEN).
	antelopePrefix = 768
)

// localPrefix is how much of an off-page value stays in the record.
func (s *schema) localPrefix() int {
	if s.format == Compact {
		return antelopePrefix
	}
	return 0
}

// chooseExtern marks in ext (by position in s.vals) the columns row must
// store off-page for a value of valLen bytes under a key of keyLen bytes
// to fit its page, as dtuple_convert_big_rec does: while the record needs
// it, the column saving the most moves. It reports whether any moved and
// fails with ErrTooBig when no eligible column is left.
func (s *schema) chooseExtern(ext []bool, row Row, keyLen, valLen int) (bool, error) {
	clear(ext)
	fields := s.indexes[0].fields
	local := s.localPrefix() + page.ExternRefSize
	moved, n := false, 0
	for ; page.RecNeedsExt(page.RecordSize(page.ClusteredLeaf, keyLen, valLen), fields, s.pageSize, s.zipSize); n++ {
		best, saving := -1, 0
		for j, p := range s.vals {
			l := len(row[p].b)
			if !s.extCap[p] || ext[j] || l <= local || l <= externLocalMax {
				continue
			}
			if l-local > saving {
				best, saving = j, l-local
			}
		}
		if best < 0 || n == page.MaxExtern {
			return moved, fmt.Errorf("%w: a %d-byte record does not fit a %d-byte page (KEY_BLOCK_SIZE %d) even with its long columns off-page",
				btree.ErrTooBig, page.RecordSize(page.ClusteredLeaf, keyLen, valLen), s.pageSize, s.zipSize/1024)
		}
		ext[best] = true
		moved = true
		l := len(row[s.vals[best]].b)
		valLen += uvarintLen(uint64(s.localPrefix())<<1|1) + s.localPrefix() + page.ExternRefSize -
			uvarintLen(uint64(l)<<1) - l
	}
	return moved, nil
}

func uvarintLen(u uint64) int {
	n := 1
	for ; u >= 0x80; u >>= 7 {
		n++
	}
	return n
}

// blobStore is page.BlobStore over the buffer pool for one tablespace: a
// call's work space holds one, set up by t.blobs.
type blobStore struct {
	ctx    context.Context
	pool   *bufpool.Pool
	alloc  *allocator
	format page.BlobFormat
	// pages are those handed out to the chain being written, given back
	// if it cannot be finished.
	pages []uint32
}

// blobs sets up w's blob store for partition p.
func (t *Table) blobs(ctx context.Context, w *work, p *partition) *blobStore {
	w.bs = blobStore{
		ctx: ctx, pool: t.store.pool, alloc: p.alloc, pages: w.bs.pages[:0],
		format: page.BlobFormat{PageSize: t.sch.pageSize, ZipSize: t.sch.zipSize, SpaceID: p.space, Env: page.Env{Codec: t.codec}},
	}
	return &w.bs
}

func (b *blobStore) id(pageNo uint32) bufpool.PageID {
	return bufpool.PageID{Space: b.format.SpaceID, PageNo: pageNo}
}

// AllocPage takes a page from the tablespace's allocator.
func (b *blobStore) AllocPage() (uint32, error) {
	no, err := b.alloc.AllocPage()
	if err == nil {
		b.pages = append(b.pages, no)
	}
	return no, err
}

// WritePage creates the page in the pool: a compressed-only block for a
// ZBLOB page [buf_page_create, btr_blob_free(all=FALSE)], a frame for a
// BLOB page. A page number given back by an index or a chain may still be
// in the pool, so it is fixed instead of created.
func (b *blobStore) WritePage(pageNo uint32, fill func([]byte) error) error {
	if b.format.ZipSize != 0 {
		return b.pool.CreateZip(b.ctx, b.id(pageNo), fill)
	}
	g, err := b.pool.Create(b.ctx, b.id(pageNo))
	if errors.Is(err, bufpool.ErrExists) {
		g, err = b.pool.Fix(b.ctx, b.id(pageNo), bufpool.Exclusive)
	}
	if err != nil {
		return err
	}
	defer g.Release()
	if err := fill(g.Frame()); err != nil {
		return err
	}
	return g.MarkDirty()
}

// ReadPage reads a ZBLOB page compressed-only [buf_page_get_zip], a BLOB
// page through a frame.
func (b *blobStore) ReadPage(pageNo uint32, use func([]byte) error) error {
	if b.format.ZipSize != 0 {
		g, err := b.pool.FixZip(b.ctx, b.id(pageNo))
		if err != nil {
			return err
		}
		defer g.Release()
		return use(g.Block())
	}
	g, err := b.pool.Fix(b.ctx, b.id(pageNo), bufpool.Shared)
	if err != nil {
		return err
	}
	defer g.Release()
	return use(g.Frame())
}

// read appends the off-page value ref points at to dst.
func (b *blobStore) read(dst []byte, ref page.ExternRef) ([]byte, error) {
	return page.ReadBlob(b, b.format, ref, dst)
}

// write stores value as a new chain; if that fails, the pages it took go
// back to the allocator.
func (b *blobStore) write(value []byte) (page.ExternRef, error) {
	b.pages = b.pages[:0]
	ref, err := page.WriteBlob(b, b.format, value)
	if err != nil {
		for _, no := range b.pages {
			b.alloc.FreePage(no)
		}
		return ref, fmt.Errorf("write off-page value: %w", err)
	}
	return ref, nil
}

// free gives the pages of the chain ref points at back to the allocator
// [btr_free_externally_stored_field]. It ignores cancellation: chains are
// freed once a write has changed its indexes, and a free stopped halfway
// would leak the rest of the chain (rollback and structure changes finish
// for the same reason).
func (b *blobStore) free(ref page.ExternRef) error {
	if b.ctx.Done() != nil {
		b.ctx = context.WithoutCancel(b.ctx)
	}
	pages, _, err := page.BlobPages(b, b.format, ref)
	if err != nil {
		return fmt.Errorf("free off-page value at page %d: %w", ref.PageNo, err)
	}
	for _, no := range pages {
		b.alloc.FreePage(no)
	}
	return nil
}

// encodeRow encodes row's clustered value into w.val, moving columns
// off-page when the record needs it: their chains are written first and
// listed in w.fresh, for the caller to free should the write fail. An
// update passes the stored value as old: an off-page column whose value
// has not changed keeps its chain, as the columns an UPDATE does not
// change keep theirs.
func (t *Table) encodeRow(ctx context.Context, w *work, p *partition, row Row, old []byte) error {
	s := t.sch
	w.fresh, w.refs = w.fresh[:0], w.refs[:0]
	w.val = s.appendValue(w.val[:0], row, nil, nil)
	if !s.anyExt {
		return nil
	}
	w.ext = append(w.ext[:0], make([]bool, len(s.vals))...)
	moved, err := s.chooseExtern(w.ext, row, len(w.key), len(w.val))
	if err != nil || !moved {
		return err
	}
	bs := t.blobs(ctx, w, p)
	for j, c := range s.vals {
		if !w.ext[j] {
			continue
		}
		v := row[c].b
		if ref, ok, err := t.sameExtern(w, old, c, v); err != nil {
			return err
		} else if ok {
			w.refs = append(w.refs, ref)
			continue
		}
		ref, err := bs.write(v[s.localPrefix():])
		if err != nil {
			t.freeFresh(w)
			return fmt.Errorf("column %q: %w", s.cols[c].Name, err)
		}
		w.refs = append(w.refs, ref)
		w.fresh = append(w.fresh, ref)
	}
	w.val = s.appendValue(w.val[:0], row, w.ext, w.refs)
	return nil
}

// sameExtern reports whether column c of the stored value old is off-page
// and equal to v, returning its reference. Lengths are compared before
// any page is read.
func (t *Table) sameExtern(w *work, old []byte, c int, v []byte) (page.ExternRef, bool, error) {
	if old == nil {
		return page.ExternRef{}, false, nil
	}
	s := t.sch
	local, ref, ok, err := s.externOf(old, c)
	if err != nil || !ok || len(local)+int(ref.Length) != len(v) || string(local) != string(v[:len(local)]) {
		return ref, false, err
	}
	w.tmp, err = w.bs.read(w.tmp[:0], ref)
	if err != nil {
		return ref, false, err
	}
	return ref, string(w.tmp) == string(v[len(local):]), nil
}

// externOf returns column c's local bytes and reference in clustered
// value val, with ok false when c is stored in the record.
func (s *schema) externOf(val []byte, c int) (local []byte, ref page.ExternRef, ok bool, err error) {
	err = s.visitExtern(val, func(p int, l []byte, r page.ExternRef) error {
		if p == c {
			local, ref, ok = l, r, true
		}
		return nil
	})
	return local, ref, ok, err
}

// visitExtern calls fn for every off-page column of clustered value val
// with its position, local prefix and reference.
func (s *schema) visitExtern(val []byte, fn func(p int, local []byte, ref page.ExternRef) error) error {
	n, err := s.externRefs(val)
	if err != nil || n == 0 {
		return err
	}
	refs := val[len(val)-n*page.ExternRefSize:]
	for _, p := range s.vals {
		local, flag, rest, _ := s.field(p, val) // externRefs checked every field
		val = rest
		if !flag {
			continue
		}
		ref, err := page.DecodeExternRef(refs)
		if err != nil {
			return err
		}
		refs = refs[page.ExternRefSize:]
		if err := fn(p, local, ref); err != nil {
			return err
		}
	}
	return nil
}

// errStop ends a visit early.
var errStop = errors.New("zipsim: stop")

// wantsExtern says whether decoding clustered value val with projection
// need (nil: every column) reads an off-page column.
func (s *schema) wantsExtern(val []byte, need []bool) bool {
	if !s.anyExt {
		return false
	}
	err := s.visitExtern(val, func(p int, _ []byte, _ page.ExternRef) error {
		if need == nil || need[p] {
			return errStop
		}
		return nil
	})
	return err != nil
}

// freeFresh frees the chains this call wrote, after the write failed.
func (t *Table) freeFresh(w *work) {
	for _, ref := range w.fresh {
		// A chain this call wrote was read back by nothing; an error here
		// leaks its pages, which Check reports.
		_ = w.bs.free(ref)
	}
	w.fresh = w.fresh[:0]
}

// freeExtern frees the chains of stored value old that the new value
// (nil after a delete) no longer refers to, once the write is done.
func (t *Table) freeExtern(w *work, old, cur []byte) error {
	var errs []error
	err := t.sch.visitExtern(old, func(p int, _ []byte, ref page.ExternRef) error {
		if cur != nil {
			if _, r, ok, err := t.sch.externOf(cur, p); err == nil && ok && r.PageNo == ref.PageNo {
				return nil
			}
		}
		if err := w.bs.free(ref); err != nil {
			errs = append(errs, err)
		}
		return nil
	})
	if err = errors.Join(append(errs, err)...); err != nil {
		return fmt.Errorf("zipsim: %s: the row was written, but its old off-page values were not all freed (Check reports the pages): %w", t.name, err)
	}
	return nil
}
