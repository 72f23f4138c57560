//go:build zipsim_czlib_c && cgo

package compress

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCZlibC checks that C zlib, behind the zipsim_czlib_c tag, writes
// the bytes the port writes: page streams, off-page value streams,
// transparent compression's streams and limited streams, at every level.
func TestCZlibC(t *testing.T) {
	for level := 1; level <= 9; level++ {
		c, port := newCZlibCEngine(level, false), newCZlibEngine(level, false)
		for _, in := range inputs() {
			page, err := port.compress(nil, in.data)
			require.NoError(t, err)
			got, err := c.compress(nil, in.data)
			require.NoError(t, err)
			require.Equal(t, page, got, "level %d %s: page stream", level, in.name)

			got, err = c.compressLimit(nil, in.data, len(page))
			require.NoError(t, err)
			require.Equal(t, page, got, "level %d %s: a limit it meets", level, in.name)
			_, err = c.compressLimit(nil, in.data, len(page)-1)
			require.ErrorIs(t, err, ErrDoesNotFit, "level %d %s: one byte short", level, in.name)

			value, err := port.compressValue(nil, in.data)
			require.NoError(t, err)
			got, err = c.compressValue(nil, in.data)
			require.NoError(t, err)
			require.Equal(t, value, got, "level %d %s: value stream", level, in.name)

			file, err := port.compressFileLimit(nil, in.data, math.MaxInt)
			require.NoError(t, err)
			got, err = c.compressFileLimit(nil, in.data, math.MaxInt)
			require.NoError(t, err)
			require.Equal(t, file, got, "level %d %s: transparent compression's stream", level, in.name)
			_, err = c.compressFileLimit(nil, in.data, len(file)-1)
			require.ErrorIs(t, err, ErrDoesNotFit, "level %d %s: its limit one byte short", level, in.name)
		}
	}
}
