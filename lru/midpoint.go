package lru

import (
	"fmt"
	"math"
	"sync/atomic"
	"time"
)

// InnoDB's constants for the old sublist (buf0lru.cc, buf0lru.h, buf0buf.h).
const (
	// OldMinLen is BUF_LRU_OLD_MIN_LEN: the old sublist exists only while
	// the list holds at least this many pages.
	OldMinLen = 512
	// OldTolerance is BUF_LRU_OLD_TOLERANCE: how far the old sublist's
	// length may drift from its target before LRU_old moves.
	OldTolerance = 20
	// NonOldMinLen is BUF_LRU_NON_OLD_MIN_LEN: the fewest young pages kept
	// while the old sublist exists.
	NonOldMinLen = 5
	// OldRatioDiv is BUF_LRU_OLD_RATIO_DIV, the denominator of the old
	// ratio: ratio = OldPct * OldRatioDiv / 100.
	OldRatioDiv = 1024

	// DefaultOldPct is innodb_old_blocks_pct's default.
	DefaultOldPct = 37
	// MinOldPct and MaxOldPct bound innodb_old_blocks_pct.
	MinOldPct, MaxOldPct = 5, 95

	// DefaultOldBlocksTime is innodb_old_blocks_time's default from MySQL
	// 5.6 on (1000 ms); 5.1 and 5.5 shipped 0.
	DefaultOldBlocksTime = time.Second
	// OldBlocksTimeDisabled, or any negative duration, in
	// MidpointOptions.OldBlocksTime turns the first-access rule off, as
	// innodb_old_blocks_time=0 does (the 5.1 and 5.5 default): an old page
	// is then promoted by the same freed-page-clock rule as a young one.
	// (Zero cannot mean "off" because zero selects the default.)
	OldBlocksTimeDisabled time.Duration = -1
	// MaxOldBlocksTime is the largest innodb_old_blocks_time, an unsigned
	// 32-bit count of milliseconds.
	MaxOldBlocksTime = time.Duration(math.MaxUint32) * time.Millisecond
)

// MidpointOptions configure a Midpoint policy. The zero value of each field
// but PoolPages selects InnoDB's default.
type MidpointOptions struct {
	// OldPct is innodb_old_blocks_pct: the share of the list kept as the
	// old sublist, 5..95; 0 means DefaultOldPct (37).
	OldPct int
	// OldBlocksTime is innodb_old_blocks_time: an old page is promoted only
	// once its first access is at least this long ago. 0 means
	// DefaultOldBlocksTime (1s); a negative value (OldBlocksTimeDisabled)
	// turns the rule off, as 0 ms does in InnoDB. At most MaxOldBlocksTime.
	OldBlocksTime time.Duration
	// PoolPages is the pool instance's size in pages (buf_pool->curr_size),
	// which sets the young-quarter window of the make-young rule. Required,
	// greater than 0.
	PoolPages int
}

const padBytes = 128 // keep lock-guarded, read-mostly and hot-written fields on separate cache lines

// Midpoint is InnoDB's LRU list with midpoint insertion (buf0lru.cc): the
// list is split at LRU_old into a young sublist at the front and an old
// sublist of about OldPct percent at the back. Pages read from storage enter
// at the head of the old sublist, so a scan that touches each page once
// passes through the old sublist without pushing the working set out. An
// accessed page is made young (moved to the front) only when
// buf_page_peek_if_too_old says so. See the package documentation for the
// rules and their InnoDB sources.
//
// Concurrency: Access is lock-free; every other method needs the caller's
// lock.
type Midpoint[T any] struct {
	// Guarded by the caller's lock.
	list      List[T]
	lruOld    *Node[T] // buf_pool->LRU_old: first node of the old sublist; nil below OldMinLen
	oldLen    int      // buf_pool->LRU_old_len
	ratio     int      // buf_pool->LRU_old_ratio
	madeYoung uint64   // buf_pool->stat.n_pages_made_young
	poolPages int      // buf_pool->curr_size

	_ [padBytes]byte

	// Read by Access without the lock; written only by the setters.
	epoch         time.Time     // access times are stored as ns since epoch; immutable
	oldBlocksTime atomic.Int64  // ns; 0 = rule off (buf_LRU_old_threshold_ms)
	youngWindow   atomic.Uint64 // curr_size * (1024 - ratio) / (1024 * 4)

	_ [padBytes]byte

	// buf_pool->freed_page_clock: written under the lock on every eviction,
	// read by every Access.
	freedClock atomic.Uint64

	_ [padBytes]byte

	// buf_pool->stat.n_pages_not_made_young: bumped by Access without the
	// lock. One atomic per pool instance; InnoDB bumps a plain shared
	// counter at the same point.
	notMadeYoung atomic.Uint64

	_ [padBytes]byte
}

