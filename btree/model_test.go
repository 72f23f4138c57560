package btree

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestModelSingle runs random inserts, updates with growing and shrinking
// values, deletes and scans against a map, one goroutine, every zip size.
func TestModelSingle(t *testing.T) {
	for _, zip := range []int{0, 1024, 2048, 4096, 8192, 16384} {
		t.Run(fmt.Sprintf("zip=%d", zip), func(t *testing.T) {
			_, ix := newIndexT(t, zip, 4<<20)
			r := rand.New(rand.NewPCG(uint64(zip), 7))
			model := map[string][]byte{}
			val := func() []byte {
				v := make([]byte, r.IntN(300))
				for i := range v {
					v[i] = byte('a' + r.IntN(4))
				}
				return v
			}
			ops := 6000
			if raceEnabled {
				ops = 2000
			}
			for op := 0; op < ops; op++ {
				k := key8(uint64(r.IntN(3000)))
				_, in := model[string(k)]
				switch x := r.IntN(10); {
				case x < 4:
					v := val()
					err := ix.Insert(ctx, k, v)
					if in {
						require.ErrorIs(t, err, ErrDuplicate)
					} else {
						require.NoError(t, err, "op %d", op)
						model[string(k)] = v
					}
				case x < 7:
					v := val()
					err := ix.Update(ctx, k, v)
					if in {
						require.NoError(t, err, "op %d", op)
						model[string(k)] = v
					} else {
						require.ErrorIs(t, err, ErrNotFound)
					}
				case x < 9:
					err := ix.Delete(ctx, k)
					if in {
						require.NoError(t, err, "op %d", op)
						delete(model, string(k))
					} else {
						require.ErrorIs(t, err, ErrNotFound)
					}
				default:
					got, found, err := ix.Get(ctx, k, nil)
					require.NoError(t, err)
					require.Equal(t, in, found)
					if in {
						require.True(t, bytes.Equal(model[string(k)], got), "op %d", op)
					}
				}
				if op%2000 == 1999 {
					requireCheck(t, ix)
				}
			}
			requireCheck(t, ix)
			keys := make([]string, 0, len(model))
			for k := range model {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			var fwd []string
			require.NoError(t, ix.Scan(ctx, nil, nil, false, func(k, v []byte) bool {
				require.True(t, bytes.Equal(model[string(k)], v))
				fwd = append(fwd, string(k))
				return true
			}))
			require.Equal(t, keys, fwd)
			var rev []string
			require.NoError(t, ix.Scan(ctx, nil, nil, true, func(k, v []byte) bool {
				rev = append(rev, string(k))
				return true
			}))
			slices.Reverse(rev)
			require.Equal(t, keys, rev)
			t.Log(ix.Stats())
		})
	}
}
