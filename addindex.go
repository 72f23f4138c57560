package zipsim

import (
	"bytes"
	"context"
	"fmt"
	"slices"

	"github.com/zipsim/zipsim/btree"
)

// AddIndex adds secondary index d to the table and fills it from the rows
// already there with a sorted build, as ALTER TABLE ... ADD INDEX (and
// sysbench's prepare, which creates k_1 after loading) does in place
// [row0merge.cc: row_merge_build_indexes, row_merge_read_clustered_index,
// row_merge_sort; btr0bulk.cc: BtrBulk::insert]: the clustered index is
// read once, the entries sorted, and each partition's index built bottom up
// by btree.Index.BulkLoad, so its pages end up as full as the fill factor
// (100%) or the compression pad allows, not half full as random inserts
// leave them. InnoDB sorts runs of innodb_sort_buffer_size and merges them
// through temporary files; zipsim sorts in memory (about the entries'
// size plus 24 bytes per row), which changes the time it takes but not the
// order the pages are filled in.
//
// Like DropTable, AddIndex needs the table to itself: no other goroutine
// may use the table until it returns (ALTER TABLE's exclusive metadata
// lock; zipsim keeps no online log of concurrent changes). The new
// definition reaches the catalog at Close. If it fails, the table is as
// it was: the pages it built are given back.
func (t *Table) AddIndex(ctx context.Context, d IndexDef) error {
	if err := t.live(); err != nil {
		return err
	}
	s := t.store
	s.mu.Lock()
	defer s.mu.Unlock()
	o := cloneOptions(t.opts)
	o.SecondaryIndexes = append(o.SecondaryIndexes, IndexDef{Name: d.Name, Columns: slices.Clone(d.Columns)})
	o, sch, err := prepare(o, s.pool.Options().PageSize)
	if err != nil {
		return fmt.Errorf("zipsim: %s: add index %s: %w", t.name, d.Name, err)
	}
	x := &sch.indexes[len(sch.indexes)-1]
	// The build reads the table outside the concurrency gate: it holds
	// dict_sys_mutex, which a session inside the gate may be waiting
	// for, so waiting for a place here could wait forever.
	entries, err := t.sortedEntries(WithSession(ctx, nil), sch, x)
	if err != nil {
		return fmt.Errorf("zipsim: %s: add index %s: %w", t.name, d.Name, err)
	}
	j := len(sch.indexes) - 1
	type allocState struct {
		next uint32
		free []uint32
	}
	before := make([]allocState, len(t.parts))
	for i, p := range t.parts {
		before[i].next, before[i].free = p.alloc.state()
	}
	built := make([]*btree.Index, 0, len(t.parts))
	for i, p := range t.parts {
		err := func() error {
			ix, err := btree.Create(ctx, t.indexOptions(sch, p, j, s.nextIndexID))
			if err != nil {
				return err
			}
			s.nextIndexID++
			built = append(built, ix)
			keys, n := entries[i], 0
			return ix.BulkLoad(ctx, func() ([]byte, []byte, bool, error) {
				if n == len(keys) {
					return nil, nil, false, nil
				}
				n++
				return keys[n-1], nil, true, nil
			})
		}()
		if err != nil {
			// The trees built so far, and what BulkLoad did not give back
			// of this one, are reachable from nothing else.
			for k := range built {
				t.parts[k].alloc.giveBack(before[k].next, before[k].free)
			}
			return fmt.Errorf("zipsim: %s: add index %s: %w", t.name, d.Name, err)
		}
	}
	for i, p := range t.parts {
		p.indexes = append(p.indexes, built[i])
	}
	t.opts, t.sch = o, sch
	return nil
}

// sortedEntries reads every row once and returns index x's entries for
// each partition, sorted [row_merge_read_clustered_index, row_merge_sort].
func (t *Table) sortedEntries(ctx context.Context, sch *schema, x *indexSchema) ([][][]byte, error) {
	need := make([]bool, len(sch.cols))
	for _, c := range x.cols {
		need[c] = true
	}
	entries := make([][][]byte, len(t.parts))
	var arena []byte
	w := getWork()
	defer putWork(w)
	err := t.scan(ctx, 0, need, nil, nil, false, func(row Row) bool {
		start := len(arena)
		arena = sch.appendKey(arena, x, row)
		p, _ := t.locate(w, row)
		i := slices.Index(t.parts, p)
		// Capped at its length, an entry is never written over by a later
		// append; a grown arena leaves it in the old array.
		entries[i] = append(entries[i], arena[start:len(arena):len(arena)])
		return true
	})
	if err != nil {
		return nil, err
	}
	for _, keys := range entries {
		slices.SortFunc(keys, bytes.Compare)
	}
	return entries, nil
}
