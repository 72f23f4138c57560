package sim

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/zipsim/zipsim"
	"github.com/zipsim/zipsim/internal/sbdata"
)

// The sysbench workload (research/targets.md §2.1, §2.2): tables
// sbtest1..N of sysbench's oltp_common.lua,
//
//	sbtest<i> (id INT PRIMARY KEY, k INT NOT NULL DEFAULT 0,
//	           c CHAR(120) NOT NULL DEFAULT '', pad CHAR(60) NOT NULL DEFAULT '',
//	           KEY k_<i> (k))
//
// with the Config's row format, KEY_BLOCK_SIZE, codec and partitions (by
// primary key) applied to each.
//
// Data styles:
//   - sb10 (sysbench 0.5 and 1.0): k from the Config's distribution over
//     [1, rows] (prepare and run share --rand-type), c = 10 groups of 11
//     random digits joined by '-' (119 characters), pad = 5 such groups
//     (59), both space-padded, from internal/sbdata. As sysbench 1.0's
//     prepare (oltp_common.lua, create_secondary), the table is created
//     without k_<i> and the index is added after its rows are loaded
//     (zipsim.Table.AddIndex, a sorted build), so its pages are packed
//     rather than filled by splits in random k order.
//   - legacy04 (sysbench 0.4, seed 003): k = 0, c = ' ', pad =
//     'qqqqqqqqqqwwwwwwwwwweeeeeeeeeerrrrrrrrrrtttttttttt'; the k index
//     exists before the load, as in 0.4. Its non-index updates set c to ten
//     random 31-bit integers joined by '-', and its re-inserts use k = 0,
//     c = ' ', pad = 'aaaaaaaaaaffffffffffrrrrrrrrrreeeeeeeeeeyyyyyyyyyy'.
//     Range starts are clipped to rows − range_size, as 0.4 does; sb10
//     follows 1.0 and does not clip.
//
// Prepare: one loader goroutine per table inserts ids 1..rows in order,
// each with its own generator seeded from (Seed, table); progress is
// reported per 2,000 rows, the size of sysbench's multi-row INSERTs.
//
// Events (one event is one transaction; BEGIN and COMMIT are not
// modelled, zipsim having no transactions), in oltp_common.lua's order:
//   - point_selects: 10 × SELECT c WHERE id = x;
//   - simple_ranges: SELECT c WHERE id BETWEEN x AND x+range_size−1;
//   - sum_ranges: SELECT SUM(k) over such a range;
//   - order_ranges: SELECT c over such a range ORDER BY c;
//   - distinct_ranges: SELECT DISTINCT c over such a range ORDER BY c;
//   - index_updates: UPDATE SET k = k+1 WHERE id = x;
//   - non_index_updates: UPDATE SET c = <new c> WHERE id = x;
//   - delete_inserts: DELETE WHERE id = x, then INSERT of id x with k from
//     the distribution and a new c and pad (sb10) or legacy04's constants.
//
// oltp_read_only runs the selects and ranges (14 statements),
// oltp_read_write all of them (18), oltp_write_only the updates and the
// delete and insert (4), oltp_point_select one point select. Ranges scan
// the clustered index over [x, x+range_size−1] and sum, sort and
// de-duplicate in Go, as the server would above InnoDB. x and every id
// come from the Config's distribution. The table is drawn uniformly once
// per event (0.5) or for each statement group (1.0, TablePerStatement).
// Each statement is reported as its own operation (Ops). The DELETE and
// INSERT of one id run as a read and a Rewrite (see deleteInsert), so no
// event removes a row; an update of a row that is missing changes nothing
// (0 rows affected), and an insert that finds its id present is dropped,
// as sysbench ignores ER_DUP_ENTRY; so row counts are preserved.
type sysbench struct {
	c     Config
	sb    SysbenchConfig
	rows  int64
	names []string
}

// Operation indexes in Ops.
const (
	sbPointSelect = iota
	sbSimpleRange
	sbSumRange
	sbOrderRange
	sbDistinctRange
	sbIndexUpdate
	sbNonIndexUpdate
	sbDelete
	sbInsert
)

