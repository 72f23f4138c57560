package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/zipsim/zipsim"
	"github.com/zipsim/zipsim/internal/latch"
	"github.com/zipsim/zipsim/sim"
)

const sweepAbout = `Runs once per value of one knob, given as a comma-separated list
(--threads 1,2,4,8,16, --kbs 16,8,4,2,1, --locking split,legacy); every other
flag is as for zipsim run. When the swept knob only changes how the data is
run (threads, duration, events, warmup, interval, event, dist, range-size,
table-per-statement, pool, pool-ratio, instances, locking, latches,
old-blocks-time, io, thread-concurrency), the data is loaded once and each
run gets a fresh copy; otherwise each run loads its own.
Writes report.csv (one row per run), report.json (an array of the runs'
reports), report.txt (a summary table and each run's report) and one plot,
sweep-KNOB.png, into --out.`

// rawFlag records a knob's command-line text for a sweep.
type rawFlag struct {
	name   string
	isBool bool
	args   *[]rawArg
}

type rawArg struct{ name, value string }

func (r *rawFlag) String() string { return "" }
func (r *rawFlag) Set(s string) error {
	*r.args = append(*r.args, rawArg{r.name, s})
	return nil
}
func (r *rawFlag) IsBoolFlag() bool { return r.isBool }

// runKnobs change how data is run, not what it is: a sweep over one of
// them loads the data once.
var runKnobs = map[string]bool{
	"threads": true, "duration": true, "events": true, "warmup": true, "interval": true, "event": true,
	"dist": true, "range-size": true, "table-per-statement": true, "pool": true, "pool-ratio": true,
	"instances": true, "locking": true, "latches": true, "old-blocks-time": true, "io": true,
	"thread-concurrency": true,
}

func cmdSweep(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("sweep")
	var o outputFlags
	addOutputFlags(fs, &o, "zipsim-out")
	var data string
	fs.StringVar(&data, "data", "", "run on copies of `DIR`, made by zipsim prepare, instead of loading")
	// The knobs are recorded as text, then applied to one Config per value.
	var raw []rawArg
	proto := addConfigFlags(newFlagSet("sweep"), sim.Config{})
	proto.fs.VisitAll(func(f *flag.Flag) {
		bf, ok := f.Value.(interface{ IsBoolFlag() bool })
		fs.Var(&rawFlag{name: f.Name, isBool: ok && bf.IsBoolFlag(), args: &raw}, f.Name, f.Usage)
	})
	pos, err := parseArgs(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		// Print the knobs with their real defaults and value names.
		commandUsage(e, proto.fs, "sweep [flags] --KNOB v1,v2,...", sweepAbout, knobNames()...)
		fmt.Fprintln(e.stdout, "\nOutput flags:")
		own := newFlagSet("sweep")
		addOutputFlags(own, &outputFlags{}, "zipsim-out")
		own.String("data", "", "run on copies of `DIR`, made by zipsim prepare, instead of loading")
		printFlags(e.stdout, own, "out", "format", "plots", "quiet", "data")
		return err
	}
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("sweep: unexpected argument %q: sweep takes flags only", pos[0])
	}
	if err := o.check(); err != nil {
		return err
	}
	exts, _ := o.plotExts()
	// The swept knob is the one given a list.
	knobName, values := "", []string(nil)
	for _, a := range raw {
		if !strings.Contains(a.value, ",") {
			continue
		}
		if knobName != "" && knobName != a.name {
			return usagef("sweep: both --%s and --%s have lists: sweep one knob at a time", knobName, a.name)
		}
		knobName, values = a.name, splitList(a.value)
	}
	if knobName == "" {
		return usagef("sweep: give one knob a comma-separated list of values, such as --threads 1,2,4,8 or --kbs 16,8,4")
	}
	if len(values) < 2 {
		return usagef("sweep: --%s %q: give at least two values", knobName, strings.Join(values, ","))
	}
	var p *prepared
	if data != "" {
		if p, err = readPrepared(data); err != nil {
			return err
		}
	}
	// Every value's Config, checked before anything runs.
	cfgs := make([]sim.Config, len(values))
	for i, v := range values {
		cf := addConfigFlags(newFlagSet("sweep"), sim.Config{})
		for _, a := range raw {
			val := a.value
			if a.name == knobName {
				val = v
			}
			if err := cf.fs.Set(a.name, val); err != nil {
				return usagef("sweep: invalid value %q for flag --%s: %v", val, a.name, err)
			}
		}
		if p != nil {
			cfgs[i], err = mergePrepared(cf, data, p)
		} else {
			cfgs[i], err = cf.check()
		}
		if err != nil {
			return err
		}
	}
	for i, v := range values {
		w, err := sim.New(cfgs[i])
		if err != nil {
			return usageErr(err)
		}
		if _, err := cfgs[i].StoreOptions(w.DataBytes()); err != nil {
			return usagef("--%s %s: %v", knobName, v, err)
		}
	}
	// A sweep of a run knob loads once, into a directory each run copies.
	if p == nil && runKnobs[knobName] {
		tmp, err := os.MkdirTemp("", "zipsim-sweep-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		data = filepath.Join(tmp, "data")
		if p, err = prepareDataset(ctx, e, o.quiet, cfgs[0], data, "[load once] "); err != nil {
			return interrupted(err)
		}
	}
	var reports []*sim.Report
	for i, cfg := range cfgs {
		label := fmt.Sprintf("[%d/%d %s=%s] ", i+1, len(cfgs), knobName, values[i])
		rep, err := runConfig(ctx, e, o.quiet, cfg, data, p, label, "")
		if err != nil {
			if rep == nil {
				return fmt.Errorf("%s=%s: %w", knobName, values[i], err)
			}
			e.statusf(o.quiet, "%s: %v; writing the runs so far", label, err)
			reports = append(reports, rep)
			values = values[:len(reports)]
			if werr := writeSweep(e, o, exts, knobName, values, reports); werr != nil {
				return werr
			}
			return fmt.Errorf("%s=%s: %w", knobName, values[i], err)
		}
		reports = append(reports, rep)
	}
	return writeSweep(e, o, exts, knobName, values, reports)
}

