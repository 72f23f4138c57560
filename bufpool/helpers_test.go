package bufpool

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
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

// zblob returns a CreateZip fill formatting the block as page id of a
// compressed BLOB chain (odd pages ZBLOB, the first of a chain, even ones
// ZBLOB2) holding zblobPiece(id, version).
func zblob(id PageID, version byte) func([]byte) error {
	return func(b []byte) error {
		return page.FormatZBlobPage(b, id.PageNo, id.Space, id.PageNo%2 == 1, zblobPiece(id, version, len(b)), page.FilNull)
	}
}

// zblobPiece is the piece of a compressed stream that zblob's page holds:
// the id and version, then bytes derived from them; its length varies
// with the page number.
func zblobPiece(id PageID, version byte, zipSize int) []byte {
	b := make([]byte, page.ZBlobPayload(zipSize)-int(id.PageNo%13))
	binary.BigEndian.PutUint32(b, id.Space)
	binary.BigEndian.PutUint32(b[4:], id.PageNo)
	b[8] = version
	for i := 9; i < len(b); i++ {
		b[i] = byte(i*31) ^ byte(id.PageNo) ^ version
	}
	return b
}

// checkZBlob reports whether block is the page zblob(id, version)
// formatted; it returns an error rather than failing the test, so that
// goroutines can call it.
func checkZBlob(block []byte, id PageID, version byte) error {
	chunk, next, err := page.ParseZBlobPage(block, id.PageNo%2 == 1)
	if err != nil {
		return fmt.Errorf("page %v: %w", id, err)
	}
	if next != page.FilNull || !bytes.Equal(chunk, zblobPiece(id, version, len(block))) {
		return fmt.Errorf("page %v: the ZBLOB page does not hold version %d's piece (next %d, %d bytes)", id, version, next, len(chunk))
	}
	return nil
}

// createZBlobs makes pages 1..n of space ZBLOB pages of version 1.
func createZBlobs(t testing.TB, p *Pool, space uint32, n int) {
	t.Helper()
	for i := 1; i <= n; i++ {
		id := PageID{space, uint32(i)}
		require.NoError(t, p.CreateZip(ctx, id, zblob(id, 1)))
	}
}

// reopen closes p, which must hold only space id on mem, and opens that
// tablespace again in a new pool with options o: a restart.
func reopen(t testing.TB, p *Pool, mem *storage.Memory, id uint32, o Options) *Pool {
	t.Helper()
	require.NoError(t, p.Close())
	ts, err := storage.Open(mem.Reopen())
	require.NoError(t, err)
	q := newPool(t, o)
	require.NoError(t, q.AddSpace(id, ts, nil))
	return q
}

// checkZBlobFrame reports whether a guard's frame holds the page
// zblob(id, version) formatted, copied from its zip block, the rest zeros.
func checkZBlobFrame(g *Guard, id PageID, version byte) error {
	zs := g.Zip().Size()
	if rest := g.Frame()[zs:]; bytes.Count(rest, []byte{0}) != len(rest) {
		return fmt.Errorf("page %v: the frame past the %d-byte block copy is not zeros", id, zs)
	}
	return checkZBlob(g.Frame()[:zs], id, version)
}