var sysbenchOps = []string{
	sbPointSelect:    "point_select",
	sbSimpleRange:    "simple_range",
	sbSumRange:       "sum_range",
	sbOrderRange:     "order_range",
	sbDistinctRange:  "distinct_range",
	sbIndexUpdate:    "index_update",
	sbNonIndexUpdate: "non_index_update",
	sbDelete:         "delete",
	sbInsert:         "insert",
}

// Per-event statement counts, sysbench's defaults.
const (
	sbPointSelects   = 10
	sbLoadBatch      = 2000
	sbRecordBytes    = 4 + 4 + 120 + 60 + 5 + 13 // id, k, c, pad, header, DB_TRX_ID+DB_ROLL_PTR
	sbIndexBytes     = 4 + 4 + 5                 // k, id, header
	saltSbLoad       = 0x73626c6f6164            // "sbload"
	saltSbWorker     = 0x7362776f726b            // "sbwork"
	legacyPad        = "qqqqqqqqqqwwwwwwwwwweeeeeeeeeerrrrrrrrrrtttttttttt"
	legacyInsertPad  = "aaaaaaaaaaffffffffffrrrrrrrrrreeeeeeeeeeyyyyyyyyyy"
	legacyC          = " "
	legacyUpdateInts = 10
)

// legacy04's constant values, shared read-only by every loader and worker.
var (
	legacyCBytes         = []byte(legacyC)
	legacyPadBytes       = []byte(legacyPad)
	legacyInsertPadBytes = []byte(legacyInsertPad)
)

func newSysbench(c Config) (Workload, error) {
	sb, err := c.Sysbench.validate()
	if err != nil {
		return nil, err
	}
	c.Sysbench = sb
	if _, err := newKeyDist(sb.Dist, int64(sb.Rows)); err != nil {
		return nil, fmt.Errorf("sysbench: %w", err)
	}
	w := &sysbench{c: c, sb: sb, rows: int64(sb.Rows)}
	for i := 1; i <= sb.Tables; i++ {
		w.names = append(w.names, "sbtest"+strconv.Itoa(i))
	}
	return w, nil
}

func (s *sysbench) Name() string    { return "sysbench" }
func (s *sysbench) Ops() []string   { return slices.Clone(sysbenchOps) }
func (s *sysbench) LoadRows() int64 { return s.rows * int64(s.sb.Tables) }

// DataBytes is rows × (4+4+120+60 bytes of columns, a 5-byte record
// header and the 13-byte DB_TRX_ID+DB_ROLL_PTR) plus the k index's
// entries (k, id and a 5-byte header), ≈219 bytes a row.
func (s *sysbench) DataBytes() int64 {
	return s.LoadRows() * (sbRecordBytes + sbIndexBytes)
}

func (s *sysbench) legacy() bool { return s.sb.DataStyle == "legacy04" }

// options returns table i's (1-based) options as created: sb10 tables
// get k_<i> only after the load (see addIndex).
func (s *sysbench) options(i int) zipsim.TableOptions {
	o := SysbenchTable(i)
	if !s.legacy() {
		o.SecondaryIndexes = nil
	}
	s.c.apply(&o)
	return o
}

// addIndex builds k_<i> on loaded sb10 table t, as sysbench 1.0's
// prepare runs CREATE INDEX after its INSERTs; a table that has it
// already (legacy04, or a second load) is left alone.
func (s *sysbench) addIndex(ctx context.Context, t *zipsim.Table, i int) error {
	if len(t.Options().SecondaryIndexes) > 0 {
		return nil
	}
	if err := t.AddIndex(ctx, SysbenchTable(i).SecondaryIndexes[0]); err != nil {
		return fmt.Errorf("sysbench: %w", err)
	}
	return nil
}

// SysbenchTable is sbtest<i>, DYNAMIC: id INT PRIMARY KEY, k INT with index
// k_<i>, c CHAR(120), pad CHAR(60) (research/targets.md §2.1).
func SysbenchTable(i int) zipsim.TableOptions {
	return zipsim.TableOptions{
		Columns: []zipsim.Column{
			{Name: "id", Type: zipsim.TypeInt, Len: 4},
			{Name: "k", Type: zipsim.TypeInt, Len: 4},
			{Name: "c", Type: zipsim.TypeChar, Len: sbdata.CLen},
			{Name: "pad", Type: zipsim.TypeChar, Len: sbdata.PadLen},
		},
		PrimaryKey:       []string{"id"},
		SecondaryIndexes: []zipsim.IndexDef{{Name: "k_" + strconv.Itoa(i), Columns: []string{"k"}}},
	}
}

