package page

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim/compress"
)

// TestSysbenchLeafRatio pins the realism of page sizes: a 16 KiB clustered
// leaf full of sysbench rows (id INT, k INT, c CHAR(120), pad CHAR(60) of
// random digit groups) deflates at zlib level 6 to 0.42..0.56 of its size,
// as InnoDB's pages do (research/targets.md: C zlib gives about 0.515 on
// such rows; a full leaf needs about 7.8 KB plus 15 bytes per row
// uncompressed, which is why KEY_BLOCK_SIZE=8 is borderline).
func TestSysbenchLeafRatio(t *testing.T) {
	codec, err := compress.New(compress.Setting{Algorithm: compress.Zlib, Level: 6}, compress.Options{})
	require.NoError(t, err)
	for seed := uint64(1); seed <= 8; seed++ {
		p, n := sbLeaf(t, 16384, seed)
		whole, err := codec.Compress(nil, p)
		require.NoError(t, err)
		z, err := NewZip(make([]byte, 16384))
		require.NoError(t, err)
		require.NoError(t, z.Compress(p, Env{Codec: codec}))
		stream := z.MStart() - zipStream
		image := z.MStart() + 1 + z.trailerLen()
		t.Logf("seed %d: %d rows; zlib:6 of the page %d (%.3f); zip stream %d (%.3f); zip image needs %d (%.3f)",
			seed, n, len(whole), float64(len(whole))/16384, stream, float64(stream)/16384, image, float64(image)/16384)
		require.InDelta(t, 0.49, float64(len(whole))/16384, 0.07, "page ratio outside 0.42..0.56")
		require.InDelta(t, 0.49, float64(stream)/16384, 0.07, "zip stream ratio outside 0.42..0.56")
		require.Greater(t, image, 8192, "a full sysbench leaf must not fit KEY_BLOCK_SIZE=8")
	}
}
