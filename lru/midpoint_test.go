package lru

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

var t0 = time.Unix(1_700_000_000, 0) // an injected clock; no test reads the real one

func newMidpoint(t testing.TB, o MidpointOptions) *Midpoint[*item] {
	t.Helper()
	p, err := NewMidpoint[*item](o)
	require.NoError(t, err)
	return p
}

func midIDs(p *Midpoint[*item]) []int {
	ids := make([]int, 0, p.Len())
	for n := p.Front(); n != nil; n = n.Next() {
		ids = append(ids, n.Value.id)
	}
	return ids
}

// requireOldTail checks that exactly the last oldLen nodes are old and that
// LRU_old is the first of them.
func requireOldTail(t *testing.T, p *Midpoint[*item], oldLen int) {
	t.Helper()
	require.NoError(t, p.Check())
	require.Equal(t, oldLen, p.Stats().OldLen)
	i, first := 0, p.Len()-oldLen
	for n := p.Front(); n != nil; n = n.Next() {
		require.Equal(t, i >= first, n.Old(), "node %d of %d", i, p.Len())
		if i == first {
			require.Same(t, n, p.LRUOld())
		}
		i++
	}
	if oldLen == 0 {
		require.Nil(t, p.LRUOld())
	}
}

func evictTail(p *Midpoint[*item]) *item {
	n := p.Back()
	p.Remove(n, true)
	return n.Value
}

func TestMidpointOptions(t *testing.T) {
	p := newMidpoint(t, MidpointOptions{PoolPages: 1000})
	require.Equal(t, MidpointOptions{OldPct: 37, OldBlocksTime: time.Second, PoolPages: 1000}, p.Options())
	require.Equal(t, 378, p.ratio) // 37 * 1024 / 100
	require.Equal(t, uint64(1000*(1024-378)/4096), p.youngWindow.Load())

	for _, pct := range []int{5, 50, 95} {
		p := newMidpoint(t, MidpointOptions{OldPct: pct, PoolPages: 1})
		require.Equal(t, pct*1024/100, p.ratio)
		require.Equal(t, pct, p.Options().OldPct)
	}
	for _, pct := range []int{-1, 1, 4, 96, 100} {
		_, err := NewMidpoint[*item](MidpointOptions{OldPct: pct, PoolPages: 1})
		require.ErrorContains(t, err, "innodb_old_blocks_pct allows 5..95, or 0 for the default 37")
	}
	_, err := NewMidpoint[*item](MidpointOptions{})
	require.ErrorContains(t, err, "PoolPages is 0")
	_, err = NewMidpoint[*item](MidpointOptions{PoolPages: -3})
	require.ErrorContains(t, err, "greater than 0")
	_, err = NewMidpoint[*item](MidpointOptions{PoolPages: 1, OldBlocksTime: MaxOldBlocksTime + time.Millisecond})
	require.ErrorContains(t, err, "innodb_old_blocks_time allows up to")

	p = newMidpoint(t, MidpointOptions{PoolPages: 1, OldBlocksTime: OldBlocksTimeDisabled})
	require.Equal(t, OldBlocksTimeDisabled, p.Options().OldBlocksTime)
	p = newMidpoint(t, MidpointOptions{PoolPages: 1, OldBlocksTime: -time.Hour})
	require.Equal(t, OldBlocksTimeDisabled, p.Options().OldBlocksTime)
	p = newMidpoint(t, MidpointOptions{PoolPages: 1, OldBlocksTime: 250 * time.Millisecond})
	require.Equal(t, 250*time.Millisecond, p.Options().OldBlocksTime)
	require.NoError(t, p.SetOldBlocksTime(0))
	require.Equal(t, time.Second, p.Options().OldBlocksTime)
	require.Error(t, p.SetOldPct(2))
	require.Error(t, p.SetOldBlocksTime(MaxOldBlocksTime+1))
}

