package zipsim

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/zipsim/zipsim/btree"
	"github.com/zipsim/zipsim/bufpool"
	"github.com/zipsim/zipsim/internal/latch"
	"github.com/zipsim/zipsim/storage"
)

// Errors. ErrDuplicate, ErrNotFound and ErrTooBig are the btree package's,
// so errors.Is works with either name.
var (
	// ErrDuplicate is returned by Insert for a primary key already there.
	ErrDuplicate = btree.ErrDuplicate
	// ErrNotFound is returned by Update and Delete for a missing row.
	ErrNotFound = btree.ErrNotFound
	// ErrTooBig is DB_TOO_BIG_RECORD: a row that does not fit a page
	// (off-page columns come later), or keys too long for KEY_BLOCK_SIZE.
	ErrTooBig = btree.ErrTooBig
	// ErrClosed is returned after Store.Close.
	ErrClosed = errors.New("zipsim: store is closed")
	// ErrDropped is returned by a Table's methods after DropTable.
	ErrDropped = errors.New("zipsim: table was dropped")
)

// Store is a set of tables sharing one buffer pool, InnoDB's server with
// innodb_file_per_table: each table, or each partition of one, is a
// tablespace file in the store's directory, and a catalog file holds the
// definitions. Its methods are safe for concurrent use; Close must not
// run alongside any other call.
type Store struct {
	path   string // the directory; "" for an in-memory store
	opts   Options
	pool   *bufpool.Pool
	closed atomic.Bool
	// mu is dict_sys->mutex: it guards the table map and the id counters.
	mu          latch.Mutex
	tables      map[string]*Table // by lower-case name
	nextSpace   uint32
	nextIndexID uint64
	ahi         *btree.AdaptiveHash // nil unless Options.AdaptiveHashIndex
	cb          *btree.ChangeBuffer // nil unless Options.ChangeBuffering
	trxID       atomic.Uint64       // the last transaction id handed out
	purge       *purger             // nil unless Options.Purge
	gate        *gate               // nil unless Options.ThreadConcurrency
}

// Open opens the store in directory path, creating the directory if it is
// missing, and opens every table the catalog lists. An empty path makes
// an in-memory store, whose tablespaces are storage.Memory devices that
// vanish with it.
//
// Reopening reads and verifies every page of every index, then empties
// the pool, so that the store starts cold, as InnoDB does after a restart.
//
// Open refuses a store whose tablespaces were not closed cleanly
// (storage.ErrNotClean): without a redo log zipsim cannot recover what a
// crash left, so everything since the last Close is lost and the files
// must be removed.
func Open(path string, opts Options) (*Store, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	var cat *catalog
	if path != "" {
		if err := os.MkdirAll(path, 0o755); err != nil {
			return nil, fmt.Errorf("zipsim: %w", err)
		}
		var err error
		if cat, err = readCatalog(path); err != nil {
			return nil, err
		}
	}
	po := opts.Pool
	if cat != nil {
		if po.PageSize != 0 && po.PageSize != cat.PageSize {
			return nil, fmt.Errorf("zipsim: the store in %s has %d-byte pages: set Options.Pool.PageSize to %d or 0, not %d",
				path, cat.PageSize, cat.PageSize, po.PageSize)
		}
		po.PageSize = cat.PageSize
	}
	pool, err := bufpool.New(po)
	if err != nil {
		return nil, fmt.Errorf("zipsim: Options.Pool: %w", err)
	}
	s := &Store{path: path, opts: opts, pool: pool, tables: map[string]*Table{}, nextSpace: 1, nextIndexID: 1}
	if opts.AdaptiveHashIndex {
		s.ahi, err = btree.NewAdaptiveHash(btree.AdaptiveHashOptions{Parts: opts.AdaptiveHashParts, Pool: pool})
		if err != nil {
			return nil, errors.Join(fmt.Errorf("zipsim: %w", err), pool.Close())
		}
	}
	if opts.ChangeBuffering {
		s.cb, err = btree.NewChangeBuffer(btree.ChangeBufferOptions{Pool: pool, MaxPct: opts.ChangeBufferMaxPct})
		if err != nil {
			return nil, errors.Join(fmt.Errorf("zipsim: %w", err), pool.Close())
		}
	}
	s.mu.Init(pool.Latches(), "dict_sys_mutex")
	if opts.ThreadConcurrency > 0 {
		s.gate = newGate(pool.Latches(), opts)
	}
	if cat == nil {
		s.startPurge()
		return s, nil
	}
	s.nextSpace, s.nextIndexID = cat.NextSpace, cat.NextIndexID
	for _, ct := range cat.Tables {
		if err := s.openTable(context.Background(), ct); err != nil {
			return nil, errors.Join(err, s.pool.Close())
		}
	}
	// Opening walked every index, reading and verifying every page (a
	// compressed leaf's block, not its stream, unless SXIndexLock) and
	// evicting each after its visit; a restarted InnoDB starts with an
	// empty pool, so this one does too.
	s.pool.EvictAll()
	s.startPurge()
	return s, nil
}