func (s *sysbench) Create(ctx context.Context, st *zipsim.Store) error {
	for i, name := range s.names {
		if _, err := st.CreateTable(ctx, name, s.options(i+1)); err != nil {
			return fmt.Errorf("sysbench: %w", err)
		}
	}
	return nil
}

// tables returns the store's sbtest tables.
func (s *sysbench) tables(st *zipsim.Store) ([]*zipsim.Table, error) {
	ts := make([]*zipsim.Table, len(s.names))
	for i, name := range s.names {
		if ts[i] = st.Table(name); ts[i] == nil {
			return nil, fmt.Errorf("sysbench: the store lacks %s: run Create first", name)
		}
	}
	return ts, nil
}

func (s *sysbench) Load(ctx context.Context, st *zipsim.Store, progress func(rows int64)) error {
	ts, err := s.tables(st)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Table i goes to loader (i-1) mod Threads, as sysbench's prepare
	// hands tables to its threads.
	loaders := min(s.c.Threads, len(ts))
	errs := make([]error, loaders)
	var wg sync.WaitGroup
	for j := range loaders {
		wg.Go(func() {
			for i := j; i < len(ts) && errs[j] == nil; i += loaders {
				if errs[j] = s.loadTable(ctx, ts[i], i, progress); errs[j] != nil {
					cancel()
				}
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// loadTable inserts rows 1..rows of table i (0-based) in id order.
func (s *sysbench) loadTable(ctx context.Context, t *zipsim.Table, i int, progress func(int64)) error {
	r := rand.New(rand.NewPCG(s.c.Seed^saltSbLoad, uint64(i)))
	dist, err := newKeyDist(s.sb.Dist, s.rows)
	if err != nil {
		return err
	}
	var g sbGen
	row := make(zipsim.Row, 4)
	pending := int64(0)
	server := newServerCPU(0, s.c.LoadRowCPU)
	for id := int64(1); id <= s.rows; id++ {
		if s.legacy() {
			row[1], row[2], row[3] = zipsim.Int(0), zipsim.Bytes(legacyCBytes), zipsim.Bytes(legacyPadBytes)
		} else {
			row[1], row[2], row[3] = zipsim.Int(dist.next(r)), zipsim.Bytes(g.c(r)), zipsim.Bytes(g.pad(r))
		}
		row[0] = zipsim.Int(id)
		if err := t.Insert(ctx, row); err != nil {
			return fmt.Errorf("sysbench: load %s: %w", t.Name(), err)
		}
		server.spendRows(1)
		if pending++; pending == sbLoadBatch || id == s.rows {
			if progress != nil {
				progress(pending)
			}
			pending = 0
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("sysbench: load %s: %w", t.Name(), err)
			}
		}
	}
	return s.addIndex(ctx, t, i+1)
}

// sbGen makes c and pad values in reused buffers.
type sbGen struct{ cb, pb []byte }

// c returns sb10's c: 10 groups of 11 digits, padded to 120.
func (g *sbGen) c(r *rand.Rand) []byte { g.cb = sbdata.C(g.cb[:0], r); return g.cb }

// pad returns sb10's pad: 5 groups of 11 digits, padded to 60.
func (g *sbGen) pad(r *rand.Rand) []byte { g.pb = sbdata.Pad(g.pb[:0], r); return g.pb }

// legacyC returns legacy04's updated c: ten random 31-bit integers
// joined by '-'.
func (g *sbGen) legacyC(r *rand.Rand) []byte {
	b := g.cb[:0]
	for i := range legacyUpdateInts {
		if i > 0 {
			b = append(b, '-')
		}
		b = strconv.AppendUint(b, uint64(r.Uint32()>>1), 10)
	}
	g.cb = b
	return b
}

func (s *sysbench) Worker(st *zipsim.Store, id int) (Worker, error) {
	w, err := s.worker(st, id)
	if err != nil {
		return nil, err
	}
	return w, nil
}

func (s *sysbench) worker(st *zipsim.Store, id int) (*sbWorker, error) {
	ts, err := s.tables(st)
	if err != nil {
		return nil, err
	}
	dist, err := newKeyDist(s.sb.Dist, s.rows)
	if err != nil {
		return nil, err
	}
	w := &sbWorker{
		s:      s,
		tables: ts,
		r:      rand.New(rand.NewPCG(s.c.Seed^saltSbWorker, uint64(id))),
		dist:   dist,
		cCols:  make([]zipsim.Columns, len(ts)),
		kcCols: make([]zipsim.Columns, len(ts)),
		span:   int64(s.sb.RangeSize),
		row:    make(zipsim.Row, 4),
		upd:    make(zipsim.Row, 4),
	}
	for i, t := range ts {
		if w.cCols[i], err = t.Columns("c"); err == nil {
			w.kcCols[i], err = t.Columns("k", "c")
		}
		if err != nil {
			return nil, fmt.Errorf("sysbench: %w", err)
		}
	}
	w.onRowFn = w.onRow
	return w, nil
}

// sbWorker runs the events of one goroutine. Its buffers are reused from
// event to event, so the steady state allocates little beyond what the
// store does.
type sbWorker struct {
	s      *sysbench
	tables []*zipsim.Table
	r      *rand.Rand
	dist   keyDist
	cCols  []zipsim.Columns // projections on c, per table, for point selects
	kcCols []zipsim.Columns // and on k and c, for ranges
	span   int64            // range_size

	tab      int // the current table
	pk       [1]zipsim.Value
	from, to [1]zipsim.Value
	crow     zipsim.Row // point selects' projected row
	row      zipsim.Row // whole rows read for updates
	upd      zipsim.Row // rows written
	gen      sbGen

	// Range scratch: the scan callback's mode and what it gathers.
	onRowFn func(zipsim.Row) bool
	rec     Recorder        // the range's, for each row's server CPU
	sess    *zipsim.Session // the statement's place at the concurrency gate
	mode    int
	n       int64    // rows seen
	sum     int64    // SUM(k)
	arena   []byte   // c values of an ordered range, back to back
	cs      [][]byte // and slices of them
	last    int64    // checksum of results, so nothing is optimised away
}

// Next runs one event.
func (w *sbWorker) Next(ctx context.Context, rec Recorder) error {
	w.tab = w.pickTable()
	switch w.s.sb.Event {
	case "oltp_point_select":
		return w.pointSelects(ctx, rec, 1)
	case "oltp_read_only":
		return w.reads(ctx, rec)
	case "oltp_write_only":
		return w.writes(ctx, rec)
	default: // oltp_read_write
		if err := w.reads(ctx, rec); err != nil {
			return err
		}
		return w.writes(ctx, rec)
	}
}

// pickTable draws a table uniformly (sb_rand_uniform(1, tables)).
func (w *sbWorker) pickTable() int { return w.r.IntN(len(w.tables)) }

// group starts a statement group: with TablePerStatement a new table.
func (w *sbWorker) group() {
	if w.s.sb.TablePerStatement {
		w.tab = w.pickTable()
	}
}

func (w *sbWorker) reads(ctx context.Context, rec Recorder) error {
	if err := w.pointSelects(ctx, rec, sbPointSelects); err != nil {
		return err
	}
	for op := sbSimpleRange; op <= sbDistinctRange; op++ {
		w.group()
		if err := w.rangeQuery(ctx, rec, op); err != nil {
			return err
		}
	}
	return nil
}

func (w *sbWorker) writes(ctx context.Context, rec Recorder) error {
	w.group()
	if err := w.indexUpdate(ctx, rec); err != nil {
		return err
	}
	w.group()
	if err := w.nonIndexUpdate(ctx, rec); err != nil {
		return err
	}
	w.group()
	return w.deleteInsert(ctx, rec)
}

func (w *sbWorker) pointSelects(ctx context.Context, rec Recorder, n int) error {
	w.group()
	t := w.tables[w.tab]
	for range n {
		w.pk[0] = zipsim.Int(w.dist.next(w.r))
		start := time.Now()
		row, found, err := t.GetColumns(ctx, w.crow, w.cCols[w.tab], w.pk[:]...)
		w.crow = row
		if err != nil {
			return fmt.Errorf("sysbench: point select: %w", err)
		}
		if found {
			w.last += int64(row[2].Bytes()[0])
		}
		rec.Op(sbPointSelect, time.Since(start).Nanoseconds())
	}
	return nil
}

// rangeStart draws x; legacy04 clips it to rows − range_size as 0.4 does.
func (w *sbWorker) rangeStart() int64 {
	x := w.dist.next(w.r)
	if w.s.legacy() {
		x = min(x, max(w.s.rows-w.span, 1))
	}
	return x
}

func (w *sbWorker) rangeQuery(ctx context.Context, rec Recorder, op int) error {
	return w.rangeAt(ctx, rec, op, w.rangeStart())
}

// rangeAt runs range statement op over [x, x+range_size−1] of the current
// table. It leaves the rows seen in w.n, SUM(k) in w.sum and the sorted
// (and for DISTINCT de-duplicated) c values in w.cs.
func (w *sbWorker) rangeAt(ctx context.Context, rec Recorder, op int, x int64) error {
	t := w.tables[w.tab]
	w.from[0], w.to[0] = zipsim.Int(x), zipsim.Int(x+w.span) // [x, x+span−1]
	// One projection for every range, k and c: the scan's row then keeps
	// its buffers from one statement to the next.
	cols := w.kcCols[w.tab]
	start := time.Now()
	w.mode, w.n, w.sum, w.arena = op, 0, 0, w.arena[:0]
	w.rec, w.sess = rec, zipsim.SessionOf(ctx)
	if err := t.ScanColumns(ctx, cols, w.from[:], w.to[:], false, w.onRowFn); err != nil {
		return fmt.Errorf("sysbench: %s: %w", sysbenchOps[op], err)
	}
	switch op {
	case sbSumRange:
		w.last += w.sum
	case sbOrderRange, sbDistinctRange:
		w.cs = w.cs[:0]
		for off := 0; off < len(w.arena); off += sbdata.CLen {
			w.cs = append(w.cs, w.arena[off:off+sbdata.CLen])
		}
		slices.SortFunc(w.cs, bytes.Compare)
		if op == sbDistinctRange {
			w.cs = slices.CompactFunc(w.cs, bytes.Equal)
		}
		w.last += int64(len(w.cs))
	default:
		w.last += w.n
	}
	rec.Op(op, time.Since(start).Nanoseconds())
	return nil
}

// onRow is the range scans' callback. Each row's server CPU is spent
// here, between the engine's handler calls, as a server spends it.
func (w *sbWorker) onRow(row zipsim.Row) bool {
	w.n++
	switch w.mode {
	case sbSumRange:
		w.sum += row[1].Int()
	case sbOrderRange, sbDistinctRange:
		c := row[2].Bytes()
		w.arena = append(w.arena, c...)
		for range sbdata.CLen - len(c) { // CHARs come back padded; this is for safety
			w.arena = append(w.arena, ' ')
		}
	default:
		// The simple range sends each row to the client as it reads it;
		// 5.1's server left the concurrency gate for each one
		// [select_send::send_data], and sent it outside. The others send
		// after reading all.
		w.last += int64(len(row[2].Bytes()))
		w.sess.Leave()
	}
	w.rec.Rows(1)
	return true
}

// getRow reads the whole row id of the current table into w.row.
func (w *sbWorker) getRow(ctx context.Context, t *zipsim.Table, id int64) (bool, error) {
	w.pk[0] = zipsim.Int(id)
	row, found, err := t.Get(ctx, w.row, w.pk[:]...)
	w.row = row
	return found, err
}

// ignorable reports whether err is a lost race with another worker: the
// row went away, or came back, in between.
func ignorable(err error) bool {
	return errors.Is(err, zipsim.ErrNotFound) || errors.Is(err, zipsim.ErrDuplicate)
}

// indexUpdate is UPDATE sbtest SET k=k+1 WHERE id=?: read the row, write
// it back with k+1 (zipsim's Update takes whole rows).
func (w *sbWorker) indexUpdate(ctx context.Context, rec Recorder) error {
	t := w.tables[w.tab]
	id := w.dist.next(w.r)
	start := time.Now()
	found, err := w.getRow(ctx, t, id)
	if err == nil && found {
		w.row[1] = zipsim.Int(w.row[1].Int() + 1)
		if err = t.Update(ctx, w.row); ignorable(err) {
			err = nil
		}
	}
	if err != nil {
		return fmt.Errorf("sysbench: index update: %w", err)
	}
	rec.Op(sbIndexUpdate, time.Since(start).Nanoseconds())
	return nil
}

// nonIndexUpdate is UPDATE sbtest SET c=? WHERE id=?.
func (w *sbWorker) nonIndexUpdate(ctx context.Context, rec Recorder) error {
	t := w.tables[w.tab]
	id := w.dist.next(w.r)
	var c []byte
	if w.s.legacy() {
		c = w.gen.legacyC(w.r)
	} else {
		c = w.gen.c(w.r)
	}
	start := time.Now()
	found, err := w.getRow(ctx, t, id)
	if err == nil && found {
		w.upd[0], w.upd[1], w.upd[2], w.upd[3] = w.row[0], w.row[1], zipsim.Bytes(c), w.row[3]
		if err = t.Update(ctx, w.upd); ignorable(err) {
			err = nil
		}
	}
	if err != nil {
		return fmt.Errorf("sysbench: non-index update: %w", err)
	}
	rec.Op(sbNonIndexUpdate, time.Since(start).Nanoseconds())
	return nil
}

// deleteInsert is DELETE FROM sbtest WHERE id=? then INSERT of the same
// id: k from the distribution (get_id()) and a fresh c and pad in sb10,
// legacy04's constants otherwise. Both run in one transaction, so InnoDB
// never removes the clustered record: the DELETE only delete-marks it
// (btr_cur_del_mark_set_clust_rec: a flag and DB_TRX_ID written in place,
// no modification log space on a compressed page), and the INSERT finds
// the delete-marked record of its key and updates it in place
// (row_ins_clust_index_entry_by_modify); purge later finds it live and
// leaves it. zipsim has no delete-marking (its Delete is the purge), so
// the pair is modelled as a read of the row for the DELETE and a Rewrite
// to the new values for the INSERT: the clustered record is rewritten in
// place (even when the values are the same, as legacy04's constants often
// are) and a changed k moves its secondary entry, as the delete-mark and
// the later purge of the old entry do. Removing the record and inserting
// it again would make a packed compressed leaf split on the insert (its
// freed record is garbage below BTR_CUR_PAGE_REORGANIZE_LIMIT) and the
// halves merge back on the next delete, over and over. A row another
// worker deleted (not found) is inserted afresh.
func (w *sbWorker) deleteInsert(ctx context.Context, rec Recorder) error {
	t := w.tables[w.tab]
	id := w.dist.next(w.r)
	if w.s.legacy() {
		w.upd[1], w.upd[2], w.upd[3] = zipsim.Int(0), zipsim.Bytes(legacyCBytes), zipsim.Bytes(legacyInsertPadBytes)
	} else {
		k := w.dist.next(w.r)
		w.upd[1], w.upd[2], w.upd[3] = zipsim.Int(k), zipsim.Bytes(w.gen.c(w.r)), zipsim.Bytes(w.gen.pad(w.r))
	}
	w.upd[0] = zipsim.Int(id)
	start := time.Now()
	found, err := w.getRow(ctx, t, id)
	if err != nil {
		return fmt.Errorf("sysbench: delete: %w", err)
	}
	mid := time.Now()
	rec.Op(sbDelete, mid.Sub(start).Nanoseconds())
	if found {
		err = t.Rewrite(ctx, w.upd) // written even when equal: legacy04 re-inserts constants
	}
	if !found || errors.Is(err, zipsim.ErrNotFound) {
		err = t.Insert(ctx, w.upd)
	}
	if err != nil && !ignorable(err) {
		return fmt.Errorf("sysbench: insert: %w", err)
	}
	rec.Op(sbInsert, time.Since(mid).Nanoseconds())
	return nil
}
