package btree

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"slices"
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
// next fixed [ibuf_insert, then ibuf_merge_or_delete_for_page]. One
// buffer serves every index given it, all on one pool; clustered indexes
// cannot have one, as in InnoDB, whose clustered records must be checked
// for duplicates. A leaf whose compressed block is in the pool without a
// frame counts as in the pool, as buf_page_get_gen decompresses it for
// BUF_GET_IF_IN_POOL.
//
// A change is buffered only for a leaf whose free space is known, as
// InnoDB's insert buffer bitmap knows it: two bits a page, P/32 bytes a
// step, where P is the physical (compressed) page size
// [ibuf_index_page_calc_free_bits]. The bits are recorded when a leaf is
// fixed and not yet known, and after every change to it. InnoDB keeps
// them on disk and sets them after optimistic deletes, compressed inserts
// and splits, but after an uncompressed optimistic insert only lowers
// them once the page fills [ibuf_update_free_bits_if_full]; so here the
// bits are exact where InnoDB's may promise less, and neither ever
// promises more than there is. An insert is buffered when the inserts
// already buffered for the leaf, this one and a directory slot each (2
// bytes, where InnoDB charges page_dir_calc_reserved_space(1), 1 byte)
// fit what the bits promise [ibuf_insert_low, ibuf_get_volume_buffered],
// so a merge never splits. On a compressed leaf the bits come from the
// smaller of the frame's free space and the modification log's
// [ibuf_index_page_calc_free_zip], and each buffered delete is charged
// the 2 bytes its clearing may take in the log, so a merge only appends
// to the log: it never recompresses.
//
// zipsim deletes at once where InnoDB delete-marks a record and purges it
// later, so a buffered delete stands for InnoDB's buffered delete-mark and
// purge together. It is buffered while the leaf, by its record count when
// last seen and the changes buffered since, keeps a record. InnoDB always
// buffers the delete-mark, which changes no size, but the purge only when
// its own entries show two records on the page [ibuf_insert_low:
// min_n_recs], so its purge often reads the leaf later, in the
// background; zipsim spares that read.
//
// The buffer holds at most MaxPct of the pool's bytes
// [innodb_change_buffer_max_size], counting each change as the ibuf
// record InnoDB would store [ibuf_entry_build]. When it is full, a write
// to a buffered index first merges eight pages itself, reading them, as
// ibuf_insert_low makes a thread that finds the ibuf full contract it
// [ibuf_contract, IBUF_MAX_N_PAGES_MERGED]; the change then goes to the
// buffer unless other writers filled it again. InnoDB refuses changes
// only at the maximum plus IBUF_CONTRACT_DO_NOT_INSERT (10 pages),
// contracts in the background after inserts above the maximum
// [ibuf_contract_after_insert], and merges the pages near one random
// position [ibuf_get_merge_page_nos]; zipsim picks eight at random.
// MergeAll merges everything (a slow shutdown, innodb_fast_shutdown=0,
// which Store.Close does because zipsim keeps the buffer in memory) and
// Discard drops a tablespace's changes [ibuf_delete_for_discarded_space].
//
// Not modelled: the buffer's own B-tree, which lives in the system
// tablespace and takes up to MaxPct of the pool's frames (here the
// entries live in Go memory beside the pool, and Stats reports their
// bytes so the difference can be judged); and the master thread's
// background merges, 5% of innodb_io_capacity pages a second while the
// server is busy [ibuf_merge_in_background].
//
// An index's counters (Stats: Inserts, Deletes, Rows) count a buffered
// change when it is merged.
//
// Concurrency: a shard latch (ibuf_mutex) guards each shard's changes and
// free-space records. Under it the buffer asks Pool.Contains, which takes
// a page hash latch, and nothing else: no holder waits for a page latch.
// A change is buffered only after Contains says the leaf is not in the
// pool, and every fix of a leaf looks for changes under the same latch
// after the leaf entered the pool, so each change is either buffered
// before the leaf arrives (and found) or refused. Changes are applied
// with the leaf latched exclusively and the index lock held shared or
// exclusively, as in an optimistic insert's descent, and leave the
// buffer only once applied, so no reader sees a leaf without its changes
// and a merge that fails loses none.
type ChangeBuffer struct {
	pool     *bufpool.Pool
	maxBytes int64
	// size is ibuf->size in bytes: InnoDB guards it with ibuf_mutex,
	// which every ibuf insert takes; one shared word is that model. The
	// words written on different paths sit on their own cache lines.
	size    atomic.Int64
	_       [56]byte
	pending atomic.Int64 // pages with buffered changes
	_       [56]byte
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
	// An ibuf record [ibuf_entry_build] is REDUNDANT: a 6-byte header
	// (REC_N_OLD_EXTRA_BYTES) and a 1-byte end offset a field (2 bytes
	// once the record passes 127 bytes), then space id 4, marker 1, page
	// number 4, and metadata: counter, op and flags 4, and 6 bytes of
	// type a field of the entry (DATA_NEW_ORDER_NULL_TYPE_BUF_SIZE).
	cbRecHeader   = 6
	cbFixedFields = 4
	cbFixedBytes  = 4 + 1 + 4 + 4
	cbTypeBytes   = 6
	// cbDirReserve is the directory room a buffered insert is charged on
	// its leaf. InnoDB charges page_dir_calc_reserved_space(1), one byte,
	// as a slot owns 4 to 8 records; the frame of a compressed page here
	// takes a whole slot a record, so each is charged a slot.
	cbDirReserve = 2
	// cbDeleteLog is what a delete's clearing entry may take in a
	// compressed leaf's modification log (page_zip_clear_rec: 1 or 2
	// bytes).
	cbDeleteLog = 2
)

