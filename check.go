package zipsim

import (
	"bytes"
	"context"
	"fmt"

	"github.com/cespare/xxhash/v2"
	"github.com/zipsim/zipsim/page"
)

// maxRowErrors bounds the row and entry errors Check reports per index,
// so a badly damaged index gives a readable answer.
const maxRowErrors = 20

// Check checks the table as CHECK TABLE does [btr_validate_index,
// row_check_index_for_mysql] and returns every violation:
//   - each index tree is sound (btree.Index.Check);
//   - every row decodes under the table's columns and sits in the
//     partition its partitioning columns hash to;
//   - each secondary index holds exactly the entries the rows call for;
//   - every off-page value's chain is sound, holds as many bytes as its
//     reference says (compressed ones are inflated to see), and no page
//     is in two chains, in an index or on the free list;
//   - in each tablespace the pages handed out are exactly those the
//     indexes and chains hold plus the free list.
//
// The entries are compared with the rows by count and by a sum of their
// hashes, which takes one scan of each index; only when those disagree
// does Check look up each entry's row to say which entries are wrong. It
// is exact only while no write runs.
func (t *Table) Check(ctx context.Context) []error {
	var errs []error
	for _, p := range t.parts {
		used := 0
		for j, ix := range p.indexes {
			for _, err := range ix.Check(ctx) {
				errs = append(errs, fmt.Errorf("zipsim: %s.%s: %w", p.name, t.sch.indexes[j].name, err))
			}
			for _, n := range ix.Stats().PagesPerLevel {
				used += n
			}
		}
		want, blobPages, rerrs := t.checkRows(ctx, p)
		errs = append(errs, rerrs...)
		for _, err := range p.alloc.check(used + len(blobPages)) {
			errs = append(errs, fmt.Errorf("zipsim: %s: %w", p.name, err))
		}
		if err := p.alloc.checkNotFree(blobPages); err != nil {
			errs = append(errs, fmt.Errorf("zipsim: %s: %w", p.name, err))
		}
		for j := 1; j < len(p.indexes); j++ {
			x := t.sch.indexes[j].name
			got, err := sumEntries(ctx, p, j)
			switch {
			case err != nil:
				errs = append(errs, fmt.Errorf("zipsim: %s.%s: scan: %w", p.name, x, err))
			case got.n != want[j].n:
				errs = append(errs, fmt.Errorf("zipsim: %s.%s has %d entries for %d rows", p.name, x, got.n, want[j].n))
				errs = append(errs, t.checkEntries(ctx, p, j)...)
			case got.sum != want[j].sum:
				errs = append(errs, fmt.Errorf("zipsim: %s.%s: its entries are not the ones its rows call for", p.name, x))
				errs = append(errs, t.checkEntries(ctx, p, j)...)
			}
		}
	}
	return errs
}

// entrySum is the count and the sum of the xxhashes of a set of index
// entries: equal multisets give equal sums, and different ones almost
// never do.
type entrySum struct {
	n   int64
	sum uint64
}

func (e *entrySum) add(key []byte) {
	e.n++
	e.sum += xxhash.Sum64(key)
}

// sumEntries sums the entries of index j of partition p.
func sumEntries(ctx context.Context, p *partition, j int) (entrySum, error) {
	var e entrySum
	err := p.indexes[j].Scan(ctx, nil, nil, false, func(key, _ []byte) bool {
		e.add(key)
		return true
	})
	return e, err
}

// rowErrors collects the errors of one index, up to maxRowErrors.
type rowErrors struct {
	where string
	errs  []error
	n     int
}

func (e *rowErrors) add(format string, args ...any) {
	e.n++
	if e.n <= maxRowErrors {
		e.errs = append(e.errs, fmt.Errorf("zipsim: %s: "+format, append([]any{e.where}, args...)...))
	}
}

