package btree

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/zipsim/zipsim/bufpool"
	"github.com/zipsim/zipsim/internal/latch"
	"github.com/zipsim/zipsim/internal/stripe"
	"github.com/zipsim/zipsim/internal/table"
	"github.com/zipsim/zipsim/page"
)

// ChangeBuffer is InnoDB's change buffer [ibuf/ibuf0ibuf.cc] with
// innodb_change_buffering=all as MySQL 5.5–8.0 default it: an insert into,
// or a delete from, a leaf of a secondary index that is not in the pool
// is kept here instead of reading the leaf, and applied when the leaf is
// next read [ibuf_insert, then ibuf_merge_or_delete_for_page]. One buffer
// serves every index given it; clustered indexes cannot have one, as in
// InnoDB, whose clustered records must be checked for duplicates.
//
// A change is buffered only when the leaf was seen in the pool since the
// buffer was made, so that its free space is known, as InnoDB's insert
// buffer bitmap knows it: two bits a page, P/32 bytes a step, where P is
// the physical (compressed) page size [ibuf_index_page_calc_free_bits].
// An insert is buffered when the inserts already buffered for the leaf,
// this one and a byte of directory each fit what the bits promise
// [ibuf_insert_low: ibuf_get_volume_buffered + entry size +
// page_dir_calc_reserved_space(1); here a whole 2-byte slot], so a merge
// never splits. On a
// compressed leaf the bits come from the smaller of the frame's free
// space and the modification log's [ibuf_index_page_calc_free_zip], so
// a merge only appends to the log: it never recompresses. zipsim deletes
// at once where InnoDB delete-marks a record and purges it later, so a
// buffered delete is InnoDB's buffered delete-mark and purge together; it
// is buffered only while the leaf keeps a record after every buffered
// change, as InnoDB's purge is [ibuf_insert_low: min_n_recs]. zipsim
// keeps the bits up to date on every leaf change, where InnoDB only
// lowers them after an optimistic insert [ibuf_update_free_bits_if_full],
// so here a leaf's bits are never below its free space.
//
// The buffer holds at most MaxPct of the pool's bytes
// [innodb_change_buffer_max_size]. When full it buffers nothing more, and
// the next write to a buffered index first merges up to eight pages
// itself, reading them, as a full ibuf makes its inserting thread
// contract it [IBUF_CONTRACT_DO_NOT_INSERT, ibuf_contract;
// IBUF_MAX_N_PAGES_MERGED]; the pages are picked at random, as
// ibuf_merge_pages starts from a random position. MergeAll merges
// everything (a slow shutdown, innodb_fast_shutdown=0, which Store.Close
// does because zipsim keeps the buffer in memory) and Discard drops a
// tablespace's changes [ibuf_delete_for_discarded_space].
//
// Not modelled: the buffer's own B-tree, which lives in the system
// tablespace and takes up to MaxPct of the pool's frames (here the
// entries live in Go memory beside the pool, and Stats reports their
// bytes so the difference can be judged); the master thread's background
// merges, 5% of innodb_io_capacity pages a second while the server is
// busy [ibuf_merge_in_background]; and merging the neighbours of a page
// whose change was refused [ibuf_get_merge_page_nos].
//
// Concurrency: a shard latch guards each shard's changes and free-space
// record, and is the last latch taken. A change is buffered under it only
// after Pool.Contains says the leaf is not in the pool, and a leaf read
// into the pool looks for changes under it, so every change is either
// buffered before the leaf arrives (and found) or refused. Changes are
// applied with the leaf latched exclusively and the index lock held
// shared or exclusively, as an optimistic insert is, and taken from the
// buffer only then, so no reader sees a leaf without its changes.
type ChangeBuffer struct {
	pool     *bufpool.Pool
	maxBytes int64
	// size is ibuf->size in bytes: InnoDB guards it with ibuf_mutex,
	// which every ibuf insert takes; one shared word is that model.
	size    atomic.Int64
	pending atomic.Int64 // pages with buffered changes
	next    atomic.Uint32
	shards  [cbShards]cbShard
	ctr     *stripe.Counters
}

// ChangeBufferOptions configure NewChangeBuffer.
type ChangeBufferOptions struct {
	Pool *bufpool.Pool
	// MaxPct is innodb_change_buffer_max_size: the most the buffer holds,
	// as a share of the pool's frame bytes, 1..50; 0 means 25.
	MaxPct int
}