// ibufRecBytes is the size of the ibuf record carrying an entry of
// fields fields and dataLen bytes.
func ibufRecBytes(fields, dataLen int) int64 {
	data := cbFixedBytes + cbTypeBytes*fields + dataLen
	offsets := cbFixedFields + fields
	if cbRecHeader+offsets+data > 127 {
		offsets *= 2
	}
	return int64(cbRecHeader + offsets + data)
}

// cbCost is what a change takes: on its leaf (volume, counted against
// the free bits) and in the buffer (n bytes).
func (ix *Index) cbCost(op cbOp, key, val []byte) (volume int, n int64) {
	n = ibufRecBytes(ix.o.Fields, len(key)+len(val))
	switch {
	case op == cbInsert:
		volume = page.RecordSize(ix.kind, len(key), len(val)) + cbDirReserve
	case ix.zip != 0:
		volume = cbDeleteLog
	}
	return volume, n
}

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
	volume   int   // bytes the changes need on the leaf (inserts; deletes' log bytes when compressed)
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
	sh := cb.shard(k)
	sh.mu.Lock()
	sh.free[k] = freeWord(bits, nRecs)
	sh.mu.Unlock()
}

// freeWord packs a leaf's free bits and record count as cbShard.free
// keeps them.
func freeWord(bits uint32, nRecs int) uint32 { return bits | uint32(min(nRecs, 1<<20))<<2 }

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
	defer sh.mu.Unlock()
	if cb.pool.Contains(ix.id(pageNo)) {
		return false
	}
	f, known := sh.free[k]
	pg := sh.pages[k]
	var ins, del, volume int
	if pg != nil {
		ins, del, volume = pg.ins, pg.del, pg.volume
	}
	v, n := ix.cbCost(op, key, val)
	switch {
	case !known:
		st.Add(cbRefusedUnknown, 1)
		return false
	case op == cbInsert && volume+v > freeFromBits(ix.physSize(), f&3):
		st.Add(cbRefusedSpace, 1)
		return false
	case op == cbDelete && int(f>>2)+ins-del-1 < 1:
		st.Add(cbRefusedEmpty, 1)
		return false
	}
	if pg == nil {
		pg = sh.take()
		pg.ix = ix
		sh.pages[k] = pg
		cb.pending.Add(1)
	}
	pg.add(op, key, val, v, n)
	cb.size.Add(n)
	if op == cbInsert {
		st.Add(cbInserts, 1)
	} else {
		st.Add(cbDeletes, 1)
	}
	return true
}

