package zipsim

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/cespare/xxhash/v2"
	"github.com/zipsim/zipsim/btree"
	"github.com/zipsim/zipsim/compress"
	"github.com/zipsim/zipsim/internal/latch"
	"github.com/zipsim/zipsim/page"
	"github.com/zipsim/zipsim/storage"
)

// Table is a table: a clustered index on the primary key holding the rows
// and secondary indexes on other columns, in one tablespace per
// partition. All methods are safe for concurrent use.
//
// Writes follow row0ins.cc and row0upd.cc: the clustered index first, then
// every secondary index, under a row lock on the primary key. There are
// no transactions; a write that fails halfway undoes its own steps before
// it returns (see Insert).
type Table struct {
	store *Store
	name  string
	opts  TableOptions
	sch   *schema
	codec *compress.Codec // the pages' codec on a Compressed table, else nil
	parts []*partition
	// locks are the row locks: a write locks the stripe its primary key
	// hashes to for its whole duration, so two writes of one row never
	// interleave their index changes. They stand in for InnoDB's record
	// locks [lock0lock.cc: lock_rec_lock], held only for one statement.
	locks [rowLockStripes]latch.Mutex
	// dropped is set by Store.DropTable.
	dropped atomic.Bool
}

// rowLockStripes is the number of row locks per table; unrelated rows
// share one with probability 1/rowLockStripes.
const rowLockStripes = 1024

// partition is one tablespace of a table and its indexes.
type partition struct {
	name    string // the space's name: the table's, or table#p#pN
	space   uint32 // the pool's space id
	ts      *storage.Tablespace
	alloc   *allocator
	indexes []*btree.Index // PRIMARY, then SecondaryIndexes in order
}

// spaceName names partition i of n of a table, as MySQL 8.0 names its
// partition tablespaces.
func spaceName(table string, i, n int) string {
	if n == 1 {
		return table
	}
	return fmt.Sprintf("%s#p#p%d", table, i)
}

// prepare validates o for pageSize-byte pages, fills in its defaults and
// compiles its schema. The returned options share no slices with o.
func prepare(o TableOptions, pageSize int) (TableOptions, *schema, error) {
	o, err := o.withDefaults(pageSize)
	if err != nil {
		return o, nil, err
	}
	s, err := compile(o, pageSize, o.zipSize())
	if err != nil {
		return o, nil, err
	}
	o.Columns = s.cols
	return cloneOptions(o), s, nil
}

func cloneOptions(o TableOptions) TableOptions {
	o.Columns = slices.Clone(o.Columns)
	o.PrimaryKey = slices.Clone(o.PrimaryKey)
	o.PartitionBy = slices.Clone(o.PartitionBy)
	o.SecondaryIndexes = slices.Clone(o.SecondaryIndexes)
	for i := range o.SecondaryIndexes {
		o.SecondaryIndexes[i].Columns = slices.Clone(o.SecondaryIndexes[i].Columns)
	}
	return o
}

func newTable(s *Store, name string, o TableOptions, sch *schema) (*Table, error) {
	t := &Table{store: s, name: name, opts: o, sch: sch}
	if o.RowFormat == Compressed {
		set, err := compress.ParseSetting(o.Codec)
		switch {
		case err == nil && s.opts.NoCodecReuse:
			t.codec, err = compress.New(set, compress.Options{NoReuse: true})
		case err == nil:
			t.codec, err = compress.Shared(set)
		}
		if err != nil {
			return nil, fmt.Errorf("Codec: %w", err)
		}
	}
	return t, nil
}

// initLocks registers the row locks, once the table is complete: the
// registry cannot forget a lock, so a failed CREATE TABLE registers none.
func (t *Table) initLocks() {
	for i := range t.locks {
		t.locks[i].Init(t.store.pool.Latches(), "row_lock#"+t.name)
	}
}