// cbOp is a buffered operation [ibuf_op_t].
type cbOp uint8

const (
	cbNone   cbOp = iota
	cbInsert      // IBUF_OP_INSERT
	cbDelete      // IBUF_OP_DELETE_MARK followed by IBUF_OP_DELETE
)

const (
	cbShards = 16
	// cbMergePages is IBUF_MAX_N_PAGES_MERGED, the pages one contraction
	// merges.
	cbMergePages = 8
	// cbEntryOverhead is what an ibuf record adds to the entry it
	// carries [ibuf_entry_build]: space id 4, marker 1, page number 4,
	// counter, op and flags 4, and a 5-byte record header.
	cbEntryOverhead = 18
	// cbFieldTypeBytes is the type information an ibuf record keeps for
	// each field of the entry (DATA_NEW_ORDER_NULL_TYPE_BUF_SIZE).
	cbFieldTypeBytes = 6
	// cbDirReserve is the directory room a buffered insert is charged on
	// its leaf. InnoDB charges page_dir_calc_reserved_space(1), one byte,
	// as a slot owns 4 to 8 records; the frame of a compressed page here
	// takes a whole slot a record, so each is charged a slot.
	cbDirReserve = 2
)

type cbShard struct {
	mu    latch.Mutex
	pages map[uint64]*cbPage
	// free is, for each leaf seen in the pool, its free bits and its
	// record count when it last changed: bits | nRecs<<2.
	free  map[uint64]uint32
	spare []*cbPage
}

// cbPage is the changes buffered for one leaf, in arrival order: an op
// byte, then key and value, each with a uvarint length.
type cbPage struct {
	ix       *Index
	ops      []byte
	ins, del int
	volume   int   // bytes the inserts need on the leaf
	bytes    int64 // bytes counted in size
}

// NewChangeBuffer returns an empty change buffer for indexes on pool.
func NewChangeBuffer(o ChangeBufferOptions) (*ChangeBuffer, error) {
	if o.Pool == nil {
		return nil, fmt.Errorf("btree: ChangeBufferOptions.Pool is nil")
	}
	if o.MaxPct < 0 || o.MaxPct > 50 {
		return nil, fmt.Errorf("btree: ChangeBufferOptions.MaxPct is %d: use 1..50, 0 for 25", o.MaxPct)
	}
	if o.MaxPct == 0 {
		o.MaxPct = 25
	}
	po := o.Pool.Options()
	cb := &ChangeBuffer{pool: o.Pool, ctr: stripe.New(nCBCounters)}
	cb.maxBytes = po.Bytes * int64(o.MaxPct) / 100
	for i := range cb.shards {
		sh := &cb.shards[i]
		sh.mu.Init(o.Pool.Latches(), "ibuf_mutex")
		sh.pages = map[uint64]*cbPage{}
		sh.free = map[uint64]uint32{}
	}
	return cb, nil
}

func cbKey(space, pageNo uint32) uint64 { return uint64(space)<<32 | uint64(pageNo) }

func (cb *ChangeBuffer) shard(k uint64) *cbShard {
	return &cb.shards[(k^k>>32)*0x9e3779b97f4a7c15>>60]
}

// freeBits is ibuf_index_page_calc_free_bits: the free space maxIns of a
// page of physical size phys in steps of phys/32, where 3 steps round
// down to 2 and anything above stands for 4.
func freeBits(phys, maxIns int) uint32 {
	n := maxIns / (phys / 32)
	if n == 3 {
		n = 2
	}
	return uint32(min(max(n, 0), 3))
}

// freeFromBits is ibuf_index_page_calc_free_from_bits, freeBits'
// inverse: the free space the bits promise.
func freeFromBits(phys int, bits uint32) int {
	if bits == 3 {
		return 4 * phys / 32
	}
	return int(bits) * phys / 32
}

// physSize is the size of the index's pages on disk.
func (ix *Index) physSize() int {
	if ix.zip != 0 {
		return ix.zip
	}
	return ix.pageSize
}

// leafFreeBits is ibuf_index_page_calc_free (uncompressed: the room after
// a reorganization) or ibuf_index_page_calc_free_zip (compressed: the
// room the frame has now and the modification log has, the smaller).
func (ix *Index) leafFreeBits(p page.IndexPage, z *page.Zip) uint32 {
	if z == nil {
		return freeBits(ix.pageSize, p.MaxInsertSizeAfterReorganize())
	}
	return freeBits(ix.zip, min(p.MaxInsertSize(), z.MaxInsertSize()))
}

