package sim

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Plots are 1000×600 px in PNG (96 dpi); SVG files get the same size in
// points scaled alike.
const (
	plotWidth  = 1000 * vg.Inch / 96
	plotHeight = 600 * vg.Inch / 96
)

// logSpread is the ratio of the largest to the smallest value above
// which a plot's y axis becomes logarithmic.
const logSpread = 50

// plotFormat returns the image format of path's extension.
func plotFormat(path string) (string, error) {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".png":
		return "png", nil
	case ".svg":
		return "svg", nil
	default:
		return "", fmt.Errorf("sim: plot %s: unsupported extension %q: use .png or .svg", path, ext)
	}
}

// newPlot returns a plot with the title, axis labels and fonts of every
// plot here.
func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = vg.Points(16)
	p.Title.Padding = vg.Points(10)
	p.X.Label.Text = x
	p.Y.Label.Text = y
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font.Size = vg.Points(13)
		a.Tick.Label.Font.Size = vg.Points(12)
	}
	p.X.Label.Padding = vg.Points(4)
	p.Y.Tick.Marker = numTicks{}
	p.Legend.TextStyle.Font.Size = vg.Points(12)
	p.Legend.Top = true
	p.Legend.XOffs = -vg.Points(12)
	p.Legend.YOffs = -vg.Points(6)
	p.Legend.Padding = vg.Points(3)
	p.Legend.ThumbnailWidth = vg.Points(30)
	p.Add(plotter.NewGrid())
	return p
}

// fmtNum formats a tick value without trailing zeros, with thousands
// separators: 50,000, 2.5, 0.1.
func fmtNum(v float64) string {
	// Round away float noise (1.2000000000000002) first.
	v, _ = strconv.ParseFloat(strconv.FormatFloat(v, 'g', 10, 64), 64)
	s := strconv.FormatFloat(v, 'f', -1, 64)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	whole, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	for i, c := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	out := b.String()
	if frac != "" {
		out += "." + frac
	}
	if neg {
		out = "-" + out
	}
	return out
}

// numTicks labels a linear axis with plot.DefaultTicks' positions and
// fmtNum's labels.
type numTicks struct{}

func (numTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = fmtNum(ts[i].Value)
		}
	}
	return ts
}

// logTicks labels every decade of a log axis, with minor ticks at 2..9.
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	var ts []plot.Tick
	for e := int(math.Floor(math.Log10(lo) + 1e-9)); math.Pow10(e) <= hi*(1+1e-9); e++ {
		d := math.Pow10(e)
		ts = append(ts, plot.Tick{Value: d, Label: fmtNum(d)})
		for m := 2; m < 10 && float64(m)*d < hi; m++ {
			ts = append(ts, plot.Tick{Value: float64(m) * d})
		}
	}
	return ts
}

