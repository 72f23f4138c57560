package bufpool

import (
	"bytes"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// buddyInstance returns a pool instance with n frames and a page
// descriptor factory whose zip blocks the test places by hand.
func buddyInstance(t *testing.T, frames int) (*instance, func(cls int) *Page) {
	p := newPool(t, Options{Bytes: int64(frames) * 16384})
	testSpace(t, p, 1, 1024)
	in := p.inst[0]
	next := uint32(0)
	return in, func(cls int) *Page {
		b := &in.buddy
		next++
		pg := in.allocDesc()
		pg.id = PageID{1, next}
		u := b.alloc(cls)
		if u < 0 {
			in.freeMu.Lock()
			f := &in.frames[in.free[len(in.free)-1]]
			in.free = in.free[:len(in.free)-1]
			in.freeMu.Unlock()
			u = b.carve(f, cls)
		}
		b.owner[u] = pg
		pg.zunit = u
		pg.zip = b.block(u, cls)
		require.NoError(t, pg.zipd.Init(pg.zip))
		return pg
	}
}

func TestBuddySplitAndCount(t *testing.T) {
	in, alloc := buddyInstance(t, 8)
	b := &in.buddy
	require.Equal(t, 4, b.classes, "1K, 2K, 4K, 8K for 16K pages")
	pg := alloc(0) // a 1K block: one frame split into 8K+4K+2K+1K free halves
	require.Equal(t, 1, b.frames)
	require.Equal(t, []int{1, 1, 1, 1}, b.count)
	require.Equal(t, uint64(1), b.used[0])
	pg2 := alloc(0) // takes the free 1K buddy
	require.Equal(t, []int{0, 1, 1, 1}, b.count)
	require.Equal(t, pg.zunit^1, pg2.zunit, "the second 1K block is the first one's buddy")

	// Freeing with fewer than 16 free blocks of the size does not merge.
	require.Nil(t, b.free(pg2.zunit, 0))
	require.Equal(t, []int{1, 1, 1, 1}, b.count)
	require.Nil(t, b.free(pg.zunit, 0))
	require.Equal(t, []int{2, 1, 1, 1}, b.count, "the buddies sit side by side on the free list, unmerged")
	require.Equal(t, 1, b.frames)
}

// TestBuddyMergeAndRelocate fills frames with 8K blocks, frees half of them
// so that 16 free blocks of the size exist, then frees blocks whose buddies
// are free (merge, frames return) and whose buddies are in use (relocation
// moves the buddy's page into a free block, then merge) [buf_buddy_free_low].
func TestBuddyMergeAndRelocate(t *testing.T) {
	in, alloc := buddyInstance(t, 40)
	b := &in.buddy
	var pages []*Page
	for i := 0; i < 64; i++ { // 32 frames of two 8K blocks
		pg := alloc(3)
		copy(pg.zip, bytes.Repeat([]byte{byte(i)}, 8192))
		pages = append(pages, pg)
	}
	require.Equal(t, 32, b.frames)
	// Free the second block of 16 frames: 16 free 8K blocks, no merge yet
	// (each free happened with fewer than 16 on the list).
	for i := 1; i < 32; i += 2 {
		require.Nil(t, b.free(pages[i].zunit, 3))
	}
	require.Equal(t, 16, b.count[3])

	// Now the list is long enough: freeing a block whose buddy is free
	// merges them, and the frame goes back.
	pg0 := pages[0]
	f := b.free(pg0.zunit, 3)
	require.NotNil(t, f, "merged to a whole frame")
	require.Equal(t, 31, b.frames)
	require.Equal(t, 15, b.count[3])

	// Make the list long again and free a block whose buddy is in use by
	// an unfixed page: the buddy's page moves into a free block.
	require.Nil(t, b.free(pages[33].zunit, 3)) // 16 free again
	require.Equal(t, 16, b.count[3])
	moved := pages[35] // buddy of pages[34]
	oldUnit := moved.zunit
	require.NotNil(t, b.free(pages[34].zunit, 3), "relocation then merge frees the frame")
	require.NotEqual(t, oldUnit, moved.zunit, "the page moved")
	require.Equal(t, bytes.Repeat([]byte{35}, 8192), moved.zip, "with its bytes")
	require.Equal(t, moved, b.owner[moved.zunit])
	require.Equal(t, uint64(1), b.relocated[3])

	// A fixed page is never moved.
	require.Nil(t, b.free(pages[37].zunit, 3))
	pinned := pages[39]
	pinned.fix.Add(1)
	before := pinned.zunit
	require.Nil(t, b.free(pages[38].zunit, 3))
	require.Equal(t, before, pinned.zunit)
	require.Equal(t, uint64(1), b.relocated[3])
}

// TestZipBlocksBeyond2GiB: a zip block's place in an instance's arena was
// kept as a byte offset in an int32, which wrapped negative past 2 GiB,
// and freeZip took a negative offset for "no block": one instance of more
// than 2 GiB leaked every zip block it freed from there (30,600 8K blocks
// in 400 s of T1's shape at 3.5 GiB, 14% of the pool). The free list is
// turned around here so that the frames past 2 GiB are taken first.
func TestZipBlocksBeyond2GiB(t *testing.T) {
	p := newPool(t, Options{Bytes: 2<<30 + 64*16384, Instances: 1, Locking: Legacy})
	slices.Reverse(p.inst[0].free)
	testSpace(t, p, 1, 8192)
	createStamped(t, p, 1, 20)
	require.NoError(t, p.Flush())
	used := func() (n uint64) {
		for _, r := range p.Stats().CMPMEM {
			n += r.Used
		}
		return n
	}
	require.Equal(t, uint64(20), used())
	require.Empty(t, p.Check())
	p.EvictAll()
	require.Zero(t, used(), "every zip block went back to the buddy allocator")
	require.Empty(t, p.Check())
}
