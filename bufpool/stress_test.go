package bufpool

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim/page"
	"github.com/zipsim/zipsim/storage"
)

// TestStressSmallPool runs goroutines fixing random pages of a table four
// times the pool, shared and exclusive, exclusive fixes bumping a version
// stamped in the page (through the modification log on compressed
// tables); every fix checks the page's id and version, and Check must be
// clean afterwards. Run under -race.
func TestStressSmallPool(t *testing.T) {
	type mode struct {
		lk Locking
		fr Frames
		la Latching
	}
	for _, zs := range []int{0, 8192, 2048} {
		for _, m := range []mode{{Split, Arena, GoLatches}, {Legacy, Arena, GoLatches}, {Global, Arena, GoLatches}, {Global, Arena, BuiltinLatches}, {Split, Arena, PluginLatches}, {Split, PerMiss, GoLatches}} {
			t.Run(fmt.Sprintf("zip=%d/locking=%v/frames=%v/latching=%v", zs, m.lk, m.fr, m.la), func(t *testing.T) {
				const frames, pages, workers, ops = 48, 200, 8, 1500
				p := newPool(t, Options{Bytes: frames * 16384, Locking: m.lk, Frames: m.fr, Instances: 2, Latching: m.la})
				require.Equal(t, m.la.impl(), p.Latches().Impl())
				testSpace(t, p, 1, zs)
				versions := make([]atomic.Uint64, pages+1)
				for i := 1; i <= pages; i++ {
					g, err := p.Create(ctx, PageID{1, uint32(i)})
					require.NoError(t, err)
					stamp(t, &g, 1)
					versions[i].Store(1)
					g.Release()
				}
				var wg sync.WaitGroup
				errs := make(chan error, workers)
				for w := 0; w < workers; w++ {
					wg.Add(1)
					go func(seed uint64) {
						defer wg.Done()
						r := rand.New(rand.NewPCG(seed, 7))
						for i := 0; i < ops; i++ {
							n := 1 + r.IntN(pages)
							id := PageID{1, uint32(n)}
							mode := Shared
							if r.IntN(4) == 0 {
								mode = Exclusive
							}
							g, err := p.Fix(ctx, id, mode)
							if err != nil {
								errs <- err
								return
							}
							got, v := readStamp(t, &g)
							if got != id || v != versions[n].Load() {
								errs <- fmt.Errorf("page %v holds %v version %d, want version %d", id, got, v, versions[n].Load())
								g.Release()
								return
							}
							if mode == Exclusive {
								restamp(t, &g, v+1)
								versions[n].Store(v + 1)
							}
							g.Release()
						}
					}(uint64(w))
				}
				wg.Wait()
				close(errs)
				for err := range errs {
					require.NoError(t, err)
				}
				require.Empty(t, p.Check())
				s := p.Stats()
				t.Logf("gets %d, frame hits %d, decompressing hits %d, reads %d, writes %d, frame evictions %d, page evictions %d, relocations %d",
					s.Gets, s.HitsFrame, s.HitsUnzip, s.Reads, s.Writes, s.EvictFrame, s.EvictPage, relocations(s))
				require.Positive(t, s.Reads, "the table is larger than the pool")
				require.NoError(t, p.Close())
			})
		}
	}
}

func relocations(s Stats) (n uint64) {
	for _, r := range s.CMPMEM {
		n += r.RelocationOps
	}
	return n
}

// TestReopenReadsPagesBack closes a pool and its tablespaces cleanly, opens
// them again in a new pool, and reads every page back byte-identical (the
// checksum field and FIL trailer aside, which a write stamps).
func TestReopenReadsPagesBack(t *testing.T) {
	for _, zs := range []int{0, 8192, 1024} {
		t.Run(fmt.Sprintf("zip=%d", zs), func(t *testing.T) {
			const pages = 120
			p := newPool(t, Options{Bytes: 40 * 16384})
			mem := testSpace(t, p, 3, zs)
			want := make([][]byte, pages+1)
			for i := 1; i <= pages; i++ {
				g, err := p.Create(ctx, PageID{3, uint32(i)})
				require.NoError(t, err)
				stamp(t, &g, uint64(i))
				g.Release()
			}
			for i := 1; i <= pages; i++ {
				g, err := p.Fix(ctx, PageID{3, uint32(i)}, Shared)
				require.NoError(t, err)
				want[i] = bytes.Clone(g.Frame())
				g.Release()
			}
			require.NoError(t, p.Close())

			ts, err := storage.Open(mem.Reopen())
			require.NoError(t, err)
			q := newPool(t, Options{Bytes: 40 * 16384})
			require.NoError(t, q.AddSpace(3, ts, nil))
			for i := pages; i >= 1; i-- {
				g, err := q.Fix(ctx, PageID{3, uint32(i)}, Shared)
				require.NoError(t, err)
				end := len(want[i]) - page.FilTrailerSize
				require.True(t, bytes.Equal(want[i][page.FilPageNo:end], g.Frame()[page.FilPageNo:end]), "page %d differs after reopen", i)
				g.Release()
			}
			require.Empty(t, q.Check())
			require.NoError(t, q.Close())
		})
	}
}
