package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/zipsim/zipsim"
	"github.com/zipsim/zipsim/sim"
)

const runAbout = `Loads a workload into an in-memory store (or, with --data DIR, opens a copy of
a directory made by zipsim prepare) and runs it: --threads goroutines for
--duration (or --events events in all) after --warmup, with a report every
--interval. Writes report.json, report.csv (a row per interval), report.txt and
the throughput and latency plots into --out, and the report in --format to
stdout.`

// runFlagOrder is the order run's usage lists its flags in.
func runFlagOrder() []string {
	return append([]string{"out", "format", "plots", "quiet", "data", "cpuprofile"}, knobNames()...)
}

func cmdRun(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("run")
	var o outputFlags
	addOutputFlags(fs, &o, "zipsim-out")
	var data string
	fs.StringVar(&data, "data", "", "run on a copy of `DIR`, made by zipsim prepare, instead of loading")
	profile := fs.String("cpuprofile", "", "write a CPU profile of the measurement (warm-up excluded) to `FILE`, for go tool pprof")
	cf := addConfigFlags(fs, sim.Config{})
	pos, err := parseArgs(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		commandUsage(e, fs, "run [flags]", runAbout, runFlagOrder()...)
		return err
	}
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("run: unexpected argument %q: run takes flags only (--data DIR for a prepared directory)", pos[0])
	}
	if err := o.check(); err != nil {
		return err
	}
	exts, _ := o.plotExts()
	var cfg sim.Config
	var p *prepared
	if data != "" {
		if p, err = readPrepared(data); err != nil {
			return err
		}
		cfg, err = mergePrepared(cf, data, p)
	} else {
		cfg, err = cf.check()
	}
	if err != nil {
		return err
	}
	rep, runErr := runConfig(ctx, e, o.quiet, cfg, data, p, "", *profile)
	if rep == nil {
		return runErr
	}
	files, werr := writeRunOutputs(o.out, rep, exts)
	if err := writeStdout(e.stdout, o.format, rep); err != nil {
		return err
	}
	if werr != nil {
		return werr
	}
	e.statusf(o.quiet, "wrote %s", strings.Join(files, ", "))
	return runErr
}

// runConfig runs cfg once: it loads the data into an in-memory store, or
// with dataDir opens a copy of a prepared directory (p is its content),
// and returns Run's report. label prefixes the progress bars; profile,
// when not empty, is a file for a CPU profile of the measurement. A
// report may come with an error (an interrupted run).
func runConfig(ctx context.Context, e *env, quiet bool, cfg sim.Config, dataDir string, p *prepared, label, profile string) (*sim.Report, error) {
	w, err := sim.New(cfg)
	if err != nil {
		return nil, usageErr(err)
	}
	opts, err := cfg.StoreOptions(w.DataBytes())
	if err != nil {
		return nil, usageErr(err)
	}
	var st *zipsim.Store
	var load *sim.LoadResult
	fix := func(err error) error { return err }
	if dataDir != "" {
		tmp, err := os.MkdirTemp("", "zipsim-run-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
		// Errors about the copy name the prepared directory's files.
		fix = func(err error) error {
			if err == nil {
				return nil
			}
			if errors.Is(err, context.Canceled) {
				return err
			}
			return nameFiles(errors.New(strings.ReplaceAll(err.Error(), tmp, dataDir)), tmp, dataDir)
		}
		if err := copyDir(dataDir, tmp); err != nil {
			return nil, fmt.Errorf("copy %s: %w", dataDir, fix(err))
		}
		if st, err = zipsim.Open(tmp, opts); err != nil {
			return nil, fix(err)
		}
		load = p.Load
	} else {
		if st, err = zipsim.Open("", opts); err != nil {
			return nil, err
		}
		e.statusf(quiet, "%sloading %s (%d rows)", label, describeData(cfg), w.LoadRows())
		progress, done := e.loadProgress(quiet, w.LoadRows(), label+"load")
		l, err := sim.Prepare(ctx, cfg, st, w, progress)
		done()
		if err != nil {
			st.Close()
			return nil, interrupted(err)
		}
		load = &l
	}
	e.statusf(quiet, "%srunning %s, %d threads, %s", label, eventName(cfg), cfg.Threads, runLength(cfg))
	total, byEvents := cfg.Duration.Seconds(), cfg.Events > 0
	if byEvents {
		total = float64(cfg.Events)
	}
	progress, done := e.runProgress(quiet, label+"run", byEvents, total)
	rep, err := sim.Run(ctx, cfg, st, w, sim.RunOptions{Progress: progress, Load: load, SpaceAfter: true, CPUProfile: profile})
	done()
	if cerr := st.Close(); cerr != nil && err == nil {
		err = fix(cerr)
	}
	return rep, interrupted(fix(err))
}

// interrupted rewords a cancelled context.
func interrupted(err error) error {
	if errors.Is(err, context.Canceled) {
		return fmt.Errorf("interrupted: %w", err)
	}
	return err
}

// eventName names what a run executes.
func eventName(c sim.Config) string {
	if c.Workload == "sysbench" {
		return "sysbench " + c.Sysbench.Event
	}
	return c.Workload
}

// runLength says how long a run measures.
func runLength(c sim.Config) string {
	s := c.Duration.String()
	if c.Events > 0 {
		s = fmt.Sprintf("%d events", c.Events)
		if c.Duration > 0 {
			s += fmt.Sprintf(" (at most %v)", c.Duration)
		}
	}
	if c.Warmup > 0 {
		s += fmt.Sprintf(" after %v of warm-up", c.Warmup)
	}
	return s
}
