package bufpool

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim/page"
)

// TestCreateZipFlushReopen creates ZBLOB pages, more than the pool holds,
// closes the pool and reads every block back in a new pool with FixZip,
// byte for byte as fill made it (but the checksum, which the write
// stamps).
func TestCreateZipFlushReopen(t *testing.T) {
	for _, zs := range []int{1024, 8192, 16384} {
		for _, lk := range []Locking{Split, Legacy} {
			t.Run(fmt.Sprintf("zip=%d/locking=%v", zs, lk), func(t *testing.T) {
				const pages = 100
				o := Options{Bytes: 32 * 16384, Locking: lk}
				p := newPool(t, o)
				mem := testSpace(t, p, 1, zs)
				before := p.Stats()
				createZBlobs(t, p, 1, pages)
				d := p.Stats().Sub(before)
				require.Equal(t, uint64(pages), d.Creates)
				require.Zero(t, d.Gets)
				require.Zero(t, d.UnzipLen, "created compressed-only")
				require.Equal(t, d.Pages, d.ZipOnly)
				require.Empty(t, p.Check())

				p = reopen(t, p, mem, 1, o)
				want := make([]byte, zs)
				for i := pages; i >= 1; i-- {
					id := PageID{1, uint32(i)}
					g, err := p.FixZip(ctx, id)
					require.NoError(t, err)
					require.NoError(t, zblob(id, 1)(want))
					require.True(t, bytes.Equal(want[page.FilPageNo:], g.Block()[page.FilPageNo:]), "page %v differs after reopen", id)
					require.NoError(t, page.Verify(g.Block()))
					require.NoError(t, checkZBlob(g.Block(), id, 1))
					g.Release()
				}
				require.Empty(t, p.Check())
				require.NoError(t, p.Close())
			})
		}
	}
}

// storedBlock returns what the tablespace holds for a page.
func storedBlock(t *testing.T, p *Pool, id PageID) []byte {
	t.Helper()
	sp, err := p.space(id.Space)
	require.NoError(t, err)
	b := make([]byte, sp.zipSize)
	require.NoError(t, sp.ts.ReadPage(id.PageNo, b))
	return b
}

// TestCreateZipReplaces creates a ZBLOB page over a page of the same
// number already in the pool, with a frame or compressed-only, dirty or
// clean: the old copy is discarded without a write, and the next flush
// writes only the new one.
func TestCreateZipReplaces(t *testing.T) {
	const zs = 8192
	id := PageID{1, 5}
	olds := []struct {
		name  string
		make  func(t *testing.T, p *Pool)
		frame bool
	}{
		{"frame/dirty", func(t *testing.T, p *Pool) {
			g, err := p.Create(ctx, id)
			require.NoError(t, err)
			stamp(t, &g, 1)
			g.Release()
		}, true},
		{"frame/clean", func(t *testing.T, p *Pool) {
			g, err := p.Create(ctx, id)
			require.NoError(t, err)
			stamp(t, &g, 1)
			g.Release()
			require.NoError(t, p.Flush())
		}, true},
		{"compressed-only/dirty", func(t *testing.T, p *Pool) {
			require.NoError(t, p.CreateZip(ctx, id, zblob(id, 1)))
		}, false},
		{"compressed-only/clean", func(t *testing.T, p *Pool) {
			require.NoError(t, p.CreateZip(ctx, id, zblob(id, 1)))
			require.NoError(t, p.Flush())
		}, false},
	}
	for _, old := range olds {
		for _, lk := range []Locking{Split, Legacy} {
			t.Run(fmt.Sprintf("%s/locking=%v", old.name, lk), func(t *testing.T) {
				p := newPool(t, Options{Bytes: 16 * 16384, Locking: lk})
				testSpace(t, p, 1, zs)
				far := PageID{1, 50} // written first, so that slot 5 reads as zeros until written
				require.NoError(t, p.CreateZip(ctx, far, zblob(far, 1)))
				require.NoError(t, p.Flush())
				old.make(t, p)
				stored := storedBlock(t, p, id)
				before := p.Stats()

				require.NoError(t, p.CreateZip(ctx, id, zblob(id, 2)))
				require.Empty(t, p.Check())
				after := p.Stats()
				d := after.Sub(before)
				require.Zero(t, d.Writes, "the old copy is not written")
				require.Equal(t, stored, storedBlock(t, p, id))
				require.Equal(t, before.Pages, after.Pages)
				require.Equal(t, after.Pages, after.ZipOnly, "the new page is compressed-only")
				if old.frame {
					// Check found the old frame free or the buddy allocator's.
					require.Equal(t, before.UnzipLen-1, after.UnzipLen)
				}

				require.NoError(t, p.Flush())
				d = p.Stats().Sub(before)
				require.Equal(t, uint64(1), d.Writes, "only the new page is written")
				require.NoError(t, checkZBlob(storedBlock(t, p, id), id, 2))
				g, err := p.FixZip(ctx, id)
				require.NoError(t, err)
				require.NoError(t, checkZBlob(g.Block(), id, 2))
				g.Release()
				require.Empty(t, p.Check())
				require.NoError(t, p.Close())
			})
		}
	}
}