// TestMidpointOldSublistTrace pins buf_LRU_old_init, buf_LRU_old_adjust_len,
// buf_LRU_add_block_low and buf_LRU_remove_block step by step at the default
// 37% (ratio 378). The expected values are worked out by hand in the
// comments from InnoDB's formulas.
func TestMidpointOldSublistTrace(t *testing.T) {
	p := newMidpoint(t, MidpointOptions{PoolPages: 2000})
	it := newItems(1000)
	next := 0
	add := func() *item { x := it[next]; next++; p.Add(&x.node, t0); return x }
	addYoung := func() *item { x := it[next]; next++; p.AddYoung(&x.node, t0); return x }

	// Below 512 there is no old sublist; pages go to the head whatever
	// Add asks for.
	for range OldMinLen - 1 {
		add()
	}
	requireOldTail(t, p, 0)
	require.Equal(t, 510, midIDs(p)[0])

	// The 512th page goes to the head too; buf_LRU_old_init then marks all
	// 512 old and buf_LRU_old_adjust_len walks LRU_old back to
	// target = min(512*378/1024, 512-25) = 189, stopping as soon as the
	// length is within 20 of it: 209.
	add()
	requireOldTail(t, p, 209)
	require.Equal(t, 511, midIDs(p)[0])
	lruOld := p.LRUOld()

	// Len 513: the new page goes right after LRU_old, old; old length 210,
	// target 513*378/1024 = 189, 210 > 189+20, so LRU_old steps forward one
	// node, which is the new page itself.
	x := add()
	requireOldTail(t, p, 209)
	require.Same(t, &x.node, p.LRUOld())
	require.Same(t, lruOld.Next(), &x.node)
	require.False(t, lruOld.Old())

	// The next one goes right after the new LRU_old, i.e. after x.
	y := add()
	requireOldTail(t, p, 209)
	require.Same(t, &y.node, p.LRUOld())
	require.Same(t, &x.node, y.node.Prev())

	// Growing from the head: target rises 0.37 per page while the old
	// length stays, until old+20 < target moves LRU_old back. At 641 pages
	// target = 641*378/1024 = 236, so the old length settles at 216.
	for p.Len() < 641 {
		addYoung()
	}
	requireOldTail(t, p, 216)
	require.Equal(t, 236, p.targetOldLen())

	// Evicting an old tail page: 215 old of 640, target 236, 215+20 < 236,
	// so LRU_old moves back one: 216 again.
	evictTail(p)
	requireOldTail(t, p, 216)

	// Removing LRU_old itself moves it to its predecessor first
	// (buf_LRU_remove_block), which becomes old.
	lruOld = p.LRUOld()
	prev := lruOld.Prev()
	p.Remove(lruOld, false)
	require.Same(t, prev, p.LRUOld())
	requireOldTail(t, p, 216)

	// Removing young pages: target falls, old length stays until it is more
	// than 20 above target. Removing down to 600 pages: target 221, 216 is
	// within tolerance.
	for p.Len() > 600 {
		p.Remove(p.Front(), false)
	}
	requireOldTail(t, p, 216)
	require.Equal(t, 221, p.targetOldLen())
	// Down to 512: target 189, old length 209 (216 shrinks only past 209).
	for p.Len() > OldMinLen {
		p.Remove(p.Front(), false)
	}
	requireOldTail(t, p, 209)

	// One below 512: every old flag is cleared.
	evictTail(p)
	requireOldTail(t, p, 0)
	for n := p.Front(); n != nil; n = n.Next() {
		require.False(t, n.Old())
	}

	// SetOldPct at 511 only stores the ratio; back at 512 the new ratio
	// applies: 50% gives ratio 512, target min(256, 487) = 256, 276 old.
	require.NoError(t, p.SetOldPct(50))
	requireOldTail(t, p, 0)
	add()
	requireOldTail(t, p, 276)
	// At 5% (ratio 51): target 512*51/1024 = 25, old length 45.
	require.NoError(t, p.SetOldPct(5))
	requireOldTail(t, p, 45)
	// At 95% (ratio 972): target min(486, 487) = 486; from 45 it grows to
	// 466 (within 20).
	require.NoError(t, p.SetOldPct(95))
	requireOldTail(t, p, 466)
}

