package sim

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// plotCheck checks that path holds a 1000×600 PNG or an SVG.
func plotCheck(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	switch strings.ToLower(filepath.Ext(path)) {
	case ".png":
		img, err := png.Decode(bytes.NewReader(b))
		require.NoError(t, err)
		require.Equal(t, 1000, img.Bounds().Dx())
		require.Equal(t, 600, img.Bounds().Dy())
	case ".svg":
		s := strings.TrimSpace(string(b))
		require.True(t, strings.HasPrefix(s, "<?xml") || strings.HasPrefix(s, "<svg"), s[:min(len(s), 40)])
		require.Contains(t, s, "</svg>")
	}
}

func TestPlotFormats(t *testing.T) {
	r := reportFake(t, nil)
	dir := t.TempDir()
	for _, ext := range []string{".png", ".svg"} {
		for name, fn := range map[string]func(*Report, string) error{"throughput": PlotThroughput, "latency": PlotLatency} {
			p := filepath.Join(dir, name+ext)
			require.NoError(t, fn(r, p), p)
			plotCheck(t, p)
		}
		p := filepath.Join(dir, "sweep"+ext)
		require.NoError(t, PlotSweep("threads", []string{"3", "3 again"}, []*Report{r, r}, p))
		plotCheck(t, p)
	}
	// Other extensions are refused, naming the allowed ones, and write
	// nothing.
	for _, bad := range []string{"x.pdf", "x.jpg", "x", "x.PNG.txt"} {
		p := filepath.Join(dir, bad)
		for _, err := range []error{PlotThroughput(r, p), PlotLatency(r, p), PlotSweep("k", []string{"a"}, []*Report{r}, p)} {
			require.ErrorContains(t, err, "use .png or .svg")
		}
		require.NoFileExists(t, p)
	}
	require.NoError(t, PlotThroughput(r, filepath.Join(dir, "upper.PNG")))
	plotCheck(t, filepath.Join(dir, "upper.PNG"))
}

func TestPlotErrors(t *testing.T) {
	dir := t.TempDir()
	r := &Report{}
	require.ErrorContains(t, PlotThroughput(r, filepath.Join(dir, "t.png")), "no intervals")
	require.ErrorContains(t, PlotLatency(r, filepath.Join(dir, "l.png")), "no operations")
	require.ErrorContains(t, PlotSweep("k", []string{"a", "b"}, []*Report{r}, filepath.Join(dir, "s.png")), "2 values for 1 reports")
	require.ErrorContains(t, PlotSweep("k", nil, nil, filepath.Join(dir, "s.png")), "at least one")
}

// Latencies over several decades get a log axis; the plot must draw
// (gonum's log scale panics on bars from 0).
func TestPlotLatencyLogScale(t *testing.T) {
	r := &Report{Header: Header{Config: Config{Workload: "sysbench", RowFormat: "compressed", KBS: 8, Threads: 8}, ConfigHash: "0123456789abcdef"}}
	r.PerOp = []OpLatency{
		{Op: "point_select", Latency: Latency{Count: 10, P50: 3 * time.Microsecond, P95: 8 * time.Microsecond, P99: 20 * time.Microsecond}},
		{Op: "range", Latency: Latency{Count: 10, P50: 300 * time.Microsecond, P95: time.Millisecond, P99: 40 * time.Millisecond}},
		{Op: "unused"},
	}
	r.Event = Latency{Count: 10, P50: 2 * time.Millisecond, P95: 9 * time.Millisecond, P99: 90 * time.Millisecond}
	for _, ext := range []string{".png", ".svg"} {
		p := filepath.Join(t.TempDir(), "lat"+ext)
		require.NoError(t, PlotLatency(r, p))
		plotCheck(t, p)
	}
	// Sweeps with throughputs far apart, too.
	a, b := *r, *r
	a.Totals = Totals{TPS: 30, QPS: 420}
	b.Totals = Totals{TPS: 4650, QPS: 65100}
	p := filepath.Join(t.TempDir(), "sweep.png")
	require.NoError(t, PlotSweep("row_format", []string{"compressed", "dynamic"}, []*Report{&a, &b}, p))
	plotCheck(t, p)
}

func TestPlotFmtNum(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 0.1: "0.1", 1.2000000000000002: "1.2", 1000: "1,000", 50000: "50,000",
		1234567.5: "1,234,567.5", -25000: "-25,000", 999: "999", 100000: "100,000"} {
		require.Equal(t, want, fmtNum(v), v)
	}
}