// TestCreateZipWaitsForPins: a page held by a guard is replaced only once
// the guard is released; CreateZip gives up when its context ends, leaving
// the old page as it was.
func TestCreateZipWaitsForPins(t *testing.T) {
	for _, holder := range []string{"FixZip", "Fix"} {
		t.Run(holder, func(t *testing.T) {
			p := newPool(t, Options{Bytes: 16 * 16384})
			testSpace(t, p, 1, 4096)
			id := PageID{1, 3}
			require.NoError(t, p.CreateZip(ctx, id, zblob(id, 1)))
			release := func() {}
			if holder == "FixZip" {
				g, err := p.FixZip(ctx, id)
				require.NoError(t, err)
				release = g.Release
			} else {
				g, err := p.Fix(ctx, id, Shared)
				require.NoError(t, err)
				release = g.Release
			}

			c, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
			defer cancel()
			before := p.Stats()
			err := p.CreateZip(c, id, zblob(id, 2))
			require.ErrorIs(t, err, context.DeadlineExceeded)
			require.ErrorContains(t, err, "page 1:3")
			d := p.Stats().Sub(before)
			require.Zero(t, d.Creates)
			require.Equal(t, before.FreeLen, d.FreeLen)

			go func() {
				time.Sleep(20 * time.Millisecond)
				release()
			}()
			require.NoError(t, p.CreateZip(ctx, id, zblob(id, 2)))
			g, err := p.FixZip(ctx, id)
			require.NoError(t, err)
			require.NoError(t, checkZBlob(g.Block(), id, 2))
			g.Release()
			require.Empty(t, p.Check())
		})
	}
}

// TestCreateZipFillError: a fill that fails leaves the pool as it was,
// the page of that number included, and its error comes back.
func TestCreateZipFillError(t *testing.T) {
	p := newPool(t, Options{Bytes: 16 * 16384})
	testSpace(t, p, 1, 2048)
	kept := PageID{1, 4}
	require.NoError(t, p.CreateZip(ctx, kept, zblob(kept, 1)))
	errFill := errors.New("the BLOB stream ended early")
	fail := func(b []byte) error {
		b[100] = 1 // half written
		return errFill
	}
	before := p.Stats()
	for _, id := range []PageID{kept, {1, 9}} {
		err := p.CreateZip(ctx, id, fail)
		require.ErrorIs(t, err, errFill)
		require.ErrorContains(t, err, id.String())
	}
	d := p.Stats().Sub(before)
	require.Zero(t, d.Creates)
	require.Equal(t, before.Pages, d.Pages)
	require.Equal(t, before.FreeLen, d.FreeLen)
	require.Equal(t, before.CMPMEM, p.Stats().CMPMEM, "the block went back")
	require.Equal(t, []PageID{kept}, pagesOf(p, 1))
	g, err := p.FixZip(ctx, kept)
	require.NoError(t, err)
	require.NoError(t, checkZBlob(g.Block(), kept, 1))
	g.Release()
	require.Empty(t, p.Check())
}
