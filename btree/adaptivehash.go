package btree

import (
	"bytes"
	"context"
	"fmt"
	"math/bits"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/cespare/xxhash/v2"

	"github.com/zipsim/zipsim/bufpool"
	"github.com/zipsim/zipsim/internal/latch"
	"github.com/zipsim/zipsim/internal/stripe"
	"github.com/zipsim/zipsim/internal/table"
	"github.com/zipsim/zipsim/page"
)

// AdaptiveHash is InnoDB's adaptive hash index [btr/btr0sea.cc,
// btr_search_sys]: a hash table from the keys of leaf records to where
// they lie, so that a point read it knows skips the descent from the root
// and the index lock [btr_search_guess_on_hash]. One table serves every
// index given it. Each index belongs to one of its parts, whose latch
// its reads take shared and its writes exclusively
// [btr_search_sys->parts[i].latch, innodb_adaptive_hash_index_parts]: as
// in InnoDB, more parts help only when more indexes are busy.
//
// An index hashes a whole leaf once its point reads would have been
// answered from the hash often enough: after BTR_SEARCH_BUILD_LIMIT
// (100) found keys on the index, a leaf is hashed when more than
// 1/BTR_SEARCH_PAGE_BUILD_LIMIT (1/16) of its records were read through
// it since it entered its frame [btr_search_info_update,
// btr_search_build_page_hash_index]. A read that descends to a hashed
// leaf rewrites its key's cell if the cell is stale or a cell of its
// bucket is empty [btr_search_update_hash_ref]; only page builds write
// over other keys' cells, so that a table too small for the pool's rows
// does not turn every read into a write.
//
// InnoDB chains its entries, which point at records, and deletes a
// page's entries whenever the page changes, leaves the pool or is freed.
// Here a cell is a guess (page number, directory slot and 16 bits of the
// key's hash) in a bucket of eight, and a page build whose key finds its
// bucket full writes over an older cell. A guess is taken only if the
// page is in the pool with a frame, a descent has reached it since it
// took that frame and the index has not given it back since (the
// frame's HashInfo word says both), it is a leaf of the index, and it
// holds the key itself in that slot. Records that moved and pages that
// left or were freed thus cost a failed guess and a descent instead of a
// scan of the page when it changes. Deleting the entries of pages that leave
// the pool (btr_search_drop_page_hash_index, a known cost of eviction and
// DROP TABLE in InnoDB) is not modelled, and neither is the pool memory
// InnoDB's chains take. The cells are shared by every part, so one busy
// index can fill the table, as its chains can in InnoDB; every cell is
// read and written atomically, so the part latch orders an index's
// readers and writers as InnoDB's does without guarding the memory.
// Readers try the latch and descend if a writer holds it, as
// btr_cur_search_to_nth_level skips the hash while its latch is held
// exclusively. Searches other than Get and View (cursors, writes) neither
// use the hash nor count toward it.
type AdaptiveHash struct {
	parts   []hashPart
	cells   []atomic.Uint64 // buckets of bucketCells
	mask    uint64          // buckets - 1
	ctr     *stripe.Counters
	scratch sync.Pool // *[]uint64 of key hash, cell pairs for page builds
}

// hashPart is one part's latch, padded to whole cache lines of its own.
type hashPart struct {
	mu latch.RWMutex
	_  [(64 - unsafe.Sizeof(latch.RWMutex{})%64) % 64]byte
}

// bucketCells is the number of cells a key may take: one 64-byte line,
// the cells of a large slice starting on a page boundary.
const bucketCells = 8

// AdaptiveHashOptions size an AdaptiveHash. The zero value works.
type AdaptiveHashOptions struct {
	// Cells is the number of 8-byte cells, rounded up to a power of two;
	// 0 means one per 256 bytes of Pool (twice the cells InnoDB's
	// btr_search_sys_create gives its chains, pool bytes / sizeof(void*)
	// / 64: a cell here holds one key), or 65,536 without a Pool. At most
	// 1<<28 (2 GiB).
	Cells int
	// Parts is innodb_adaptive_hash_index_parts, 1..512; 0 means 8.
	Parts int
	// Pool, when set, sizes the default table and registers the parts'
	// latches ("btr_search_latch#<part>") in its latch registry.
	Pool *bufpool.Pool
}

