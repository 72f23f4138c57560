package btree

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/cespare/xxhash/v2"

	"github.com/zipsim/zipsim/bufpool"
	"github.com/zipsim/zipsim/internal/latch"
	"github.com/zipsim/zipsim/internal/stripe"
	"github.com/zipsim/zipsim/page"
)

// Index is a B+tree on buffer pool pages [dict_index_t with its tree,
// btr/btr0btr.cc]. Leaves hold the rows, node pages hold (key, child page)
// pairs; slot 0 of every node page stands for minus infinity, so a node
// pointer's key is a lower bound of its child only from slot 1 on. The
// root page never moves. Pages of a level are linked both ways.
//
// Reads and optimistic writes descend with the index lock shared,
// latching pages top-down, each child before its parent is released, and
// point reads and optimistic writes let the lock go once their leaf is
// latched; a write that must change the tree's structure starts again
// with the lock exclusive (BTR_MODIFY_TREE), which keeps every other
// descent out of the tree, or with Options.SXIndexLock takes it SX and
// latches the pages it may change in advance (treelatch.go).
type Index struct {
	o        Options
	pool     *bufpool.Pool
	env      page.Env
	pageSize int
	zip      int
	kind     page.Kind // leaf kind
	root     uint32
	// lock is dict_index_t::lock, the index tree latch.
	lock latch.RWMutex
	// sx is the lock's SX mode in SX mode (treelatch.go), counted under
	// the lock's name; held are the pages a structure change latched,
	// kept until it ends; inTree and freed, under sx, defer giveBack to
	// endTree. keyMax is the longest key written or found on Open (every
	// key in SX mode), which with Options.MaxKeyLen sizes node pointers in
	// SX mode (maxKeyLen).
	sx     latch.Mutex
	held   []heldPage
	inTree bool
	freed  []uint32
	keyMax atomic.Int32
	// afterTreePass, nil but in tests, runs after each of latchTree's
	// passes, with the pages held, so that a test can lengthen the
	// longest key between a pass and its recheck.
	afterTreePass func()
	// height changes only under lock held exclusively (SX in SX mode).
	height atomic.Int32
	// perLevel counts pages per level, changed only under lock held
	// exclusively (SX in SX mode); atomics let Stats read it without the
	// lock.
	perLevel [maxLevels]atomic.Int64
	pad      padding
	ctr      *stripe.Counters
	scratch  sync.Pool // page-size buffers for reorganizations
	// A pessimistic operation's path from the root, a merge's separator
	// keys, and each level's split separator and path for a split's later
	// passes or a root raise, reused under lock held exclusively (or SX)
	// so that splits and merges allocate nothing in steady state. A split
	// passes its separator up as the parent level's record, and a split at
	// one level runs inside one at the level below, so each level keeps
	// its own.
	xPath       []uint32
	xSeps       [2][]byte
	xSplitSeps  [maxLevels][]byte
	xSplitPaths [maxLevels][]uint32
	// The adaptive hash index's part, seed and btr_search_info's
	// n_hash_potential, which counts found keys up to the build limit.
	hashPart      *hashPart
	hashSeed      uint64
	hashPotential atomic.Int32
	// bulkLoading keeps guesses off the index while BulkLoad builds it.
	bulkLoading atomic.Bool
	// ErrDuplicate and ErrNotFound with the index's name, built once.
	errDuplicate, errNotFound error
}

// Create allocates the root page of a new, empty index and returns it
// [btr_create].
func Create(ctx context.Context, o Options) (*Index, error) {
	ix, err := newIndex(o)
	if err != nil {
		return nil, err
	}
	if ix.o.MaxKeyLen > 0 {
		if err := CheckKeyLen(ix.pageSize, ix.zip, ix.o.Fields, ix.o.MaxKeyLen); err != nil {
			return nil, err
		}
	}
	root, err := ix.o.Alloc.AllocPage()
	if err != nil {
		return nil, err
	}
	g, err := ix.newPage(ctx, root, 0, page.FilNull, page.FilNull)
	if err != nil {
		ix.giveBack(root)
		return nil, err
	}
	g.Release()
	ix.root = root
	ix.height.Store(1)
	ix.setLevels([]int{1})
	return ix, nil
}

