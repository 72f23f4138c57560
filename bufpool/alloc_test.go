//go:build !race

// Allocation counts are meaningless under -race; CI runs these tests in a
// second, non-race pass (go test -run ZeroAllocs ./...), see README.md.

package bufpool

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestZeroAllocsFix checks that fixes allocate nothing in steady state:
// hits on a frame, hits that decompress, and misses that evict and read,
// in both locking modes.
func TestZeroAllocsFix(t *testing.T) {
	cases := []struct {
		kind               string
		zip, frames, pages int
	}{
		{"hit", 0, 64, 32},
		{"hit", 8192, 64, 32},
		{"unzip", 8192, 64, 96}, // as BenchmarkFixUnzip
		{"miss", 0, 64, 256},
		{"miss", 8192, 64, 512},
	}
	for _, lk := range []Locking{Split, Legacy} {
		for _, c := range cases {
			t.Run(fmt.Sprintf("locking=%v/fix=%s/zip=%dK", lk, c.kind, c.zip/1024), func(t *testing.T) {
				p := benchPool(t, Options{Bytes: int64(c.frames) * 16384, Locking: lk}, c.zip, c.pages)
				warm(t, p, c.pages)
				r := rand.New(rand.NewPCG(5, 6))
				before := p.Stats()
				allocs := testing.AllocsPerRun(500, func() { fixRelease(t, p, r, c.pages) })
				require.Zero(t, allocs)
				d := p.Stats().Sub(before)
				switch c.kind {
				case "hit":
					require.Equal(t, d.Gets, d.HitsFrame)
				case "unzip":
					require.Positive(t, d.HitsUnzip)
				case "miss":
					require.Positive(t, d.Reads)
				}
			})
		}
	}
}
