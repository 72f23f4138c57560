package zipsim_test

import (
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim"
	"github.com/zipsim/zipsim/bufpool"
	"github.com/zipsim/zipsim/internal/sbdata"
)

// TestNoCodecReuse loads the same compressed rows into a store that
// reuses codec state and one that builds it per page (de)compression:
// the rows read back alike, and the second allocates far more per
// compression, the cost Facebook's cached zlib heaps removed.
func TestNoCodecReuse(t *testing.T) {
	perOp := map[bool]float64{}
	for _, noReuse := range []bool{false, true} {
		st, err := zipsim.Open("", zipsim.Options{Pool: bufpool.Options{Bytes: 8 << 20}, NoCodecReuse: noReuse})
		require.NoError(t, err)
		tb := createSbtest(t, st, 8)
		r := sbdata.Rand(3)
		runtime.GC()
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		before := st.Metrics()
		for id := int64(1); id <= 3000; id++ {
			c := string(sbdata.C(nil, r))
			require.NoError(t, tb.Insert(ctx, sbRow(id, rand.Int64N(1000), c, c[:59])))
		}
		runtime.ReadMemStats(&m1)
		ops := st.Metrics().Sub(before).Pool.CMP.Total().CompressOps
		require.Positive(t, ops)
		perOp[noReuse] = float64(m1.TotalAlloc-m0.TotalAlloc) / float64(ops)
		row, ok, err := tb.Get(ctx, nil, zipsim.Int(1234))
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, int64(1234), row[0].Int())
		require.Empty(t, st.Check(ctx))
		require.NoError(t, st.Close())
	}
	t.Logf("bytes allocated per compression: %.0f reused, %.0f without reuse", perOp[false], perOp[true])
	require.Greater(t, perOp[true], 100_000.0, "a zlib:6 encoder's state is hundreds of KiB")
	require.Greater(t, perOp[true], 20*perOp[false])
}
