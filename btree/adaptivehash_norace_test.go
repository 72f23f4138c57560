//go:build !race

package btree

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim/internal/sbdata"
)

// The adaptive hash index's zero-allocation promise: a Get or View the
// hash answers allocates nothing, and neither does one that descends and
// counts toward hashing its leaf. CI runs it in the non-race pass (go
// test -run ZeroAllocs ./...).

func TestZeroAllocsAdaptiveHash(t *testing.T) {
	for _, zip := range []int{0, 8192} {
		t.Run(zipName(zip), func(t *testing.T) {
			const rows = 3000
			_, ix, h := newHashIndex(t, zip, 64<<20, 0)
			r := sbdata.Rand(4)
			for id := 1; id <= rows; id++ {
				k, v := sbRow(r, uint32(id))
				require.NoError(t, ix.Insert(ctx, k, v))
			}
			keys := benchKeys(rows)
			dst := make([]byte, 0, 256)
			i := 0
			get := func() {
				var found bool
				var err error
				dst, found, err = ix.Get(ctx, keys[i%len(keys)], dst[:0])
				if err != nil || !found {
					t.Fatal(err, found)
				}
				i++
			}
			// Descents, which also hash the leaves as they go.
			require.Zero(t, testing.AllocsPerRun(2*rows, get), "Get by descent")
			require.Positive(t, h.Stats().PagesAdded)

			// Every key once more, so that each cell is current.
			for range rows {
				get()
			}
			before := h.Stats()
			require.Zero(t, testing.AllocsPerRun(2000, get), "Get through the hash")
			d := h.Stats().Sub(before)
			require.Equal(t, uint64(2001), d.Searches, "every Get answered by the hash (%+v)", d)

			n := 0
			view := func(v []byte) error { n += len(v); return nil }
			before = h.Stats()
			require.Zero(t, testing.AllocsPerRun(2000, func() {
				found, err := ix.View(ctx, keys[i%len(keys)], view)
				if err != nil || !found {
					t.Fatal(err, found)
				}
				i++
			}), "View through the hash")
			require.Equal(t, uint64(2001), h.Stats().Sub(before).Searches)
			require.Positive(t, n)
		})
	}
}
