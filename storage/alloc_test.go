//go:build !race

// Allocation counts are meaningless under -race, where sync.Pool drops
// items at random; CI runs these tests in a second, non-race pass
// (go test -run ZeroAllocs ./...), see README.md.

package storage

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestZeroAllocsMemory: reads and writes of a Memory device allocate
// nothing, nor does punching and rewriting once chunks are recycled.
func TestZeroAllocsMemory(t *testing.T) {
	m := mustMemory(t)
	p := pattern(16384, 11)
	require.NoError(t, m.WriteAt(p, 0))
	buf := make([]byte, 16384)
	require.Zero(t, testing.AllocsPerRun(100, func() { _ = m.ReadAt(buf, 0) }))
	require.Zero(t, testing.AllocsPerRun(100, func() { _ = m.WriteAt(p, 0) }))
	// Punch and rewrite: freed chunks are reused.
	require.Zero(t, testing.AllocsPerRun(100, func() {
		_ = m.PunchHole(4096, 12288)
		_ = m.WriteAt(p, 0)
	}))
}

// TestZeroAllocsTransparent: transparent compression reads and writes
// allocate nothing once codec state and chunks are warm.
func TestZeroAllocsTransparent(t *testing.T) {
	ts, err := Create(mustMemory(t), Options{Compression: "zlib"})
	require.NoError(t, err)
	a, b := sbPage(16384, 0, 1, 1), sbPage(16384, 0, 1, 2)
	r := randomPage(16384, 0, 1, 3)
	buf := make([]byte, 16384)
	for range 10 { // warm up codec state, pools and the chunk free list
		require.NoError(t, ts.WritePage(1, a))
		require.NoError(t, ts.WritePage(1, r))
		require.NoError(t, ts.WritePage(1, b))
		require.NoError(t, ts.ReadPage(1, buf))
	}
	require.Zero(t, testing.AllocsPerRun(50, func() {
		_ = ts.WritePage(1, a)
		_ = ts.ReadPage(1, buf)
		_ = ts.WritePage(1, r)
		_ = ts.WritePage(1, b)
		_ = ts.ReadPage(1, buf)
	}))
	require.Equal(t, b, buf)

	plain, err := Create(mustMemory(t), Options{})
	require.NoError(t, err)
	require.NoError(t, plain.WritePage(1, a))
	require.Zero(t, testing.AllocsPerRun(50, func() {
		_ = plain.WritePage(1, a)
		_ = plain.ReadPage(1, buf)
	}))
}
