package btree

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim/internal/sbdata"
)

func TestInsertGetSmoke(t *testing.T) {
	for _, zip := range []int{0, 1024, 2048, 4096, 8192, 16384} {
		t.Run(fmt.Sprint(zip), func(t *testing.T) {
			_, ix := newIndexT(t, zip, 8<<20)
			r := sbdata.Rand(1)
			n := 3000
			if raceEnabled {
				n = 1000
			}
			for _, i := range r.Perm(n) {
				k, v := sbRow(r, uint32(i+1))
				require.NoError(t, ix.Insert(ctx, k, v), "row %d", i)
			}
			requireCheck(t, ix)
			for i := 1; i <= n; i++ {
				_, found, err := ix.Get(ctx, sbdata.Key(uint32(i)), nil)
				require.NoError(t, err)
				require.True(t, found, "row %d", i)
			}
			t.Log(ix.Stats())
		})
	}
}
