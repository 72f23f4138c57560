package latch

import (
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// newRegistry returns an enabled or a disabled registry.
func newRegistry(instrumented bool) *Registry {
	return NewRegistry(Options{Disabled: !instrumented})
}

var modes = []bool{true, false}

// reportContention reports the contended share of the bench lock's
// acquisitions, when r counts, so a parallel run shows whether it really
// contended.
func reportContention(b *testing.B, r *Registry) {
	if s, ok := r.Snapshot().Get("bench"); ok {
		b.ReportMetric(s.ContentionPct(), "contended%")
	}
}

func modeName(instrumented bool) string {
	return "instrumented=" + strconv.FormatBool(instrumented)
}

// BenchmarkMutex is one goroutine locking and unlocking one lock: the
// uncontended cost, instrumented against plain, with sync.Mutex as the
// floor. Run with -cpu 1,2 and subtract instrumented=false from
// instrumented=true for the instrumentation's cost per Lock+Unlock.
func BenchmarkMutex(b *testing.B) {
	for _, on := range modes {
		b.Run(modeName(on), func(b *testing.B) {
			var m Mutex
			m.Init(newRegistry(on), "bench")
			b.ReportAllocs()
			for b.Loop() {
				m.Lock()
				m.Unlock()
			}
		})
	}
	b.Run("baseline=sync.Mutex", func(b *testing.B) {
		var m sync.Mutex
		b.ReportAllocs()
		for b.Loop() {
			m.Lock()
			m.Unlock()
		}
	})
}

// BenchmarkMutexParallel is GOMAXPROCS goroutines on one lock with a
// one-increment critical section: the contended cost, where the
// instrumentation's clock reads on the slow path show.
func BenchmarkMutexParallel(b *testing.B) {
	for _, on := range modes {
		b.Run(modeName(on), func(b *testing.B) {
			benchMutexParallel(b, newRegistry(on))
		})
	}
	for _, impl := range []Impl{Builtin, Plugin} {
		b.Run("latches="+impl.String(), func(b *testing.B) {
			benchMutexParallel(b, NewRegistry(Options{Impl: impl}))
		})
	}
	b.Run("baseline=sync.Mutex", func(b *testing.B) {
		var m sync.Mutex
		n := 0
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				m.Lock()
				n++
				m.Unlock()
			}
		})
	})
}

func benchMutexParallel(b *testing.B, r *Registry) {
	var m Mutex
	m.Init(r, "bench")
	n := 0
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			m.Lock()
			n++
			m.Unlock()
		}
	})
	reportContention(b, r)
}

// BenchmarkRWMutexRead is one goroutine taking one RWMutex shared.
func BenchmarkRWMutexRead(b *testing.B) {
	for _, on := range modes {
		b.Run(modeName(on), func(b *testing.B) {
			var m RWMutex
			m.Init(newRegistry(on), "bench")
			b.ReportAllocs()
			for b.Loop() {
				m.RLock()
				m.RUnlock()
			}
		})
	}
	b.Run("baseline=sync.RWMutex", func(b *testing.B) {
		var m sync.RWMutex
		b.ReportAllocs()
		for b.Loop() {
			m.RLock()
			m.RUnlock()
		}
	})
}

// BenchmarkRWMutexReadParallel is GOMAXPROCS readers on one RWMutex: no
// waiting, but every reader writes the lock's cache line (reader count,
// and when instrumented the read counter), and TryRLock's load-then-CAS
// replaces RLock's single atomic add.
func BenchmarkRWMutexReadParallel(b *testing.B) {
	for _, on := range modes {
		b.Run(modeName(on), func(b *testing.B) {
			benchReadParallel(b, newRegistry(on))
		})
	}
	// The builtin's readers serialize on the lock's own mutex, twice per
	// shared hold: the cost its hot latches (index lock, root page,
	// btr_search_latch) paid as cores were added. The plugin's take one
	// compare-and-swap.
	for _, impl := range []Impl{Builtin, Plugin} {
		b.Run("latches="+impl.String(), func(b *testing.B) {
			benchReadParallel(b, NewRegistry(Options{Impl: impl}))
		})
	}
	b.Run("baseline=sync.RWMutex", func(b *testing.B) {
		var m sync.RWMutex
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				m.RLock()
				m.RUnlock()
			}
		})
	})
}

func benchReadParallel(b *testing.B, r *Registry) {
	var m RWMutex
	m.Init(r, "bench")
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			m.RLock()
			m.RUnlock()
		}
	})
	reportContention(b, r)
}