// indexOptions describes index j of schema sch (the table's, or the one
// AddIndex builds for) in partition p to the btree package.
func (t *Table) indexOptions(sch *schema, p *partition, j int, id uint64) btree.Options {
	x := &sch.indexes[j]
	return btree.Options{
		Pool: t.store.pool, Space: p.space, Alloc: p.alloc,
		ZipSize: sch.zipSize, Codec: t.codec,
		ID: id, Name: p.name + "." + x.name, Clustered: j == 0,
		Fields: x.fields, MaxKeyLen: x.maxKey, ExternRefs: sch.externRefsFor(j),
		Padding: t.store.opts.Padding, LogCompressedPages: t.store.opts.LogCompressedPages,
		NoSiblingInsert:       t.store.opts.NoSiblingInsert,
		SXIndexLock:           t.store.opts.SXIndexLock,
		CompressedLeafReserve: t.store.opts.CompressedLeafReserve,
		MergeThresholdPct:     t.opts.MergeThresholdPct, AdaptiveHash: t.store.ahi,
		ChangeBuffer: t.changeBuffer(j),
	}
}

// changeBuffer is the store's change buffer for index j: secondary
// indexes only, and not while the store has none.
func (t *Table) changeBuffer(j int) *btree.ChangeBuffer {
	if j == 0 {
		return nil
	}
	return t.store.cb
}

// externRefsFor is the btree's Options.ExternRefs for index j.
func (s *schema) externRefsFor(j int) func([]byte) (int, error) {
	if j != 0 || !s.anyExt {
		return nil
	}
	return s.externRefs
}

// Name returns the table's name.
func (t *Table) Name() string { return t.name }

// Options returns the table's options with defaults filled in.
func (t *Table) Options() TableOptions { return cloneOptions(t.opts) }

// work is the scratch space of one call: encoded keys and values, a row
// to decode into and the undo log of a write. Calls borrow one from a
// sync.Pool, so steady-state calls allocate nothing for it.
type work struct {
	key, val, old, sec, sec2 []byte
	row                      Row // a scan's or a read's row
	// oldRow is the stored row a write replaces, decoded only in the
	// columns secondary indexes hold: apart from row, so that decoding it
	// never drops the byte buffers row keeps for the columns it skips.
	oldRow Row
	arena  []byte // keys and values the undo log refers to
	undo   []undoStep
	sys    [page.TrxRollLen]byte // DB_TRX_ID and DB_ROLL_PTR a write stamps (Options.Purge)
	// Off-page columns: the pool access, which columns move, their
	// references, the chains this call wrote, a value read back.
	bs          blobStore
	ext         []bool
	refs, fresh []page.ExternRef
	tmp         []byte
}

var works = sync.Pool{New: func() any { return new(work) }}

func getWork() *work { return works.Get().(*work) }

func putWork(w *work) {
	w.undo, w.arena = w.undo[:0], w.arena[:0]
	w.fresh = w.fresh[:0]                   // a later call's rollback must not free them
	w.bs = blobStore{pages: w.bs.pages[:0]} // no context or pool kept alive
	works.Put(w)
}

// fail returns err for a failed op: ErrDuplicate and ErrNotFound as the
// btree gave them, so that the common outcomes cost no more; anything else
// wrapped with the table's name.
func (t *Table) fail(op string, err error) error {
	if errors.Is(err, btree.ErrDuplicate) || errors.Is(err, btree.ErrNotFound) {
		return err
	}
	return fmt.Errorf("zipsim: %s: %s: %w", t.name, op, err)
}

// live returns ErrClosed once the store is closed.
func (t *Table) live() error {
	if t.store.closed.Load() {
		return ErrClosed
	}
	if t.dropped.Load() {
		return ErrDropped
	}
	return nil
}

// checkPK says whether pk is a whole primary key.
func (t *Table) checkPK(pk []Value) error {
	if len(pk) != len(t.sch.pk) {
		return fmt.Errorf("%d primary key values: the key has %d columns", len(pk), len(t.sch.pk))
	}
	return t.sch.checkPrefix(&t.sch.indexes[0], pk)
}

