//go:build !race

// Allocation counts are meaningless under -race; CI runs these tests in a
// second, non-race pass (go test -run ZeroAllocs ./...), see README.md.

package lru

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestZeroAllocsPolicies checks that no Policy method allocates, on a list
// long enough for the midpoint policy's old sublist, including a scan whose
// visit evicts.
func TestZeroAllocsPolicies(t *testing.T) {
	for _, pc := range policies(4096) {
		t.Run("policy="+pc.name, func(t *testing.T) {
			p := pc.make(t)
			it := newItems(2048)
			for _, x := range it[:2000] {
				p.Add(&x.node, t0)
			}
			spare := it[2000:]
			i := 0
			var victim *Node[*item]
			evict := func(n *Node[*item]) bool { p.Remove(n, true); victim = n; return true }
			pass := func(n *Node[*item]) bool { return false }
			now := t0
			clock := func() time.Time { return now }

			ops := map[string]func(){
				"Add+Remove": func() {
					x := spare[i%len(spare)]
					i++
					p.Add(&x.node, now)
					p.Remove(&x.node, i%2 == 0)
				},
				"Access": func() {
					now = now.Add(time.Millisecond)
					p.Access(&it[i%2000].node, clock)
					i++
				},
				"Access+Promote": func() {
					now = now.Add(time.Millisecond)
					n := &it[(i*7)%2000].node
					i++
					p.Access(n, clock)
					p.Promote(n, now) // whatever Access said: Promote must not allocate either way
				},
				"Scan": func() { p.Scan(64, pass) },
				"Scan+evict+Add": func() {
					p.Scan(0, evict)
					p.Add(victim, now)
				},
				"Stats": func() { _ = p.Stats() },
			}
			for name, op := range ops {
				require.Zero(t, testing.AllocsPerRun(2000, op), name)
			}
			checkPolicy(t, p)
		})
	}
}

// TestZeroAllocsMidpointExtras covers the midpoint-only methods.
func TestZeroAllocsMidpointExtras(t *testing.T) {
	p := newMidpoint(t, MidpointOptions{PoolPages: 4096})
	it := newItems(1000)
	for _, x := range it[:999] {
		p.Add(&x.node, t0)
	}
	x := it[999]
	require.Zero(t, testing.AllocsPerRun(1000, func() {
		p.AddYoung(&x.node, t0)
		p.Remove(&x.node, true)
		p.AdvanceFreedPageClock()
		_ = p.SetOldPct(40)
		_ = p.SetOldPct(37)
		_ = p.SetOldBlocksTime(time.Second)
	}))
	require.NoError(t, p.Check())
}

// TestZeroAllocsList covers List, and a visit literal passed to a concrete
// type's Scan (it does not escape there, unlike through the interface).
func TestZeroAllocsList(t *testing.T) {
	var l List[*item]
	it := newItems(100)
	for _, x := range it[:99] {
		l.PushBack(&x.node)
	}
	x := it[99]
	i := 0
	require.Zero(t, testing.AllocsPerRun(1000, func() {
		l.PushFront(&x.node)
		l.MoveToFront(&it[i%99].node)
		l.Remove(&x.node)
		l.PushBack(&x.node)
		l.Remove(&x.node)
		l.InsertAfter(&x.node, l.Front())
		l.Remove(&x.node)
		count := 0
		l.Scan(10, func(n *Node[*item]) bool { count++; return n.Value.id == i })
		i++
	}))
	require.NoError(t, l.Check())
}