// note records a leaf's free bits and record count after a change
// [ibuf_update_free_bits_low, ibuf_update_free_bits_zip].
func (cb *ChangeBuffer) note(space, pageNo, bits uint32, nRecs int) {
	k := cbKey(space, pageNo)
	v := bits | uint32(min(nRecs, 1<<20))<<2
	sh := cb.shard(k)
	sh.mu.Lock()
	if sh.free[k] != v {
		sh.free[k] = v
	}
	sh.mu.Unlock()
}

// forget drops what the buffer knows of a page the index gave back.
func (cb *ChangeBuffer) forget(space, pageNo uint32) {
	k := cbKey(space, pageNo)
	sh := cb.shard(k)
	sh.mu.Lock()
	delete(sh.free, k)
	sh.mu.Unlock()
}

// buffer keeps op on key (and val) for leaf pageNo of ix if the leaf is
// not in the pool and the rules above allow it, and reports whether it
// did.
func (cb *ChangeBuffer) buffer(ix *Index, pageNo uint32, op cbOp, key, val []byte) bool {
	st := cb.ctr.Stripe()
	if cb.size.Load() >= cb.maxBytes {
		st.Add(cbRefusedFull, 1)
		return false
	}
	k := cbKey(ix.o.Space, pageNo)
	sh := cb.shard(k)
	sh.mu.Lock()
	if cb.pool.Contains(ix.id(pageNo)) {
		sh.mu.Unlock()
		return false
	}
	f, known := sh.free[k]
	pg := sh.pages[k]
	var ins, del, volume int
	if pg != nil {
		ins, del, volume = pg.ins, pg.del, pg.volume
	}
	size := page.RecordSize(ix.kind, len(key), len(val))
	switch {
	case !known:
		st.Add(cbRefusedUnknown, 1)
		sh.mu.Unlock()
		return false
	case op == cbInsert && volume+size+cbDirReserve > freeFromBits(ix.physSize(), f&3):
		st.Add(cbRefusedSpace, 1)
		sh.mu.Unlock()
		return false
	case op == cbDelete && int(f>>2)+ins-del-1 < 1:
		st.Add(cbRefusedEmpty, 1)
		sh.mu.Unlock()
		return false
	}
	if pg == nil {
		pg = sh.take()
		pg.ix = ix
		sh.pages[k] = pg
		cb.pending.Add(1)
	}
	pg.ops = append(pg.ops, byte(op))
	pg.ops = binary.AppendUvarint(pg.ops, uint64(len(key)))
	pg.ops = append(pg.ops, key...)
	pg.ops = binary.AppendUvarint(pg.ops, uint64(len(val)))
	pg.ops = append(pg.ops, val...)
	n := int64(len(key) + len(val) + cbEntryOverhead + cbFieldTypeBytes*ix.o.Fields)
	pg.bytes += n
	if op == cbInsert {
		pg.ins++
		pg.volume += size + cbDirReserve
		st.Add(cbInserts, 1)
	} else {
		pg.del++
		st.Add(cbDeletes, 1)
	}
	cb.size.Add(n)
	sh.mu.Unlock()
	return true
}

// take returns an empty cbPage, reusing one a merge gave back.
func (sh *cbShard) take() *cbPage {
	if n := len(sh.spare); n > 0 {
		pg := sh.spare[n-1]
		sh.spare = sh.spare[:n-1]
		return pg
	}
	return &cbPage{}
}

// has reports whether changes wait for the page.
func (cb *ChangeBuffer) has(space, pageNo uint32) bool {
	if cb.pending.Load() == 0 {
		return false
	}
	k := cbKey(space, pageNo)
	sh := cb.shard(k)
	sh.mu.Lock()
	_, ok := sh.pages[k]
	sh.mu.Unlock()
	return ok
}

// remove takes the page's changes out of the buffer; the caller holds the
// leaf latched exclusively and gives the cbPage back with recycle.
func (cb *ChangeBuffer) remove(space, pageNo uint32) *cbPage {
	k := cbKey(space, pageNo)
	sh := cb.shard(k)
	sh.mu.Lock()
	pg, ok := sh.pages[k]
	if ok {
		delete(sh.pages, k)
		cb.pending.Add(-1)
		cb.size.Add(-pg.bytes)
	}
	sh.mu.Unlock()
	return pg
}