// startPurge starts the purge threads when Options.Purge asks for them.
func (s *Store) startPurge() {
	if s.opts.Purge {
		s.purge = newPurger(s, cmp.Or(s.opts.PurgeThreads, 4))
	}
}

// openTable opens a table the catalog lists: its tablespaces, checked
// against the catalog, and its indexes.
func (s *Store) openTable(ctx context.Context, ct catalogTable) error {
	o, sch, err := prepare(ct.Options, s.pool.Options().PageSize)
	if err != nil {
		return fmt.Errorf("zipsim: table %s: %w", ct.Name, err)
	}
	t, err := newTable(s, ct.Name, o, sch)
	if err != nil {
		return fmt.Errorf("zipsim: table %s: %w", ct.Name, err)
	}
	for i, cp := range ct.Partitions {
		p := &partition{name: spaceName(t.name, i, sch.nParts), space: cp.Space}
		file := filepath.Join(s.path, p.name+".ibd")
		if _, err := os.Stat(file); err != nil {
			return fmt.Errorf("zipsim: the catalog lists table %s, but its tablespace: %w", t.name, err)
		}
		f, err := storage.OpenFile(file, storage.FileOptions{NoSync: s.opts.NoSync})
		if err != nil {
			return fmt.Errorf("zipsim: table %s: %w", t.name, err)
		}
		dev := s.wrap(f)
		if p.ts, err = storage.Open(dev); err != nil {
			return errors.Join(fmt.Errorf("zipsim: table %s: %s: %w", t.name, file, err), dev.Close())
		}
		want := storage.Options{PageSize: s.pool.Options().PageSize, ZipSize: sch.zipSize, SpaceID: cp.Space, Compression: o.Compression}
		if got := p.ts.Options(); got.PageSize != want.PageSize || got.ZipSize != want.ZipSize || got.SpaceID != want.SpaceID || got.Compression != want.Compression {
			err := fmt.Errorf("zipsim: table %s: %s holds space %d of %d-byte pages, zip size %d, compression %q; the catalog says space %d, %d, %d, %q",
				t.name, file, got.SpaceID, got.PageSize, got.ZipSize, got.Compression, want.SpaceID, want.PageSize, want.ZipSize, want.Compression)
			return errors.Join(err, p.ts.Close())
		}
		if err := s.pool.AddSpace(p.space, p.ts, t.codec); err != nil {
			return errors.Join(fmt.Errorf("zipsim: table %s: %w", t.name, err), p.ts.Close())
		}
		p.alloc = newAllocator(s.pool.Latches(), p.name, cp.Next, slices.Clone(cp.Free))
		t.parts = append(t.parts, p)
		for j, ci := range cp.Indexes {
			ix, err := btree.Open(ctx, t.indexOptions(t.sch, p, j, ci.ID), ci.Root)
			if err != nil {
				return fmt.Errorf("zipsim: table %s: index %s: %w", p.name, ci.Name, err)
			}
			p.indexes = append(p.indexes, ix)
		}
	}
	t.initLocks()
	s.tables[strings.ToLower(t.name)] = t
	return nil
}

// wrap puts the latency model, if any, in front of a device.
func (s *Store) wrap(d storage.Device) storage.Device {
	if s.opts.Latency != nil {
		return storage.WithLatency(d, *s.opts.Latency)
	}
	return d
}

