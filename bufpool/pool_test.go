package bufpool

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCreateFixEvictReread(t *testing.T) {
	for _, zs := range []int{0, 8192, 4096, 16384} {
		for _, lk := range []Locking{Split, Legacy} {
			t.Run(fmt.Sprintf("zip=%d/locking=%v", zs, lk), func(t *testing.T) {
				p := newPool(t, Options{Bytes: 32 * 16384, Locking: lk})
				testSpace(t, p, 1, zs)
				const n = 200
				createStamped(t, p, 1, n)
				require.Empty(t, p.Check())
				for round := 0; round < 2; round++ {
					for i := 1; i <= n; i++ {
						id := PageID{1, uint32(i)}
						g, err := p.Fix(ctx, id, Shared)
						require.NoError(t, err)
						got, v := readStamp(t, &g)
						require.Equal(t, id, got)
						require.Equal(t, uint64(1), v)
						g.Release()
					}
					require.Empty(t, p.Check())
				}
				s := p.Stats()
				require.Positive(t, s.Reads)
				require.Positive(t, s.Writes)
				require.NoError(t, p.Close())
			})
		}
	}
}

// TestGlobalLockingTakesPoolMutexPerFix checks what sets Global apart:
// every fix, hits on cached frames included, takes the pool's one LRU
// mutex (the builtin's buf_pool->mutex); Split and Legacy hits take none.
func TestGlobalLockingTakesPoolMutexPerFix(t *testing.T) {
	for _, lk := range []Locking{Split, Legacy, Global} {
		t.Run(lk.String(), func(t *testing.T) {
			p := newPool(t, Options{Bytes: 64 * 16384, Locking: lk, Instances: 2, OldBlocksTime: -1})
			testSpace(t, p, 1, 0)
			createStamped(t, p, 1, 32)
			before := p.Stats()
			for i := 1; i <= 32; i++ {
				g, err := p.Fix(ctx, PageID{1, uint32(i)}, Shared)
				require.NoError(t, err)
				g.Release()
			}
			d := p.Stats().Sub(before)
			require.Equal(t, uint64(32), d.HitsFrame)
			lru, _ := d.Latches.Get("LRU_list_mutex")
			if lk == Global {
				require.GreaterOrEqual(t, lru.Acquisitions, uint64(32))
			} else {
				require.Less(t, lru.Acquisitions, uint64(32), "a hit on a young page takes no list mutex")
			}
		})
	}
}