func (cb *ChangeBuffer) recycle(space, pageNo uint32, pg *cbPage) {
	*pg = cbPage{ops: pg.ops[:0]}
	sh := cb.shard(cbKey(space, pageNo))
	sh.mu.Lock()
	sh.spare = append(sh.spare, pg)
	sh.mu.Unlock()
}

// fix is Pool.Fix for a page of an index with a change buffer: a leaf
// with buffered changes is latched exclusively and gets them before the
// caller sees it [buf_page_io_complete, buf_page_get_gen →
// ibuf_merge_or_delete_for_page].
func (ix *Index) fixMerging(ctx context.Context, pageNo uint32, mode bufpool.Mode) (bufpool.Guard, error) {
	cb := ix.o.ChangeBuffer
	for {
		g, err := ix.pool.Fix(ctx, ix.id(pageNo), mode)
		if err != nil || !cb.has(ix.o.Space, pageNo) {
			return g, err
		}
		if mode == bufpool.Shared {
			g.Release()
			if g, err = ix.pool.Fix(ctx, ix.id(pageNo), bufpool.Exclusive); err != nil {
				return g, err
			}
		}
		if err := ix.mergeBuffered(&g); err != nil {
			g.Release()
			return bufpool.Guard{}, err
		}
		if mode == bufpool.Exclusive {
			return g, nil
		}
		g.Release()
	}
}

// mergeBuffered applies the changes buffered for the leaf g holds
// exclusively, in the order they came [ibuf_merge_or_delete_for_page:
// ibuf_insert_to_index_page, ibuf_delete]. Under the rules that let them
// in they always fit; one that does not, or an insert whose key is there
// or a delete whose key is not, means the buffer and the leaf disagree,
// and is an error naming the page.
func (ix *Index) mergeBuffered(g *bufpool.Guard) error {
	cb := ix.o.ChangeBuffer
	pageNo := g.ID().PageNo
	pg := cb.remove(ix.o.Space, pageNo)
	if pg == nil {
		return nil
	}
	defer cb.recycle(ix.o.Space, pageNo, pg)
	st := ix.ctr.Stripe()
	cst := cb.ctr.Stripe()
	p, z := page.IndexPage(g.Frame()), g.Zip()
	for ops := pg.ops; len(ops) > 0; {
		op := cbOp(ops[0])
		var key, val []byte
		key, ops = cbField(ops[1:])
		val, ops = cbField(ops)
		if key == nil || val == nil {
			return fmt.Errorf("btree: index %q page %d: change buffer entry malformed", ix.o.Name, pageNo)
		}
		slot, found := p.Search(key, bytes.Compare)
		switch op {
		case cbInsert:
			if found {
				return fmt.Errorf("btree: index %q page %d: buffered insert of %x finds the key there", ix.o.Name, pageNo, key)
			}
			r, err := ix.leafRecord(key, val)
			if err != nil {
				return err
			}
			ok, err := ix.insertOrReorganize(p, z, slot, r, st)
			if err == nil && !ok {
				err = fmt.Errorf("btree: index %q page %d: buffered insert of %x does not fit", ix.o.Name, pageNo, key)
			}
			if err != nil {
				return err
			}
			ix.countInsert(r, st)
			cst.Add(cbMergedInserts, 1)
		case cbDelete:
			if !found {
				return fmt.Errorf("btree: index %q page %d: buffered delete of %x finds no key", ix.o.Name, pageNo, key)
			}
			size := p.RecSize(slot)
			if err := pageDelete(p, z, slot); err != nil {
				return err
			}
			ix.countDelete(size, st)
			cst.Add(cbMergedDeletes, 1)
		}
	}
	cst.Add(cbMerges, 1)
	return ix.markDirty(g)
}

// cbField reads a uvarint-prefixed field; nil when malformed (an empty
// field is a non-nil empty slice).
func cbField(b []byte) ([]byte, []byte) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)-k) {
		return nil, nil
	}
	return b[k : k+int(n) : k+int(n)], b[k+int(n):]
}

