package bufpool

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim/storage"
)

// TestFixZipMissThenHit reads ZBLOB pages compressed-only: a miss reads
// the block and takes no frame (only the first 1K block carves one for the
// buddy allocator), a second fix is a hit on the block, and nothing is
// decompressed.
func TestFixZipMissThenHit(t *testing.T) {
	for _, lk := range []Locking{Split, Legacy} {
		t.Run(lk.String(), func(t *testing.T) {
			o := Options{Bytes: 16 * 16384, Locking: lk}
			p := newPool(t, o)
			mem := testSpace(t, p, 1, 1024)
			createZBlobs(t, p, 1, 3)
			p = reopen(t, p, mem, 1, o)
			id1, id2 := PageID{1, 1}, PageID{1, 2}

			s0 := p.Stats()
			g1, err := p.FixZip(ctx, id1)
			require.NoError(t, err)
			require.Equal(t, id1, g1.ID())
			require.NoError(t, checkZBlob(g1.Block(), id1, 1))
			s1 := p.Stats()
			d := s1.Sub(s0)
			require.Equal(t, uint64(1), d.Gets)
			require.Equal(t, uint64(1), d.Reads)
			require.Equal(t, 1, s1.Pages)
			require.Equal(t, 1, s1.ZipOnly)
			require.Zero(t, s1.UnzipLen)
			require.Equal(t, s0.FreeLen-1, s1.FreeLen, "the first 1K block carves a frame into buddy blocks")

			g2, err := p.FixZip(ctx, id2)
			require.NoError(t, err)
			require.NoError(t, checkZBlob(g2.Block(), id2, 1))
			g2.Release()
			s2 := p.Stats()
			d = s2.Sub(s1)
			require.Equal(t, uint64(1), d.Reads)
			require.Equal(t, s1.FreeLen, s2.FreeLen, "a compressed-only read takes a free block, no frame")
			require.Equal(t, 2, s2.Pages)
			require.Equal(t, 2, s2.ZipOnly)

			g2, err = p.FixZip(ctx, id2)
			require.NoError(t, err)
			require.NoError(t, checkZBlob(g2.Block(), id2, 1))
			d = p.Stats().Sub(s2)
			require.Equal(t, uint64(1), d.Gets)
			require.Equal(t, uint64(1), d.HitsZip)
			require.Zero(t, d.Reads)
			require.Equal(t, s2.FreeLen, d.FreeLen)
			require.Equal(t, 2, d.ZipOnly)
			require.Zero(t, d.CMP.Total().UncompressOps)
			require.InDelta(t, 1.0, d.HitRate(), 1e-9, "a hit on the block is a hit")
			require.Regexp(t, regexp.MustCompile(`HITS_ON_ZIP_BLOCK \|\s+1 \|`), d.String())
			var used1K uint64
			for _, r := range d.CMPMEM {
				if r.PageSize == 1024 {
					used1K += r.Used
				}
			}
			require.Equal(t, uint64(2), used1K)

			g2.Release()
			g2.Release() // a released guard's Release does nothing, as a zero one's
			g1.Release()
			var zero ZipGuard
			zero.Release()
			require.Empty(t, p.Check())
			require.NoError(t, p.Close())
		})
	}
}

// TestFixZipErrors: FixZip and CreateZip refuse uncompressed spaces, in
// the pool or not, unregistered spaces and page 0, saying why.
func TestFixZipErrors(t *testing.T) {
	p := newPool(t, Options{Bytes: 16 * 16384})
	testSpace(t, p, 1, 0)
	testSpace(t, p, 2, 8192)
	createStamped(t, p, 1, 1)

	for _, id := range []PageID{{1, 1}, {1, 2}} { // in the pool, then not
		_, err := p.FixZip(ctx, id)
		require.ErrorContains(t, err, "space 1 is not compressed")
	}
	require.ErrorContains(t, p.CreateZip(ctx, PageID{1, 3}, zblob(PageID{1, 3}, 1)), "space 1 is not compressed")
	_, err := p.FixZip(ctx, PageID{9, 1})
	require.ErrorContains(t, err, "space 9 is not registered")
	_, err = p.FixZip(ctx, PageID{2, 0})
	require.ErrorIs(t, err, storage.ErrPageOutOfRange)
	require.Error(t, p.CreateZip(ctx, PageID{2, 0}, zblob(PageID{2, 0}, 1)))
	require.Empty(t, p.Check())
}

