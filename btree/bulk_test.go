package btree

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim/internal/sbdata"
)

// sbSource yields sysbench rows 1..n in key order.
func sbSource(n int) func() ([]byte, []byte, bool, error) {
	r := sbdata.Rand(3)
	i := 0
	return func() ([]byte, []byte, bool, error) {
		if i == n {
			return nil, nil, false, nil
		}
		i++
		k, v := sbRow(r, uint32(i))
		return k, v, true, nil
	}
}

func TestBulkLoad(t *testing.T) {
	for _, zip := range []int{0, 1024, 2048, 4096, 8192, 16384} {
		t.Run(fmt.Sprintf("zip=%d", zip), func(t *testing.T) {
			n := 20000
			if raceEnabled {
				n = 5000
			}
			_, ix := newIndexT(t, zip, 16<<20)
			require.NoError(t, ix.BulkLoad(ctx, sbSource(n)))
			requireCheck(t, ix)
			for i := 1; i <= n; i += 7 {
				_, found, err := ix.Get(ctx, sbdata.Key(uint32(i)), nil)
				require.NoError(t, err)
				require.True(t, found, "row %d", i)
			}
			s := ix.Stats()
			require.EqualValues(t, n, s.Rows)
			require.ErrorIs(t, ix.BulkLoad(ctx, sbSource(1)), ErrNotEmpty)
			t.Log(s)
		})
	}
}

func TestBulkLoadUnsorted(t *testing.T) {
	_, ix := newIndexT(t, 8192, 8<<20)
	keys := []uint64{1, 2, 2}
	i := 0
	err := ix.BulkLoad(ctx, func() ([]byte, []byte, bool, error) {
		if i == len(keys) {
			return nil, nil, false, nil
		}
		i++
		return key8(keys[i-1]), []byte("v"), true, nil
	})
	require.ErrorIs(t, err, ErrUnsorted)
}