// BenchmarkRWMutexWrite is one goroutine taking one RWMutex exclusively.
func BenchmarkRWMutexWrite(b *testing.B) {
	for _, on := range modes {
		b.Run(modeName(on), func(b *testing.B) {
			var m RWMutex
			m.Init(newRegistry(on), "bench")
			b.ReportAllocs()
			for b.Loop() {
				m.Lock()
				m.Unlock()
			}
		})
	}
}

// hitPath models the buffer-pool hit path of research/limits.md with three
// latches, as InnoDB 5.6's buf_page_get_gen takes them: the page-hash
// shard mutex around the lookup, the block mutex around the buffer-fix,
// and the page latch shared around a directory binary search and a row
// copy; the unfix is an atomic, as in 5.7.
type hitPath struct {
	shards [64]struct {
		mu Mutex
		_  [48]byte
	}
	pages []hitPage
}

type hitPage struct {
	latch RWMutex
	block Mutex
	fix   int
	unfix atomic.Int64
	keys  []uint64
	rows  []byte
}

func newHitPath(r *Registry) *hitPath {
	h := &hitPath{pages: make([]hitPage, 32)}
	for i := range h.shards {
		h.shards[i].mu.Init(r, "page_hash#"+strconv.Itoa(i))
	}
	for i := range h.pages {
		p := &h.pages[i]
		p.latch.Init(r, "block_lock")
		p.block.Init(r, "block_mutex")
		p.keys = make([]uint64, 80)
		for k := range p.keys {
			p.keys[k] = uint64(k * 3)
		}
		p.rows = make([]byte, 80*184)
	}
	return h
}

func (h *hitPath) get(rng *rand.PCG, dst []byte) {
	x := rng.Uint64()
	s := &h.shards[x%64].mu
	s.Lock() // page_hash lookup
	p := &h.pages[(x>>8)%uint64(len(h.pages))]
	s.Unlock()
	p.block.Lock() // buffer-fix
	p.fix++
	p.block.Unlock()
	p.latch.RLock()
	key := (x >> 20) % 240
	lo, hi := 0, len(p.keys)
	for lo < hi {
		mid := (lo + hi) / 2
		if p.keys[mid] < key {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	lo = min(lo, len(p.keys)-1)
	copy(dst, p.rows[lo*184:(lo+1)*184])
	p.latch.RUnlock()
	p.unfix.Add(1)
}

// BenchmarkHitPathModel is a hot-page hit with three latches, to express
// the instrumentation's cost as a share of a buffer-pool operation.
func BenchmarkHitPathModel(b *testing.B) {
	for _, on := range modes {
		b.Run(modeName(on), func(b *testing.B) {
			benchHitPath(b, newRegistry(on))
		})
	}
	for _, impl := range []Impl{Builtin, Plugin} {
		b.Run("latches="+impl.String(), func(b *testing.B) {
			benchHitPath(b, NewRegistry(Options{Impl: impl}))
		})
	}
}

func benchHitPath(b *testing.B, r *Registry) {
	h := newHitPath(r)
	rng := rand.NewPCG(1, 2)
	dst := make([]byte, 184)
	b.ReportAllocs()
	for b.Loop() {
		h.get(rng, dst)
	}
}

// BenchmarkHitPathModelParallel is the hit path on GOMAXPROCS goroutines
// over 32 hot pages, with each implementation's latches.
func BenchmarkHitPathModelParallel(b *testing.B) {
	for _, impl := range []Impl{Go, Builtin, Plugin} {
		b.Run("latches="+impl.String(), func(b *testing.B) {
			h := newHitPath(NewRegistry(Options{Impl: impl}))
			var seed atomic.Uint64
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				rng := rand.NewPCG(seed.Add(1), 2)
				dst := make([]byte, 184)
				for pb.Next() {
					h.get(rng, dst)
				}
			})
		})
	}
}

var sinkTime time.Time
var sinkInt int64

// BenchmarkClock compares time.Now with the package clock (time.Since a
// fixed epoch), which reads only the monotonic clock.
func BenchmarkClock(b *testing.B) {
	b.Run("clock=time.Now", func(b *testing.B) {
		for b.Loop() {
			sinkTime = time.Now()
		}
	})
	b.Run("clock=since-epoch", func(b *testing.B) {
		for b.Loop() {
			sinkInt = now()
		}
	})
}

// BenchmarkSnapshot reads a registry shaped like a pool: 65,536 page
// latches in one class and 16 instance mutexes.
func BenchmarkSnapshot(b *testing.B) {
	r := NewRegistry(Options{})
	pages := make([]RWMutex, 65536)
	for i := range pages {
		pages[i].Init(r, "block_lock")
	}
	lru := make([]Mutex, 16)
	for i := range lru {
		lru[i].Init(r, "LRU_list_mutex#"+strconv.Itoa(i))
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = r.Snapshot()
	}
}
