package btree

import (
	"errors"

	"github.com/zipsim/zipsim/internal/stripe"
	"github.com/zipsim/zipsim/page"
)

// compress is page_zip_compress as the B-tree calls it: every attempt is
// counted in CMP by the page package, and a leaf's outcome feeds the
// index's padding rounds [dict_index_zip_success, dict_index_zip_failure].
func (ix *Index) compress(p page.IndexPage, z *page.Zip) error {
	err := z.Compress(p, ix.env)
	if p.IsLeaf() {
		ix.pad.record(err == nil)
	}
	return err
}

// zipReorganize is page_zip_reorganize: reorganize the frame and compress
// it. On failure the frame is as it was and the image unchanged.
func (ix *Index) zipReorganize(p page.IndexPage, z *page.Zip) error {
	buf := ix.scratch.Get().(*[]byte)
	err := z.Reorganize(p, ix.env, *buf)
	ix.scratch.Put(buf)
	if p.IsLeaf() && (err == nil || errors.Is(err, page.ErrDoesNotFit)) {
		ix.pad.record(err == nil)
	}
	return err
}

// reorganize is btr_page_reorganize: on a compressed page one compression
// (page_zip_reorganize), on an uncompressed page a plain repack.
func (ix *Index) reorganize(p page.IndexPage, z *page.Zip, st stripe.Stripe) error {
	st.Add(cReorganizations, 1)
	if z != nil {
		return ix.zipReorganize(p, z)
	}
	buf := ix.scratch.Get().(*[]byte)
	err := p.Reorganize(*buf)
	ix.scratch.Put(buf)
	return err
}

// restore rebuilds the frame from the zip image after a change that did
// not recompress: one decompression, as page_zip_decompress in
// page_cur_insert_rec_zip and page_copy_rec_list_end.
func (ix *Index) restore(p page.IndexPage, z *page.Zip, st stripe.Stripe) error {
	st.Add(cRestores, 1)
	return z.Decompress(p, ix.env)
}

// recSize is the size of r on a page of kind k.
func recSize(k page.Kind, r *page.Record) int {
	if k == page.NodePage {
		return page.RecordSize(k, len(r.Key), 0)
	}
	return page.RecordSize(k, len(r.Key), len(r.Value))
}

// pageInsert inserts r as slot of p, mirroring it into z on a compressed
// page [page_cur_tuple_insert → page_cur_insert_rec_zip, 5.7]. It reports
// false, with the page as it was, when the record does not fit. On a
// compressed page that costs what InnoDB pays: a reorganization when the
// log holds entries or the page garbage (one compress), then an insert into
// the frame alone and a recompression (one compress), and a decompression
// to restore the frame when that fails.
func (ix *Index) pageInsert(p page.IndexPage, z *page.Zip, slot int, r page.Record, st stripe.Stripe) (bool, error) {
	if z == nil {
		_, err := p.Insert(slot, r)
		if errors.Is(err, page.ErrNoSpace) {
			return false, nil
		}
		return err == nil, err
	}
	size := recSize(p.Kind(), &r)
	if z.Available(size, true) {
		_, err := p.Insert(slot, r)
		switch {
		case err == nil:
			return true, z.LogInsert(p, slot)
		case !errors.Is(err, page.ErrNoSpace):
			return false, err
		case p.MaxInsertSizeAfterReorganize() < size:
			return false, nil
		}
		// reorg_before_insert: the frame needs its garbage back.
	}
	if z.LogNonEmpty() || p.Garbage() > 0 {
		if err := ix.reorganize(p, z, st); err != nil {
			return false, ignoreNoFit(err)
		}
		if z.Available(size, true) {
			_, err := p.Insert(slot, r)
			if err == nil {
				return true, z.LogInsert(p, slot)
			}
			if !errors.Is(err, page.ErrNoSpace) {
				return false, err
			}
			return false, nil
		}
	}
	if _, err := p.Insert(slot, r); err != nil {
		return false, ignoreNoSpace(err)
	}
	st.Add(cRecompressions, 1)
	if err := ix.zipReorganize(p, z); err == nil {
		return true, nil
	} else if !errors.Is(err, page.ErrDoesNotFit) {
		return false, err
	}
	return false, ix.restore(p, z, st)
}

// insertOrReorganize is pageInsert followed, on an uncompressed page, by a
// reorganization and a second try: compressed pages have tried one inside
// pageInsert already [btr_cur_insert_if_possible].
func (ix *Index) insertOrReorganize(p page.IndexPage, z *page.Zip, slot int, r page.Record, st stripe.Stripe) (bool, error) {
	ok, err := ix.pageInsert(p, z, slot, r, st)
	if err != nil || ok || z != nil {
		return ok, err
	}
	if err := ix.reorganize(p, nil, st); err != nil {
		return false, err
	}
	return ix.pageInsert(p, nil, slot, r, st)
}

// pageDelete removes slot i from p and z [page_cur_delete_rec]: on a
// compressed page the dense directory and trailer change, the stream does
// not, so a delete never recompresses.
func pageDelete(p page.IndexPage, z *page.Zip, i int) error {
	if _, err := p.Delete(i); err != nil {
		return err
	}
	if z != nil {
		return z.LogDelete(p, i)
	}
	return nil
}

func ignoreNoFit(err error) error {
	if errors.Is(err, page.ErrDoesNotFit) {
		return nil
	}
	return err
}

func ignoreNoSpace(err error) error {
	if errors.Is(err, page.ErrNoSpace) {
		return nil
	}
	return err
}
