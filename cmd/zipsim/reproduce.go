package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/zipsim/zipsim/compress"
	"github.com/zipsim/zipsim/sim"
)

const reproduceAbout = `Runs the scenarios that reproduce the seeds' observations (research/targets.md
T1..T9): each prints the observation, the measured ratios with their pass
bands, and PASS or FAIL, and writes its plot and outcome.json into --out.
Give target ids (T1 T3) or all. Exit status 1 when any target fails.`

func cmdReproduce(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("reproduce")
	out := fs.String("out", "zipsim-out", "directory for plots and outcome.json")
	quiet := fs.Bool("quiet", false, "no progress lines")
	profiles := fs.String("cpuprofile", "", "write a CPU profile of each measured run of requests into `DIR` (T8-transparent.pprof, ...), for go tool pprof")
	pos, err := parseArgs(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		commandUsage(e, fs, "reproduce [flags] all|T1 [T2 ...]", reproduceAbout, "out", "quiet", "cpuprofile")
		return err
	}
	if err != nil {
		return err
	}
	var ids []string
	for _, a := range pos {
		if strings.EqualFold(a, "all") {
			ids = ids[:0]
			for _, s := range sim.Scenarios() {
				ids = append(ids, s.ID)
			}
			break
		}
		ids = append(ids, a)
	}
	if len(ids) == 0 {
		return usagef("reproduce: name the targets (T1 ... T9) or all")
	}
	known := map[string]bool{}
	for _, s := range sim.Scenarios() {
		known[strings.ToUpper(s.ID)] = true
	}
	for _, id := range ids {
		if !known[strings.ToUpper(id)] {
			return usagef("reproduce: no scenario %q; known: %d targets (zipsim reproduce all)", id, len(known))
		}
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	if *profiles != "" {
		if err := os.MkdirAll(*profiles, 0o755); err != nil {
			return err
		}
	}
	o := sim.ScenarioOptions{Out: *out, CPUProfiles: *profiles}
	if !*quiet {
		o.Log = func(format string, args ...any) { fmt.Fprintf(e.stderr, "  "+format+"\n", args...) }
	}
	start := time.Now()
	var outcomes []*sim.Outcome
	failed := []string{}
	for _, id := range ids {
		if !*quiet {
			fmt.Fprintf(e.stderr, "%s ...\n", strings.ToUpper(id))
		}
		oc, err := sim.RunScenario(ctx, id, o)
		if err != nil {
			return err
		}
		if err := oc.WriteText(e.stdout); err != nil {
			return err
		}
		fmt.Fprintln(e.stdout)
		outcomes = append(outcomes, oc)
		if !oc.Pass() {
			failed = append(failed, oc.ID)
		}
	}
	b, err := json.MarshalIndent(outcomes, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(*out, "outcome.json"), append(b, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%d of %d targets passed in %.0fs (czlib: %s)\n", len(outcomes)-len(failed), len(outcomes), time.Since(start).Seconds(), compress.CZlibImplementation())
	if len(failed) > 0 {
		return fmt.Errorf("reproduce: %s failed (BENCHMARKS.md says why where the reason is known)", strings.Join(failed, ", "))
	}
	return nil
}
