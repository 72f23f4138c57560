package zipsim

import (
	"bytes"
	"container/heap"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/zipsim/zipsim/btree"
)

// Scan calls fn with every row whose primary key is in [from, to), in key
// order, or descending when reverse is set, until fn returns false. from
// and to hold leading primary key columns, in key order: from = (5) starts
// at the first key whose first column is 5, to = (6) stops before the
// first whose first column is 6; nil or empty is open. fn gets the same
// Row every time, refilled: it and its bytes are valid only during the
// call (Row.Clone keeps one). fn may call the table's methods.
//
// A partitioned table is scanned in key order across its partitions by
// merging one cursor per partition, as ha_partition's ordered index scan
// does, unless from and to agree on every partitioning column, which
// pins the one partition to read (partition pruning).
func (t *Table) Scan(ctx context.Context, from, to []Value, reverse bool, fn func(Row) bool) error {
	return t.scan(ctx, 0, nil, from, to, reverse, fn)
}

// ScanColumns is Scan filling only the columns of cols (see Columns and
// GetColumns).
func (t *Table) ScanColumns(ctx context.Context, cols Columns, from, to []Value, reverse bool, fn func(Row) bool) error {
	if err := cols.check(t); err != nil {
		return fmt.Errorf("zipsim: %s: scan: %w", t.name, err)
	}
	return t.scan(ctx, 0, cols.need, from, to, reverse, fn)
}

// ScanIndex is Scan on the secondary index named index, with from and to
// holding its leading columns. An index that holds every column gives the
// rows from its entries (a covering index); any other looks each row up
// in the clustered index [row_sel_get_clust_rec] and skips an entry whose
// row changed or left since the entry was read.
func (t *Table) ScanIndex(ctx context.Context, index string, from, to []Value, reverse bool, fn func(Row) bool) error {
	for i := 1; i < len(t.sch.indexes); i++ {
		if strings.EqualFold(t.sch.indexes[i].name, index) {
			return t.scan(ctx, i, nil, from, to, reverse, fn)
		}
	}
	names := make([]string, 0, len(t.sch.indexes)-1)
	for _, x := range t.sch.indexes[1:] {
		names = append(names, x.name)
	}
	return fmt.Errorf("zipsim: %s has no secondary index %q; it has %v (Scan reads PRIMARY)", t.name, index, names)
}

func (t *Table) scan(ctx context.Context, i int, need []bool, from, to []Value, reverse bool, fn func(Row) bool) error {
	if err := t.live(); err != nil {
		return err
	}
	if fn == nil {
		return fmt.Errorf("zipsim: %s: scan with a nil callback", t.name)
	}
	s := t.sch
	x := &s.indexes[i]
	if err := s.checkPrefix(x, from); err != nil {
		return fmt.Errorf("zipsim: %s: scan from: %w", t.name, err)
	}
	if err := s.checkPrefix(x, to); err != nil {
		return fmt.Errorf("zipsim: %s: scan to: %w", t.name, err)
	}
	sess := t.session(ctx)
	sess.enter()
	defer sess.exit()
	w := getWork()
	defer putWork(w)
	var lo, hi []byte
	if len(from) > 0 {
		lo = s.appendPrefix(w.sec[:0], x, from)
		w.sec = lo
	}
	if len(to) > 0 {
		hi = s.appendPrefix(w.sec2[:0], x, to)
		w.sec2 = hi
	}
	parts := t.parts
	if len(parts) > 1 {
		if p := t.prune(w, x, from, to); p != nil {
			parts = []*partition{p}
		}
	}
	w.row = sizeRow(w.row, len(s.cols))
	v := visitor{t: t, ctx: ctx, x: x, w: w, fn: fn, need: need, sess: sess}
	if err := v.run(parts, i, lo, hi, reverse); err != nil {
		return fmt.Errorf("zipsim: %s: scan of %s: %w", t.name, x.name, err)
	}
	return nil
}

// visitor turns the entries of an index into rows for a scan's callback.
type visitor struct {
	t    *Table
	ctx  context.Context
	x    *indexSchema
	w    *work
	fn   func(Row) bool
	need []bool // the projection; nil for every column
	err  error  // what stopped the scan, other than fn
	sess *Session
}

// run visits the entries of index i in [lo, hi) of parts: one partition's
// through its Scan, several through a merge of their cursors.
func (v *visitor) run(parts []*partition, i int, lo, hi []byte, reverse bool) error {
	if len(parts) == 1 {
		err := parts[0].indexes[i].Scan(v.ctx, lo, hi, reverse, func(key, val []byte) bool {
			return v.visit(parts[0], key, val)
		})
		return errors.Join(err, v.err)
	}
	m := merge{reverse: reverse}
	for _, p := range parts {
		c := &mergeCursor{p: p, lo: lo, hi: hi, reverse: reverse}
		if reverse {
			c.cur = p.indexes[i].Seek(v.ctx, hi, true)
		} else {
			c.cur = p.indexes[i].Seek(v.ctx, lo, false)
		}
		if c.next() {
			m.c = append(m.c, c)
		} else if err := c.cur.Err(); err != nil {
			return err
		}
	}
	heap.Init(&m)
	for m.Len() > 0 {
		c := m.c[0]
		if !v.visit(c.p, c.cur.Key(), c.cur.Value()) {
			return v.err
		}
		if c.next() {
			heap.Fix(&m, 0)
			continue
		}
		if err := c.cur.Err(); err != nil {
			return err
		}
		heap.Pop(&m)
	}
	return nil
}

