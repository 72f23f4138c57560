package zipsim

import (
	"context"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/zipsim/zipsim/btree"
	"github.com/zipsim/zipsim/internal/latch"
	"github.com/zipsim/zipsim/internal/table"
	"github.com/zipsim/zipsim/page"
)

// With Options.Purge, every write takes a transaction id
// [trx_sys_t::get_new_trx_id] and stamps the clustered record it writes
// with it: DB_TRX_ID, and a DB_ROLL_PTR that stands for the address of its
// undo record. zipsim has no undo log, so the roll pointer holds the
// insert flag, a rollback segment (trx id mod 128, as MariaDB hands them
// out in turn) and the low 48 bits of the trx id where the undo page and
// offset go: every write's pointer differs, as InnoDB's do. Each write is
// a transaction of its own, as an autocommit statement is. Without Purge
// both fields stay zero, nearly as MariaDB's purge leaves them (it sets
// the roll pointer's insert flag).
//
// The write then waits in a history list until MariaDB 10.3+'s purge
// resets its DB_TRX_ID and DB_ROLL_PTR [row_purge_reset_trx_id;
// MDEV-12288]. A purge coordinator goroutine, woken by the commit that
// finds it idle, runs batches while there is history
// [purge_coordinator_state::do_purge]: each takes the history there is and
// hands each partition's records (a partition is a table to InnoDB) to one
// of the purge threads, the next in turn for each partition the batch
// meets [trx_purge_attach_undo_recs], and waits for them; writers add to
// the next batch meanwhile, so the history grows when purge falls behind.
// MariaDB ends a batch at innodb_purge_batch_size undo pages (127 in
// 10.11.14); zipsim, having no undo pages, takes all the history there is.
// The reset writes the leaf again, reading it if it left the pool
// (btree.Index.ResetSys). The rest of InnoDB's purge, removing
// delete-marked records, zipsim does at once in Delete and Update.

// rollbackSegments is the number of history lists writers append to, as
// InnoDB's 128 rollback segments spread commits over as many mutexes.
const rollbackSegments = 128

// newTrx returns a new transaction id and the clustered record's
// DB_TRX_ID and DB_ROLL_PTR for it, written into w.sys, when purge runs;
// otherwise 0 and nil, which leave them zero.
func (s *Store) newTrx(w *work, insert bool) (uint64, []byte) {
	if s.purge == nil {
		return 0, nil
	}
	trx := s.trxID.Add(1)
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], trx)
	copy(w.sys[:6], b[2:])
	w.sys[6] = byte(trx % rollbackSegments)
	if insert {
		w.sys[6] |= 0x80
	}
	copy(w.sys[7:], b[2:])
	return trx, w.sys[:]
}

// purgeEntry is one write waiting for purge: its table, its partition's
// clustered index (taken when the write commits: AddIndex may change the
// partition's index list meanwhile), the clustered key (at key in its
// history's arena) and the DB_TRX_ID and DB_ROLL_PTR it wrote.
type purgeEntry struct {
	t   *Table
	ix  *btree.Index
	key [2]int
	sys [page.TrxRollLen]byte
}

// history is a list of writes and the bytes of their keys.
type history struct {
	ents  []purgeEntry
	arena []byte
}

func (h *history) reset() {
	clear(h.ents) // no table kept alive
	h.ents, h.arena = h.ents[:0], h.arena[:0]
}

// rseg is one rollback segment's history list [trx_rseg_t]: writers
// append under its mutex, the coordinator takes the list whole. waiting
// lets the coordinator pass an empty list without its mutex, and added
// lets Metrics count writes without it.
type rseg struct {
	mu      latch.Mutex
	list    history
	waiting atomic.Int64
	added   atomic.Uint64
	_       [32]byte
}

// purger runs purge for a Store.
type purger struct {
	rsegs [rollbackSegments]rseg
	// The coordinator's: each thread's share of a batch, the spare list
	// swapped into a segment, and which thread has each partition's index.
	batch   []history
	taken   history
	thread  map[*btree.Index]int
	wg      sync.WaitGroup
	wake    chan struct{}
	stop    chan struct{}
	stopped chan struct{}
	// running is held while a batch runs: DropTable takes it so that no
	// batch touches a table it drops.
	running sync.Mutex
	threads []purgeThread
	batches atomic.Uint64
	errMu   sync.Mutex
	err     error // the first error purge met
}

// purgeThread is one purge thread [purge_worker_callback].
type purgeThread struct {
	work   chan *history
	purged atomic.Uint64 // records handled
	resets atomic.Uint64 // records reset
	_      [40]byte
}

func newPurger(s *Store, threads int) *purger {
	pg := &purger{
		batch:   make([]history, threads),
		thread:  map[*btree.Index]int{},
		wake:    make(chan struct{}, 1),
		stop:    make(chan struct{}),
		stopped: make(chan struct{}),
		threads: make([]purgeThread, threads),
	}
	for i := range pg.rsegs {
		pg.rsegs[i].mu.Init(s.pool.Latches(), "rseg_mutex")
	}
	for i := range pg.threads {
		th := &pg.threads[i]
		th.work = make(chan *history)
		go th.run(pg)
	}
	go pg.coordinate()
	return pg
}