// add appends a change that costs volume on the leaf and n bytes.
func (pg *cbPage) add(op cbOp, key, val []byte, volume int, n int64) {
	pg.ops = append(pg.ops, byte(op))
	pg.ops = binary.AppendUvarint(pg.ops, uint64(len(key)))
	pg.ops = append(pg.ops, key...)
	pg.ops = binary.AppendUvarint(pg.ops, uint64(len(val)))
	pg.ops = append(pg.ops, val...)
	pg.volume += volume
	pg.bytes += n
	if op == cbInsert {
		pg.ins++
	} else {
		pg.del++
	}
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

// waiting reports whether changes wait for the leaf g holds, and records
// its free space if the buffer does not know it yet (a leaf read since
// the buffer was made: InnoDB's bitmap survives a restart).
func (ix *Index) waiting(g *bufpool.Guard) bool {
	cb := ix.o.ChangeBuffer
	k := cbKey(ix.o.Space, g.ID().PageNo)
	sh := cb.shard(k)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if _, ok := sh.pages[k]; ok {
		return true
	}
	if _, known := sh.free[k]; !known {
		p := page.IndexPage(g.Frame())
		sh.free[k] = freeWord(ix.leafFreeBits(p, g.Zip()), p.NRecs())
	}
	return false
}

// isLeaf reports whether g holds a leaf of ix, the only pages changes
// wait for.
func (ix *Index) isLeaf(g *bufpool.Guard) bool {
	p := page.IndexPage(g.Frame())
	return p.Level() == 0 && p.IndexID() == ix.o.ID
}

// fixMerging is Pool.Fix for a page of an index with a change buffer: a
// leaf with buffered changes is latched exclusively and gets them before
// the caller sees it [buf_page_io_complete, buf_page_get_gen →
// ibuf_merge_or_delete_for_page].
func (ix *Index) fixMerging(ctx context.Context, pageNo uint32, mode bufpool.Mode) (bufpool.Guard, error) {
	for {
		g, err := ix.pool.Fix(ctx, ix.id(pageNo), mode)
		if err != nil || !ix.isLeaf(&g) || !ix.waiting(&g) {
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
// ibuf_insert_to_index_page, ibuf_delete], and then takes them out of the
// buffer. Under the rules that let them in they always fit; one that does
// not, or an insert whose key is there or a delete whose key is not,
// means the buffer and the leaf disagree: the changes before it stay
// applied, it and those after it stay buffered, and the error names the
// page.
func (ix *Index) mergeBuffered(g *bufpool.Guard) error {
	cb := ix.o.ChangeBuffer
	k := cbKey(ix.o.Space, g.ID().PageNo)
	sh := cb.shard(k)
	sh.mu.Lock()
	pg := sh.pages[k]
	sh.mu.Unlock()
	if pg == nil {
		return nil
	}
	// The leaf is in the pool and latched: nothing is added to pg now.
	done, err := ix.applyBuffered(g, pg.ops)
	sh.mu.Lock()
	cb.size.Add(-pg.bytes)
	if err == nil {
		delete(sh.pages, k)
		cb.pending.Add(-1)
		*pg = cbPage{ops: pg.ops[:0]}
		sh.spare = append(sh.spare, pg)
	} else {
		// Keep what was not applied, recounted.
		rest := slices.Clone(pg.ops[done:])
		*pg = cbPage{ix: ix, ops: pg.ops[:0]}
		for len(rest) > 0 {
			op := cbOp(rest[0])
			key, r := cbField(rest[1:])
			val, r := cbField(r)
			v, n := ix.cbCost(op, key, val)
			pg.add(op, key, val, v, n)
			rest = r
		}
		cb.size.Add(pg.bytes)
	}
	sh.mu.Unlock()
	if done > 0 {
		if derr := ix.markDirty(g); err == nil {
			err = derr
		}
	}
	if err == nil {
		cb.ctr.Stripe().Add(cbMerges, 1)
	}
	return err
}

// applyBuffered applies the changes in ops to the leaf g holds and
// reports how many bytes of ops it applied.
func (ix *Index) applyBuffered(g *bufpool.Guard, ops []byte) (int, error) {
	cst := ix.o.ChangeBuffer.ctr.Stripe()
	st := ix.ctr.Stripe()
	p, z := page.IndexPage(g.Frame()), g.Zip()
	pageNo := g.ID().PageNo
	for done := 0; done < len(ops); {
		op := cbOp(ops[done])
		key, rest := cbField(ops[done+1:])
		val, rest := cbField(rest)
		if key == nil || val == nil {
			return done, fmt.Errorf("btree: index %q page %d: change buffer entry malformed", ix.o.Name, pageNo)
		}
		slot, found := p.Search(key, bytes.Compare)
		switch op {
		case cbInsert:
			if found {
				return done, fmt.Errorf("btree: index %q page %d: buffered insert of %x finds the key there", ix.o.Name, pageNo, key)
			}
			r, err := ix.leafRecord(key, val)
			if err != nil {
				return done, err
			}
			ok, err := ix.insertOrReorganize(p, z, slot, r, st)
			if err == nil && !ok {
				err = fmt.Errorf("btree: index %q page %d: buffered insert of %x does not fit", ix.o.Name, pageNo, key)
			}
			if err != nil {
				return done, err
			}
			ix.countInsert(r, st)
			cst.Add(cbMergedInserts, 1)
		case cbDelete:
			if !found {
				return done, fmt.Errorf("btree: index %q page %d: buffered delete of %x finds no key", ix.o.Name, pageNo, key)
			}
			size := p.RecSize(slot)
			if err := pageDelete(p, z, slot); err != nil {
				return done, err
			}
			ix.countDelete(size, st)
			cst.Add(cbMergedDeletes, 1)
		}
		done = len(ops) - len(rest)
	}
	return len(ops), nil
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
// ibuf_merge_pages], and reports how many it merged. A page whose changes
// went while it was being read (its tablespace dropped) is skipped; any
// other failure is returned.
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
			if !cb.pendingFor(pk.ix.o.Space, pk.pageNo) {
				continue
			}
			return merged, err
		}
		merged++
	}
	return merged, nil
}

// pendingFor reports whether changes wait for the page.
func (cb *ChangeBuffer) pendingFor(space, pageNo uint32) bool {
	k := cbKey(space, pageNo)
	sh := cb.shard(k)
	sh.mu.Lock()
	_, ok := sh.pages[k]
	sh.mu.Unlock()
	return ok
}

// contractIfFull has a writer merge pages when the buffer is full.
func (cb *ChangeBuffer) contractIfFull(ctx context.Context) error {
	if cb.size.Load() < cb.maxBytes {
		return nil
	}
	cb.ctr.Stripe().Add(cbContractions, 1)
	_, err := cb.contract(ctx, cbMergePages)
	return err
}

// MergeAll merges every buffered change, reading the pages
// [innodb_fast_shutdown=0: ibuf_merge_in_background(true) until empty].
// Writers may buffer more meanwhile; MergeAll returns when it finds the
// buffer empty, or with the first merge's error.
func (cb *ChangeBuffer) MergeAll(ctx context.Context) error {
	for cb.pending.Load() > 0 {
		if _, err := cb.contract(ctx, cbMergePages); err != nil {
			return err
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
	Contractions                                            uint64 // times a writer found the buffer full and merged pages
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
