package lru

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// policies lists every Policy with a constructor, for the conformance
// suite, the allocation tests and the benchmarks. poolPages sizes the
// midpoint policy's young window.
func policies(poolPages int) []struct {
	name string
	make func(t testing.TB) Policy[*item]
} {
	return []struct {
		name string
		make func(t testing.TB) Policy[*item]
	}{
		{"midpoint", func(t testing.TB) Policy[*item] {
			p, err := NewMidpoint[*item](MidpointOptions{PoolPages: poolPages})
			require.NoError(t, err)
			return p
		}},
		{"lru", func(testing.TB) Policy[*item] { return NewLRU[*item]() }},
		{"clock", func(testing.TB) Policy[*item] { return NewClock[*item]() }},
	}
}

// checker is implemented by every policy in this package.
type checker interface{ Check() error }

func checkPolicy(t testing.TB, p Policy[*item]) {
	t.Helper()
	c, ok := p.(checker)
	require.True(t, ok, "%s has no Check method", p.Name())
	require.NoError(t, c.Check())
	require.Equal(t, p.Len(), p.Stats().Len)
}

func TestConformance(t *testing.T) {
	for _, pc := range policies(1000) {
		t.Run("policy="+pc.name, func(t *testing.T) { testPolicy(t, pc.make) })
	}
}

// testPolicy is the suite every Policy must pass. It uses fewer than
// OldMinLen nodes where it pins an order, so that all policies agree: with
// no accesses, each evicts in insertion order.
func testPolicy(t *testing.T, newPolicy func(testing.TB) Policy[*item]) {
	now := time.Unix(1_000_000, 0)
	fill := func(t *testing.T, n int) (Policy[*item], []*item) {
		p := newPolicy(t)
		it := newItems(n)
		for _, x := range it {
			p.Add(&x.node, now)
		}
		checkPolicy(t, p)
		return p, it
	}
	scanIDs := func(p Policy[*item], max, stopAt int) ([]int, int) {
		var seen []int
		n := p.Scan(max, func(n *Node[*item]) bool {
			seen = append(seen, n.Value.id)
			return n.Value.id == stopAt
		})
		return seen, n
	}

	t.Run("bookkeeping", func(t *testing.T) {
		p := newPolicy(t)
		require.NotEmpty(t, p.Name())
		require.Zero(t, p.Len())
		require.Equal(t, Stats{}, p.Stats())
		require.Zero(t, p.Scan(0, func(*Node[*item]) bool { t.Fatal("visited an empty policy"); return false }))
		it := newItems(10)
		for i, x := range it {
			p.Add(&x.node, now)
			require.Equal(t, i+1, p.Len())
			require.True(t, x.node.InList())
		}
		checkPolicy(t, p)
		p.Remove(&it[3].node, true)
		p.Remove(&it[0].node, true)
		p.Remove(&it[9].node, false)
		require.Equal(t, 7, p.Len())
		require.Equal(t, uint64(2), p.Stats().FreedPageClock)
		for _, i := range []int{0, 3, 9} {
			require.False(t, it[i].node.InList())
			require.False(t, it[i].node.Old())
		}
		checkPolicy(t, p)
		require.Panics(t, func() { p.Remove(&it[3].node, true) }, "removing a node that is not in the policy")
		require.Panics(t, func() { p.Add(&it[4].node, now) }, "adding a node twice")
		// Promote on a node that left is a no-op, not a crash.
		p.Promote(&it[3].node, now)
		require.Equal(t, 7, p.Len())
		// A removed node can come back.
		p.Add(&it[3].node, now)
		require.Equal(t, 8, p.Len())
		checkPolicy(t, p)
	})

	t.Run("scan-order", func(t *testing.T) {
		p, _ := fill(t, 10)
		seen, n := scanIDs(p, 0, -1)
		require.Equal(t, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, seen)
		require.Equal(t, 10, n)
		require.Equal(t, 10, p.Len())
	})

	t.Run("scan-max", func(t *testing.T) {
		p, _ := fill(t, 10)
		seen, n := scanIDs(p, 3, -1)
		require.Equal(t, []int{0, 1, 2}, seen)
		require.Equal(t, 3, n)
		p, _ = fill(t, 10)
		seen, n = scanIDs(p, 100, -1)
		require.Len(t, seen, 10)
		require.Equal(t, 10, n)
	})

	t.Run("scan-stop", func(t *testing.T) {
		p, _ := fill(t, 10)
		seen, n := scanIDs(p, 0, 1)
		require.Equal(t, []int{0, 1}, seen)
		require.Equal(t, 2, n)
	})

	t.Run("scan-evicts-one-at-a-time", func(t *testing.T) {
		p, _ := fill(t, 10)
		var order []int
		for p.Len() > 0 {
			n := p.Scan(1, func(n *Node[*item]) bool {
				order = append(order, n.Value.id)
				p.Remove(n, true)
				return true
			})
			require.Equal(t, 1, n)
			checkPolicy(t, p)
		}
		require.Equal(t, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, order)
		require.Equal(t, uint64(10), p.Stats().FreedPageClock)
	})

	t.Run("scan-remove-during-full-scan", func(t *testing.T) {
		p, it := fill(t, 20)
		visits := make([]int, len(it))
		n := p.Scan(0, func(n *Node[*item]) bool {
			visits[n.Value.id]++
			if n.Value.id%3 == 0 {
				p.Remove(n, true)
			}
			return false
		})
		require.Equal(t, 20, n)
		for i, v := range visits {
			require.Equal(t, 1, v, "node %d", i)
		}
		require.Equal(t, 13, p.Len())
		checkPolicy(t, p)
		seen, _ := scanIDs(p, 0, -1)
		for _, id := range seen {
			require.NotZero(t, id%3)
		}
		require.Len(t, seen, 13)
	})

	t.Run("scan-visits-each-once", func(t *testing.T) {
		// Large enough for the midpoint policy's old sublist.
		p, it := fill(t, 3*OldMinLen)
		visits := make([]int, len(it))
		n := p.Scan(0, func(n *Node[*item]) bool { visits[n.Value.id]++; return false })
		require.Equal(t, len(it), n)
		for i, v := range visits {
			require.Equal(t, 1, v, "node %d", i)
		}
		checkPolicy(t, p)
	})

	t.Run("access-promote", func(t *testing.T) {
		p, it := fill(t, 700)
		// Evict a few so that the midpoint freed-page clock runs.
		for range 50 {
			p.Scan(1, func(n *Node[*item]) bool { p.Remove(n, true); return true })
		}
		rng := rand.New(rand.NewPCG(1, 2))
		for i := range 5000 {
			x := it[rng.IntN(len(it))]
			at := now.Add(time.Duration(i) * 10 * time.Millisecond)
			if p.Access(&x.node, clockAt(at)) {
				p.Promote(&x.node, at)
			}
		}
		require.Equal(t, 650, p.Len())
		checkPolicy(t, p)
	})

	t.Run("concurrent", func(t *testing.T) {
		testConcurrent(t, newPolicy(t))
	})
}

