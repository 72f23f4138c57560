package sim

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// T4: seed 002, page size matters only with compression
// (research/targets.md §1, T4).
//
// Eight sbtest tables (sb10 data, uniform keys) are loaded at page sizes
// 16K, 8K and 4K, uncompressed and compressed at 2:1 (KEY_BLOCK_SIZE =
// page/2). Each is reopened with a buffer pool of 1/16 of the compressed
// data at that page size (the same pool for both tables of a page size),
// no I/O latency model (reads copy from memory, like the seed's OS
// cache), and runs oltp_point_select with 2 threads. Nearly every lookup
// misses on its leaf: a miss on the uncompressed table is a page copy, a
// miss on the compressed one also inflates the whole page, a cost that
// grows with the page size. Each query also spends t4StatementCPU, the
// server layer the seed's MySQL had: without it a 3-5 µs query made the
// 16K page copy weigh three times what it does on MariaDB, and the
// uncompressed ratio sat at its band's top (1.15-1.34 over runs).

const (
	t4Tables   = 8
	t4Rows     = 10_000
	t4Threads  = 2
	t4PoolDiv  = 16
	t4Rounds   = 9
	t4Warmup   = time.Second
	t4Duration = 500 * time.Millisecond
	// t4StatementCPU is the server layer's CPU per point select: MariaDB
	// 10.11 spent 13.4 µs of server CPU a query at 16K and 12.1 µs at 4K
	// in this shape on this project's machine (MariaDBT4Figures), where
	// zipsim's engine alone spends about 3.9 and 2.9 µs.
	t4StatementCPU = 9 * time.Microsecond
)

func init() {
	register(Scenario{
		ID:    "T4",
		Title: "page size (16K/8K/4K) changes point-select throughput only for compressed tables",
		Seed: "002: sysbench 0.4 fork, 1-row PK selects, 8 tables x 16M rows (32 GB u / 16 GB c), BP 1 GB, buffered IO: " +
			"\"page size has a big impact on the peak only when compression is used\" (graphs only, no numbers)",
		Run: runT4,
	})
}

// t4Spread is max/min − 1 of vs.
func t4Spread(vs []float64) float64 {
	return slices.Max(vs)/slices.Min(vs) - 1
}