// readGate is a memory device whose next read at one offset waits until
// the test lets it go, then fails with fail if that is set: a slow or
// failing disk.
type readGate struct {
	*storage.Memory
	mu      sync.Mutex
	target  int64
	fail    error
	entered chan struct{}
	release chan struct{}
}

func (d *readGate) arm(off int64, fail error) {
	d.mu.Lock()
	d.target, d.fail = off, fail
	d.entered = make(chan struct{})
	d.release = make(chan struct{})
	d.mu.Unlock()
}

func (d *readGate) ReadAt(p []byte, off int64) error {
	d.mu.Lock()
	hold := d.target == off
	var entered, release chan struct{}
	var fail error
	if hold {
		d.target = -1
		entered, release, fail = d.entered, d.release, d.fail
	}
	d.mu.Unlock()
	if hold {
		close(entered)
		<-release
		if fail != nil {
			return fail
		}
	}
	return d.Memory.ReadAt(p, off)
}

// TestFixZipWaitsForRead holds the read of a page (by FixZip or by Fix)
// in the device while FixZip and Fix (shared, exclusive) callers find the
// page: they must wait for the read, not see a half-read block. When the
// read succeeds the page is read once; when it fails, the reader gets an
// error naming the page and the device's problem, the page leaves the
// pool and the waiters read it again.
func TestFixZipWaitsForRead(t *testing.T) {
	errDisk := errors.New("the disk is on fire")
	for _, reader := range []string{"FixZip", "Fix"} {
		for _, fail := range []error{nil, errDisk} {
			t.Run(fmt.Sprintf("reader=%s/fail=%v", reader, fail != nil), func(t *testing.T) {
				const zs = 4096
				o := Options{Bytes: 16 * 16384}
				p := newPool(t, o)
				mem := testSpace(t, p, 1, zs)
				createZBlobs(t, p, 1, 8)
				require.NoError(t, p.Close())
				dev := &readGate{Memory: mem.Reopen(), target: -1}
				ts, err := storage.Open(dev)
				require.NoError(t, err)
				p = newPool(t, o)
				require.NoError(t, p.AddSpace(1, ts, nil))
				in := p.inst[0]
				id := PageID{1, 5}
				before := p.Stats()

				dev.arm(int64(id.PageNo)*zs, fail)
				first := make(chan error, 1)
				go func() {
					if reader == "FixZip" {
						g, err := p.FixZip(ctx, id)
						if err == nil {
							err = checkZBlob(g.Block(), id, 1)
							g.Release()
						}
						first <- err
						return
					}
					g, err := p.Fix(ctx, id, Shared)
					if err == nil {
						err = checkZBlobFrame(&g, id, 1)
						g.Release()
					}
					first <- err
				}()
				<-dev.entered // the page is in the page hash, its read in flight

				waiters := make(chan error, 3)
				go func() {
					g, err := p.FixZip(ctx, id)
					if err == nil {
						err = checkZBlob(g.Block(), id, 1)
						g.Release()
					}
					waiters <- err
				}()
				for _, mode := range []Mode{Shared, Exclusive} {
					go func() {
						g, err := p.Fix(ctx, id, mode)
						if err == nil {
							err = checkZBlobFrame(&g, id, 1)
							g.Release()
						}
						waiters <- err
					}()
				}
				pg := pageOf(in, id)
				for start := time.Now(); pg.fix.Load() != ioRead+4; {
					require.Less(t, time.Since(start), 5*time.Second, "the waiters never pinned the page")
					time.Sleep(time.Millisecond)
				}
				select {
				case err := <-waiters:
					t.Fatalf("a fixer returned (%v) while the read was in flight", err)
				case <-time.After(20 * time.Millisecond):
				}
				close(dev.release)

				err = <-first
				if fail == nil {
					require.NoError(t, err)
				} else {
					require.ErrorIs(t, err, errDisk)
					require.ErrorContains(t, err, "page 1:5")
				}
				for range 3 {
					require.NoError(t, <-waiters)
				}
				d := p.Stats().Sub(before)
				if fail == nil {
					require.Equal(t, uint64(1), d.Reads, "the waiters used the reader's block")
				} else {
					require.Positive(t, d.Reads, "a waiter read the page again")
				}
				require.Equal(t, []PageID{id}, pagesOf(p, 1))
				require.Empty(t, p.Check())
			})
		}
	}
}