// testConcurrent runs Access from many goroutines, without the lock, while
// one goroutine holding the lock adds, removes, promotes and scans; accessors
// that are asked to promote take the lock. Run it under -race.
func testConcurrent(t *testing.T, p Policy[*item]) {
	const nodes = 2 * OldMinLen
	it := newItems(nodes)
	var mu sync.Mutex
	mu.Lock()
	for _, x := range it[:nodes*3/4] {
		p.Add(&x.node, time.Now())
	}
	mu.Unlock()

	var stop atomic.Bool
	var wg sync.WaitGroup
	var promotes atomic.Int64
	for g := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 7))
			for i := 0; !stop.Load() || i < 2000; i++ {
				x := it[rng.IntN(nodes)]
				now := time.Now()
				if p.Access(&x.node, clockAt(now)) {
					promotes.Add(1)
					mu.Lock()
					p.Promote(&x.node, now)
					mu.Unlock()
				}
				_ = x.node.Old()
			}
		}()
	}

	rng := rand.New(rand.NewPCG(99, 7))
	for range 20000 {
		mu.Lock()
		x := it[rng.IntN(nodes)]
		switch r := rng.IntN(10); {
		case !x.node.InList():
			p.Add(&x.node, time.Now())
		case r < 3:
			p.Scan(1+rng.IntN(4), func(n *Node[*item]) bool {
				p.Remove(n, true)
				return rng.IntN(2) == 0
			})
		case r < 5:
			p.Remove(&x.node, r == 4)
		case r < 7:
			p.Promote(&x.node, time.Now())
		default:
			_ = p.Stats()
		}
		mu.Unlock()
	}
	stop.Store(true)
	wg.Wait()

	mu.Lock()
	defer mu.Unlock()
	checkPolicy(t, p)
	inList := 0
	for _, x := range it {
		if x.node.InList() {
			inList++
		}
	}
	require.Equal(t, inList, p.Len())
	t.Logf("%s: %d promotions requested, stats %+v", p.Name(), promotes.Load(), p.Stats())
}
