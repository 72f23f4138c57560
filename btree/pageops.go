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
	if p.IsLeaf() && (err == nil || errors.Is(err, page.ErrDoesNotFit)) {
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
// page [page_cur_tuple_insert → page_cur_insert_rec_zip]. It reports
// false, with the page as it was, when the record does not fit. On a
// compressed page that costs what InnoDB pays when the log cannot take the
// record: unless the page was freshly compressed, it is first reorganized
// as it stands (page_zip_reorganize, one compress; its failure fails the
// insert) and the record logged if the log now has room, as MariaDB 10.11
// and innodb_log_compressed_pages=OFF do; with Options.LogCompressedPages
// (5.6/5.7's default) that first step is taken only when the frame's
// garbage holds the room it lacks (reorg_before_insert). Otherwise the
// record goes into the frame alone and the page is recompressed (one
// compress), a failure undone by decompressing the image (one decompress).
// An empty page is recreated (page_create_zip, one compress) to drop its
// log.
func (ix *Index) pageInsert(p page.IndexPage, z *page.Zip, slot int, r page.Record, st stripe.Stripe) (bool, error) {
	if z == nil {
		_, err := p.Insert(slot, r)
		if errors.Is(err, page.ErrNoSpace) {
			return false, nil
		}
		return err == nil, err
	}
	size := recSize(p.Kind(), &r)
	reorgBeforeInsert := p.Garbage() > 0 && size > p.MaxInsertSize() && size <= p.MaxInsertSizeAfterReorganize()
	if z.Available(size, true) && !reorgBeforeInsert {
		return ix.logInsert(p, z, slot, r)
	}
	switch {
	case p.NRecs() == 0:
		if err := ix.emptyPage(p, z, p.Level()); err != nil {
			return false, ignoreNoFit(err)
		}
		if z.Available(size, true) {
			return ix.logInsert(p, z, slot, r)
		}
		return false, nil
	case !z.LogNonEmpty() && p.Garbage() == 0:
		// Freshly compressed: a reorganization cannot help.
	case reorgBeforeInsert || !ix.o.LogCompressedPages:
		if err := ix.reorganize(p, z, st); err != nil {
			return false, ignoreNoFit(err)
		}
		if z.Available(size, true) {
			return ix.logInsert(p, z, slot, r)
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

// logInsert inserts r into the frame and appends it to the modification
// log, which Available said has room.
func (ix *Index) logInsert(p page.IndexPage, z *page.Zip, slot int, r page.Record) (bool, error) {
	if _, err := p.Insert(slot, r); err != nil {
		return false, ignoreNoSpace(err)
	}
	return true, z.LogInsert(p, slot)
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
