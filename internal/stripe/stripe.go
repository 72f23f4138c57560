// Package stripe provides counters that many goroutines can bump without
// sharing a cache line. zipsim measures lock contention; one global atomic
// counter on a hot path would become the contention it is trying to measure
// (research/anchors.md, style guide 7: otter's xsync.Adder, ristretto's
// padded counters). Each Counters value holds a fixed set of uint64 counters,
// replicated across cache-line-aligned stripes; a writer uses the stripe of
// the P (scheduler processor) it runs on and readers sum the stripes.
//
// Picking the stripe by P rather than at random matters: random stripes
// spread simultaneous writers, but every stripe is still written by every
// core in turn, so its cache line migrates on nearly every add. A P's
// stripe stays in its core's cache as long as the goroutine is not moved.
package stripe

import (
	"runtime"
	"sync/atomic"
	_ "unsafe" // go:linkname
)

// procPin and procUnpin are the runtime's, as sync.Pool uses them to find
// the current P; the runtime keeps them linkable for exactly this use
// (go.dev/issue/67401).
//
//go:linkname procPin runtime.procPin
func procPin() int

//go:linkname procUnpin runtime.procUnpin
func procUnpin()

// pid returns the id of the P the caller runs on. The goroutine may move
// right after; a stale id only costs a shared cache line once.
func pid() uint32 {
	id := procPin()
	procUnpin()
	return uint32(id)
}

// cacheLine is the stride unit. 64 bytes on amd64 and arm64; adjacent-line
// prefetchers make 128 safer, at twice the memory.
const cacheLine = 128

const wordsPerLine = cacheLine / 8

// Counters is a fixed-size set of striped uint64 counters. The zero value is
// not usable; call New.
type Counters struct {
	words  []atomic.Uint64
	stride int // words per stripe, a multiple of a cache line
	mask   uint32
	n      int
}

// New returns n counters striped over the next power of two at or above
// GOMAXPROCS stripes.
func New(n int) *Counters {
	if n < 1 {
		n = 1
	}
	stripes := 1
	for stripes < runtime.GOMAXPROCS(0) {
		stripes <<= 1
	}
	stride := (n + wordsPerLine - 1) / wordsPerLine * wordsPerLine
	// One extra line so the first stripe can start on a line boundary
	// whatever the allocator's alignment.
	words := make([]atomic.Uint64, stripes*stride+wordsPerLine)
	return &Counters{words: words[alignOffset(words):], stride: stride, mask: uint32(stripes - 1), n: n}
}

// Len returns the number of counters.
func (c *Counters) Len() int { return c.n }

// Add adds v to counter i on the current P's stripe.
func (c *Counters) Add(i int, v uint64) {
	s := int(pid() & c.mask)
	c.words[s*c.stride+i].Add(v)
}

// Stripe returns a handle on the current P's stripe, for callers that bump
// several counters of one event together.
func (c *Counters) Stripe() Stripe {
	s := int(pid() & c.mask)
	return Stripe{c.words[s*c.stride : s*c.stride+c.n]}
}

// Sum returns counter i summed over all stripes.
func (c *Counters) Sum(i int) uint64 {
	var t uint64
	for s := 0; s <= int(c.mask); s++ {
		t += c.words[s*c.stride+i].Load()
	}
	return t
}

// SumAll stores every counter's sum in dst, which must hold Len() values.
func (c *Counters) SumAll(dst []uint64) {
	clear(dst[:c.n])
	for s := 0; s <= int(c.mask); s++ {
		base := s * c.stride
		for i := 0; i < c.n; i++ {
			dst[i] += c.words[base+i].Load()
		}
	}
}

// Stripe is one stripe's counters.
type Stripe struct{ words []atomic.Uint64 }

// Add adds v to counter i of this stripe.
func (s Stripe) Add(i int, v uint64) { s.words[i].Add(v) }