// midAt builds a Midpoint of n pages with the freed-page clock advanced by
// evictions evictions (each followed by an Add, so the length stays n).
func midAt(t *testing.T, o MidpointOptions, n, evictions int) (*Midpoint[*item], []*item) {
	p := newMidpoint(t, o)
	it := newItems(n + evictions)
	for _, x := range it[:n] {
		p.Add(&x.node, t0)
	}
	for _, x := range it[n:] {
		evictTail(p)
		p.Add(&x.node, t0)
	}
	require.Equal(t, uint64(evictions), p.Stats().FreedPageClock)
	require.NoError(t, p.Check())
	return p, it
}

func TestMidpointNewPageGoesAfterLRUOld(t *testing.T) {
	p, _ := midAt(t, MidpointOptions{PoolPages: 1000}, 700, 5)
	for range 50 {
		x := newItems(1)[0]
		mark := p.LRUOld()
		oldLen := p.Stats().OldLen
		p.Add(&x.node, t0)
		require.True(t, x.node.Old())
		require.NoError(t, p.Check())
		// Either x sits right after the old LRU_old, or adjust moved
		// LRU_old onto it.
		if p.LRUOld() == mark {
			require.Same(t, mark.Next(), &x.node)
			require.Equal(t, oldLen+1, p.Stats().OldLen)
		} else {
			require.Same(t, &x.node, p.LRUOld())
			require.Same(t, mark, x.node.Prev())
			require.Equal(t, oldLen, p.Stats().OldLen)
		}
		// buf_LRU_add_block_low stamps only head insertions; the
		// midpoint page keeps the 0 of buf_page_init_low.
		require.Zero(t, x.node.freedClock.Load())
	}
	y := newItems(1)[0]
	p.AddYoung(&y.node, t0)
	require.Same(t, &y.node, p.Front())
	require.False(t, y.node.Old())
	require.Equal(t, uint64(5), y.node.freedClock.Load())
}

func TestMidpointNoPromotionBeforeFirstEviction(t *testing.T) {
	p, it := midAt(t, MidpointOptions{PoolPages: 1000}, 700, 0)
	for i, x := range it {
		// Old and young pages alike, long after their first access.
		require.False(t, p.Access(&x.node, clockAt(t0)))
		require.False(t, p.Access(&x.node, clockAt(t0.Add(time.Hour))), "page %d", i)
	}
	s := p.Stats()
	require.Zero(t, s.NotMadeYoung, "buf_page_peek_if_too_old returns before counting")
	require.Zero(t, s.MadeYoung)
}

func TestMidpointOldBlocksTime(t *testing.T) {
	p, _ := midAt(t, MidpointOptions{PoolPages: 1000}, 700, 10)
	x := newItems(1)[0]
	p.Add(&x.node, t0)
	require.True(t, x.node.Old())

	// First access sets the access time and is refused (0 < 1s).
	require.False(t, p.Access(&x.node, clockAt(t0)))
	require.Equal(t, uint64(1), p.Stats().NotMadeYoung)
	// A second access within 1s of the first: refused again.
	require.False(t, p.Access(&x.node, clockAt(t0.Add(999*time.Millisecond))))
	require.Equal(t, uint64(2), p.Stats().NotMadeYoung)
	require.True(t, x.node.Old())
	// 1s after the first access: promote.
	require.True(t, p.Access(&x.node, clockAt(t0.Add(time.Second))))
	require.Equal(t, uint64(2), p.Stats().NotMadeYoung)
	before := p.Stats().MadeYoung
	p.Promote(&x.node, t0.Add(time.Second))
	require.Same(t, &x.node, p.Front())
	require.False(t, x.node.Old())
	require.Equal(t, before+1, p.Stats().MadeYoung)
	require.Equal(t, uint64(10), x.node.freedClock.Load(), "stamped with the clock at the head")
	require.NoError(t, p.Check())

	// Now young and just stamped: not moved (first quarter), and young
	// pages never count NotMadeYoung.
	require.False(t, p.Access(&x.node, clockAt(t0.Add(time.Hour))))
	require.Equal(t, uint64(2), p.Stats().NotMadeYoung)

	// The first-access time is not reset by a later access or a promotion:
	// a page that drifts back into the old sublist is promoted on its next
	// access because its first access was long ago.
	y := newItems(1)[0]
	p.Add(&y.node, t0)
	require.False(t, p.Access(&y.node, clockAt(t0)))
	for range 400 { // push y towards the tail with fresh pages
		p.Add(&newItems(1)[0].node, t0)
	}
	require.True(t, y.node.Old())
	require.True(t, p.Access(&y.node, clockAt(t0.Add(2*time.Second))))

	// Only the first access sets the time (first writer wins): a later
	// Access carrying an earlier time does not move it back.
	z := newItems(1)[0]
	p.Add(&z.node, t0)
	require.False(t, p.Access(&z.node, clockAt(t0.Add(5*time.Second))))
	require.False(t, p.Access(&z.node, clockAt(t0.Add(time.Second)))) // earlier now: still refused
	require.True(t, p.Access(&z.node, clockAt(t0.Add(6*time.Second))))
}