// CreateTable creates a table [CREATE TABLE: dict_create_table_step,
// fil_ibd_create, btr_create]: one tablespace per partition, registered
// with the pool with its zip size and codec, holding an empty clustered
// index and the secondary indexes. Index ids are unique in the store. The
// definition reaches the catalog file at Close.
//
// A failure after a tablespace has joined the pool (KEY_BLOCK_SIZE too
// small for the keys, an I/O error) removes the table's files but leaves
// the spaces registered in the pool until Close, which has no way to drop
// a space yet; their ids are not reused.
func (s *Store) CreateTable(ctx context.Context, name string, opts TableOptions) (*Table, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed.Load() {
		return nil, ErrClosed
	}
	if !validName(name) {
		return nil, fmt.Errorf("zipsim: table name %q: use %s", name, nameRule)
	}
	key := strings.ToLower(name)
	if _, ok := s.tables[key]; ok {
		return nil, fmt.Errorf("zipsim: table %s exists (names ignore case)", name)
	}
	o, sch, err := prepare(opts, s.pool.Options().PageSize)
	if err != nil {
		return nil, fmt.Errorf("zipsim: table %s: %w", name, err)
	}
	t, err := newTable(s, name, o, sch)
	if err != nil {
		return nil, fmt.Errorf("zipsim: table %s: %w", name, err)
	}
	var files []string
	for i := range sch.nParts {
		p, file, err := s.createPart(ctx, t, i)
		if file != "" {
			files = append(files, file)
		}
		if err != nil {
			for _, done := range t.parts {
				err = errors.Join(err, s.dropPart(ctx, done))
			}
			for _, f := range files {
				err = errors.Join(err, os.Remove(f))
			}
			return nil, fmt.Errorf("zipsim: table %s: %w", name, err)
		}
		t.parts = append(t.parts, p)
	}
	t.initLocks()
	s.tables[key] = t
	return t, nil
}

// createPart creates partition i's tablespace and indexes. It returns the
// file it created, if any, even when it fails.
func (s *Store) createPart(ctx context.Context, t *Table, i int) (*partition, string, error) {
	p := &partition{name: spaceName(t.name, i, t.sch.nParts), space: s.nextSpace}
	s.nextSpace++
	var dev storage.Device
	var file string
	if s.path == "" {
		m, err := storage.NewMemory(storage.MemoryOptions{})
		if err != nil {
			return nil, "", err
		}
		dev = m
	} else {
		file = filepath.Join(s.path, p.name+".ibd")
		if _, err := os.Lstat(file); !errors.Is(err, fs.ErrNotExist) {
			return nil, "", fmt.Errorf("%s exists but the catalog has no table for it: remove it or pick another name", file)
		}
		f, err := storage.OpenFile(file, storage.FileOptions{NoSync: s.opts.NoSync})
		if err != nil {
			return nil, "", err
		}
		dev = f
	}
	dev = s.wrap(dev)
	ts, err := storage.Create(dev, storage.Options{
		PageSize: s.pool.Options().PageSize, ZipSize: t.sch.zipSize, SpaceID: p.space, Compression: t.opts.Compression,
	})
	if err != nil {
		return nil, file, errors.Join(err, dev.Close())
	}
	if err := s.pool.AddSpace(p.space, ts, t.codec); err != nil {
		return nil, file, errors.Join(err, ts.Close())
	}
	p.ts = ts
	p.alloc = newAllocator(s.pool.Latches(), p.name, 1, nil)
	for j := range t.sch.indexes {
		ix, err := btree.Create(ctx, t.indexOptions(t.sch, p, j, s.nextIndexID))
		s.nextIndexID++
		if err != nil {
			return nil, file, errors.Join(fmt.Errorf("index %s: %w", t.sch.indexes[j].name, err), s.dropPart(ctx, p))
		}
		p.indexes = append(p.indexes, ix)
	}
	return p, file, nil
}

// dropPart takes a partition that will not be kept out of the pool
// (its pages leave unwritten) and closes its tablespace.
func (s *Store) dropPart(ctx context.Context, p *partition) error {
	if s.cb != nil {
		s.cb.Discard(p.space)
	}
	return errors.Join(s.pool.DropSpace(context.WithoutCancel(ctx), p.space), p.ts.Close())
}

