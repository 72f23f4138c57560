//go:build unix

package latch

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// ProcessCPU needs getrusage, so its test runs where cpu_unix.go builds.
func TestProcessCPU(t *testing.T) {
	c0, err := ProcessCPU()
	require.NoError(t, err)
	t0 := time.Now()
	x := 0
	for time.Since(t0) < 20*time.Millisecond {
		x++
	}
	c1, err := ProcessCPU()
	require.NoError(t, err)
	wall := time.Since(t0)
	require.Positive(t, x)
	require.Greater(t, c1, c0)
	u := Utilisation(c1-c0, wall)
	require.Greater(t, u, 0.0)
	require.Zero(t, Utilisation(time.Second, 0))
}
