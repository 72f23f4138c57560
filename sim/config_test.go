package sim

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim/bufpool"
)

// TestConfigLatches checks --latches: its default, its errors, and the
// pool option each value sets.
func TestConfigLatches(t *testing.T) {
	c, err := Config{Workload: "sysbench"}.Validate()
	require.NoError(t, err)
	require.Equal(t, "go", c.Latches)
	_, err = Config{Workload: "sysbench", Latches: "atomic"}.Validate()
	require.ErrorContains(t, err, `latches "atomic": use go, builtin or plugin`)
	for v, want := range map[string]bufpool.Latching{"go": bufpool.GoLatches, "builtin": bufpool.BuiltinLatches, "plugin": bufpool.PluginLatches} {
		c, err := Config{Workload: "sysbench", Latches: v}.Validate()
		require.NoError(t, err)
		o, err := c.StoreOptions(1 << 20)
		require.NoError(t, err)
		require.Equal(t, want, o.Pool.Latching, v)
	}
}

func TestConfigAdaptiveHashParts(t *testing.T) {
	c, err := Config{Workload: "sysbench", AdaptiveHash: true, AdaptiveHashParts: 1}.Validate()
	require.NoError(t, err)
	o, err := c.StoreOptions(1 << 20)
	require.NoError(t, err)
	require.Equal(t, 1, o.AdaptiveHashParts)
	_, err = Config{Workload: "sysbench", AdaptiveHashParts: 4}.Validate()
	require.ErrorContains(t, err, "add --ahi")
	_, err = Config{Workload: "sysbench", AdaptiveHash: true, AdaptiveHashParts: 513}.Validate()
	require.ErrorContains(t, err, "use 1..512")
}

// TestConfigEngine51 checks that the 5.1 rules reach the store: no
// innodb_old_blocks_time and the update reserve on compressed leaves.
func TestConfigEngine51(t *testing.T) {
	c, err := engine51(Config{Workload: "sysbench", KBS: 8}).Validate()
	require.NoError(t, err)
	o, err := c.StoreOptions(1 << 20)
	require.NoError(t, err)
	require.Negative(t, o.Pool.OldBlocksTime)
	require.True(t, o.CompressedLeafReserve)
	c, err = Config{Workload: "sysbench", KBS: 8}.Validate()
	require.NoError(t, err)
	o, err = c.StoreOptions(1 << 20)
	require.NoError(t, err)
	require.Zero(t, o.Pool.OldBlocksTime, "the pool's own 1s default")
	require.False(t, o.CompressedLeafReserve)
}