// add puts a committed write of key into its rollback segment's history
// and wakes the coordinator.
func (pg *purger) add(t *Table, p *partition, key []byte, trx uint64, sys *[page.TrxRollLen]byte) {
	r := &pg.rsegs[trx%rollbackSegments]
	r.mu.Lock()
	h := &r.list
	e := purgeEntry{t: t, ix: p.indexes[0], sys: *sys}
	e.key[0] = len(h.arena)
	h.arena = append(h.arena, key...)
	e.key[1] = len(h.arena)
	h.ents = append(h.ents, e)
	r.waiting.Add(1)
	r.added.Add(1)
	r.mu.Unlock()
	select {
	case pg.wake <- struct{}{}:
	default:
	}
}

// coordinate is the purge coordinator [purge_coordinator_state::do_purge]:
// while there is history it runs batches, each taking all of it.
func (pg *purger) coordinate() {
	defer close(pg.stopped)
	for {
		select {
		case <-pg.wake:
		case <-pg.stop:
			// A slow shutdown: what is left is purged, so that a
			// reopened store has no write waiting that it cannot know of.
			for pg.runBatch() {
			}
			for i := range pg.threads {
				close(pg.threads[i].work)
			}
			return
		}
		for pg.runBatch() {
		}
	}
}

// runBatch takes the history and purges it; it reports whether there was
// any.
func (pg *purger) runBatch() bool {
	n := 0
	for i := range pg.rsegs {
		r := &pg.rsegs[i]
		if r.waiting.Load() == 0 {
			continue
		}
		r.mu.Lock()
		r.list, pg.taken = pg.taken, r.list
		r.waiting.Store(0)
		r.mu.Unlock()
		for _, e := range pg.taken.ents {
			th, ok := pg.thread[e.ix]
			if !ok {
				th = len(pg.thread) % len(pg.batch)
				pg.thread[e.ix] = th
			}
			b := &pg.batch[th]
			key := pg.taken.arena[e.key[0]:e.key[1]]
			e.key[0] = len(b.arena)
			b.arena = append(b.arena, key...)
			e.key[1] = len(b.arena)
			b.ents = append(b.ents, e)
		}
		n += len(pg.taken.ents)
		pg.taken.reset()
	}
	if n == 0 {
		return false
	}
	pg.running.Lock()
	for i := range pg.threads {
		if len(pg.batch[i].ents) > 0 {
			pg.wg.Add(1)
			pg.threads[i].work <- &pg.batch[i]
		}
	}
	pg.wg.Wait()
	pg.running.Unlock()
	for i := range pg.batch {
		pg.batch[i].reset()
	}
	clear(pg.thread)
	pg.batches.Add(1)
	return true
}

// run purges the share of each batch it is given [row_purge_step]: a
// record of a dropped table is skipped [purge_node_t::is_skipped].
func (th *purgeThread) run(pg *purger) {
	ctx := context.Background()
	for h := range th.work {
		for i := range h.ents {
			e := &h.ents[i]
			if !e.t.dropped.Load() {
				reset, err := e.ix.ResetSys(ctx, h.arena[e.key[0]:e.key[1]], e.sys[:])
				if err != nil {
					pg.fail(fmt.Errorf("zipsim: purge of %s: %w", e.t.name, err))
				}
				if reset {
					th.resets.Add(1)
				}
			}
			th.purged.Add(1)
		}
		pg.wg.Done()
	}
}

func (pg *purger) fail(err error) {
	pg.errMu.Lock()
	if pg.err == nil {
		pg.err = err
	}
	pg.errMu.Unlock()
}

// close purges what is left, stops the threads and returns the first
// error purge met.
func (pg *purger) close() error {
	close(pg.stop)
	<-pg.stopped
	pg.errMu.Lock()
	defer pg.errMu.Unlock()
	return pg.err
}

// PurgeStats is a snapshot of purge's counters (INNODB_METRICS' purge
// module and SHOW ENGINE INNODB STATUS's history list length). Sub gives
// the change between two snapshots but for HistoryLength, which stays the
// later one's.
type PurgeStats struct {
	Threads int // innodb_purge_threads; 0 when Options.Purge is off
	// HistoryLength counts committed writes purge has not handled yet
	// (trx_sys.history_size(), which counts transactions: a zipsim write
	// is one).
	HistoryLength int64
	Writes        uint64 // writes added to the history
	Batches       uint64 // batches run [trx_purge calls that found work]
	Purged        uint64 // writes purge handled
	Resets        uint64 // records whose DB_TRX_ID and DB_ROLL_PTR it reset
}

// Sub returns the counter changes since prev.
func (s PurgeStats) Sub(prev PurgeStats) PurgeStats {
	d := s
	d.Writes -= prev.Writes
	d.Batches -= prev.Batches
	d.Purged -= prev.Purged
	d.Resets -= prev.Resets
	return d
}

// String prints the snapshot as a PURGE table.
func (s PurgeStats) String() string {
	var b strings.Builder
	u := func(v uint64) string { return strconv.FormatUint(v, 10) }
	table.Write(&b, "PURGE", []string{"THREADS", "HISTORY_LENGTH", "WRITES", "BATCHES", "PURGED", "RESETS"},
		[][]string{{strconv.Itoa(s.Threads), strconv.FormatInt(s.HistoryLength, 10), u(s.Writes), u(s.Batches), u(s.Purged), u(s.Resets)}})
	return b.String()
}

func (pg *purger) stats() PurgeStats {
	s := PurgeStats{Threads: len(pg.threads), Batches: pg.batches.Load()}
	for i := range pg.threads {
		s.Purged += pg.threads[i].purged.Load()
		s.Resets += pg.threads[i].resets.Load()
	}
	for i := range pg.rsegs {
		s.Writes += pg.rsegs[i].added.Load()
	}
	s.HistoryLength = int64(s.Writes - s.Purged)
	return s
}
