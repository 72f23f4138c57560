package bufpool

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim/internal/latch"
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
	require.Equal(t, "plugin", PluginLatches.String())
	require.Equal(t, "Latching(7)", Latching(7).String())

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
		{Options{Bytes: 3 << 40, Instances: 1}, "at most 2199023254528 (2 TiB): use more instances"},
		{Options{Locking: 7}, "Split, Legacy or Global"},
		{Options{Frames: 5}, "Arena or PerMiss"},
		{Options{LRUScanDepth: -3}, "LRUScanDepth"},
		{Options{OldPct: 99}, "5..95"},
		{Options{Latches: latch.NewRegistry(latch.Options{}), Latching: BuiltinLatches}, "leave Latches nil"},
		{Options{Latches: latch.NewRegistry(latch.Options{Impl: latch.Plugin})}, "Latching is go but the Latches registry's locks are plugin"},
		{Options{Latching: 3}, "GoLatches, BuiltinLatches or PluginLatches"},
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

func deviceBytes(p *Pool) (n int64) {
	for _, sp := range *p.spaces.Load() {
		n += sp.ts.Device().Allocated()
	}
	return n
}