// writeSweep writes a sweep's files and its stdout.
func writeSweep(e *env, o outputFlags, exts []string, knobName string, values []string, reports []*sim.Report) error {
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	var files []string
	for _, f := range []struct {
		name string
		fn   func(io.Writer) error
	}{
		{"report.csv", func(w io.Writer) error { return sim.WriteSweepCSV(w, false, reports...) }},
		{"report.json", func(w io.Writer) error { return writeJSONArray(w, reports) }},
		{"report.txt", func(w io.Writer) error {
			if err := sweepTable(w, knobName, values, reports); err != nil {
				return err
			}
			for i, r := range reports {
				fmt.Fprintf(w, "\n==== %s=%s ====\n\n", knobName, values[i])
				if err := r.WriteText(w); err != nil {
					return err
				}
			}
			return nil
		}},
	} {
		path := filepath.Join(o.out, f.name)
		if err := writeFile(path, f.fn); err != nil {
			return err
		}
		files = append(files, path)
	}
	for _, ext := range exts {
		path := filepath.Join(o.out, "sweep-"+knobName+ext)
		if err := sim.PlotSweep(knobName, values, reports, path); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		files = append(files, path)
	}
	var err error
	switch o.format {
	case "json":
		err = writeJSONArray(e.stdout, reports)
	case "csv":
		err = sim.WriteSweepCSV(e.stdout, false, reports...)
	default:
		err = sweepTable(e.stdout, knobName, values, reports)
	}
	if err != nil {
		return err
	}
	e.statusf(o.quiet, "wrote %s", strings.Join(files, ", "))
	return nil
}

// sweepTable prints one line per run: the value, throughput, latency and
// the figures that explain them.
func sweepTable(w io.Writer, knobName string, values []string, reports []*sim.Report) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%s\tEVENTS\tTPS\tQPS\tP50_US\tP95_US\tP99_US\tCPU\tHIT_RATE\tUNZIP/OP\tCOMP_FAIL\tBUSIEST_LOCK\tWAIT_SHARE\t\n", strings.ToUpper(knobName))
	for i, r := range reports {
		t := r.Totals
		c := r.Metrics.Pool.CMP.Total()
		lock, share := busiestLock(r.Metrics, nil, r.Header.Threads, t.Wall)
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%.0f%%\t%.4f\t%.3f\t%.1f%%\t%s\t%.1f%%\t\n",
			values[i], t.Events, t.TPS, t.QPS, us(r.Event.P50), us(r.Event.P95), us(r.Event.P99), 100*t.CPUUtil,
			r.Metrics.Pool.HitRate(), perOp(c.UncompressOps, t.Ops), c.FailurePct(), orDash(lock), 100*share)
	}
	return tw.Flush()
}

// busiestLock returns the lock class or group with the most wait in m
// among those keep accepts (all when keep is nil), and its wait share
// over threads × wall. Instance rows ("x#3") are left to their group's
// total.
func busiestLock(m zipsim.Metrics, keep func(name string) bool, threads int, wall time.Duration) (string, float64) {
	var best latch.Stats
	found := false
	for _, r := range m.Pool.Latches.Rows {
		if strings.Contains(r.Name, "#") || (keep != nil && !keep(r.Name)) {
			continue
		}
		if !found || r.Wait > best.Wait {
			best, found = r, true
		}
	}
	if !found || best.Wait <= 0 {
		return "", 0
	}
	return best.Name, best.WaitShare(threads, wall)
}

// us is d in microseconds.
func us(d time.Duration) float64 { return float64(d) / 1e3 }

func perOp(n uint64, ops int64) float64 {
	if ops <= 0 {
		return 0
	}
	return float64(n) / float64(ops)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