// Open returns the index whose root is page root. It walks the tree once
// to count its pages, rows and leaf bytes, and in SX mode to learn its
// longest key.
func Open(ctx context.Context, o Options, root uint32) (*Index, error) {
	ix, err := newIndex(o)
	if err != nil {
		return nil, err
	}
	ix.root = root
	g, err := ix.fix(ctx, root, bufpool.Shared)
	if err != nil {
		return nil, err
	}
	p := page.IndexPage(g.Frame())
	if errs := p.Check(nil); len(errs) > 0 {
		g.Release()
		return nil, fmt.Errorf("btree: root page %d of index %q: %w", root, o.Name, errs[0])
	}
	if p.IndexID() != o.ID {
		g.Release()
		return nil, fmt.Errorf("btree: root page %d belongs to index %d, not %d", root, p.IndexID(), o.ID)
	}
	ix.height.Store(int32(p.Level() + 1))
	g.Release()
	if ix.height.Load() > maxLevels {
		return nil, fmt.Errorf("btree: root page %d of index %q is at level %d; at most %d levels", root, o.Name, ix.height.Load()-1, maxLevels)
	}
	// Leaf keys matter only to the SX mode's node pointers (maxKeyLen),
	// and a leaf's free space only to the change buffer, which learns it
	// as each leaf is fixed (waiting). Without either a compressed leaf is
	// counted from its zip block alone, whose page header is kept
	// uncompressed and current [page_zip_write_header], so opening
	// inflates no leaf.
	leafHeaders := ix.zip != 0 && !ix.o.SXIndexLock && ix.o.ChangeBuffer == nil
	var rows, data int64
	err = ix.walk(ctx, leafHeaders, func(level int, p page.IndexPage) error {
		ix.perLevel[level].Add(1)
		if level == 0 {
			rows += int64(p.NRecs())
			data += int64(p.DataSize())
			if leafHeaders {
				return nil
			}
		}
		// Node pages keep separators of keys since deleted.
		for i := range p.NRecs() {
			ix.noteKey(len(p.Key(i)))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	ix.ctr.Add(cRows, uint64(rows))
	ix.ctr.Add(cLeafData, uint64(data))
	return ix, nil
}

func newIndex(o Options) (*Index, error) {
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	ix := &Index{o: o, pool: o.Pool, zip: o.ZipSize, ctr: stripe.New(nCounters)}
	ix.pageSize = o.Pool.Options().PageSize
	ix.env = page.Env{Codec: o.Codec, Stats: o.Pool.CMP()}
	ix.kind = page.SecondaryLeaf
	if o.Clustered {
		ix.kind = page.ClusteredLeaf
	}
	ix.lock.Init(o.Pool.Latches(), "index_lock#"+o.Name)
	if o.SXIndexLock {
		ix.sx.Init(o.Pool.Latches(), "index_lock#"+o.Name)
	}
	ix.pad.init(o.Pool.Latches(), o.Name, o.Padding, ix.pageSize)
	if h := o.AdaptiveHash; h != nil {
		ix.hashPart = h.part(o.Space, o.ID)
		ix.hashSeed = xxhash.Sum64String(fmt.Sprintf("%d/%d", o.Space, o.ID))
	}
	ix.errDuplicate = fmt.Errorf("%w in index %q", ErrDuplicate, o.Name)
	ix.errNotFound = fmt.Errorf("%w in index %q", ErrNotFound, o.Name)
	ps := ix.pageSize
	ix.scratch.New = func() any { b := make([]byte, ps); return &b }
	return ix, nil
}

// maxLevels bounds the height of a tree: 2^31 leaves with two node
// pointers per page, more than a tablespace can hold.
const maxLevels = 32

// setLevels sets the page counts of every level.
func (ix *Index) setLevels(counts []int) {
	for l := range ix.perLevel {
		n := 0
		if l < len(counts) {
			n = counts[l]
		}
		ix.perLevel[l].Store(int64(n))
	}
}

// levels returns the page counts of the tree's levels, leaves first.
func (ix *Index) levels() []int {
	h := int(ix.height.Load())
	counts := make([]int, h)
	for l := range counts {
		counts[l] = int(ix.perLevel[l].Load())
	}
	return counts
}

// Root returns the root page number, which never changes.
func (ix *Index) Root() uint32 { return ix.root }

// Options returns the index's options with defaults filled in.
func (ix *Index) Options() Options { return ix.o }

func (ix *Index) id(pageNo uint32) bufpool.PageID {
	return bufpool.PageID{Space: ix.o.Space, PageNo: pageNo}
}

func (ix *Index) fix(ctx context.Context, pageNo uint32, mode bufpool.Mode) (bufpool.Guard, error) {
	if ix.o.ChangeBuffer != nil {
		return ix.fixMerging(ctx, pageNo, mode)
	}
	return ix.pool.Fix(ctx, ix.id(pageNo), mode)
}

// newPage formats page pageNo as an empty page of the index at level,
// compressed on a compressed index [btr_page_create; page_create_zip is
// one compression]. A page number given back by a merge may still be in
// the pool, so it is fixed instead of created.
func (ix *Index) newPage(ctx context.Context, pageNo uint32, level int, prev, next uint32) (bufpool.Guard, error) {
	g, err := ix.pool.Create(ctx, ix.id(pageNo))
	if errors.Is(err, bufpool.ErrExists) {
		g, err = ix.fix(ctx, pageNo, bufpool.Exclusive)
	}
	if err != nil {
		return bufpool.Guard{}, err
	}
	g.HashInfo().Store(0) // guesses wait for a descent to reach it
	p, err := page.CreateIndex(g.Frame(), page.IndexOptions{
		PageNo: pageNo, SpaceID: ix.o.Space, IndexID: ix.o.ID, Level: level,
		Clustered: ix.o.Clustered, Prev: nonNull(prev), Next: nonNull(next),
	})
	if err == nil && ix.zip != 0 {
		err = ix.compress(p, g.Zip())
	}
	if err == nil {
		err = ix.markDirty(&g)
	}
	if err != nil {
		g.Release()
		return bufpool.Guard{}, fmt.Errorf("btree: format page %d: %w", pageNo, err)
	}
	return g, nil
}

// nonNull maps FilNull to the 0 that IndexOptions takes for "none".
func nonNull(n uint32) uint32 {
	if n == page.FilNull {
		return 0
	}
	return n
}

// nodeSlot returns the slot of the child to descend into for key.
func nodeSlot(p page.IndexPage, key []byte) int {
	s, found := p.Search(key, bytes.Compare)
	if !found && s > 0 {
		s--
	}
	return s
}

// descend latches the leaf whose key range holds key, in mode, coupling
// shared latches on node pages top-down [btr_cur_search_to_nth_level].
// The caller holds the index lock.
func (ix *Index) descend(ctx context.Context, key []byte, mode bufpool.Mode) (bufpool.Guard, error) {
	g, _, err := ix.descendOrBuffer(ctx, key, mode, cbNone, nil)
	return g, err
}

// leaf is descendOrBuffer under the shared index lock, which it lets go
// once the leaf is latched, as btr_cur_search_to_nth_level does for
// BTR_SEARCH_LEAF and BTR_MODIFY_LEAF: a leaf's read, write or
// recompression then holds off no structure change elsewhere. Point reads
// and optimistic writes find their leaf with it.
func (ix *Index) leaf(ctx context.Context, key []byte, mode bufpool.Mode, op cbOp, val []byte) (bufpool.Guard, bool, error) {
	ix.lock.RLock()
	defer ix.lock.RUnlock()
	return ix.descendOrBuffer(ctx, key, mode, op, val)
}

// descendOrBuffer is descend that first offers op on key (and val) to the
// change buffer once the leaf's page number is known, its parent latched
// [btr_cur_search_to_nth_level with BTR_INSERT or BTR_DELETE_MARK: the
// leaf fetched with BUF_GET_IF_IN_POOL, and ibuf_insert when it is not].
// It reports whether the buffer took the change; then no page is latched.
func (ix *Index) descendOrBuffer(ctx context.Context, key []byte, mode bufpool.Mode, op cbOp, val []byte) (bufpool.Guard, bool, error) {
	g, level, err := ix.fixRoot(ctx, mode)
	if err != nil {
		return g, false, err
	}
	m := bufpool.Shared
	for level > 0 {
		p := page.IndexPage(g.Frame())
		child := p.Child(nodeSlot(p, key))
		level--
		if level == 0 {
			m = mode
			if op != cbNone && ix.o.ChangeBuffer.buffer(ix, child, op, key, val) {
				g.Release()
				return bufpool.Guard{}, true, nil
			}
		}
		cg, err := ix.fix(ctx, child, m)
		g.Release()
		if err != nil {
			return cg, false, err
		}
		g = cg
	}
	return g, false, nil
}

// fixRoot latches the root, in mode when it is a leaf, and returns its
// level. In SX mode a structure change may raise or lift the root while
// a search holds only the shared index lock: the level the root page
// states, once latched, is the one to descend from, as
// btr_cur_search_to_nth_level reads it from the page.
func (ix *Index) fixRoot(ctx context.Context, mode bufpool.Mode) (bufpool.Guard, int, error) {
	for {
		level := int(ix.height.Load()) - 1
		m := bufpool.Shared
		if level == 0 {
			m = mode
		}
		g, err := ix.fix(ctx, ix.root, m)
		if err != nil {
			return g, 0, err
		}
		if page.IndexPage(g.Frame()).Level() == level {
			return g, level, nil
		}
		g.Release()
	}
}

// Get appends the value stored under key to dst [row_search_mvcc on the
// clustered index, without versions].
func (ix *Index) Get(ctx context.Context, key, dst []byte) ([]byte, bool, error) {
	found := false
	_, err := ix.point(ctx, key, func(p page.IndexPage, s int) error {
		dst, found = append(dst, p.Value(s)...), true
		return nil
	})
	return dst, found, err
}

// point calls fn with the leaf holding key, latched shared, and key's
// slot in it, found through the adaptive hash index or by a descent with
// the index lock shared, which it lets go once the leaf is latched. It
// reports whether key was found.
func (ix *Index) point(ctx context.Context, key []byte, fn func(p page.IndexPage, slot int) error) (bool, error) {
	if ix.o.AdaptiveHash != nil {
		if g, s, ok := ix.guess(key); ok {
			defer g.Release()
			return true, fn(page.IndexPage(g.Frame()), s)
		}
	}
	g, _, err := ix.leaf(ctx, key, bufpool.Shared, cbNone, nil)
	if err != nil {
		return false, err
	}
	defer g.Release()
	p := page.IndexPage(g.Frame())
	s, found := p.Search(key, bytes.Compare)
	if ix.o.AdaptiveHash != nil {
		ix.o.AdaptiveHash.ctr.Add(hSearchesBTree, 1)
		reached(&g)
		if found {
			ix.found(&g, s, key)
		}
	}
	if !found {
		return false, nil
	}
	return true, fn(p, s)
}

// View calls fn with the value stored under key while its leaf is latched
// shared, so that what the value refers to (off-page columns) cannot be
// freed under fn by a writer, which must latch the leaf to change the
// value [row_sel_store_mysql_field reads external fields under the page
// latch]. The index lock is released once the leaf is latched: fn may
// take its time (BLOB reads) without holding off structure changes
// elsewhere in the tree. fn must not use this index: a structure change
// waiting for the leaf would keep fn's descent waiting (at the index lock,
// or at a page it latched in SX mode) while fn keeps the leaf. It reports
// whether key was found.
func (ix *Index) View(ctx context.Context, key []byte, fn func(value []byte) error) (bool, error) {
	return ix.point(ctx, key, func(p page.IndexPage, s int) error { return fn(p.Value(s)) })
}

// walk calls fn on every page, level by level from the root down, each
// level left to right, with the index lock shared, and evicts each page
// after its visit (Pool.Evict): Open's walk reads every page once, and
// under Legacy locking each compressed read walks past the pages the pool
// holds. With leafHeaders a compressed index's leaves are fixed without a
// frame (Pool.FixZip), and fn gets the zip block, of which only the FIL
// and page headers may be read.
func (ix *Index) walk(ctx context.Context, leafHeaders bool, fn func(level int, p page.IndexPage) error) error {
	ix.lockStructure()
	defer ix.unlockStructure()
	first := ix.root
	for level := int(ix.height.Load()) - 1; level >= 0; level-- {
		next := first
		first = page.FilNull
		for next != page.FilNull {
			no := next
			var g bufpool.Guard // one of the two is taken; the other's Release does nothing
			var zg bufpool.ZipGuard
			var err error
			if level == 0 && leafHeaders {
				zg, err = ix.pool.FixZip(ctx, ix.id(no))
			} else {
				g, err = ix.fix(ctx, no, bufpool.Shared)
			}
			if err != nil {
				return err
			}
			p := page.IndexPage(zg.Block())
			if p == nil {
				p = page.IndexPage(g.Frame())
			}
			if first == page.FilNull && level > 0 && p.NRecs() > 0 {
				first = p.Child(0)
			}
			err = fn(level, p)
			next = p.Fil().Next()
			g.Release()
			zg.Release()
			ix.pool.Evict(ix.id(no))
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// Stats returns a snapshot of the index's counters and shape. It takes no
// lock: while a structure change runs, the shape may be a moment old.
func (ix *Index) Stats() Stats {
	var c [nCounters]uint64
	ix.ctr.SumAll(c[:])
	levels := ix.levels()
	s := Stats{Name: ix.o.Name, ID: ix.o.ID, Height: len(levels), PagesPerLevel: levels}
	s.Inserts, s.InsertsOptimistic, s.InsertsPessimistic = c[cInserts], c[cInsertsOptimistic], c[cInsertsPessimistic]
	s.Updates, s.UpdatesInPlace, s.UpdatesPessimistic = c[cUpdates], c[cUpdatesInPlace], c[cUpdatesPessimistic]
	s.Deletes = c[cDeletes]
	s.LeafSplitsSpace, s.LeafSplitsZip = c[cLeafSplitsSpace], c[cLeafSplitsZip]
	s.NodeSplitsSpace, s.NodeSplitsZip = c[cNodeSplitsSpace], c[cNodeSplitsZip]
	s.SplitIterations, s.SplitCopies, s.RootRaises = c[cSplitIterations], c[cSplitCopies], c[cRootRaises]
	s.SiblingInserts = c[cSiblingInserts]
	s.Reorganizations, s.Recompressions, s.Restores = c[cReorganizations], c[cRecompressions], c[cRestores]
	s.PadRefusals = c[cPadRefusals]
	s.Merges, s.MergeFailures, s.Discards, s.Lifts = c[cMerges], c[cMergeFailures], c[cDiscards], c[cLifts]
	s.SysResets = c[cSysResets]
	s.TreeLatches = c[cTreeLatches]
	s.LatchMisses = c[cLatchMisses]
	s.Rows, s.LeafDataBytes = int64(c[cRows]), int64(c[cLeafData])
	s.PageSize = ix.pageSize
	s.Pad = ix.pad.current()
	return s
}
