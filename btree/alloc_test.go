//go:build !race

package btree

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
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

// TestZeroAllocsStructureChanges: splits and merges reuse the index's
// path, separator and (in SX mode) held-page scratch, under either index
// lock. A window of 3,000 rows moves along the key space, each write an
// insert at its end and a delete at its start, so that leaves split at
// one end and merge at the other; or (random) each write inserts a new
// random key and deletes a random live one, so that compressed leaves
// split in the middle and, when a half does not compress, split again.
// With the collector off and on one P, every allocation over 4,000 writes
// is counted, allowing ten for scratch that still grows (at most one in
// the runs so far).
func TestZeroAllocsStructureChanges(t *testing.T) {
	for _, sx := range []bool{false, true} {
		for _, zip := range []int{0, 8192} {
			t.Run(fmt.Sprintf("sx=%v/%s", sx, zipName(zip)), func(t *testing.T) {
				testZeroAllocsStructureChanges(t, sx, zip, false)
			})
		}
		t.Run(fmt.Sprintf("sx=%v/%s/random", sx, zipName(8192)), func(t *testing.T) {
			testZeroAllocsStructureChanges(t, sx, 8192, true)
		})
	}
}

func testZeroAllocsStructureChanges(t *testing.T, sx bool, zip int, random bool) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	e := newEnv(t, zip, 8<<20)
	o := e.options(1, true)
	o.SXIndexLock = sx
	ix, err := Create(ctx, o)
	require.NoError(t, err)
	const window = 3000
	val := make([]byte, 200)
	r := rand.New(rand.NewPCG(1, uint64(zip)))
	var key []byte
	next, old := uint64(0), uint64(0)
	live := make([]uint64, 0, 2*window)
	write := func() {
		key = binary.BigEndian.AppendUint64(key[:0], next)
		next++
		if random {
			live = append(live, r.Uint64())
			key = binary.BigEndian.AppendUint64(key[:0], live[len(live)-1])
		}
		// Half-random values: compressed leaves split on
		// compression failures, some more than once.
		for i := 0; i < len(val)/2; i += 8 {
			binary.LittleEndian.PutUint64(val[i:], r.Uint64())
		}
		require.NoError(t, ix.Insert(ctx, key, val))
		switch {
		case random && len(live) > window:
			i := r.IntN(len(live))
			key = binary.BigEndian.AppendUint64(key[:0], live[i])
			live[i] = live[len(live)-1]
			live = live[:len(live)-1]
			require.NoError(t, ix.Delete(ctx, key))
		case !random && next > window:
			key = binary.BigEndian.AppendUint64(key[:0], old)
			old++
			require.NoError(t, ix.Delete(ctx, key))
		}
	}
	for range 2 * window {
		write()
	}
	s0 := ix.Stats()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	for range 4000 {
		write()
	}
	runtime.ReadMemStats(&m1)
	d := ix.Stats().Sub(s0)
	require.Positive(t, d.Splits(), "splits")
	require.Positive(t, d.Merges+d.Discards, "merges")
	require.Equal(t, sx, d.TreeLatches > 0)
	n := m1.Mallocs - m0.Mallocs
	t.Logf("%d allocations in 4,000 writes: %d splits (%d extra passes, %d root raises), %d merges, %d discards, %d pages latched in advance", n, d.Splits(), d.SplitIterations, d.RootRaises, d.Merges, d.Discards, d.TreeLatches)
	require.LessOrEqual(t, n, uint64(10))
}