func runT4(ctx context.Context, o ScenarioOptions) (*Outcome, error) {
	tmp, err := os.MkdirTemp("", "zipsim-t4-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	pages := []int{16384, 8192, 4096}
	type run struct {
		arm   *t145Arm
		rep   *Report // the median round's
		pool  int64
		disk  int64
		leafs int
	}
	res := map[string]map[int]*run{"u": {}, "c": {}}
	var arms []*t145Arm
	for _, ps := range pages {
		base := Config{
			Workload: "sysbench", Seed: 1, Threads: t4Threads, PageSize: ps, StatementCPU: t4StatementCPU, Latches: seedLatches,
			Sysbench: SysbenchConfig{Tables: t4Tables, Rows: t4Rows, Dist: "uniform", Event: "oltp_point_select"},
		}
		cc, uc := base, base
		cc.RowFormat, cc.KBS, cc.Codec = "compressed", ps/2/1024, seedCodec
		uc.RowFormat = "dynamic"
		o.logf("page %dK: loading %d tables x %d rows compressed (KBS=%d) and uncompressed", ps/1024, t4Tables, t4Rows, cc.KBS)
		cd, err := t145Prepare(ctx, cc, filepath.Join(tmp, fmt.Sprintf("c%d", ps)))
		if err != nil {
			return nil, err
		}
		ud, err := t145Prepare(ctx, uc, filepath.Join(tmp, fmt.Sprintf("u%d", ps)))
		if err != nil {
			return nil, err
		}
		pool := int64(math.Ceil(float64(cd.load.DiskBytes)/t4PoolDiv/float64(ps))) * int64(ps)
		for _, t := range []struct {
			name string
			d    *t145Data
		}{{"u", ud}, {"c", cd}} {
			cfg := t.d.cfg
			cfg.PoolBytes, cfg.PoolRatio = pool, 0
			st, err := t145Open(t.d, cfg, filepath.Join(tmp, fmt.Sprintf("run-%s%d", t.name, ps)))
			if err != nil {
				return nil, err
			}
			defer st.Close()
			leafs := 0
			for _, x := range t.d.load.Metrics.Indexes {
				if x.Index == "PRIMARY" {
					leafs += x.BTree.LeafPages()
				}
			}
			a := &t145Arm{name: fmt.Sprintf("%s %dK", t.name, ps/1024), cfg: cfg, st: st}
			arms = append(arms, a)
			res[t.name][ps] = &run{arm: a, pool: pool, disk: t.d.load.DiskBytes, leafs: leafs}
		}
	}
	o.logf("point selects, %d threads: %d rounds of %v over the 6 tables (first after %v warm-up)", t4Threads, t4Rounds, t4Duration, t4Warmup)
	if err := t145Rounds(ctx, o, "T4", arms, t4Rounds, t4Warmup, t4Duration); err != nil {
		return nil, err
	}
	for _, m := range res {
		for _, r := range m {
			r.rep = r.arm.med()
		}
	}
	qps := func(t string) []float64 {
		var out []float64
		for _, ps := range pages {
			out = append(out, res[t][ps].rep.Totals.QPS)
		}
		return out
	}
	cq, uq := qps("c"), qps("u")
	// Ratios to 16K are medians of the rounds' ratios: within a round the
	// six tables ran back to back, under about the same load from the
	// rest of the shared machine.
	rel := func(t string) []float64 {
		var out []float64
		for _, ps := range pages {
			out = append(out, t145Paired(res[t][ps].arm, res[t][16384].arm, func(r *Report) float64 { return r.Totals.QPS }))
		}
		return out
	}
	cr, ur := rel("c"), rel("u")
	out := &Outcome{}
	t145Check(out, "c QPS(4K)/QPS(16K)", cr[2], AtLeast(1.5))
	t145Check(out, "u QPS(4K)/QPS(16K)", ur[2], Within(0.85, 1.25))
	cs, us := t4Spread(cr), t4Spread(ur)
	t145Check(out, "c spread / u spread (spread = max/min-1)", t145Ratio(cs, us), AtLeast(2))
	out.Notef("%d threads, %s latches (Config.Latches), as 5.6 had; c compressed with %s (InnoDB's deflate)", t4Threads, seedLatches, seedCodec)
	out.Notef("QPS relative to 16K, median of %d rounds' ratios, 16K/8K/4K: c %.2f/%.2f/%.2f, u %.2f/%.2f/%.2f; spread (max/min - 1): c %.2f, u %.2f",
		t4Rounds, cr[0], cr[1], cr[2], ur[0], ur[1], ur[2], cs, us)
	for _, ps := range pages {
		for _, t := range []string{"u", "c"} {
			r := res[t][ps]
			m := r.rep.Metrics.Pool
			out.Notef("%2dK %s: %8.0f QPS (rounds %s TPS), CPU %3.0f%%, inflates/query %.3f, reads/query %.3f, hit rate %.3f, pool %.2f MiB (1/16 of c's %.1f MiB), data %.1f MiB, %d PK leaves, p50 %v",
				ps/1024, t, r.rep.Totals.QPS, r.arm.tpsList(), 100*r.rep.Totals.CPUUtil, t145PerOp(m.CMP.Total().UncompressOps, r.rep),
				t145PerOp(m.Reads, r.rep), m.HitRate(), t145MiB(r.pool), t145MiB(res["c"][ps].disk), t145MiB(r.disk), r.leafs, r.rep.Event.P50)
		}
	}
	for _, ps := range pages {
		c, u := res["c"][ps].rep, res["u"][ps].rep
		cpuC := t145Ratio(float64(c.Totals.CPU.Nanoseconds()), float64(c.Totals.Ops)) / 1e3
		cpuU := t145Ratio(float64(u.Totals.CPU.Nanoseconds()), float64(u.Totals.Ops)) / 1e3
		infl := t145PerOp(c.Metrics.Pool.CMP.Total().UncompressOps, c)
		out.Notef("%2dK: CPU per query c %.1f us, u %.1f us: %.1f us more per c query, %.1f us per inflate", ps/1024, cpuC, cpuU, cpuC-cpuU, t145Ratio(cpuC-cpuU, infl))
	}
	out.Notef("each query's CPU includes %v of modelled server layer (Config.StatementCPU): MariaDB's server CPU per u query in this shape less zipsim's engine's", t4StatementCPU)
	// CPU per query does not depend on how much of the shared machine a
	// run got, so it cross-checks the QPS ratios.
	cpq := func(t string, ps int) float64 {
		r := res[t][ps].rep
		return t145Ratio(float64(r.Totals.CPU.Nanoseconds()), float64(r.Totals.Ops))
	}
	ccpu, ucpu := t145Ratio(cpq("c", 16384), cpq("c", 4096)), t145Ratio(cpq("u", 16384), cpq("u", 4096))
	out.Notef("CPU per query 16K/4K (the QPS ratio a run with all cores would see), median rounds: c %.2f, u %.2f", ccpu, ucpu)
	mdb, err := MariaDBT4Figures()
	if err != nil {
		return nil, err
	}
	out.Notef("%s", t4MariaDB(mdb))
	if o.Out != "" {
		p := filepath.Join(o.Out, "T4.png")
		if err := plotT4(p, cr, ur, cq[0], uq[0]); err != nil {
			return nil, err
		}
		out.Plot = p
	}
	return out, nil
}

func plotT4(path string, cr, ur []float64, c16, u16 float64) error {
	p := newPlot("T4: point selects, 8 tables, 2 threads, pool = 1/16 of compressed data", "page size (KBS = page/2 for compressed)", "QPS relative to the same table at 16K (ratio)")
	var xs [2]plotter.XYs
	for i := range cr {
		xs[0] = append(xs[0], plotter.XY{X: float64(i), Y: ur[i]})
		xs[1] = append(xs[1], plotter.XY{X: float64(i), Y: cr[i]})
	}
	names := []string{fmt.Sprintf("uncompressed (16K: %.0f QPS)", u16), fmt.Sprintf("compressed 2:1 (16K: %.0f QPS)", c16)}
	if err := addLines(p, names, xs[:]); err != nil {
		return err
	}
	hi := 1.0
	for i, band := range []struct {
		name string
		y    float64
	}{{"u band [0.85, 1.25] at 4K", 0.85}, {"", 1.25}, {"c band >= 1.5 at 4K", 1.5}} {
		l, err := plotter.NewLine(plotter.XYs{{X: 1.6, Y: band.y}, {X: 2.3, Y: band.y}})
		if err != nil {
			return err
		}
		l.Width = vg.Points(1.5)
		l.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
		l.Color = plotutil.Color(i / 2) // the u band's two lines, then c's
		p.Add(l)
		if band.name != "" {
			p.Legend.Add(band.name, l)
		}
	}
	for _, x := range xs {
		for _, v := range x {
			hi = max(hi, v.Y)
		}
	}
	p.Y.Min, p.Y.Max = 0, max(hi, 1.5)*1.35
	var ticks []plot.Tick
	for v := 0.0; v <= p.Y.Max; v += 0.25 {
		t := plot.Tick{Value: v}
		if math.Mod(v, 0.5) == 0 {
			t.Label = fmtNum(v)
		}
		ticks = append(ticks, t)
	}
	p.Y.Tick.Marker = plot.ConstantTicks(ticks)
	p.NominalX("16K", "8K", "4K")
	p.X.Min, p.X.Max = -0.3, 2.3
	return savePlot(p, path)
}

// t4MariaDB describes real InnoDB in T4's shape on this machine, as
// mariadb_t4.sh recorded it: the 4K/16K QPS ratios and what a query cost
// the server.
func t4MariaDB(runs []MariaDBT4Run) string {
	get := func(pageKB int, c bool) (MariaDBT4Run, bool) {
		for _, r := range runs {
			if r.PageKB == pageKB && (r.KBS != 0) == c {
				return r, true
			}
		}
		return MariaDBT4Run{}, false
	}
	var b strings.Builder
	b.WriteString("real InnoDB in this shape (MariaDB 10.11.14, sim/calibration/mariadb_t4.sh: 8 tables, 2 threads, uniform ids, buffered reads, pool 1/16 of the compressed files; recorded 2026-11-30 on this project's 2-core machine, not measured by this run):")
	for _, c := range []bool{true, false} {
		r16, ok16 := get(16, c)
		r4, ok4 := get(4, c)
		if !ok16 || !ok4 {
			continue
		}
		name := map[bool]string{true: "c", false: "u"}[c]
		fmt.Fprintf(&b, " %s 4K/16K %.2f (%.0f -> %.0f QPS, %.1f -> %.1f us of server CPU a query, %.2f -> %.2f decompressions a query);",
			name, t145Ratio(r4.QPS, r16.QPS), r16.QPS, r4.QPS, float64(r16.CPUPerQuery.Nanoseconds())/1e3, float64(r4.CPUPerQuery.Nanoseconds())/1e3,
			r16.UncompressPerQuery, r4.UncompressPerQuery)
	}
	return strings.TrimSuffix(b.String(), ";")
}