// markDirty marks the page dirty and, on a leaf of an index with a change
// buffer, records its free space for the buffer's bitmap.
func (ix *Index) markDirty(g *bufpool.Guard) error {
	if err := g.MarkDirty(); err != nil {
		return err
	}
	if cb := ix.o.ChangeBuffer; cb != nil {
		p := page.IndexPage(g.Frame())
		if p.Level() == 0 {
			cb.note(ix.o.Space, g.ID().PageNo, ix.leafFreeBits(p, g.Zip()), p.NRecs())
		}
	}
	return nil
}

// mergePage reads the page so that its buffered changes are applied.
func (ix *Index) mergePage(ctx context.Context, pageNo uint32) error {
	ix.lock.RLock()
	defer ix.lock.RUnlock()
	g, err := ix.fix(ctx, pageNo, bufpool.Exclusive)
	if err != nil {
		return err
	}
	g.Release()
	return nil
}

// contract merges up to n pages' changes, picked at random [ibuf_contract,
// ibuf_merge_pages], and reports how many it merged. A page that cannot
// be read (its tablespace dropped under the pick) is skipped.
func (cb *ChangeBuffer) contract(ctx context.Context, n int) (int, error) {
	type pick struct {
		ix     *Index
		pageNo uint32
	}
	var picks [cbMergePages]pick
	n = min(n, cbMergePages)
	c := 0
	start := cb.next.Add(1)
	for i := uint32(0); i < cbShards && c < n; i++ {
		sh := &cb.shards[(start+i)%cbShards]
		sh.mu.Lock()
		for k, pg := range sh.pages {
			if c == n {
				break
			}
			picks[c] = pick{pg.ix, uint32(k)}
			c++
		}
		sh.mu.Unlock()
	}
	merged := 0
	for _, pk := range picks[:c] {
		if err := pk.ix.mergePage(ctx, pk.pageNo); err != nil {
			if ctx.Err() != nil {
				return merged, err
			}
			continue
		}
		merged++
	}
	cb.ctr.Stripe().Add(cbContractions, 1)
	return merged, nil
}

// contractIfFull has a writer merge pages when the buffer is full.
func (cb *ChangeBuffer) contractIfFull(ctx context.Context) error {
	if cb.size.Load() < cb.maxBytes {
		return nil
	}
	_, err := cb.contract(ctx, cbMergePages)
	return err
}

// MergeAll merges every buffered change, reading the pages
// [innodb_fast_shutdown=0: ibuf_merge_in_background(true) until empty].
// Writers may buffer more meanwhile; MergeAll returns when it found the
// buffer empty, or with an error when it stopped making progress.
func (cb *ChangeBuffer) MergeAll(ctx context.Context) error {
	for cb.pending.Load() > 0 {
		merged, err := cb.contract(ctx, cbMergePages)
		if err != nil {
			return err
		}
		if merged == 0 && cb.pending.Load() > 0 {
			return fmt.Errorf("btree: change buffer: %d pages' changes cannot be merged", cb.pending.Load())
		}
	}
	return nil
}

// Discard drops the buffered changes and free-space records of a
// tablespace [ibuf_delete_for_discarded_space], counting the changes as
// discarded.
func (cb *ChangeBuffer) Discard(space uint32) {
	st := cb.ctr.Stripe()
	for i := range cb.shards {
		sh := &cb.shards[i]
		sh.mu.Lock()
		for k, pg := range sh.pages {
			if uint32(k>>32) != space {
				continue
			}
			st.Add(cbDiscardedInserts, uint64(pg.ins))
			st.Add(cbDiscardedDeletes, uint64(pg.del))
			delete(sh.pages, k)
			cb.pending.Add(-1)
			cb.size.Add(-pg.bytes)
		}
		for k := range sh.free {
			if uint32(k>>32) == space {
				delete(sh.free, k)
			}
		}
		sh.mu.Unlock()
	}
}

// Counter indexes of the change buffer's striped counters.
const (
	cbInserts = iota
	cbDeletes
	cbRefusedFull
	cbRefusedSpace
	cbRefusedEmpty
	cbRefusedUnknown
	cbMerges
	cbMergedInserts
	cbMergedDeletes
	cbDiscardedInserts
	cbDiscardedDeletes
	cbContractions
	nCBCounters
)