// rowLockHash returns the hash of clustered key key that picks its row
// lock.
func rowLockHash(key []byte) uint64 { return xxhash.Sum64(key) }

// lockRow locks the row lock stripe of hash h for sess's call (nil: a
// call outside the gate) and returns it.
func (t *Table) lockRow(h uint64, sess *Session) *latch.Mutex {
	mu := &t.locks[(h>>32)%rowLockStripes]
	sess.lockRow(mu)
	return mu
}

// locate encodes row's clustered key into w and returns its partition
// (keyhash.go) and row lock hash.
func (t *Table) locate(w *work, row Row) (*partition, uint64) {
	s := t.sch
	w.key = s.appendKey(w.key[:0], &s.indexes[0], row)
	p := t.parts[0]
	if len(t.parts) > 1 {
		p = t.parts[s.partOfRow(row, len(t.parts))]
	}
	return p, rowLockHash(w.key)
}

// locatePK is locate for a primary key given as values.
func (t *Table) locatePK(w *work, pk []Value) (*partition, uint64) {
	s := t.sch
	w.key = s.appendPrefix(w.key[:0], &s.indexes[0], pk)
	p := t.parts[0]
	if len(t.parts) > 1 {
		p = t.parts[s.partOfPK(pk, len(t.parts))]
	}
	return p, rowLockHash(w.key)
}

// readOld reads the stored record under w.key into w.old; a missing row is
// ErrNotFound.
func (t *Table) readOld(ctx context.Context, p *partition, w *work, op string) error {
	var found bool
	var err error
	if w.old, found, err = p.indexes[0].Get(ctx, w.key, w.old[:0]); err == nil && !found {
		err = btree.ErrNotFound
	}
	if err != nil {
		return t.fail(op, err)
	}
	return nil
}

// Insert adds a row [row_ins_clust_index_entry, row_ins_sec_index_entry].
// A row whose primary key exists gets ErrDuplicate, a row too big for a
// page ErrTooBig. There are no transactions: when a secondary index
// refuses its entry (too big, an I/O error, a cancelled ctx), Insert
// removes the entries it made and the row before it returns, as InnoDB's
// statement rollback would, so the table is as before. If that undo fails
// as well, the error says so and Check finds the disagreement.
func (t *Table) Insert(ctx context.Context, row Row) error {
	if err := t.live(); err != nil {
		return err
	}
	if err := t.sch.checkRow(row); err != nil {
		return fmt.Errorf("zipsim: %s: insert: %w", t.name, err)
	}
	sess := t.session(ctx)
	sess.enter()
	defer sess.exit()
	w := getWork()
	defer putWork(w)
	s := t.sch
	p, h := t.locate(w, row)
	defer t.lockRow(h, sess).Unlock()
	if err := t.encodeRow(ctx, w, p, row, nil); err != nil {
		return t.fail("insert", err)
	}
	trx, sys := t.store.newTrx(w, true)
	if err := p.indexes[0].InsertSys(ctx, w.key, w.val, sys); err != nil {
		t.freeFresh(w)
		return t.fail("insert", err)
	}
	w.log(undoDelete, 0, w.key, nil)
	for i := 1; i < len(p.indexes); i++ {
		w.sec = s.appendKey(w.sec[:0], &s.indexes[i], row)
		if err := p.indexes[i].Insert(ctx, w.sec, nil); err != nil {
			return t.rollback(ctx, p, w, "insert into index "+s.indexes[i].name, err)
		}
		w.log(undoDelete, i, w.sec, nil)
	}
	t.commit(p, w, trx)
	return nil
}

// commit hands a write that changed the clustered record to purge.
func (t *Table) commit(p *partition, w *work, trx uint64) {
	if pg := t.store.purge; pg != nil {
		pg.add(t, p, w.key, trx, &w.sys)
	}
}