// savePlot writes p to path in the format its extension names.
func savePlot(p *plot.Plot, path string) error {
	format, err := plotFormat(path)
	if err != nil {
		return err
	}
	wt, err := p.WriterTo(plotWidth, plotHeight, format)
	if err != nil {
		return fmt.Errorf("sim: plot %s: %w", path, err)
	}
	var buf bytes.Buffer
	if _, err := wt.WriteTo(&buf); err != nil {
		return fmt.Errorf("sim: plot %s: %w", path, err)
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// setLogY makes p's y axis logarithmic from the decade below lo to a
// little above hi (both positive), leaving room for the legend.
func setLogY(p *plot.Plot, lo, hi float64) {
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = logTicks{}
	p.Y.Min = math.Pow10(int(math.Floor(math.Log10(lo) + 1e-9)))
	p.Y.Max = hi * 4
	p.Y.Label.Text += ", log scale"
}

// spread returns the smallest positive and the largest value of vs.
func spread(vs ...[]float64) (lo, hi float64) {
	lo, hi = math.Inf(1), 0
	for _, v := range vs {
		for _, x := range v {
			if x > 0 {
				lo = min(lo, x)
			}
			hi = max(hi, x)
		}
	}
	return lo, hi
}

// positive returns xys without the points a log scale cannot show.
func positive(xys plotter.XYs) plotter.XYs {
	out := make(plotter.XYs, 0, len(xys))
	for _, xy := range xys {
		if xy.Y > 0 {
			out = append(out, xy)
		}
	}
	return out
}

// addLines adds one line with points per series, with a legend entry each.
func addLines(p *plot.Plot, names []string, xys []plotter.XYs) error {
	for i, xy := range xys {
		l, s, err := plotter.NewLinePoints(xy)
		if err != nil {
			return err
		}
		c := plotutil.Color(i)
		l.Color = c
		l.Width = vg.Points(2)
		l.Dashes = plotutil.Dashes(i)
		s.Color = c
		s.Shape = plotutil.Shape(i)
		s.Radius = vg.Points(3.5)
		p.Add(l, s)
		p.Legend.Add(names[i], l, s)
	}
	return nil
}

// runTitle names r's run in a title.
func runTitle(what string, r *Report) string {
	h := r.Header
	s := fmt.Sprintf("%s: %s, %s", what, h.Workload, h.RowFormat)
	if h.KBS != 0 {
		s += fmt.Sprintf(" KBS=%d", h.KBS)
	}
	return s + fmt.Sprintf(", %d threads (config %s)", h.Threads, h.ConfigHash)
}

// PlotThroughput plots QPS (operations/s) and TPS (events/s) per report
// interval against the interval's end in seconds since the measurement
// began, to path (.png or .svg).
func PlotThroughput(r *Report, path string) error {
	if _, err := plotFormat(path); err != nil {
		return err
	}
	if len(r.Intervals) == 0 {
		return fmt.Errorf("sim: plot %s: the report has no intervals", path)
	}
	qps := make(plotter.XYs, len(r.Intervals))
	tps := make(plotter.XYs, len(r.Intervals))
	var qv, tv []float64
	for i, iv := range r.Intervals {
		x := iv.End.Seconds()
		qps[i] = plotter.XY{X: x, Y: iv.QPS}
		tps[i] = plotter.XY{X: x, Y: iv.TPS}
		qv, tv = append(qv, iv.QPS), append(tv, iv.TPS)
	}
	p := newPlot(runTitle("Throughput", r), "time since measurement start (s)", "throughput (per second)")
	lo, hi := spread(qv, tv)
	logY := hi > 0 && hi/lo > logSpread
	if logY {
		qps, tps = positive(qps), positive(tps)
	}
	if err := addLines(p, []string{"QPS (operations/s)", "TPS (events/s)"}, []plotter.XYs{qps, tps}); err != nil {
		return err
	}
	p.X.Min = 0
	p.X.Max = r.Intervals[len(r.Intervals)-1].End.Seconds() * 1.02 // keep the last marker whole
	p.X.Tick.Marker = numTicks{}
	if logY {
		setLogY(p, lo, hi)
	} else {
		p.Y.Min = 0
		p.Y.Max = max(hi, 1) * 1.25 // room for the legend
	}
	return savePlot(p, path)
}

// bars is a bar chart whose bars rise from the bottom of the y axis, so
// that it works on a log scale (plotter.BarChart draws from 0).
type bars struct {
	vals   []float64
	width  vg.Length
	offset vg.Length
	color  color.Color
}

func (b *bars) base(p *plot.Plot) float64 {
	if _, ok := p.Y.Scale.(plot.LogScale); ok {
		return p.Y.Min
	}
	return 0
}

// Plot implements plot.Plotter.
func (b *bars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	base := b.base(p)
	for i, v := range b.vals {
		if v <= base {
			continue
		}
		x := trX(float64(i)) - b.width/2 + b.offset
		pts := []vg.Point{{X: x, Y: trY(base)}, {X: x, Y: trY(v)}, {X: x + b.width, Y: trY(v)}, {X: x + b.width, Y: trY(base)}}
		c.FillPolygon(b.color, c.ClipPolygonY(pts))
		c.StrokeLines(plotter.DefaultLineStyle, c.ClipLinesY(append(pts, pts[0]))...)
	}
}

// DataRange implements plot.DataRanger.
func (b *bars) DataRange() (xmin, xmax, ymin, ymax float64) {
	lo, hi := spread(b.vals)
	return 0, float64(len(b.vals) - 1), min(lo, hi), hi
}

// GlyphBoxes implements plot.GlyphBoxer, keeping the end bars inside.
func (b *bars) GlyphBoxes(p *plot.Plot) []plot.GlyphBox {
	boxes := make([]plot.GlyphBox, len(b.vals))
	for i := range b.vals {
		boxes[i].X = p.X.Norm(float64(i))
		boxes[i].Rectangle = vg.Rectangle{Min: vg.Point{X: b.offset - b.width/2}, Max: vg.Point{X: b.offset + b.width/2}}
	}
	return boxes
}

// Thumbnail implements plot.Thumbnailer.
func (b *bars) Thumbnail(c *draw.Canvas) {
	pts := []vg.Point{{X: c.Min.X, Y: c.Min.Y}, {X: c.Min.X, Y: c.Max.Y}, {X: c.Max.X, Y: c.Max.Y}, {X: c.Max.X, Y: c.Min.Y}}
	c.FillPolygon(b.color, c.ClipPolygonY(pts))
}

// PlotLatency plots p50, p95 and p99 of every operation that ran, and of
// whole events, as grouped bars in µs, to path (.png or .svg). The y axis
// is logarithmic when the values spread over more than a factor of 50.
func PlotLatency(r *Report, path string) error {
	if _, err := plotFormat(path); err != nil {
		return err
	}
	var names []string
	var p50, p95, p99 []float64
	add := func(name string, l Latency) {
		if l.Count == 0 {
			return
		}
		names = append(names, name)
		p50 = append(p50, float64(l.P50)/1e3)
		p95 = append(p95, float64(l.P95)/1e3)
		p99 = append(p99, float64(l.P99)/1e3)
	}
	for _, o := range r.PerOp {
		add(o.Op, o.Latency)
	}
	add("(event)", r.Event)
	if len(names) == 0 {
		return fmt.Errorf("sim: plot %s: the report recorded no operations", path)
	}
	p := newPlot(runTitle("Latency", r), "operation", "latency (µs)")
	// Bars fill 80% of each group, whatever the number of groups.
	group := (plotWidth - vg.Points(90)) / vg.Length(len(names)) * 0.8
	w := min(group/3, vg.Points(40))
	lo, hi := spread(p50, p95, p99)
	if hi <= 0 {
		hi = 1
	}
	if lo < math.Inf(1) && hi/lo > logSpread {
		setLogY(p, lo, hi)
	} else {
		p.Y.Min = 0
		p.Y.Max = hi * 1.25 // room for the legend
	}
	for i, s := range []struct {
		name string
		vals []float64
	}{{"p50", p50}, {"p95", p95}, {"p99", p99}} {
		b := &bars{vals: s.vals, width: w, offset: w * vg.Length(i-1), color: plotutil.Color(i)}
		p.Add(b)
		p.Legend.Add(s.name, b)
	}
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.5, float64(len(names))-0.5
	return savePlot(p, path)
}

// PlotSweep plots the throughput of reports, one per value of the swept
// knob (values[i] labels reports[i]), as QPS and TPS lines over the
// values, to path (.png or .svg).
func PlotSweep(knob string, values []string, reports []*Report, path string) error {
	if _, err := plotFormat(path); err != nil {
		return err
	}
	if len(values) == 0 || len(values) != len(reports) {
		return fmt.Errorf("sim: plot %s: %d values for %d reports: give one value per report, at least one", path, len(values), len(reports))
	}
	qps := make(plotter.XYs, len(reports))
	tps := make(plotter.XYs, len(reports))
	var qv, tv []float64
	for i, r := range reports {
		if r == nil {
			return errors.New("sim: PlotSweep: nil report")
		}
		qps[i] = plotter.XY{X: float64(i), Y: r.Totals.QPS}
		tps[i] = plotter.XY{X: float64(i), Y: r.Totals.TPS}
		qv, tv = append(qv, r.Totals.QPS), append(tv, r.Totals.TPS)
	}
	title := fmt.Sprintf("Throughput vs %s: %s, %d runs", knob, reports[0].Header.Workload, len(reports))
	p := newPlot(title, knob+" (swept knob)", "throughput (per second)")
	lo, hi := spread(qv, tv)
	logY := hi > 0 && hi/lo > logSpread
	if logY {
		qps, tps = positive(qps), positive(tps)
	}
	names := []string{"QPS (operations/s)", "TPS (events/s)"}
	if numeric(values) {
		// A knob with an order (threads, KEY_BLOCK_SIZE): lines.
		if err := addLines(p, names, []plotter.XYs{qps, tps}); err != nil {
			return err
		}
	} else {
		// Configurations without an order: grouped bars, no lines between
		// them.
		w := min((plotWidth-vg.Points(90))/vg.Length(len(values))*0.8/2, vg.Points(50))
		for i, vals := range [][]float64{qv, tv} {
			b := &bars{vals: vals, width: w, offset: w * (vg.Length(i) - 0.5), color: plotutil.Color(i)}
			p.Add(b)
			p.Legend.Add(names[i], b)
		}
	}
	if logY {
		setLogY(p, lo, hi)
	} else {
		p.Y.Min = 0
		p.Y.Max = max(hi, 1) * 1.25 // room for the legend
	}
	p.NominalX(values...)
	p.X.Min, p.X.Max = -0.5, float64(len(values))-0.5
	return savePlot(p, path)
}

// numeric reports whether every value is a number.
func numeric(values []string) bool {
	for _, v := range values {
		if _, err := strconv.ParseFloat(v, 64); err != nil {
			return false
		}
	}
	return true
}