// visit decodes one entry of partition p and calls fn, reporting whether
// the scan goes on.
func (v *visitor) visit(p *partition, key, val []byte) bool {
	s, row := v.t.sch, v.w.row
	rest, err := s.decodeKey(row, v.x, key)
	if err == nil && len(rest) != 0 {
		err = errCorrupt
	}
	if err == nil {
		switch {
		case v.x == &s.indexes[0] && s.wantsExtern(val, v.need):
			// The cursor's copy of the record was taken under a latch
			// it no longer holds: its chains may be gone. Read the row
			// again with its leaf latched.
			v.w.key = append(v.w.key[:0], key...)
			var ok bool
			if ok, err = v.t.view(v.ctx, v.w, p, row, v.need); err == nil && !ok {
				return true
			}
		case v.x == &s.indexes[0]:
			err = s.decodeValue(row, val, nil, v.need)
		case !v.x.covering:
			var ok bool
			if ok, err = v.fetch(p, key); err == nil && !ok {
				return true
			}
		}
	}
	if err != nil {
		v.err = err
		return false
	}
	// The server takes the row between two handler calls
	// [ha_innobase::general_fetch], each of which enters and leaves the
	// gate; there is no next call after the last row.
	v.sess.exit()
	more := v.fn(row)
	if more {
		v.sess.enter()
	}
	return more
}

// fetch completes the row of secondary entry key from the clustered
// index [row_sel_get_clust_rec]. It reports false when the row is gone or
// no longer matches the entry, which a write may have changed since the
// entry was read [row_sel_sec_rec_is_for_clust_rec].
func (v *visitor) fetch(p *partition, key []byte) (bool, error) {
	s, w, row := v.t.sch, v.w, v.w.row
	w.key = s.appendKey(w.key[:0], &s.indexes[0], row)
	if found, err := v.t.view(v.ctx, w, p, row, nil); err != nil || !found {
		return false, err
	}
	w.old = s.appendKey(w.old[:0], v.x, row)
	return bytes.Equal(w.old, key), nil
}

// prune returns the only partition that can hold keys of index x in
// [from, to), or nil. Every key in the range starts with the columns on
// which from and to agree, so when those include every partitioning
// column they pick the partition.
func (t *Table) prune(w *work, x *indexSchema, from, to []Value) *partition {
	s := t.sch
	n := 0
	for n < len(from) && n < len(to) && sameValue(&s.cols[x.cols[n]], from[n], to[n]) {
		n++
	}
	h := newKeyHash()
	for _, c := range s.part {
		j := slices.Index(x.cols[:n], c)
		if j < 0 {
			return nil
		}
		h.addValue(&s.cols[c], from[j])
	}
	return t.parts[h.partition(len(t.parts))]
}

// sameValue reports whether a and b have the same key form in column c.
func sameValue(c *Column, a, b Value) bool {
	switch c.Type {
	case TypeInt:
		return a.i == b.i
	case TypeChar:
		return bytes.Equal(bytes.TrimRight(a.b, " "), bytes.TrimRight(b.b, " "))
	}
	return bytes.Equal(a.b, b.b)
}

// mergeCursor is one partition's cursor in a merged scan.
type mergeCursor struct {
	p       *partition
	cur     *btree.Cursor
	lo, hi  []byte
	reverse bool
}

// next moves to the next key in [lo, hi) and reports whether there is one.
func (c *mergeCursor) next() bool {
	for c.cur.Next() {
		k := c.cur.Key()
		if c.reverse {
			if c.hi != nil && bytes.Compare(k, c.hi) >= 0 {
				continue // Seek starts at hi itself, which is excluded
			}
			return c.lo == nil || bytes.Compare(k, c.lo) >= 0
		}
		return c.hi == nil || bytes.Compare(k, c.hi) < 0
	}
	return false
}

// merge is a heap of partition cursors ordered by their current keys.
type merge struct {
	c       []*mergeCursor
	reverse bool
}

func (m *merge) Len() int { return len(m.c) }
func (m *merge) Less(i, j int) bool {
	c := bytes.Compare(m.c[i].cur.Key(), m.c[j].cur.Key())
	if m.reverse {
		return c > 0
	}
	return c < 0
}
func (m *merge) Swap(i, j int) { m.c[i], m.c[j] = m.c[j], m.c[i] }
func (m *merge) Push(x any)    { m.c = append(m.c, x.(*mergeCursor)) }
func (m *merge) Pop() any {
	c := m.c[len(m.c)-1]
	m.c = m.c[:len(m.c)-1]
	return c
}
