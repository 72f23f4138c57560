package bufpool

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim/internal/latch"
)

// TestLayout pins the cache-line layout the hit path's scaling depends on:
// what every fix writes (a page's fix count, a frame's latch) sits on its
// own 128-byte lines, apart from what every fix reads.
func TestLayout(t *testing.T) {
	require.Equal(t, uintptr(latchSize), unsafe.Sizeof(latch.RWMutex{}))
	require.Zero(t, unsafe.Offsetof(frame{}.latch))
	require.Equal(t, uintptr(128), unsafe.Offsetof(frame{}.buf))
	require.Equal(t, uintptr(256), unsafe.Sizeof(frame{}))
	require.Zero(t, unsafe.Offsetof(Page{}.fix))
	require.Equal(t, uintptr(128), unsafe.Offsetof(Page{}.id))
	require.Zero(t, unsafe.Sizeof(Page{})%128, "Page is %d bytes", unsafe.Sizeof(Page{}))
	require.Equal(t, uintptr(128), unsafe.Offsetof(hashPart{}.t))
	require.Equal(t, uintptr(256), unsafe.Sizeof(hashPart{}))

	// Arrays of them may start 8 bytes past a line (Go's malloc header);
	// the hot words then still share no 128-byte block with a
	// neighbour's, since each element ends in padding.
	require.LessOrEqual(t, unsafe.Offsetof(Page{}.fix)+8+4, uintptr(128))
	require.LessOrEqual(t, uintptr(latchSize)+8, uintptr(128))
}
