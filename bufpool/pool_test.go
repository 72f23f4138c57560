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