// Get returns the row whose primary key is pk (its values in key order),
// decoded into dst [row_search_mvcc on the clustered index]. dst's array
// and byte buffers are reused, so passing the previous result back makes
// Get allocate nothing; they are overwritten, so dst must not hold bytes
// the caller still needs. CHAR values come back padded to their length;
// off-page values are read whole (GetColumns can leave them out).
func (t *Table) Get(ctx context.Context, dst Row, pk ...Value) (Row, bool, error) {
	return t.get(ctx, dst, nil, pk)
}

// GetColumns is Get filling only the columns of cols (see Columns): a
// column left out, off-page or not, costs no page reads and comes back as
// the zero Value.
func (t *Table) GetColumns(ctx context.Context, dst Row, cols Columns, pk ...Value) (Row, bool, error) {
	if err := cols.check(t); err != nil {
		return dst, false, fmt.Errorf("zipsim: %s: get: %w", t.name, err)
	}
	return t.get(ctx, dst, cols.need, pk)
}

func (t *Table) get(ctx context.Context, dst Row, need []bool, pk []Value) (Row, bool, error) {
	if err := t.live(); err != nil {
		return dst, false, err
	}
	if err := t.checkPK(pk); err != nil {
		return dst, false, fmt.Errorf("zipsim: %s: get: %w", t.name, err)
	}
	sess := t.session(ctx)
	sess.enter()
	defer sess.exit()
	w := getWork()
	defer putWork(w)
	p, _ := t.locatePK(w, pk)
	dst = sizeRow(dst, len(t.sch.cols))
	found, err := t.view(ctx, w, p, dst, need)
	if err != nil {
		return dst, false, t.fail("get", err)
	}
	return dst, found, nil
}

// view decodes the row stored under w.key in partition p into row, with
// its off-page columns read while the record's leaf is latched.
func (t *Table) view(ctx context.Context, w *work, p *partition, row Row, need []bool) (bool, error) {
	bs := t.blobs(ctx, w, p)
	return p.indexes[0].View(ctx, w.key, func(val []byte) error {
		return t.decodeRow(row, w.key, val, bs, need)
	})
}

// decodeRow fills row from a clustered record.
func (t *Table) decodeRow(row Row, key, val []byte, ext *blobStore, need []bool) error {
	rest, err := t.sch.decodeKey(row, &t.sch.indexes[0], key)
	if err == nil && len(rest) != 0 {
		err = errCorrupt
	}
	if err == nil {
		err = t.sch.decodeValue(row, val, ext, need)
	}
	if err != nil {
		return fmt.Errorf("zipsim: %s: %w", t.name, err)
	}
	return nil
}

// oldRow decodes the columns of the stored clustered record (key, old)
// that secondary indexes hold into w.oldRow, as copies, for working out
// its secondary entries; off-page ones are read through w.bs. A table
// without secondary indexes decodes nothing: w comes from a pool shared
// by every table, and decoding a column as a value of another type or as
// none drops the buffer another table's row left there.
func (t *Table) oldRow(w *work, key, old []byte) error {
	if len(t.sch.indexes) == 1 {
		return nil
	}
	w.oldRow = sizeRow(w.oldRow, len(t.sch.cols))
	return t.decodeRow(w.oldRow, key, old, &w.bs, t.sch.secCols)
}

// Update replaces the row with row's primary key by row
// [row_upd_clust_step, row_upd_sec_step]: the clustered record in place,
// then, for each secondary index whose columns changed, the old entry
// deleted and the new one inserted. A missing row is ErrNotFound, a row
// that no longer fits ErrTooBig; a row equal to the stored one changes
// nothing. A failure halfway is undone as Insert's is.
func (t *Table) Update(ctx context.Context, row Row) error { return t.update(ctx, row, false) }

// Rewrite is Update that writes the clustered record even when row equals
// the stored row, as InnoDB does when an INSERT finds a delete-marked
// record of its own key in the same transaction: it rewrites the record in
// place, clearing the mark [row_ins_clust_index_entry_by_modify,
// row_upd_rec_in_place], which dirties the page and, on a compressed page,
// takes modification log space. Secondary entries whose columns did not
// change are left alone (InnoDB only flips their delete-mark flag).
func (t *Table) Rewrite(ctx context.Context, row Row) error { return t.update(ctx, row, true) }

