package page

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestZipRoundTripSysbenchLeaf(t *testing.T) {
	p, n := sbLeaf(t, 16384, 1)
	t.Logf("rows per 16K leaf: %d, data %d, free %d", n, p.DataSize(), p.MaxInsertSize())
	for _, zs := range []int{16384, 8192} {
		z, err := NewZip(make([]byte, zs))
		require.NoError(t, err)
		err = z.Compress(p, Env{})
		if zs == 8192 {
			require.ErrorIs(t, err, ErrDoesNotFit)
			continue
		}
		require.NoError(t, err)
		t.Logf("zip %d: stream %d bytes, trailer %d", zs, z.MStart()-zipStream, z.trailerLen())
		dst := make([]byte, 16384)
		require.NoError(t, z.Decompress(dst, Env{}))
		requireSamePage(t, p, dst)
		require.Empty(t, IndexPage(dst).Check(bytes.Compare))
	}
}