var _ Policy[int] = (*Midpoint[int])(nil)

// NewMidpoint returns an empty Midpoint policy, or an error naming the
// option that is out of range and what is allowed.
func NewMidpoint[T any](o MidpointOptions) (*Midpoint[T], error) {
	if o.PoolPages <= 0 {
		return nil, fmt.Errorf("lru: MidpointOptions.PoolPages is %d; want the pool instance's size in pages (buf_pool->curr_size), greater than 0", o.PoolPages)
	}
	pct, err := checkOldPct(o.OldPct)
	if err != nil {
		return nil, err
	}
	obt, err := checkOldBlocksTime(o.OldBlocksTime)
	if err != nil {
		return nil, err
	}
	p := &Midpoint[T]{poolPages: o.PoolPages, epoch: time.Now()}
	p.setRatio(pct)
	p.oldBlocksTime.Store(int64(obt))
	return p, nil
}

func checkOldPct(pct int) (int, error) {
	if pct == 0 {
		return DefaultOldPct, nil
	}
	if pct < MinOldPct || pct > MaxOldPct {
		return 0, fmt.Errorf("lru: OldPct %d is out of range; innodb_old_blocks_pct allows %d..%d, or 0 for the default %d", pct, MinOldPct, MaxOldPct, DefaultOldPct)
	}
	return pct, nil
}

// checkOldBlocksTime returns the effective threshold, 0 meaning off.
func checkOldBlocksTime(d time.Duration) (time.Duration, error) {
	switch {
	case d == 0:
		return DefaultOldBlocksTime, nil
	case d < 0:
		return 0, nil
	case d > MaxOldBlocksTime:
		return 0, fmt.Errorf("lru: OldBlocksTime %v is too long; innodb_old_blocks_time allows up to %v (2^32-1 ms), 0 for the default %v, or a negative value (OldBlocksTimeDisabled) for off", d, MaxOldBlocksTime, DefaultOldBlocksTime)
	}
	return d, nil
}

// setRatio is buf_LRU_old_ratio_update_instance without the adjustment:
// ratio = old_pct * BUF_LRU_OLD_RATIO_DIV / 100 (378 for 37). The clamp to
// [BUF_LRU_OLD_RATIO_MIN=51, BUF_LRU_OLD_RATIO_MAX=1024] never bites for
// 5..95 (51..972).
func (p *Midpoint[T]) setRatio(pct int) {
	p.ratio = pct * OldRatioDiv / 100
	p.youngWindow.Store(uint64(p.poolPages) * uint64(OldRatioDiv-p.ratio) / (OldRatioDiv * 4))
}

// SetOldPct changes innodb_old_blocks_pct at run time and, when the old
// sublist exists, moves LRU_old to the new target
// (buf_LRU_old_ratio_update). The caller must hold the lock.
func (p *Midpoint[T]) SetOldPct(pct int) error {
	pct, err := checkOldPct(pct)
	if err != nil {
		return err
	}
	old := p.ratio
	p.setRatio(pct)
	if p.ratio != old && p.list.Len() >= OldMinLen {
		p.adjustOldLen()
	}
	return nil
}

