package bufpool

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim/page"
)

// TestFixZBlobCopiesIntoFrame fixes a ZBLOB page, compressed-only in the
// pool or read from storage, shared or exclusive: the frame holds the
// block's bytes, no decompression is counted and the descriptor describes
// no index page. Then the page is reused as a B-tree page the way btree's
// newPage does it (Create, ErrExists, Fix exclusive, page.CreateIndex on
// the frame, compress into Zip), and reads back as one after a restart.
func TestFixZBlobCopiesIntoFrame(t *testing.T) {
	for _, zs := range []int{1024, 8192} {
		for _, lk := range []Locking{Split, Legacy} {
			for _, from := range []string{"compressed-only", "storage"} {
				for _, mode := range []Mode{Shared, Exclusive} {
					t.Run(fmt.Sprintf("zip=%d/locking=%v/from=%s/%v", zs, lk, from, mode), func(t *testing.T) {
						o := Options{Bytes: 16 * 16384, Locking: lk}
						p := newPool(t, o)
						mem := testSpace(t, p, 1, zs)
						createZBlobs(t, p, 1, 2) // page 1 ZBLOB, page 2 ZBLOB2
						require.NoError(t, p.Flush())
						if from == "storage" {
							p = reopen(t, p, mem, 1, o)
						}
						for _, id := range []PageID{{1, 1}, {1, 2}} {
							before := p.Stats()
							g, err := p.Fix(ctx, id, mode)
							require.NoError(t, err)
							require.NoError(t, checkZBlobFrame(&g, id, 1))
							require.False(t, g.Zip().Known(), "the descriptor claims an index page")
							require.NoError(t, checkZBlob(g.Zip().Data(), id, 1))
							g.Release()
							d := p.Stats().Sub(before)
							require.Zero(t, d.CMP.Total().UncompressOps)
							require.Zero(t, d.HitsUnzip)
							if from == "storage" {
								require.Equal(t, uint64(1), d.Reads)
							} else {
								require.Equal(t, uint64(1), d.HitsZip)
							}
							require.Empty(t, p.Check())
						}

						// The tablespace reuses page 1: btree's newPage.
						id := PageID{1, 1}
						_, err := p.Create(ctx, id)
						require.ErrorIs(t, err, ErrExists)
						g, err := p.Fix(ctx, id, Exclusive)
						require.NoError(t, err)
						stamp(t, &g, 7) // page.CreateIndex, Insert, Zip().Compress, MarkDirty
						require.True(t, g.Zip().Known())
						g.Release()
						require.Empty(t, p.Check())

						p = reopen(t, p, mem, 1, o)
						g, err = p.Fix(ctx, id, Shared)
						require.NoError(t, err)
						got, v := readStamp(t, &g)
						require.Equal(t, id, got)
						require.Equal(t, uint64(7), v)
						g.Release()
						g2, err := p.FixZip(ctx, PageID{1, 2})
						require.NoError(t, err)
						require.NoError(t, checkZBlob(g2.Block(), PageID{1, 2}, 1))
						g2.Release()
						require.Empty(t, p.Check())
						require.NoError(t, p.Close())
					})
				}
			}
		}
	}
}

// TestReuseCompressedOnlyZBlob reuses a ZBLOB page that is compressed-only
// in the pool, never given a frame: the exclusive fix of newPage copies it
// into a frame and the B-tree page replaces it.
func TestReuseCompressedOnlyZBlob(t *testing.T) {
	p := newPool(t, Options{Bytes: 16 * 16384, Locking: Legacy})
	testSpace(t, p, 1, 4096)
	id := PageID{1, 3}
	require.NoError(t, p.CreateZip(ctx, id, zblob(id, 1)))
	_, err := p.Create(ctx, id)
	require.ErrorIs(t, err, ErrExists)
	g, err := p.Fix(ctx, id, Exclusive)
	require.NoError(t, err)
	stamp(t, &g, 2)
	g.Release()
	require.Empty(t, p.Check())
	g, err = p.Fix(ctx, id, Shared)
	require.NoError(t, err)
	got, v := readStamp(t, &g)
	require.Equal(t, id, got)
	require.Equal(t, uint64(2), v)
	g.Release()
	require.NoError(t, p.Flush())
	require.Empty(t, p.Check())
}

// TestInflateByType: a block of a type InnoDB stores as it is
// (ALLOCATED: a slot never written) is copied, zeros here; a block of any
// other type but index is corrupt, an error naming the page, and the page
// stays in the pool compressed-only.
func TestInflateByType(t *testing.T) {
	p := newPool(t, Options{Bytes: 16 * 16384})
	testSpace(t, p, 1, 8192)
	far := PageID{1, 20}
	require.NoError(t, p.CreateZip(ctx, far, zblob(far, 1)))
	require.NoError(t, p.Flush())

	g, err := p.Fix(ctx, PageID{1, 4}, Shared) // never written: zeros
	require.NoError(t, err)
	require.Equal(t, make([]byte, len(g.Frame())), g.Frame())
	g.Release()

	id := PageID{1, 6}
	require.NoError(t, p.CreateZip(ctx, id, func(b []byte) error {
		page.Fil(b).SetPageNo(id.PageNo)
		page.Fil(b).SetType(page.TypeBlob) // an uncompressed BLOB page has no place in a zip block
		return nil
	}))
	_, err = p.Fix(ctx, id, Exclusive)
	var corrupt *page.CorruptError
	require.True(t, errors.As(err, &corrupt), "got %v", err)
	require.ErrorContains(t, err, "page 6")
	require.ErrorContains(t, err, "BLOB")
	require.Empty(t, p.Check())
	zg, err := p.FixZip(ctx, id)
	require.NoError(t, err, "the compressed copy is still there")
	zg.Release()
	require.Empty(t, p.Check())
}