// ChangeBufferStats is a snapshot of the change buffer, named as
// SHOW ENGINE INNODB STATUS and INNODB_METRICS name them [ibuf_print;
// srv0mon.cc, subsystem change_buffer]. Counters only grow; Sub gives the
// change between two snapshots and keeps the later Bytes, Pages and
// PendingPages.
type ChangeBufferStats struct {
	Bytes        int64 // bytes of buffered entries, ibuf records' size
	MaxBytes     int64
	PendingPages int64 // leaves with buffered changes
	// Buffered counts the changes taken in.
	Inserts, Deletes uint64
	// Refused counts changes the buffer would not take: full, too little
	// room on the leaf, the leaf would be emptied, its free space unknown.
	RefusedFull, RefusedSpace, RefusedEmpty, RefusedUnknown uint64
	Merges                                                  uint64 // ibuf_merges: pages merged
	MergedInserts, MergedDeletes                            uint64 // ibuf_merges_insert, ibuf_merges_delete
	DiscardedInserts, DiscardedDeletes                      uint64
	Contractions                                            uint64 // writers' merges of a full buffer
}

// Pages is the buffer's size in pages, as ibuf_size counts it.
func (s ChangeBufferStats) Pages(pageSize int) int64 {
	return (s.Bytes + int64(pageSize) - 1) / int64(pageSize)
}

// Stats returns a snapshot.
func (cb *ChangeBuffer) Stats() ChangeBufferStats {
	var c [nCBCounters]uint64
	cb.ctr.SumAll(c[:])
	return ChangeBufferStats{
		Bytes: cb.size.Load(), MaxBytes: cb.maxBytes, PendingPages: cb.pending.Load(),
		Inserts: c[cbInserts], Deletes: c[cbDeletes],
		RefusedFull: c[cbRefusedFull], RefusedSpace: c[cbRefusedSpace],
		RefusedEmpty: c[cbRefusedEmpty], RefusedUnknown: c[cbRefusedUnknown],
		Merges: c[cbMerges], MergedInserts: c[cbMergedInserts], MergedDeletes: c[cbMergedDeletes],
		DiscardedInserts: c[cbDiscardedInserts], DiscardedDeletes: c[cbDiscardedDeletes],
		Contractions: c[cbContractions],
	}
}

// Sub returns the counter changes since prev.
func (s ChangeBufferStats) Sub(prev ChangeBufferStats) ChangeBufferStats {
	d := s
	d.Inserts -= prev.Inserts
	d.Deletes -= prev.Deletes
	d.RefusedFull -= prev.RefusedFull
	d.RefusedSpace -= prev.RefusedSpace
	d.RefusedEmpty -= prev.RefusedEmpty
	d.RefusedUnknown -= prev.RefusedUnknown
	d.Merges -= prev.Merges
	d.MergedInserts -= prev.MergedInserts
	d.MergedDeletes -= prev.MergedDeletes
	d.DiscardedInserts -= prev.DiscardedInserts
	d.DiscardedDeletes -= prev.DiscardedDeletes
	d.Contractions -= prev.Contractions
	return d
}

// String prints the snapshot as an INSERT_BUFFER table.
func (s ChangeBufferStats) String() string {
	var b strings.Builder
	table.Write(&b, "INSERT_BUFFER",
		[]string{"BYTES", "MAX_BYTES", "PENDING_PAGES", "BUFFERED_INSERT", "BUFFERED_DELETE",
			"REFUSED_FULL", "REFUSED_SPACE", "REFUSED_EMPTY", "REFUSED_UNKNOWN",
			"MERGES", "MERGED_INSERT", "MERGED_DELETE", "DISCARDED_INSERT", "DISCARDED_DELETE", "CONTRACTIONS"},
		[][]string{{fmt.Sprint(s.Bytes), fmt.Sprint(s.MaxBytes), fmt.Sprint(s.PendingPages),
			fmt.Sprint(s.Inserts), fmt.Sprint(s.Deletes),
			fmt.Sprint(s.RefusedFull), fmt.Sprint(s.RefusedSpace), fmt.Sprint(s.RefusedEmpty), fmt.Sprint(s.RefusedUnknown),
			fmt.Sprint(s.Merges), fmt.Sprint(s.MergedInserts), fmt.Sprint(s.MergedDeletes),
			fmt.Sprint(s.DiscardedInserts), fmt.Sprint(s.DiscardedDeletes), fmt.Sprint(s.Contractions)}})
	return b.String()
}