// SetOldBlocksTime changes innodb_old_blocks_time at run time, with the
// encoding of MidpointOptions.OldBlocksTime. Like InnoDB's
// buf_LRU_old_threshold_ms it is read without a lock, so SetOldBlocksTime is
// safe without the caller's lock.
func (p *Midpoint[T]) SetOldBlocksTime(d time.Duration) error {
	d, err := checkOldBlocksTime(d)
	if err != nil {
		return err
	}
	p.oldBlocksTime.Store(int64(d))
	return nil
}

// Options returns the options in effect, defaults filled in; a disabled
// OldBlocksTime reads as OldBlocksTimeDisabled. The caller must hold the
// lock (OldPct is read back from the ratio, rounded as InnoDB reports it).
func (p *Midpoint[T]) Options() MidpointOptions {
	obt := time.Duration(p.oldBlocksTime.Load())
	if obt == 0 {
		obt = OldBlocksTimeDisabled
	}
	return MidpointOptions{
		OldPct:        int(float64(p.ratio)*100/OldRatioDiv + 0.5),
		OldBlocksTime: obt,
		PoolPages:     p.poolPages,
	}
}

// Name returns "midpoint".
func (p *Midpoint[T]) Name() string { return "midpoint" }

// Len returns the list's length. The caller must hold the lock.
func (p *Midpoint[T]) Len() int { return p.list.Len() }

// Front returns the youngest node, or nil. The caller must hold the lock.
func (p *Midpoint[T]) Front() *Node[T] { return p.list.Front() }

// Back returns the oldest node (the next eviction candidate), or nil. The
// caller must hold the lock.
func (p *Midpoint[T]) Back() *Node[T] { return p.list.Back() }

// LRUOld returns buf_pool->LRU_old, the first node of the old sublist, or
// nil while the list is shorter than OldMinLen. The caller must hold the
// lock.
func (p *Midpoint[T]) LRUOld() *Node[T] { return p.lruOld }

// Add puts n, a page just read from storage, at the midpoint:
// buf_LRU_add_block(bpage, old=TRUE), as buf_page_init_for_read does. n's
// policy state is reset first, as buf_page_init_low does (freed_page_clock
// and access_time become 0). While the list is shorter than OldMinLen the
// page goes to the front and is stamped with the freed-page clock. The
// caller must hold the lock.
func (p *Midpoint[T]) Add(n *Node[T], now time.Time) {
	n.resetPolicyState()
	p.addBlock(n, true)
}

// AddYoung puts n at the front instead: buf_LRU_add_block(bpage, old=FALSE),
// as buf_page_create does for a page allocated in the pool rather than read.
// The caller must hold the lock.
func (p *Midpoint[T]) AddYoung(n *Node[T], now time.Time) {
	n.resetPolicyState()
	p.addBlock(n, false)
}

// Access records a page fix of n and reports whether the caller should take
// its lock and call Promote. It sets n's first access time if unset
// (buf_page_set_accessed; the first writer wins), then applies
// buf_page_peek_if_too_old:
//
//   - while the freed-page clock is 0 (nothing evicted yet), never;
//   - if OldBlocksTime is on and n is old: promote iff now minus the first
//     access is at least OldBlocksTime, else count NotMadeYoung;
//   - otherwise promote unless buf_page_peek_if_young: freed_page_clock <
//     n's stamp + PoolPages*(1024-ratio)/(1024*4), i.e. unless n was put at
//     the front fewer evictions ago than about a quarter of the young
//     sublist.
//
// Access is safe without the caller's lock: it touches the node's atomics,
// the pool's freed-page clock and the NotMadeYoung counter.
func (p *Midpoint[T]) Access(n *Node[T], now func() time.Time) bool {
	var t int64 // now as a stamp, computed only when needed
	first := n.accessed.Load()
	if first == 0 {
		t = p.stamp(now())
		if n.accessed.CompareAndSwap(0, t) {
			first = t
		} else {
			first = n.accessed.Load()
		}
	}
	clock := p.freedClock.Load()
	if clock == 0 {
		return false
	}
	if obt := p.oldBlocksTime.Load(); obt > 0 && n.old.Load() {
		if t == 0 {
			t = p.stamp(now())
		}
		if t-first >= obt {
			return true
		}
		p.notMadeYoung.Add(1)
		return false
	}
	return clock >= n.freedClock.Load()+p.youngWindow.Load()
}

