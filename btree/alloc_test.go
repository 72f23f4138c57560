//go:build !race

package btree

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The zero-allocation promises of Get and Scan on a cached tree. CI runs
// them in the non-race pass (go test -run ZeroAllocs ./...); under -race
// sync.Pool drops items at random, so allocation counts mean nothing there.

func TestZeroAllocsGet(t *testing.T) {
	for _, zip := range benchZips {
		t.Run(zipName(zip), func(t *testing.T) {
			ix, _ := cachedIndex(t, zip, 3000)
			keys := benchKeys(3000)
			dst := make([]byte, 0, 256)
			i := 0
			allocs := testing.AllocsPerRun(2000, func() {
				var found bool
				var err error
				dst, found, err = ix.Get(ctx, keys[i%len(keys)], dst[:0])
				if err != nil || !found {
					t.Fatal(err, found)
				}
				i++
			})
			require.Zero(t, allocs)
		})
	}
}

func TestZeroAllocsScan(t *testing.T) {
	for _, zip := range benchZips {
		t.Run(zipName(zip), func(t *testing.T) {
			ix, _ := cachedIndex(t, zip, 3000)
			keys := benchKeys(3000)
			i, n := 0, 0
			count := func(k, v []byte) bool {
				n++
				return n < 100
			}
			for _, reverse := range []bool{false, true} {
				allocs := testing.AllocsPerRun(500, func() {
					n = 0
					if err := ix.Scan(ctx, keys[i%len(keys)], nil, reverse, count); err != nil {
						t.Fatal(err)
					}
					i += 7
				})
				require.Zero(t, allocs, "reverse=%v", reverse)
			}
		})
	}
}
