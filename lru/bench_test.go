package lru

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkAccessHit measures a page fix's policy cost: Access, and when it
// asks, the lock plus Promote, as the buffer pool will call them.
//
//   - set=hot: every access hits one node at the front of the list, the best
//     case for every policy: nothing moves and no lock is taken.
//   - set=4096: accesses spread uniformly over 4096 of the 8192 nodes. The
//     plain LRU then takes the lock on almost every hit; midpoint and CLOCK
//     rarely or never do. promote/op reports how often the lock was taken.
//
// run=parallel runs b.RunParallel over GOMAXPROCS goroutines (vary with
// -cpu), sharing one policy and one mutex, as one pool instance does.
func BenchmarkAccessHit(b *testing.B) {
	const nodes = 8192
	for _, pc := range policies(nodes) {
		for _, set := range []struct {
			name string
			n    int
		}{{"hot", 1}, {"4096", 4096}} {
			for _, parallel := range []bool{false, true} {
				run := "serial"
				if parallel {
					run = "parallel"
				}
				b.Run("policy="+pc.name+"/set="+set.name+"/run="+run, func(b *testing.B) {
					p := pc.make(b)
					it := newItems(nodes)
					for _, x := range it {
						p.Add(&x.node, t0)
					}
					// Evict and refill 1000 pages so the freed-page clock runs
					// (the midpoint rules are inert at clock 0).
					spare := newItems(1000)
					for _, x := range spare {
						p.Scan(1, func(n *Node[*item]) bool { p.Remove(n, true); return true })
						p.Add(&x.node, t0)
					}
					hot := &spare[len(spare)-1].node
					if m, ok := p.(*Midpoint[*item]); ok {
						m.Remove(hot, false)
						m.AddYoung(hot, t0) // the hot page sits at the front
					}
					var inList []*Node[*item]
					for _, x := range append(it, spare...) {
						if x.node.InList() {
							inList = append(inList, &x.node)
						}
					}
					var mu sync.Mutex
					var promotes atomic.Int64
					now := t0.Add(time.Hour)
					clock := func() time.Time { return now }
					access := func(n *Node[*item]) {
						if p.Access(n, clock) {
							promotes.Add(1)
							mu.Lock()
							p.Promote(n, now)
							mu.Unlock()
						}
					}
					// Warm up: the first access of each node sets its time.
					for _, n := range inList {
						access(n)
					}
					access(hot)
					promotes.Store(0)
					b.ReportAllocs()
					b.ResetTimer()
					if !parallel {
						rng := rand.New(rand.NewPCG(1, 1))
						for i := 0; i < b.N; i++ {
							if set.n == 1 {
								access(hot)
							} else {
								access(inList[rng.IntN(set.n)])
							}
						}
					} else {
						var seed atomic.Uint64
						b.RunParallel(func(pb *testing.PB) {
							rng := rand.New(rand.NewPCG(seed.Add(1), 2))
							for pb.Next() {
								if set.n == 1 {
									access(hot)
								} else {
									access(inList[rng.IntN(set.n)])
								}
							}
						})
					}
					b.ReportMetric(float64(promotes.Load())/float64(b.N), "promote/op")
				})
			}
		}
	}
}

// BenchmarkAddEvict measures a miss's policy cost at a steady 100k pages:
// evict the first candidate Scan offers (Remove with evicted=true), then Add
// the page that replaces it. For the midpoint policy the Add goes into the
// old sublist after LRU_old and adjusts it.
func BenchmarkAddEvict(b *testing.B) {
	const size = 100_000
	for _, pc := range policies(size) {
		b.Run("policy="+pc.name, func(b *testing.B) {
			p := pc.make(b)
			it := newItems(size)
			for _, x := range it {
				p.Add(&x.node, t0)
			}
			var victim *Node[*item]
			evict := func(n *Node[*item]) bool { p.Remove(n, true); victim = n; return true }
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				p.Scan(0, evict)
				p.Add(victim, t0)
			}
			b.StopTimer()
			if p.Len() != size {
				b.Fatalf("len %d, want %d", p.Len(), size)
			}
		})
	}
}
