package zipsim

import (
	"context"
	"errors"
	"fmt"
)

// A write changes its indexes one after another: the clustered index,
// then each secondary index. Every change it makes goes into an undo log
// in the call's work space, so that when a later change fails the earlier
// ones are reverted, newest first, as InnoDB's statement rollback does
// from its undo log [row0undo.cc: row_undo_ins, row_undo_mod]. The log
// lives for one call: there are no transactions to roll back later.

// undoStep is one entry of the undo log: what puts an index back.
type undoStep struct {
	op       undoOp
	index    int
	key, val [2]int // offsets in work.arena
}

type undoOp uint8

const (
	undoDelete undoOp = iota // the write inserted key
	undoInsert               // the write deleted key, whose value was val
	undoUpdate               // the write changed key's value from val
)

// log records a change the write made to index, copying key and val.
func (w *work) log(op undoOp, index int, key, val []byte) {
	s := undoStep{op: op, index: index}
	s.key[0] = len(w.arena)
	w.arena = append(w.arena, key...)
	s.key[1] = len(w.arena)
	s.val[0] = s.key[1]
	w.arena = append(w.arena, val...)
	s.val[1] = len(w.arena)
	w.undo = append(w.undo, s)
}

// rollback undoes the logged steps in reverse order after cause stopped a
// write, with a context that cannot be cancelled: a cancelled write must
// still leave the indexes in step. The error always names the step that
// failed, even for ErrDuplicate, which here means a secondary index that
// disagrees with the table, not a duplicate primary key.
func (t *Table) rollback(ctx context.Context, p *partition, w *work, op string, cause error) error {
	ctx = context.WithoutCancel(ctx)
	var errs []error
	for i := len(w.undo) - 1; i >= 0; i-- {
		s := w.undo[i]
		ix := p.indexes[s.index]
		key, val := w.arena[s.key[0]:s.key[1]], w.arena[s.val[0]:s.val[1]]
		var err error
		switch s.op {
		case undoDelete:
			err = ix.Delete(ctx, key)
		case undoInsert:
			err = ix.Insert(ctx, key, val)
		case undoUpdate:
			err = ix.Update(ctx, key, val)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("index %s: %w", t.sch.indexes[s.index].name, err))
		}
	}
	if len(errs) == 0 {
		// The indexes no longer refer to the chains this call wrote.
		t.freeFresh(w)
	}
	if len(errs) > 0 {
		return fmt.Errorf("zipsim: %s: %s failed (%w), and undoing it failed too, so the indexes may disagree (Check says where): %w",
			t.name, op, cause, errors.Join(errs...))
	}
	return fmt.Errorf("zipsim: %s: %s: %w", t.name, op, cause)
}