// stamp converts now to ns since the policy's epoch, keeping 0 for "never
// accessed". Times from time.Now use the monotonic clock.
func (p *Midpoint[T]) stamp(now time.Time) int64 {
	t := int64(now.Sub(p.epoch))
	if t == 0 {
		t = 1
	}
	return t
}

// Promote makes n young, buf_LRU_make_block_young: it removes n and adds it
// back at the front, stamping the freed-page clock; MadeYoung counts it if n
// was old. Like buf_page_make_young it does not re-evaluate the rule Access
// applied (a second thread promoting the same page just moves it again); it
// only checks that n is still in this list. The caller must hold the lock.
func (p *Midpoint[T]) Promote(n *Node[T], now time.Time) {
	if n.list != &p.list {
		return
	}
	if n.old.Load() {
		p.madeYoung++
	}
	p.removeBlock(n)
	p.addBlock(n, false)
}

// Remove takes n out of the list (buf_LRU_remove_block). An evicted removal
// then advances the freed-page clock, as buf_LRU_block_remove_hashed does
// (buf_pool->freed_page_clock += 1) for every page buf_LRU_free_page frees.
// The caller must hold the lock.
func (p *Midpoint[T]) Remove(n *Node[T], evicted bool) {
	p.list.mustHold(n, "Midpoint.Remove")
	p.removeBlock(n)
	n.old.Store(false)
	if evicted {
		p.freedClock.Add(1)
	}
}

// AdvanceFreedPageClock advances the freed-page clock by one without
// removing a node. InnoDB also ticks the clock when buf_LRU_free_page(bpage,
// zip=false) frees only the uncompressed frame of a compressed page (an
// unzip_LRU eviction): buf_LRU_block_remove_hashed runs and the compressed
// descriptor goes back where the block was. The buffer pool calls this for
// such evictions, keeping the node where it is. The caller must hold the
// lock.
func (p *Midpoint[T]) AdvanceFreedPageClock() { p.freedClock.Add(1) }

// Scan visits nodes from the back (the LRU tail), as
// buf_LRU_free_from_common_LRU_list does; see List.Scan. A step is one node
// offered to visit. The caller must hold the lock.
func (p *Midpoint[T]) Scan(max int, visit func(n *Node[T]) bool) int {
	return p.list.Scan(max, visit)
}

// Stats returns the counters. The caller must hold the lock.
func (p *Midpoint[T]) Stats() Stats {
	return Stats{
		Len:            p.list.Len(),
		OldLen:         p.oldLen,
		MadeYoung:      p.madeYoung,
		NotMadeYoung:   p.notMadeYoung.Load(),
		FreedPageClock: p.freedClock.Load(),
	}
}

// addBlock is buf_LRU_add_block_low.
func (p *Midpoint[T]) addBlock(n *Node[T], old bool) {
	if !old || p.list.Len() < OldMinLen {
		p.list.PushFront(n)
		n.freedClock.Store(p.freedClock.Load())
	} else {
		p.list.insertAfter(n, p.lruOld)
		p.oldLen++
	}
	switch l := p.list.Len(); {
	case l > OldMinLen:
		n.old.Store(old)
		p.adjustOldLen()
	case l == OldMinLen:
		// The list just became long enough for LRU_old to exist.
		p.initOld()
	default:
		n.old.Store(p.lruOld != nil) // always false: LRU_old is nil below OldMinLen
	}
}