// TestFixZipConcurrentSmallPool fixes ZBLOB pages of a table much larger
// than the pool from many goroutines, compressed-only and (one fix in
// four) with a frame, holding the previous block while fixing the next, so
// that eviction and buddy relocation run against pinned blocks; the
// workers fix the same pages in the same order, meeting on reads. One
// stored page has a bad checksum: every fix of it is an error naming it.
// Run under -race.
func TestFixZipConcurrentSmallPool(t *testing.T) {
	for _, zs := range []int{4096, 2048} {
		for _, lk := range []Locking{Split, Legacy} {
			t.Run(fmt.Sprintf("zip=%d/locking=%v", zs, lk), func(t *testing.T) {
				// Two instances of 48 frames: the buddy allocator merges
				// blocks into frames only past 16 free blocks of a size.
				const frames, pages, workers, ops, bad = 96, 1000, 8, 1000, 13
				o := Options{Bytes: frames * 16384, Locking: lk, Instances: 2}
				p := newPool(t, o)
				mem := testSpace(t, p, 1, zs)
				createZBlobs(t, p, 1, pages)
				p = reopen(t, p, mem, 1, o)
				off := int64(bad)*int64(zs) + 100 // in the stored piece
				b := make([]byte, 1)
				require.NoError(t, mem.ReadAt(b, off))
				b[0] ^= 0xff
				require.NoError(t, mem.WriteAt(b, off))

				badErr := regexp.MustCompile(`page 1:13\b.*checksum`)
				var wg sync.WaitGroup
				errs := make(chan error, workers)
				for w := range workers {
					wg.Add(1)
					go func(seed uint64) {
						defer wg.Done()
						// Every worker fixes the same pages in the same order,
						// so that they meet on the same misses.
						order := rand.New(rand.NewPCG(1, 11))
						r := rand.New(rand.NewPCG(seed, 11))
						var held ZipGuard
						defer func() { held.Release() }()
						for range ops {
							n := 1 + order.IntN(pages)
							if order.IntN(10) == 0 {
								n = bad
							}
							id := PageID{1, uint32(n)}
							if err := fixSome(p, id, r.IntN(4) == 0, &held); n == bad {
								if err == nil || !badErr.MatchString(err.Error()) {
									errs <- fmt.Errorf("fix of the bad page: got %v, want a checksum error naming page 1:13", err)
									return
								}
							} else if err != nil {
								errs <- err
								return
							}
						}
					}(uint64(w))
				}
				wg.Wait()
				close(errs)
				for err := range errs {
					require.NoError(t, err)
				}
				require.Empty(t, p.Check())
				require.Empty(t, func() (ids []PageID) {
					for _, id := range pagesOf(p, 1) {
						if id.PageNo == bad {
							ids = append(ids, id)
						}
					}
					return ids
				}(), "a page whose read failed stays out of the pool")
				s := p.Stats()
				t.Logf("gets %d, hits on blocks %d, frame hits %d, reads %d, page evictions %d, frame evictions %d, relocations %d",
					s.Gets, s.HitsZip, s.HitsFrame, s.Reads, s.EvictPage, s.EvictFrame, relocations(s))
				require.Positive(t, s.HitsZip)
				require.Positive(t, s.EvictPage, "the table is larger than the pool")
				require.Zero(t, s.CMP.Total().UncompressOps, "ZBLOB pages are copied, never decompressed")
				require.NoError(t, p.Close())
			})
		}
	}
}

// fixSome fixes id and checks its content: with FixZip, keeping the guard
// in held (releasing the one held before), or with Fix shared, checking
// the frame's copy.
func fixSome(p *Pool, id PageID, frame bool, held *ZipGuard) error {
	if frame {
		g, err := p.Fix(ctx, id, Shared)
		if err != nil {
			return err
		}
		defer g.Release()
		return checkZBlobFrame(&g, id, 1)
	}
	g, err := p.FixZip(ctx, id)
	if err != nil {
		return err
	}
	held.Release()
	*held = g
	return checkZBlob(g.Block(), id, 1)
}