func TestMidpointYoungQuarter(t *testing.T) {
	// PoolPages 1000, ratio 378: window = 1000*(1024-378)/4096 = 157.
	const window = 157
	p, it := midAt(t, MidpointOptions{PoolPages: 1000}, 700, 20)
	x := it[len(it)-1]
	// Make x young at clock 20.
	p.Remove(&x.node, false)
	p.AddYoung(&x.node, t0)
	require.Equal(t, uint64(20), x.node.freedClock.Load())
	require.False(t, x.node.Old())

	// Not moved while clock < 20 + 157.
	fresh := newItems(window)
	for i := range window - 1 {
		evictTail(p)
		p.Add(&fresh[i].node, t0)
		require.False(t, p.Access(&x.node, clockAt(t0.Add(time.Hour))), "after %d more evictions", i+1)
	}
	require.Equal(t, uint64(20+window-1), p.Stats().FreedPageClock)
	// One more eviction reaches the window: moved.
	evictTail(p)
	require.True(t, p.Access(&x.node, clockAt(t0.Add(time.Hour))))
	mady := p.Stats().MadeYoung
	p.Promote(&x.node, t0)
	require.Equal(t, mady, p.Stats().MadeYoung, "a young page moving does not count as made young")
	require.Same(t, &x.node, p.Front())
	require.Equal(t, uint64(20+window), x.node.freedClock.Load())
	require.False(t, p.Access(&x.node, clockAt(t0.Add(time.Hour))))
	require.NoError(t, p.Check())
	require.Zero(t, p.Stats().NotMadeYoung, "no old page was accessed")
}

func TestMidpointOldBlocksTimeDisabled(t *testing.T) {
	// As in 5.1/5.5: an old page is judged by the freed-page clock alone.
	// A page read into the midpoint keeps the stamp 0 that
	// buf_page_init_low gave it, so once the clock has passed the window
	// (157 here) its first access promotes it.
	const window = 157
	o := MidpointOptions{PoolPages: 1000, OldBlocksTime: OldBlocksTimeDisabled}
	p, _ := midAt(t, o, 700, window)
	x := newItems(1)[0]
	p.Add(&x.node, t0)
	require.True(t, x.node.Old())
	require.Zero(t, x.node.freedClock.Load())
	require.True(t, p.Access(&x.node, clockAt(t0)), "first access promotes")
	p.Promote(&x.node, t0)
	require.Same(t, &x.node, p.Front())
	s := p.Stats()
	require.Zero(t, s.NotMadeYoung)
	require.Equal(t, uint64(1), s.MadeYoung)

	// Before the clock reaches the window, even old pages are "young"
	// by that rule and stay put (an InnoDB quirk, kept).
	p, _ = midAt(t, o, 700, window-1)
	y := newItems(1)[0]
	p.Add(&y.node, t0)
	require.False(t, p.Access(&y.node, clockAt(t0)))
	require.Zero(t, p.Stats().NotMadeYoung)

	// The same page with the 1s rule on would have been refused and
	// counted.
	require.NoError(t, p.SetOldBlocksTime(0))
	require.False(t, p.Access(&y.node, clockAt(t0)))
	require.Equal(t, uint64(1), p.Stats().NotMadeYoung)
}