// AHI build limits [btr0sea.cc].
const (
	searchBuildLimit     = 100 // BTR_SEARCH_BUILD_LIMIT
	searchPageBuildLimit = 16  // BTR_SEARCH_PAGE_BUILD_LIMIT
)

// The bits of a frame's hash word (bufpool.Guard.HashInfo), 0 whenever
// the frame takes a page, when the index formats it and when it gives it
// back: the count of reads that found a key on the page, and two marks.
const (
	hashHelps    = 1<<30 - 1 // block->n_hash_helps
	hashBuilt    = 1 << 30   // the page was hashed whole in this frame
	hashVerified = 1 << 31   // a descent reached the page: guesses may use it
)

// maxCells bounds AdaptiveHashOptions.Cells.
const maxCells = 1 << 28

// Counter indexes of an AdaptiveHash.
const (
	hSearches = iota
	hSearchesBTree
	hGuessesFailed
	hPagesAdded
	hRowsAdded
	hRowsUpdated
	nHashCounters
)

// NewAdaptiveHash returns an empty adaptive hash index.
func NewAdaptiveHash(o AdaptiveHashOptions) (*AdaptiveHash, error) {
	if o.Parts == 0 {
		o.Parts = 8
	}
	if o.Parts < 1 || o.Parts > 512 {
		return nil, fmt.Errorf("btree: AdaptiveHashOptions.Parts is %d, allowed 1..512", o.Parts)
	}
	if o.Cells == 0 {
		o.Cells = 1 << 16
		if o.Pool != nil {
			o.Cells = int(min(o.Pool.Options().Bytes/256, maxCells))
		}
	}
	if o.Cells < 1 || o.Cells > maxCells {
		return nil, fmt.Errorf("btree: AdaptiveHashOptions.Cells is %d, allowed 1..%d", o.Cells, maxCells)
	}
	n := max(1<<bits.Len(uint(o.Cells-1)), bucketCells)
	h := &AdaptiveHash{parts: make([]hashPart, o.Parts), cells: make([]atomic.Uint64, n),
		mask: uint64(n/bucketCells - 1), ctr: stripe.New(nHashCounters)}
	var reg *latch.Registry
	if o.Pool != nil {
		reg = o.Pool.Latches()
	}
	for i := range h.parts {
		h.parts[i].mu.Init(reg, fmt.Sprintf("btr_search_latch#%d", i))
	}
	h.scratch.New = func() any { b := make([]uint64, 0, 256); return &b }
	return h, nil
}

// part returns the part of an index [btr_search_sys_t::get_part: index
// id xor space id, modulo the parts].
func (h *AdaptiveHash) part(space uint32, id uint64) *hashPart {
	return &h.parts[(id^uint64(space))%uint64(len(h.parts))]
}

// cell packs a guess: the key hash's top 16 bits, the slot and the page.
// Page 0 is never a leaf, so 0 is an empty cell.
func cell(fold uint64, slot int, pageNo uint32) uint64 {
	return fold>>48<<48 | uint64(slot)<<32 | uint64(pageNo)
}

// unpack returns a cell's page and slot.
func unpack(c uint64) (pageNo uint32, slot int) { return uint32(c), int(uint16(c >> 32)) }

// bucket returns the cells a key with this hash may take.
func (h *AdaptiveHash) bucket(fold uint64) []atomic.Uint64 {
	b := int(fold&h.mask) * bucketCells
	return h.cells[b : b+bucketCells : b+bucketCells]
}