func (e *rowErrors) result(err error) []error {
	if e.n > maxRowErrors {
		e.errs = append(e.errs, fmt.Errorf("zipsim: %s: %d more errors", e.where, e.n-maxRowErrors))
	}
	if err != nil {
		e.errs = append(e.errs, fmt.Errorf("zipsim: %s: scan: %w", e.where, err))
	}
	return e.errs
}

// checkRows decodes every row of partition p, checks its partition and
// its off-page chains and sums the secondary entries it calls for, per
// index. It returns the sums and the pages of the chains.
func (t *Table) checkRows(ctx context.Context, p *partition) ([]entrySum, map[uint32]bool, []error) {
	s := t.sch
	row := make(Row, len(s.cols))
	want := make([]entrySum, len(s.indexes))
	var sec []byte
	w := getWork()
	defer putWork(w)
	bs := t.blobs(ctx, w, p)
	blobPages := make(map[uint32]bool)
	e := rowErrors{where: p.name + "." + PrimaryIndexName}
	err := p.indexes[0].Scan(ctx, nil, nil, false, func(key, val []byte) bool {
		if err := t.checkExtern(bs, val, blobPages); err != nil {
			e.add("key %x: %v", key, err)
		}
		if err := t.decodeRow(row, key, val, bs, nil); err != nil {
			e.add("key %x: %v", key, err)
			return true
		}
		if q := t.parts[s.partOfRow(row, len(t.parts))]; q != p {
			e.add("key %x belongs in %s", key, q.name)
		}
		for j := 1; j < len(s.indexes); j++ {
			sec = s.appendKey(sec[:0], &s.indexes[j], row)
			want[j].add(sec)
		}
		return true
	})
	return want, blobPages, e.result(err)
}

// checkExtern checks the chains of clustered value val: each sound and
// sharing no page with the chains seen before, which it adds to seen.
// Decoding the row then reads them, inflating compressed ones, and checks
// their lengths.
func (t *Table) checkExtern(bs *blobStore, val []byte, seen map[uint32]bool) error {
	return t.sch.visitExtern(val, func(c int, local []byte, ref page.ExternRef) error {
		pages, _, err := page.BlobPages(bs, bs.format, ref)
		if err != nil {
			return fmt.Errorf("column %q: %w", t.sch.cols[c].Name, err)
		}
		for _, no := range pages {
			if seen[no] {
				return fmt.Errorf("column %q: page %d of the chain from page %d is in another chain too", t.sch.cols[c].Name, no, ref.PageNo)
			}
			seen[no] = true
		}
		return nil
	})
}

// checkEntries looks up the row of every entry of secondary index j of
// partition p and reports the entries that lead to no row or do not
// match their row's columns.
func (t *Table) checkEntries(ctx context.Context, p *partition, j int) []error {
	s := t.sch
	x := &s.indexes[j]
	row := make(Row, len(s.cols))
	var pk, val, again []byte
	w := getWork()
	defer putWork(w)
	bs := t.blobs(ctx, w, p)
	e := rowErrors{where: p.name + "." + x.name}
	err := p.indexes[j].Scan(ctx, nil, nil, false, func(key, _ []byte) bool {
		rest, err := s.decodeKey(row, x, key)
		if err == nil && len(rest) != 0 {
			err = errCorrupt
		}
		if err != nil {
			e.add("entry %x: %v", key, err)
			return true
		}
		pk = s.appendKey(pk[:0], &s.indexes[0], row)
		var found bool
		if val, found, err = p.indexes[0].Get(ctx, pk, val[:0]); err != nil || !found {
			e.add("entry %x: no row with key %x (%v)", key, pk, err)
			return true
		}
		if err := s.decodeValue(row, val, bs, s.secCols); err != nil {
			e.add("entry %x: row %x: %v", key, pk, err)
			return true
		}
		if again = s.appendKey(again[:0], x, row); !bytes.Equal(again, key) {
			e.add("entry %x does not match its row, whose entry is %x", key, again)
		}
		return true
	})
	return e.result(err)
}