func TestMidpointAdvanceFreedPageClock(t *testing.T) {
	p, _ := midAt(t, MidpointOptions{PoolPages: 1000}, 10, 0)
	ids := midIDs(p)
	p.AdvanceFreedPageClock()
	require.Equal(t, uint64(1), p.Stats().FreedPageClock)
	require.Equal(t, ids, midIDs(p))
}

// refMidpoint is a second, independent transcription of InnoDB's LRU
// functions onto a slice (front first), used to cross-check Midpoint over
// long random traces.
type refMidpoint struct {
	ids          []int
	old          map[int]bool
	stamp        map[int]uint64
	access       map[int]time.Time
	lruOld       int // id of LRU_old, -1 when unset
	oldLen       int
	ratio        int
	clock        uint64
	window       uint64
	obt          time.Duration
	made, notMad uint64
}

func newRef(pct, poolPages int, obt time.Duration) *refMidpoint {
	r := &refMidpoint{ids: []int{}, old: map[int]bool{}, stamp: map[int]uint64{}, access: map[int]time.Time{}, lruOld: -1, obt: obt}
	r.ratio = pct * 1024 / 100
	r.window = uint64(poolPages * (1024 - r.ratio) / (1024 * 4))
	return r
}

func (r *refMidpoint) index(id int) int { return slices.Index(r.ids, id) }

func (r *refMidpoint) adjust() {
	l := len(r.ids)
	newLen := min(l*r.ratio/1024, l-(20+5))
	for {
		if r.oldLen+20 < newLen {
			r.lruOld = r.ids[r.index(r.lruOld)-1]
			r.oldLen++
			r.old[r.lruOld] = true
		} else if r.oldLen > newLen+20 {
			r.old[r.lruOld] = false
			r.lruOld = r.ids[r.index(r.lruOld)+1]
			r.oldLen--
		} else {
			return
		}
	}
}

func (r *refMidpoint) add(id int, old bool) {
	if !old || len(r.ids) < 512 {
		r.ids = slices.Insert(r.ids, 0, id)
		r.stamp[id] = r.clock
	} else {
		r.ids = slices.Insert(r.ids, r.index(r.lruOld)+1, id)
		r.oldLen++
	}
	switch l := len(r.ids); {
	case l > 512:
		r.old[id] = old
		r.adjust()
	case l == 512:
		for _, id := range r.ids {
			r.old[id] = true
		}
		r.lruOld = r.ids[0]
		r.oldLen = 512
		r.adjust()
	default:
		r.old[id] = false
	}
}

func (r *refMidpoint) remove(id int) {
	if id == r.lruOld {
		r.lruOld = r.ids[r.index(id)-1]
		r.old[r.lruOld] = true
		r.oldLen++
	}
	r.ids = slices.Delete(r.ids, r.index(id), r.index(id)+1)
	if len(r.ids) < 512 {
		for _, id := range r.ids {
			r.old[id] = false
		}
		r.lruOld, r.oldLen = -1, 0
		return
	}
	if r.old[id] {
		r.oldLen--
	}
	r.adjust()
}

func (r *refMidpoint) readIn(id int, young bool) {
	delete(r.access, id)
	r.stamp[id] = 0
	r.add(id, !young)
}

func (r *refMidpoint) tooOld(id int, now time.Time) bool {
	if _, ok := r.access[id]; !ok {
		r.access[id] = now
	}
	if r.clock == 0 {
		return false
	}
	if r.obt > 0 && r.old[id] {
		if now.Sub(r.access[id]) >= r.obt {
			return true
		}
		r.notMad++
		return false
	}
	return !(r.clock < r.stamp[id]+r.window)
}

func (r *refMidpoint) makeYoung(id int) {
	if r.old[id] {
		r.made++
	}
	r.remove(id)
	r.add(id, false)
}