// put writes c into its bucket: over the cell of the same key hash if
// there is one, else into an empty cell, else, when evict is set, over
// the cell the hash picks. The caller holds the index's part latch
// exclusively. It reports whether it wrote.
func (h *AdaptiveHash) put(fold, c uint64, evict bool) bool {
	bk := h.bucket(fold)
	victim := -1
	for i := range bk {
		old := bk[i].Load()
		if old>>48 == fold>>48 && old != 0 {
			bk[i].Store(c)
			return true
		}
		if old == 0 && victim < 0 {
			victim = i
		}
	}
	if victim < 0 {
		if !evict {
			return false
		}
		victim = int(fold>>32) % bucketCells
	}
	bk[victim].Store(c)
	return true
}

// fold hashes a key of the index [rec_fold, dtuple_fold]: the index's
// seed keeps equal keys of different indexes apart.
func (ix *Index) fold(key []byte) uint64 {
	return xxhash.Sum64(key) ^ ix.hashSeed
}

// guess looks key up in the adaptive hash index and returns its leaf
// latched shared and its slot when the page confirms the guess
// [btr_search_guess_on_hash, btr_search_check_guess]. It takes neither
// the index lock nor any other page, and gives up at once while a writer
// holds the part's latch.
func (ix *Index) guess(key []byte) (bufpool.Guard, int, bool) {
	h := ix.o.AdaptiveHash
	fold := ix.fold(key)
	var guesses [bucketCells]uint64
	n := 0
	if !ix.hashPart.mu.TryRLock() {
		return bufpool.Guard{}, 0, false
	}
	bk := h.bucket(fold)
	for i := range bk {
		if c := bk[i].Load(); c != 0 && c>>48 == fold>>48 {
			guesses[n] = c
			n++
		}
	}
	ix.hashPart.mu.RUnlock()
	for _, c := range guesses[:n] {
		pageNo, slot := unpack(c)
		g, ok := ix.pool.Peek(ix.id(pageNo), bufpool.Shared)
		if !ok {
			continue
		}
		if ix.confirms(&g, slot, key) {
			h.ctr.Add(hSearches, 1)
			return g, slot, true
		}
		g.Release()
	}
	if n > 0 {
		h.ctr.Add(hGuessesFailed, 1)
	}
	return bufpool.Guard{}, 0, false
}

// guessable reports whether a guess may read slot of the latched page: a
// descent reached the page since it took its frame and the index has not
// given it back since, so it is in the tree (a page that leaves the tree
// is given back: retire); it is a leaf of the index; and slot is in its
// directory, so the record there is live. Keys are unique within an
// index, so a record there with the key is the one a descent would find.
// No guess is taken while BulkLoad builds the index: the root, reached
// before, may then hold rows of a load that fails.
func (ix *Index) guessable(g *bufpool.Guard, slot int) bool {
	p := page.IndexPage(g.Frame())
	return g.HashInfo().Load()&hashVerified != 0 && !ix.bulkLoading.Load() &&
		p.Fil().Type() == page.TypeIndex && p.IndexID() == ix.o.ID && p.Level() == 0 &&
		slot < p.NRecs()
}

// confirms reports whether a guess of key in slot of the latched page
// holds [btr_search_check_guess].
func (ix *Index) confirms(g *bufpool.Guard, slot int, key []byte) bool {
	return ix.guessable(g, slot) && bytes.Equal(page.IndexPage(g.Frame()).Key(slot), key)
}

// reached marks the leaf a descent latched as in the tree.
func reached(g *bufpool.Guard) {
	if w := g.HashInfo(); w.Load()&hashVerified == 0 {
		w.Or(hashVerified)
	}
}