func (t *Table) update(ctx context.Context, row Row, rewrite bool) error {
	if err := t.live(); err != nil {
		return err
	}
	if err := t.sch.checkRow(row); err != nil {
		return fmt.Errorf("zipsim: %s: update: %w", t.name, err)
	}
	sess := t.session(ctx)
	sess.enter()
	defer sess.exit()
	w := getWork()
	defer putWork(w)
	s := t.sch
	p, h := t.locate(w, row)
	defer t.lockRow(h, sess).Unlock()
	if err := t.readOld(ctx, p, w, "update"); err != nil {
		return err
	}
	t.blobs(ctx, w, p)
	if err := t.encodeRow(ctx, w, p, row, w.old); err != nil {
		return t.fail("update", err)
	}
	if !rewrite && bytes.Equal(w.val, w.old) {
		return nil
	}
	if err := t.oldRow(w, w.key, w.old); err != nil {
		t.freeFresh(w)
		return err
	}
	trx, sys := t.store.newTrx(w, false)
	if err := p.indexes[0].UpdateSys(ctx, w.key, w.val, sys); err != nil {
		t.freeFresh(w)
		return t.fail("update", err)
	}
	w.log(undoUpdate, 0, w.key, w.old)
	for i := 1; i < len(p.indexes); i++ {
		x := &s.indexes[i]
		w.sec = s.appendKey(w.sec[:0], x, w.oldRow)
		w.sec2 = s.appendKey(w.sec2[:0], x, row)
		if bytes.Equal(w.sec, w.sec2) {
			continue
		}
		if err := p.indexes[i].Delete(ctx, w.sec); err != nil {
			return t.rollback(ctx, p, w, "update of index "+x.name, err)
		}
		w.log(undoInsert, i, w.sec, nil)
		if err := p.indexes[i].Insert(ctx, w.sec2, nil); err != nil {
			return t.rollback(ctx, p, w, "update of index "+x.name, err)
		}
		w.log(undoDelete, i, w.sec2, nil)
	}
	t.commit(p, w, trx)
	return t.freeExtern(w, w.old, w.val)
}

// Delete removes the row whose primary key is pk, and its secondary
// entries [row_upd_del_mark_clust_rec, row_upd_sec_index_entry; zipsim
// removes records at once where InnoDB delete-marks them for purge]. A
// missing row is ErrNotFound. A failure halfway is undone as Insert's is.
func (t *Table) Delete(ctx context.Context, pk ...Value) error {
	if err := t.live(); err != nil {
		return err
	}
	if err := t.checkPK(pk); err != nil {
		return fmt.Errorf("zipsim: %s: delete: %w", t.name, err)
	}
	sess := t.session(ctx)
	sess.enter()
	defer sess.exit()
	w := getWork()
	defer putWork(w)
	s := t.sch
	p, h := t.locatePK(w, pk)
	defer t.lockRow(h, sess).Unlock()
	if err := t.readOld(ctx, p, w, "delete"); err != nil {
		return err
	}
	t.blobs(ctx, w, p)
	if err := t.oldRow(w, w.key, w.old); err != nil {
		return err
	}
	if err := p.indexes[0].Delete(ctx, w.key); err != nil {
		return t.fail("delete", err)
	}
	w.log(undoInsert, 0, w.key, w.old)
	for i := 1; i < len(p.indexes); i++ {
		w.sec = s.appendKey(w.sec[:0], &s.indexes[i], w.oldRow)
		if err := p.indexes[i].Delete(ctx, w.sec); err != nil {
			return t.rollback(ctx, p, w, "delete from index "+s.indexes[i].name, err)
		}
		w.log(undoInsert, i, w.sec, nil)
	}
	return t.freeExtern(w, w.old, nil)
}
