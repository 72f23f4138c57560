package latch

import (
	"sync/atomic"
	"time"
)

// epoch anchors the package clock. time.Since on a Time that carries a
// monotonic reading reads only the runtime's monotonic clock (no wall
// clock), so now costs about as much as runtime.nanotime: a vDSO call, about
// 20 ns where the kernel's clock source is the TSC (BenchmarkClock).
var epoch = time.Now()

// now returns monotonic nanoseconds since epoch. Only differences of two
// readings mean anything.
func now() int64 { return int64(time.Since(epoch)) }

// storeMax raises *p to v if v is larger. Holders of an exclusive lock could
// use a plain load and store, but shared waiters race, so all callers use the
// CAS loop; it runs only on contended or sampled paths.
func storeMax(p *atomic.Int64, v int64) {
	for {
		cur := p.Load()
		if v <= cur || p.CompareAndSwap(cur, v) {
			return
		}
	}
}
