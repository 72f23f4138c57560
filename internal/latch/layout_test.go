//go:build amd64 || arm64 || ppc64le || s390x || riscv64 || loong64

package latch

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// The sizes below are for 64-bit platforms, where this file builds.

// TestLayout pins the struct sizes and keeps each lock's hot words (the
// sync state, mode, acquisition counts and sampled start) in its first 64
// bytes, so that a lock starting on a line boundary touches one line on
// its uncontended path.
func TestLayout(t *testing.T) {
	var m Mutex
	var rw RWMutex
	require.Equal(t, uintptr(88), unsafe.Sizeof(m))
	require.Equal(t, uintptr(112), unsafe.Sizeof(rw))
	for _, end := range []uintptr{
		unsafe.Offsetof(m.mode) + 1,
		unsafe.Offsetof(m.acq) + 8,
		unsafe.Offsetof(m.holdStart) + 8,
		unsafe.Offsetof(m.ib) + 8, // InnoDB's implementations' lock word is behind it
	} {
		require.LessOrEqual(t, end, uintptr(40))
	}
	for _, end := range []uintptr{
		unsafe.Offsetof(rw.racq) + 8,
		unsafe.Offsetof(rw.acq) + 8,
		unsafe.Offsetof(rw.holdStart) + 8,
		unsafe.Offsetof(rw.mode) + 1,
	} {
		require.LessOrEqual(t, end, uintptr(56))
	}
}
