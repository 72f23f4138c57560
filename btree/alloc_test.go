//go:build !race

package btree

import (
	"runtime"
	"runtime/debug"
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

// TestZeroAllocsChangeBuffer: in steady state, writes that the change
// buffer takes, and the merges that apply them, reuse the buffer's
// per-page lists and maps. It counts every allocation over 4,000 writes
// with the collector off and on one P (as sim's TestZeroAllocsSysbench
// does), allowing one in 40 for a list, map or split scratch that still
// grows (43 at 8K, 0-4 uncompressed, in three runs).
func TestZeroAllocsChangeBuffer(t *testing.T) {
	for _, zip := range []int{0, 8192} {
		t.Run(zipName(zip), func(t *testing.T) {
			defer debug.SetGCPercent(debug.SetGCPercent(-1))
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
			_, cb, ix := newBufferedIndex(t, zip, 512<<10, 0)
			const rows = 20000
			for id := range uint64(rows) {
				require.NoError(t, ix.Insert(ctx, secKey(id), nil))
			}
			var key []byte
			next, old := uint64(rows), uint64(0)
			write := func() {
				key = appendSecKey(key[:0], next)
				next++
				require.NoError(t, ix.Insert(ctx, key, nil))
				key = appendSecKey(key[:0], old)
				old++
				require.NoError(t, ix.Delete(ctx, key))
			}
			for range 4000 {
				write()
			}
			c0 := cb.Stats()
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			for range 2000 {
				write()
			}
			runtime.ReadMemStats(&m1)
			d := cb.Stats().Sub(c0)
			require.NotZero(t, d.Inserts+d.Deletes, "the buffer took nothing")
			require.NotZero(t, d.Merges, "nothing was merged")
			n := m1.Mallocs - m0.Mallocs
			t.Logf("%d allocations in 4,000 writes; buffered %d, merged %d pages", n, d.Inserts+d.Deletes, d.Merges)
			require.LessOrEqual(t, n, uint64(4000/40))
		})
	}
}
