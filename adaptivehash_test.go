package zipsim_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim"
	"github.com/zipsim/zipsim/bufpool"
)

// TestAdaptiveHashIndexOptions: AdaptiveHashParts needs AdaptiveHashIndex
// and 1..512 (0: 8); Metrics reports the hash only when it is on.
func TestAdaptiveHashIndexOptions(t *testing.T) {
	pool := bufpool.Options{Bytes: 4 << 20}
	for _, tc := range []struct {
		name string
		opts zipsim.Options
		want string
	}{
		{"parts without the index", zipsim.Options{Pool: pool, AdaptiveHashParts: 4}, "AdaptiveHashIndex is off"},
		{"parts negative", zipsim.Options{Pool: pool, AdaptiveHashIndex: true, AdaptiveHashParts: -1}, "use 1..512"},
		{"parts 513", zipsim.Options{Pool: pool, AdaptiveHashIndex: true, AdaptiveHashParts: 513}, "use 1..512"},
		{"parts 513 without the index", zipsim.Options{Pool: pool, AdaptiveHashParts: 513}, "AdaptiveHashParts is 513"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := zipsim.Open("", tc.opts)
			require.ErrorContains(t, err, tc.want)
		})
	}
	for _, tc := range []struct {
		on           bool
		parts, wantP int
	}{{false, 0, 0}, {true, 0, 8}, {true, 1, 1}, {true, 512, 512}} {
		t.Run(fmt.Sprintf("on=%v/parts=%d", tc.on, tc.parts), func(t *testing.T) {
			st, err := zipsim.Open("", zipsim.Options{Pool: pool, AdaptiveHashIndex: tc.on, AdaptiveHashParts: tc.parts})
			require.NoError(t, err)
			defer st.Close()
			m := st.Metrics()
			require.Equal(t, tc.wantP, m.AdaptiveHash.Parts)
			if tc.on {
				require.Equal(t, (4<<20)/256, m.AdaptiveHash.Cells, "one cell per 256 bytes of pool")
				require.Contains(t, m.String(), "ADAPTIVE_HASH_INDEX")
			} else {
				require.Zero(t, m.AdaptiveHash.Cells)
				require.NotContains(t, m.String(), "ADAPTIVE_HASH_INDEX")
			}
		})
	}
}

// ahiC is the c column of row id at version ver: it names both.
func ahiC(id int, ver uint64) string {
	s := fmt.Sprintf("%d-%d-", id, ver)
	return s + strings.Repeat("x", int(ver*13%uint64(100-len(s))))
}

// TestAdaptiveHashIndexTable: sbtest tables, uncompressed and compressed,
// with the hash on: writers update and delete rows (one writer per row at
// a time) while readers Get them; every row read is one written for its
// id, at a version no older than one this reader saw; at the end each row
// is as last written, Check is clean and the hash answered reads.
func TestAdaptiveHashIndexTable(t *testing.T) {
	for _, kbs := range []int{0, 8} {
		t.Run(fmt.Sprintf("kbs=%d", kbs), func(t *testing.T) {
			st, err := zipsim.Open("", zipsim.Options{Pool: bufpool.Options{Bytes: 8 << 20}, AdaptiveHashIndex: true, AdaptiveHashParts: 2})
			require.NoError(t, err)
			t.Cleanup(func() { _ = st.Close() })
			tb := createSbtest(t, st, kbs)
			const rows = 800
			type rowState struct {
				mu      sync.Mutex
				ver     uint64 // under mu
				live    atomic.Uint64
				present atomic.Bool
			}
			state := make([]rowState, rows+1)
			for id := 1; id <= rows; id++ {
				require.NoError(t, tb.Insert(ctx, sbRow(int64(id), int64(id%50), ahiC(id, 0), "pad")))
				state[id].present.Store(true)
			}
			// Reads enough to hash the leaves.
			var dst zipsim.Row
			for range 3 {
				for id := 1; id <= rows; id++ {
					var found bool
					dst, found, err = tb.Get(ctx, dst, zipsim.Int(int64(id)))
					require.NoError(t, err)
					require.True(t, found)
				}
			}
			before := st.Metrics()
			var wg sync.WaitGroup
			var bad atomic.Value
			fail := func(err error) { bad.CompareAndSwap(nil, err) }
			for w := range 2 {
				wg.Go(func() {
					r := rand.New(rand.NewPCG(uint64(w), 5))
					for range 600 {
						id := 1 + r.IntN(rows)
						s := &state[id]
						s.mu.Lock()
						s.ver++
						var err error
						switch {
						case !s.present.Load():
							err = tb.Insert(ctx, sbRow(int64(id), int64(id%50), ahiC(id, s.ver), "pad"))
							s.present.Store(err == nil)
						case r.IntN(5) == 0:
							err = tb.Delete(ctx, zipsim.Int(int64(id)))
							s.present.Store(err != nil)
						default:
							err = tb.Update(ctx, sbRow(int64(id), int64(id%50), ahiC(id, s.ver), "pad"))
						}
						s.live.Store(s.ver)
						s.mu.Unlock()
						if err != nil {
							fail(fmt.Errorf("row %d version %d: %w", id, s.ver, err))
							return
						}
					}
				})
			}
			for rd := range 2 {
				wg.Go(func() {
					r := rand.New(rand.NewPCG(uint64(rd), 6))
					seen := make([]uint64, rows+1)
					var dst zipsim.Row
					for range 3000 {
						id := 1 + r.IntN(rows)
						var found bool
						var err error
						dst, found, err = tb.Get(ctx, dst, zipsim.Int(int64(id)))
						if err != nil {
							fail(err)
							return
						}
						if !found {
							continue
						}
						var ver uint64
						c := strings.TrimRight(dst[2].String(), " ") // CHAR pads
						if _, err := fmt.Sscanf(c, fmt.Sprintf("%d-%%d-", id), &ver); err != nil || c != ahiC(id, ver) {
							fail(fmt.Errorf("row %d: c is %q", id, c))
							return
						}
						if ver < seen[id] {
							fail(fmt.Errorf("row %d: version %d after %d", id, ver, seen[id]))
							return
						}
						seen[id] = ver
					}
				})
			}
			wg.Wait()
			if err, _ := bad.Load().(error); err != nil {
				t.Fatal(err)
			}
			for id := 1; id <= rows; id++ {
				var found bool
				dst, found, err = tb.Get(ctx, dst, zipsim.Int(int64(id)))
				require.NoError(t, err)
				require.Equal(t, state[id].present.Load(), found, "row %d", id)
				if found {
					require.Equal(t, ahiC(id, state[id].live.Load()), strings.TrimRight(dst[2].String(), " "), "row %d", id)
				}
			}
			require.Empty(t, st.Check(ctx))
			d := st.Metrics().Sub(before).AdaptiveHash
			t.Logf("%+v", d)
			require.Positive(t, d.Searches)
			require.Equal(t, 2, d.Parts)
		})
	}
}
