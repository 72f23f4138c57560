package bufpool

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim/page"
	"github.com/zipsim/zipsim/storage"
)

func TestOptionsDefaultsAndErrors(t *testing.T) {
	p := newPool(t, Options{})
	o := p.Options()
	require.Equal(t, int64(DefaultBytes), o.Bytes)
	require.Equal(t, 16384, o.PageSize)
	require.Equal(t, 1, o.Instances, "below 1 GiB InnoDB uses one instance")
	require.Equal(t, 37, o.OldPct)
	require.Equal(t, time.Second, o.OldBlocksTime)
	require.Equal(t, 1024, o.LRUScanDepth)
	require.Len(t, p.inst[0].frames, DefaultBytes/16384)
	require.Equal(t, Arena, o.Frames)
	require.Equal(t, "arena", Arena.String())
	require.Equal(t, "per-miss", PerMiss.String())
	require.Equal(t, "global", Global.String())

	o, err := Options{Bytes: 1 << 30}.withDefaults()
	require.NoError(t, err)
	require.Equal(t, 8, o.Instances, "from 1 GiB InnoDB uses eight")

	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{PageSize: 32768}, "4096, 8192 or 16384"},
		{Options{Bytes: 4 * 16384}, "at least 8"},
		{Options{Bytes: 64 * 16384, Instances: 16}, "fewer instances"},
		{Options{Instances: 65}, "1..64"},
		{Options{Bytes: -1}, "negative"},
		{Options{Locking: 7}, "Split, Legacy or Global"},
		{Options{Frames: 5}, "Arena or PerMiss"},
		{Options{LRUScanDepth: -3}, "LRUScanDepth"},
		{Options{OldPct: 99}, "5..95"},
	} {
		_, err := New(c.o)
		require.Error(t, err, "%+v", c.o)
		require.Contains(t, err.Error(), c.want, "%+v", c.o)
	}
}

func TestAddSpaceErrors(t *testing.T) {
	p := newPool(t, Options{Bytes: 64 * 8192, PageSize: 8192})
	mem, err := storage.NewMemory(storage.MemoryOptions{})
	require.NoError(t, err)
	ts, err := storage.Create(mem, storage.Options{})
	require.NoError(t, err)
	require.ErrorContains(t, p.AddSpace(1, ts, nil), "16384-byte pages, the pool 8192")
	testSpace(t, p, 2, 4096)
	mem2, err := storage.NewMemory(storage.MemoryOptions{})
	require.NoError(t, err)
	ts2, err := storage.Create(mem2, storage.Options{PageSize: 8192})
	require.NoError(t, err)
	require.ErrorContains(t, p.AddSpace(2, ts2, nil), "already registered")
	_, err = p.Fix(ctx, PageID{9, 1}, Shared)
	require.ErrorContains(t, err, "space 9 is not registered")
	for _, no := range []uint32{0, page.FilNull} {
		_, err = p.Create(ctx, PageID{2, no})
		require.ErrorIs(t, err, storage.ErrPageOutOfRange)
		_, err = p.Fix(ctx, PageID{0, no}, Shared)
		require.ErrorIs(t, err, storage.ErrPageOutOfRange)
	}
	g, err := p.Create(ctx, PageID{2, 5})
	require.NoError(t, err)
	g.Release()
	_, err = p.Create(ctx, PageID{2, 5})
	require.ErrorIs(t, err, ErrExists)
	g, err = p.Fix(ctx, PageID{2, 5}, Shared)
	require.NoError(t, err)
	require.ErrorIs(t, g.MarkDirty(), ErrNotExclusive)
	g.Release()
	require.NoError(t, p.Close())
	_, err = p.Fix(ctx, PageID{2, 5}, Shared)
	require.ErrorIs(t, err, ErrClosed)
}

// TestHeapStaysNearPoolBytes fills a pool to the brim and checks the Go
// heap. In Arena mode frames come from one preallocated arena per
// instance, mapped outside the heap on Linux, so the heap grows by the
// descriptors and bookkeeping only (by the pool bytes too elsewhere and
// under the race detector), not
// by a page-sized allocation per miss. In PerMiss mode the frames in use
// are live heap objects.
func TestHeapStaysNearPoolBytes(t *testing.T) {
	for _, fr := range []Frames{Arena, PerMiss} {
		for _, zs := range []int{0, 8192} {
			t.Run(fmt.Sprintf("frames=%v/zip=%d", fr, zs), func(t *testing.T) {
				const bytes = 32 << 20
				runtime.GC()
				var base runtime.MemStats
				runtime.ReadMemStats(&base)
				p := newPool(t, Options{Bytes: bytes, Frames: fr})
				testSpace(t, p, 1, zs)
				pages := bytes / 16384 * 3 // three times what the frames hold
				createStamped(t, p, 1, pages)
				require.NoError(t, p.Flush())
				runtime.GC()
				var m runtime.MemStats
				runtime.ReadMemStats(&m)
				// The memory device holding the table lives on the heap too.
				heap := int64(m.HeapAlloc) - int64(base.HeapAlloc) - deviceBytes(p)
				s := p.Stats()
				t.Logf("pool %d MiB: heap grew %.1f MiB (%.3fx) beside a %.1f MiB storage device, with %d pages (%d compressed-only) in the pool",
					bytes>>20, float64(heap)/(1<<20), float64(heap)/bytes, float64(deviceBytes(p))/(1<<20), s.Pages, s.ZipOnly)
				switch {
				case fr == PerMiss:
					require.Greater(t, heap, int64(bytes/2), "frames in use are heap objects")
					require.LessOrEqual(t, heap, int64(bytes*11/10+4<<20))
				case runtime.GOOS == "linux" && !raceEnabled:
					require.LessOrEqual(t, heap, int64(bytes/10+4<<20), "the arena is mapped outside the heap")
				default:
					require.LessOrEqual(t, heap, int64(bytes*11/10+4<<20))
				}
				runtime.KeepAlive(p)
			})
		}
	}
}

func deviceBytes(p *Pool) (n int64) {
	for _, sp := range *p.spaces.Load() {
		n += sp.ts.Device().Allocated()
	}
	return n
}