// removeBlock is buf_LRU_remove_block.
func (p *Midpoint[T]) removeBlock(n *Node[T]) {
	if n == p.lruOld {
		// Move LRU_old one step towards the front; the tolerance
		// guarantees a node there.
		prev := n.prev
		p.lruOld = prev
		prev.old.Store(true)
		p.oldLen++
	}
	p.list.unlink(n)
	if p.list.Len() < OldMinLen {
		// Too short for an old sublist: clear every old flag. InnoDB walks
		// the list on every removal from a short list; only the first walk
		// after the sublist existed can find a flag set (pages added to a
		// short list are young), so later ones are skipped. Real pools are
		// far above 512 pages, but zipsim's small test pools are not, and
		// the walk under the LRU mutex would dominate them.
		if p.lruOld != nil {
			for m := p.list.Front(); m != nil; m = m.Next() {
				m.old.Store(false)
			}
		}
		p.lruOld = nil
		p.oldLen = 0
		return
	}
	if n.old.Load() {
		p.oldLen--
	}
	p.adjustOldLen()
}

// initOld is buf_LRU_old_init: mark every node old, point LRU_old at the
// front, then let adjustOldLen walk it back to the target.
func (p *Midpoint[T]) initOld() {
	for m := p.list.Back(); m != nil; m = m.Prev() {
		m.old.Store(true)
	}
	p.lruOld = p.list.Front()
	p.oldLen = p.list.Len()
	p.adjustOldLen()
}

// targetOldLen is new_len in buf_LRU_old_adjust_len:
// min(len*ratio/1024, len-(BUF_LRU_OLD_TOLERANCE+BUF_LRU_NON_OLD_MIN_LEN)).
func (p *Midpoint[T]) targetOldLen() int {
	l := p.list.Len()
	return min(l*p.ratio/OldRatioDiv, l-(OldTolerance+NonOldMinLen))
}

// adjustOldLen is buf_LRU_old_adjust_len: move LRU_old one node at a time
// until the old sublist's length is within OldTolerance of the target.
func (p *Midpoint[T]) adjustOldLen() {
	newLen := p.targetOldLen()
	for {
		switch {
		case p.oldLen+OldTolerance < newLen:
			p.lruOld = p.lruOld.prev
			p.oldLen++
			p.lruOld.old.Store(true)
		case p.oldLen > newLen+OldTolerance:
			m := p.lruOld
			p.lruOld = m.next
			p.oldLen--
			m.old.Store(false)
		default:
			return
		}
	}
}

// Check verifies the list and the old sublist as buf_LRU_validate_instance
// does: below OldMinLen no node is old and LRU_old is unset; from OldMinLen
// on, LRU_old is the first old node, every node after it is old and none
// before it, their count is OldLen, and OldLen is within OldTolerance of the
// target. It returns the first violation. O(Len); the caller must hold the
// lock.
func (p *Midpoint[T]) Check() error {
	if err := p.list.Check(); err != nil {
		return err
	}
	if p.list.Len() < OldMinLen {
		if p.lruOld != nil || p.oldLen != 0 {
			return fmt.Errorf("lru: midpoint: %d nodes (< %d) but LRU_old is set or OldLen is %d", p.list.Len(), OldMinLen, p.oldLen)
		}
		for m, i := p.list.Front(), 0; m != nil; m, i = m.Next(), i+1 {
			if m.old.Load() {
				return fmt.Errorf("lru: midpoint: node %d from the front is old in a list of %d (< %d)", i, p.list.Len(), OldMinLen)
			}
		}
		return nil
	}
	if p.lruOld == nil || p.lruOld.list != &p.list {
		return fmt.Errorf("lru: midpoint: %d nodes but LRU_old is not in the list", p.list.Len())
	}
	seen, oldCount := false, 0
	for m, i := p.list.Front(), 0; m != nil; m, i = m.Next(), i+1 {
		if m == p.lruOld {
			seen = true
		}
		if m.old.Load() != seen {
			return fmt.Errorf("lru: midpoint: node %d from the front has old=%v, want %v", i, m.old.Load(), seen)
		}
		if seen {
			oldCount++
		}
	}
	if oldCount != p.oldLen {
		return fmt.Errorf("lru: midpoint: %d old nodes, OldLen is %d", oldCount, p.oldLen)
	}
	if t := p.targetOldLen(); p.oldLen < t-OldTolerance || p.oldLen > t+OldTolerance {
		return fmt.Errorf("lru: midpoint: OldLen %d is more than %d from the target %d", p.oldLen, OldTolerance, t)
	}
	return nil
}