// found tells the adaptive hash index that a descent found key in slot of
// the latched leaf g [btr_search_info_update]: it counts toward hashing
// the page whole, or rewrites key's cell on a page already hashed.
func (ix *Index) found(g *bufpool.Guard, slot int, key []byte) {
	h := ix.o.AdaptiveHash
	if ix.hashPotential.Load() < searchBuildLimit {
		ix.hashPotential.Add(1)
		return
	}
	w := g.HashInfo()
	if v := w.Load(); v&hashBuilt != 0 {
		fold := ix.fold(key)
		ix.hashPart.mu.Lock()
		wrote := h.put(fold, cell(fold, slot, g.ID().PageNo), false)
		ix.hashPart.mu.Unlock()
		if wrote {
			h.ctr.Add(hRowsUpdated, 1)
		}
		return
	}
	v := w.Add(1)
	p := page.IndexPage(g.Frame())
	if int(v&hashHelps) <= p.NRecs()/searchPageBuildLimit || !w.CompareAndSwap(v, v&hashVerified|hashBuilt) {
		return
	}
	ix.hashPage(p, g.ID().PageNo)
}

// hashPage writes a cell for every record of a leaf, folding the keys
// before taking the part's latch exclusively, as
// btr_search_build_page_hash_index does.
func (ix *Index) hashPage(p page.IndexPage, pageNo uint32) {
	h := ix.o.AdaptiveHash
	n := p.NRecs()
	buf := h.scratch.Get().(*[]uint64)
	pairs := (*buf)[:0]
	for i := range n {
		fold := ix.fold(p.Key(i))
		pairs = append(pairs, fold, cell(fold, i, pageNo))
	}
	ix.hashPart.mu.Lock()
	for i := 0; i < len(pairs); i += 2 {
		h.put(pairs[i], pairs[i+1], true)
	}
	ix.hashPart.mu.Unlock()
	*buf = pairs
	h.scratch.Put(buf)
	h.ctr.Add(hPagesAdded, 1)
	h.ctr.Add(hRowsAdded, uint64(n))
}

// retire clears the word of a page the index is about to give back, if
// it is in the pool with a frame, so that no guess reads the records it
// may still hold (a merge copies them to the sibling) until a descent
// reaches it again [btr_page_free → btr_search_drop_page_hash_index]. The
// caller must not hold the page latched. A page without a frame has a
// cleared word whenever it gets one.
func (ix *Index) retire(pageNo uint32) {
	if ix.o.AdaptiveHash == nil {
		return
	}
	if g, ok := ix.pool.Peek(ix.id(pageNo), bufpool.Exclusive); ok {
		g.HashInfo().Store(0)
		g.Release()
	}
}

// giveBack retires a page and returns it to the space's allocator. A
// structure change in SX mode gives its pages back when it ends (endTree),
// once it no longer latches them: retire latches the page, and another
// index of the space could otherwise take it while it is still latched.
func (ix *Index) giveBack(pageNo uint32) {
	if ix.inTree {
		ix.freed = append(ix.freed, pageNo)
		return
	}
	ix.retire(pageNo)
	if cb := ix.o.ChangeBuffer; cb != nil {
		cb.forget(ix.o.Space, pageNo)
	}
	ix.o.Alloc.FreePage(pageNo)
}

// checkHash returns a violation for every cell of the index that a lookup
// of the key now in its slot would accept while a descent finds that key
// elsewhere. The caller holds the index lock shared and no page latch;
// the result is exact only while no write runs. It peeks at the page of
// every cell of the table, whichever index wrote it.
func (ix *Index) checkHash(ctx context.Context) []error {
	h := ix.o.AdaptiveHash
	var errs []error
	for i := range h.cells {
		c := h.cells[i].Load()
		if c == 0 {
			continue
		}
		pageNo, slot := unpack(c)
		g, ok := ix.pool.Peek(ix.id(pageNo), bufpool.Shared)
		if !ok {
			continue
		}
		var key []byte
		if ix.guessable(&g, slot) {
			key = append(key, page.IndexPage(g.Frame()).Key(slot)...)
		}
		g.Release()
		if key == nil {
			continue
		}
		if fold := ix.fold(key); fold&h.mask != uint64(i/bucketCells) || fold>>48 != c>>48 {
			continue // no lookup of this key reads this cell
		}
		lg, err := ix.descend(ctx, key, bufpool.Shared)
		if err != nil {
			errs = append(errs, fmt.Errorf("adaptive hash: cell %d: descend to %x: %w", i, key, err))
			continue
		}
		s, found := page.IndexPage(lg.Frame()).Search(key, bytes.Compare)
		at := lg.ID().PageNo
		lg.Release()
		if !found || at != pageNo || s != slot {
			errs = append(errs, fmt.Errorf("adaptive hash: cell %d guesses key %x at page %d slot %d, the tree has it at page %d slot %d (found %v)", i, key, pageNo, slot, at, s, found))
		}
	}
	return errs
}

