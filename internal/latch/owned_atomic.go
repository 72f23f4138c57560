//go:build race || !(amd64 || arm64 || loong64 || mips64 || mips64le || ppc64 || ppc64le || riscv64 || s390x || wasm)

package latch

import "sync/atomic"

// ownedCounter is owned_plain.go's counter with an atomic add: the race
// detector would report the plain increment racing with snapshots, and
// 32-bit platforms could tear a 64-bit plain store.
type ownedCounter struct{ n atomic.Uint64 }

func (c *ownedCounter) inc() uint64 { return c.n.Add(1) }

func (c *ownedCounter) load() uint64 { return c.n.Load() }