func TestMidpointMatchesReference(t *testing.T) {
	for _, tc := range []struct {
		pct   int
		obt   time.Duration
		pool  int
		seed  uint64
		steps int
	}{
		{37, time.Second, 1000, 1, 6000},
		{37, OldBlocksTimeDisabled, 700, 2, 6000},
		{5, 300 * time.Millisecond, 600, 3, 4000},
		{95, time.Second, 2000, 4, 4000},
		{63, 10 * time.Millisecond, 800, 5, 4000},
	} {
		o := MidpointOptions{OldPct: tc.pct, OldBlocksTime: tc.obt, PoolPages: tc.pool}
		p := newMidpoint(t, o)
		refObt := tc.obt
		if refObt < 0 {
			refObt = 0
		}
		r := newRef(tc.pct, tc.pool, refObt)
		it := newItems(700)
		rng := rand.New(rand.NewPCG(tc.seed, 11))
		now := t0
		for _, x := range it[:600] { // start above OldMinLen
			p.Add(&x.node, now)
			r.readIn(x.id, false)
		}
		crossings, wasOld := 0, true
		for step := range tc.steps {
			now = now.Add(time.Duration(rng.IntN(300)) * time.Millisecond)
			// Steer the length towards 420 and 620 in turn, crossing
			// OldMinLen both ways.
			target := 420
			if (step/400)%2 == 1 {
				target = 620
			}
			grow := p.Len() < target
			w := rng.IntN(100)
			addPct, evictPct, removePct := 5, 50, 60
			if grow {
				addPct, evictPct, removePct = 45, 50, 55
			}
			switch {
			case w < addPct:
				for range 10 {
					x := it[rng.IntN(len(it))]
					if x.node.InList() {
						continue
					}
					young := rng.IntN(8) == 0
					if young {
						p.AddYoung(&x.node, now)
					} else {
						p.Add(&x.node, now)
					}
					r.readIn(x.id, young)
					break
				}
			case w < evictPct:
				if tail := p.Back(); tail != nil {
					p.Remove(tail, true)
					r.remove(tail.Value.id)
					r.clock++
				}
			case w < removePct:
				if x := it[rng.IntN(len(it))]; x.node.InList() {
					p.Remove(&x.node, false)
					r.remove(x.id)
				}
			default:
				x := it[rng.IntN(len(it))]
				if !x.node.InList() {
					break
				}
				got := p.Access(&x.node, clockAt(now))
				want := r.tooOld(x.id, now)
				require.Equal(t, want, got, "step %d access %d", step, x.id)
				if got {
					p.Promote(&x.node, now)
					r.makeYoung(x.id)
				}
			}
			if hasOld := p.LRUOld() != nil; hasOld != wasOld {
				crossings++
				wasOld = hasOld
			}
			if got := midIDs(p); !slices.Equal(r.ids, got) {
				require.Equal(t, r.ids, got, "step %d", step)
			}
			s := p.Stats()
			require.Equal(t, r.oldLen, s.OldLen, "step %d", step)
			require.Equal(t, r.clock, s.FreedPageClock)
			require.Equal(t, r.made, s.MadeYoung)
			require.Equal(t, r.notMad, s.NotMadeYoung)
			if r.lruOld < 0 {
				require.Nil(t, p.LRUOld())
			} else {
				require.Equal(t, r.lruOld, p.LRUOld().Value.id)
			}
			for n := p.Front(); n != nil; n = n.Next() {
				if r.old[n.Value.id] != n.Old() {
					t.Fatalf("step %d: page %d old=%v, reference says %v", step, n.Value.id, n.Old(), r.old[n.Value.id])
				}
			}
			if step%97 == 0 {
				require.NoError(t, p.Check())
			}
		}
		require.NoError(t, p.Check())
		s := p.Stats()
		require.GreaterOrEqual(t, crossings, 8, "the trace should cross OldMinLen both ways several times")
		require.NotZero(t, s.MadeYoung)
		if tc.obt > 0 {
			require.NotZero(t, s.NotMadeYoung)
		}
		t.Logf("pct=%d obt=%v: %d crossings of %d, len %d, stats %+v", tc.pct, tc.obt, crossings, OldMinLen, p.Len(), s)
	}
}
