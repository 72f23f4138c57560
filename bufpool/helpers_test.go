package bufpool

import (
	"bytes"
	"context"
	"encoding/binary"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim/page"
	"github.com/zipsim/zipsim/storage"
)

var ctx = context.Background()

// testSpace creates a tablespace on a memory device and registers it.
func testSpace(t testing.TB, p *Pool, id uint32, zipSize int) *storage.Memory {
	t.Helper()
	mem, err := storage.NewMemory(storage.MemoryOptions{})
	require.NoError(t, err)
	ts, err := storage.Create(mem, storage.Options{PageSize: p.opts.PageSize, ZipSize: zipSize, SpaceID: id})
	require.NoError(t, err)
	require.NoError(t, p.AddSpace(id, ts, nil))
	return mem
}

func newPool(t testing.TB, o Options) *Pool {
	t.Helper()
	p, err := New(o)
	require.NoError(t, err)
	return p
}

var stampKey = []byte("stamp")

// stamp formats the guard's page as a leaf holding one record with the
// page id and a version, and on a compressed table compresses it, as a
// B-tree change would keep the zip image in step.
func stamp(t testing.TB, g *Guard, version uint64) {
	t.Helper()
	id := g.ID()
	pg, err := page.CreateIndex(g.Frame(), page.IndexOptions{PageNo: id.PageNo, SpaceID: id.Space, IndexID: 1})
	require.NoError(t, err)
	v := binary.BigEndian.AppendUint32(nil, id.Space)
	v = binary.BigEndian.AppendUint32(v, id.PageNo)
	v = binary.BigEndian.AppendUint64(v, version)
	v = append(v, bytes.Repeat([]byte("zipsim page "), 40)...)
	_, err = pg.Insert(0, page.Record{Key: stampKey, Value: v})
	require.NoError(t, err)
	if z := g.Zip(); z != nil {
		require.NoError(t, z.Compress(pg, page.Env{}))
	}
	require.NoError(t, g.MarkDirty())
}

// restamp bumps the version in place and mirrors it into the zip image
// through the modification log, or recompresses when the log is full.
func restamp(t testing.TB, g *Guard, version uint64) {
	t.Helper()
	pg := page.IndexPage(g.Frame())
	rec := pg.Record(0)
	v := bytes.Clone(rec.Value)
	binary.BigEndian.PutUint64(v[8:], version)
	rec.Value = v
	require.NoError(t, pg.UpdateInPlace(0, rec))
	if z := g.Zip(); z != nil {
		if z.Available(page.RecordSize(pg.Kind(), len(rec.Key), len(v)), false) {
			require.NoError(t, z.LogUpdate(pg, 0))
		} else {
			require.NoError(t, z.Compress(pg, page.Env{}))
		}
	}
	require.NoError(t, g.MarkDirty())
}

// readStamp returns the id and version a page carries.
func readStamp(t testing.TB, g *Guard) (PageID, uint64) {
	t.Helper()
	pg := page.IndexPage(g.Frame())
	require.Equal(t, 1, pg.NRecs(), "page %v", g.ID())
	v := pg.Value(0)
	return PageID{binary.BigEndian.Uint32(v), binary.BigEndian.Uint32(v[4:])}, binary.BigEndian.Uint64(v[8:])
}

// benchThreads is the number of goroutines RunParallel uses.
func benchThreads() int { return runtime.GOMAXPROCS(0) }

// createStamped creates pages 1..n of space, each stamped with version 1.
func createStamped(t testing.TB, p *Pool, space uint32, n int) {
	t.Helper()
	for i := 1; i <= n; i++ {
		g, err := p.Create(ctx, PageID{space, uint32(i)})
		require.NoError(t, err)
		stamp(t, &g, 1)
		g.Release()
	}
}