// Table returns the table called name (in any case), or nil.
func (s *Store) Table(name string) *Table {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tables[strings.ToLower(name)]
}

// Tables returns the store's tables sorted by name.
func (s *Store) Tables() []*Table {
	s.mu.Lock()
	defer s.mu.Unlock()
	ts := make([]*Table, 0, len(s.tables))
	for _, t := range s.tables {
		ts = append(ts, t)
	}
	slices.SortFunc(ts, func(a, b *Table) int { return strings.Compare(a.name, b.name) })
	return ts
}

// Check checks the buffer pool and every table (see Table.Check) and
// returns every violation found. It is exact only while nothing else runs.
func (s *Store) Check(ctx context.Context) []error {
	errs := s.pool.Check()
	for _, t := range s.Tables() {
		errs = append(errs, t.Check(ctx)...)
	}
	return errs
}

// Flush writes every dirty page to its tablespace [buf_flush_lists], so
// that the space figures of Metrics (Usage: file size, allocated bytes,
// punched holes) show the data as it stands. Writes may run alongside;
// pages they change may stay dirty. Nothing is synced or recorded in the
// catalog: only Close makes the store reopenable.
func (s *Store) Flush() error {
	if s.closed.Load() {
		return ErrClosed
	}
	if err := s.pool.Flush(); err != nil {
		return fmt.Errorf("zipsim: flush: %w", err)
	}
	return nil
}

// Close writes the catalog (tables, columns, index ids and roots, page
// allocation state), then flushes every dirty page and closes the
// tablespaces cleanly [logs_empty_and_mark_files_at_shutdown]. No other
// call may be in flight. The catalog goes first: if the process dies
// before the tablespaces are marked clean, Open refuses them rather than
// trust a catalog older than their pages. If the catalog cannot be
// written, the tablespace files are closed without being marked clean for
// the same reason.
func (s *Store) Close() error {
	if !s.closed.CompareAndSwap(false, true) {
		return ErrClosed
	}
	// A purge error leaves records with their writers' DB_TRX_ID, which
	// nothing reads: the store still closes cleanly, and Close reports it.
	var purgeErr error
	if s.purge != nil {
		purgeErr = s.purge.close()
	}
	return errors.Join(purgeErr, s.close())
}

// close is Close once purge has stopped.
func (s *Store) close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.path == "" {
		return s.pool.Close()
	}
	if s.cb != nil {
		// The buffer lives in memory: a slow shutdown's merge keeps its
		// changes.
		if err := s.cb.MergeAll(context.Background()); err != nil {
			return errors.Join(fmt.Errorf("zipsim: close: change buffer: %w", err), s.abandon())
		}
	}
	if err := writeCatalog(s.path, s.catalog(), !s.opts.NoSync); err != nil {
		return errors.Join(err, s.abandon())
	}
	return s.pool.Close()
}

// abandon leaves the pool without writing it and closes the tablespaces'
// devices, for a Close that cannot finish.
func (s *Store) abandon() error {
	err := s.pool.Abandon()
	for _, t := range s.tables {
		for _, p := range t.parts {
			err = errors.Join(err, p.ts.Device().Close())
		}
	}
	return err
}

// catalog describes the store for the catalog file; s.mu is held.
func (s *Store) catalog() *catalog {
	c := &catalog{PageSize: s.pool.Options().PageSize, NextSpace: s.nextSpace, NextIndexID: s.nextIndexID}
	for _, t := range s.tables {
		ct := catalogTable{Name: t.name, Options: t.Options()}
		for _, p := range t.parts {
			cp := catalogPart{Space: p.space}
			cp.Next, cp.Free = p.alloc.state()
			for j, ix := range p.indexes {
				cp.Indexes = append(cp.Indexes, catalogIndex{Name: t.sch.indexes[j].name, ID: ix.Options().ID, Root: ix.Root()})
			}
			ct.Partitions = append(ct.Partitions, cp)
		}
		c.Tables = append(c.Tables, ct)
	}
	slices.SortFunc(c.Tables, func(a, b catalogTable) int { return strings.Compare(a.Name, b.Name) })
	return c
}
