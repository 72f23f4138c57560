package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim/sim"
)

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{
		"0": 0, "512": 512, "16K": 16 << 10, "16k": 16 << 10, "64M": 64 << 20, "64MB": 64 << 20, "64MiB": 64 << 20,
		"1G": 1 << 30, "1.5G": 3 << 29, "2T": 2 << 40, " 8K ": 8 << 10,
	} {
		got, err := parseSize(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	for _, in := range []string{"", "K", "-1", "-1M", "12X", "abc", "1e400", "9999999999999T"} {
		_, err := parseSize(in)
		require.Error(t, err, in)
	}
	require.Equal(t, "64M", formatSize(64<<20))
	require.Equal(t, "1536M", formatSize(3<<29))
	require.Equal(t, "1000", formatSize(1000))
}

func TestKBSValue(t *testing.T) {
	var n int
	v := kbsValue{&n}
	for in, want := range map[string]int{"8": 8, "0": 0, "8K": 8, "16384": 16384, "1k": 1} {
		require.NoError(t, v.Set(in), in)
		require.Equal(t, want, n, in)
	}
	require.Error(t, v.Set("-1"))
	require.Error(t, v.Set("1.5K"))
}

// TestOldBlocksTimeValue checks --old-blocks-time: InnoDB's 0 is none,
// which the Config holds as a negative duration, and its zero value is
// the 1s default.
func TestOldBlocksTimeValue(t *testing.T) {
	var d time.Duration
	v := oldBlocksTimeValue{&d}
	require.Equal(t, "1s", v.String())
	for in, want := range map[string]time.Duration{"0": -1, "0s": -1, "500ms": 500 * time.Millisecond, " 2s ": 2 * time.Second} {
		require.NoError(t, v.Set(in), in)
		require.Equal(t, want, d, in)
	}
	require.NoError(t, v.Set("0"))
	require.Equal(t, "0", v.String())
	require.ErrorContains(t, v.Set("-1s"), "use 0 for none")
	require.ErrorContains(t, v.Set("soon"), "use a duration")
}

func TestCheckConfig(t *testing.T) {
	parse := func(args ...string) (sim.Config, error) {
		fs := newFlagSet("run")
		cf := addConfigFlags(fs, sim.Config{})
		if _, err := parseArgs(fs, args); err != nil {
			return sim.Config{}, err
		}
		return cf.check()
	}
	c, err := parse("--kbs", "8", "--pool", "64M", "--threads", "4", "--duration", "3s", "--io", "100us")
	require.NoError(t, err)
	require.Equal(t, "compressed", c.RowFormat)
	require.Equal(t, int64(64<<20), c.PoolBytes)
	require.Equal(t, 4, c.Threads)
	for _, args := range [][]string{
		{"--kbs", "32"}, {"--kbs", "3"}, {"--kbs", "8", "--page-size", "4K"}, {"--page-size", "12K"},
		{"--threads", "0"}, {"--pool", "1K"}, {"--pool", "0"}, {"--instances", "0"}, {"--instances", "65"},
		{"--pool-ratio", "-1"}, {"--locking", "builtin"}, {"--latches", "atomic"}, {"--frames", "slab"}, {"--workload", "tpcc"}, {"--duration", "0s"},
		{"--merge-threshold", "51"}, {"--merge-threshold", "-1"},
	} {
		_, err := parse(args...)
		require.Error(t, err, "%v", args)
		require.Equal(t, 2, exitCode(err), "%v: %v", args, err)
	}
	// Flags may follow positional arguments.
	fs := newFlagSet("prepare")
	cf := addConfigFlags(fs, sim.Config{})
	pos, err := parseArgs(fs, []string{"dir", "--rows", "5", "--", "--x"})
	require.NoError(t, err)
	require.Equal(t, []string{"dir", "--x"}, pos)
	require.Equal(t, 5, cf.cfg.Sysbench.Rows)
}

func TestMergePrepared(t *testing.T) {
	p := &prepared{Config: sim.Config{Workload: "sysbench", KBS: 8, Sysbench: sim.SysbenchConfig{Rows: 2000}}}
	var err error
	p.Config, err = p.Config.Validate()
	require.NoError(t, err)
	merge := func(args ...string) (sim.Config, error) {
		fs := newFlagSet("run")
		cf := addConfigFlags(fs, sim.Config{})
		_, err := parseArgs(fs, args)
		require.NoError(t, err)
		return mergePrepared(cf, "d", p)
	}
	c, err := merge("--threads", "3")
	require.NoError(t, err)
	require.Equal(t, 8, c.KBS)
	require.Equal(t, 2000, c.Sysbench.Rows)
	require.Equal(t, 3, c.Threads)
	_, err = merge("--kbs", "8", "--page-size", "16384", "--codec", "zlib:6", "--row-format", "compressed", "--partitions", "1", "--merge-threshold", "50")
	require.NoError(t, err, "the same knobs, spelled out")
	_, err = merge("--rows", "10")
	require.ErrorContains(t, err, "--rows 10 (prepared with 2000)")
	_, err = merge("--merge-threshold", "25")
	require.ErrorContains(t, err, "--merge-threshold 25 (prepared with 50)", "the tables keep the threshold they were created with")
	_, err = merge("--workload", "document")
	require.ErrorContains(t, err, "--workload document (prepared with sysbench)")
}

func TestCopySparse(t *testing.T) {
	dir, dst := t.TempDir(), t.TempDir()
	src := filepath.Join(dir, "a")
	b := make([]byte, 3*4096+100)
	copy(b[4096:], "hello")
	b[len(b)-1] = 7
	require.NoError(t, os.WriteFile(src, b, 0o644))
	require.NoError(t, copyDir(dir, filepath.Join(dst, "copy")))
	got, err := os.ReadFile(filepath.Join(dst, "copy", "a"))
	require.NoError(t, err)
	require.True(t, bytes.Equal(b, got))
}

func TestFlagError(t *testing.T) {
	fs := newFlagSet("run")
	addConfigFlags(fs, sim.Config{})
	_, err := parseArgs(fs, []string{"--nope"})
	require.ErrorContains(t, err, "unknown flag --nope")
	_, err = parseArgs(fs, []string{"--threads"})
	require.ErrorContains(t, err, "flag --threads needs a value")
	_, err = parseArgs(fs, []string{"--threads", "x"})
	require.ErrorContains(t, err, `invalid value "x" for --threads`)
}