// AdaptiveHashStats is a snapshot of an AdaptiveHash's counters, named as
// INNODB_METRICS names them. Sub gives the change between two.
type AdaptiveHashStats struct {
	Cells, Parts int
	// Searches are point reads answered from the hash
	// [adaptive_hash_searches]; SearchesBTree point reads on indexes with
	// the hash that descended [adaptive_hash_searches_btree].
	Searches, SearchesBTree uint64
	// GuessesFailed counts lookups that found cells for the key whose
	// pages refused them all: the record moved, or the page left the pool
	// or was freed. SearchesBTree counts point reads only, where InnoDB's
	// counter (btr_cur_n_non_sea) counts every search.
	GuessesFailed uint64
	// PagesAdded counts leaves hashed whole, RowsAdded their records
	// [adaptive_hash_pages_added, adaptive_hash_rows_added]; RowsUpdated
	// cells rewritten after a descent [adaptive_hash_rows_updated].
	PagesAdded, RowsAdded, RowsUpdated uint64
}

// Stats returns a snapshot of the counters.
func (h *AdaptiveHash) Stats() AdaptiveHashStats {
	var c [nHashCounters]uint64
	h.ctr.SumAll(c[:])
	return AdaptiveHashStats{
		Cells: len(h.cells), Parts: len(h.parts),
		Searches: c[hSearches], SearchesBTree: c[hSearchesBTree], GuessesFailed: c[hGuessesFailed],
		PagesAdded: c[hPagesAdded], RowsAdded: c[hRowsAdded], RowsUpdated: c[hRowsUpdated],
	}
}

// HitRate returns the share of point reads the hash answered.
func (s AdaptiveHashStats) HitRate() float64 {
	if n := s.Searches + s.SearchesBTree; n > 0 {
		return float64(s.Searches) / float64(n)
	}
	return 0
}

// Sub returns the counter changes since prev; Cells and Parts stay s's.
func (s AdaptiveHashStats) Sub(prev AdaptiveHashStats) AdaptiveHashStats {
	d := s
	d.Searches -= prev.Searches
	d.SearchesBTree -= prev.SearchesBTree
	d.GuessesFailed -= prev.GuessesFailed
	d.PagesAdded -= prev.PagesAdded
	d.RowsAdded -= prev.RowsAdded
	d.RowsUpdated -= prev.RowsUpdated
	return d
}

// String prints the snapshot as an ADAPTIVE_HASH_INDEX table.
func (s AdaptiveHashStats) String() string {
	var b strings.Builder
	table.Write(&b, "ADAPTIVE_HASH_INDEX",
		[]string{"CELLS", "PARTS", "SEARCHES", "SEARCHES_BTREE", "HIT_RATE", "GUESSES_FAILED", "PAGES_ADDED", "ROWS_ADDED", "ROWS_UPDATED"},
		[][]string{{fmt.Sprint(s.Cells), fmt.Sprint(s.Parts), fmt.Sprint(s.Searches), fmt.Sprint(s.SearchesBTree),
			fmt.Sprintf("%.3f", s.HitRate()), fmt.Sprint(s.GuessesFailed), fmt.Sprint(s.PagesAdded),
			fmt.Sprint(s.RowsAdded), fmt.Sprint(s.RowsUpdated)}})
	return b.String()
}
