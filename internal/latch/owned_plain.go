//go:build !race && (amd64 || arm64 || loong64 || mips64 || mips64le || ppc64 || ppc64le || riscv64 || s390x || wasm)

package latch

import "sync/atomic"

// ownedCounter counts acquisitions of the exclusive lock that contains it.
// Only the goroutine that has just acquired the lock increments it, so the
// lock itself orders the writes and a plain increment cannot lose one; a
// locked add would cost about 5 ns here, half again an uncontended
// Lock+Unlock (see doc.go). Readers load it atomically while it changes:
// Go's memory model guarantees that a racy read of a word-sized location
// returns a value some write stored, so a snapshot sees a recent count.
// Race-detector builds and 32-bit platforms use the atomic version in
// owned_atomic.go.
type ownedCounter struct{ n uint64 }

// inc adds one and returns the new count; the caller holds the lock.
func (c *ownedCounter) inc() uint64 {
	c.n++
	return c.n
}

// load returns the count; any goroutine may call it.
func (c *ownedCounter) load() uint64 { return atomic.LoadUint64(&c.n) }
