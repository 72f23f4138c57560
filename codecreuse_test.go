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
	if !raceEnabled { // the race detector makes sync.Pool drop a quarter of what it is given
		require.Greater(t, perOp[true], 20*perOp[false])
	}
}

// TestLogCompressedPages loads the same rows in id order with the option
// off (MariaDB's path, the default) and on (5.6/5.7's): off reorganizes a
// page whose log is full before each insert, so it compresses more often,
// with the same rows and pages in the end.
func TestLogCompressedPages(t *testing.T) {
	ops := map[bool]uint64{}
	leaves := map[bool]int{}
	for _, on := range []bool{false, true} {
		st, err := zipsim.Open("", zipsim.Options{Pool: bufpool.Options{Bytes: 16 << 20}, LogCompressedPages: on})
		require.NoError(t, err)
		tb := createSbtest(t, st, 4)
		r := sbdata.Rand(5)
		for id := int64(1); id <= 3000; id++ {
			c := string(sbdata.C(nil, r))
			require.NoError(t, tb.Insert(ctx, sbRow(id, 1, c, c[:59])))
		}
		m := st.Metrics()
		ops[on] = m.Pool.CMP.Total().CompressOps
		leaves[on] = m.Indexes[0].BTree.LeafPages()
		require.Empty(t, st.Check(ctx))
		require.NoError(t, st.Close())
	}
	t.Logf("compressions: %d with the option off, %d on; leaves %d and %d", ops[false], ops[true], leaves[false], leaves[true])
	require.Greater(t, float64(ops[false]), 1.1*float64(ops[true]))
	require.InDelta(t, leaves[false], leaves[true], float64(leaves[true])/20)
}
