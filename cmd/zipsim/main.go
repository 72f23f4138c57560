// Command zipsim runs the zipsim model of InnoDB table compression from
// the command line: a guided tour, workload runs and sweeps with reports
// and plots, prepared datasets, page dumps, table checks and the
// scenarios that reproduce the seeds' targets.
//
//	go run ./cmd/zipsim                     # the tour, about 2-3 minutes
//	go run ./cmd/zipsim run --kbs 8 --rows 50000 --threads 4 --duration 20s
//	go run ./cmd/zipsim sweep --kbs 16,8,4,2,1 --rows 20000
//	go run ./cmd/zipsim prepare --rows 200000 --kbs 8 data/
//	go run ./cmd/zipsim run --data data/ --threads 8 --locking legacy
//	go run ./cmd/zipsim inspect --page 3 data/sbtest1.ibd
//	go run ./cmd/zipsim check data/
//	go run ./cmd/zipsim reproduce all       # the seeds' targets T1..T9
//	go run ./cmd/zipsim calibrate           # zipsim beside real InnoDB
//
// Exit status: 0 on success, 1 when a run fails or a data file is
// missing or damaged, 2 for bad usage (an unknown flag, a bad value, an
// impossible combination of knobs). Errors are one line on stderr.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"golang.org/x/term"
)

// env is what a command writes to and how.
type env struct {
	stdout, stderr io.Writer
	// tty says whether stderr is a terminal: progress bars are drawn only
	// then, and never with --quiet.
	tty bool
}

// command is a subcommand.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, e *env, args []string) error
}

var commands []command

func init() {
	commands = []command{
		{"tour", "the guided tour (what zipsim with no arguments runs)", cmdTour},
		{"run", "load a workload and run it; every knob is a flag", cmdRun},
		{"sweep", "one run per value of a knob given as a list (--threads 1,2,4,8)", cmdSweep},
		{"prepare", "load a dataset once into a directory, for run --data", cmdPrepare},
		{"inspect", "dump a page of a .ibd file as named regions, or its space map", cmdInspect},
		{"check", "check every table of a data directory (CHECK TABLE)", cmdCheck},
		{"reproduce", "run the scenarios that reproduce the seeds' targets (T1..T9, or all)", cmdReproduce},
		{"calibrate", "load sysbench's table as the MariaDB calibration script does and compare", cmdCalibrate},
	}
}

const usageText = `zipsim models InnoDB table compression on real pages: sysbench, LinkBench and
document workloads on COMPACT, DYNAMIC, COMPRESSED (KEY_BLOCK_SIZE) and
transparently compressed tables, with the buffer pool's locks instrumented.

Usage:
  zipsim                          the tour: sysbench uncompressed and at KEY_BLOCK_SIZE=8,
                                  point selects and read-only transactions under split and
                                  legacy buffer pool locking; writes ./zipsim-out (2-3 min)
  zipsim tour    [flags]          the same, with its knobs as flags
  zipsim run     [flags]          load a workload and run it; every knob is a flag
  zipsim sweep   [flags]          one run per value of one knob given as a list:
                                  --threads 1,2,4,8,16 or --kbs 16,8,4,2,1
  zipsim prepare [flags] DIR      load a dataset once into DIR; run --data DIR reuses it
  zipsim inspect [flags] FILE     dump a page of a .ibd file as named regions
                                  (--page N), or its space map (--space-map)
  zipsim check   DIR              check every table of a data directory; exit 1 on
                                  any violation
  zipsim reproduce all|T1 ...     the scenarios that reproduce the seeds' targets, each
                                  with its measured ratios, pass band, PASS or FAIL
  zipsim calibrate [flags]        load sbtest1 as sim/calibration's MariaDB script does
                                  and print zipsim's file sizes and failure rates beside InnoDB's
  zipsim help [command]           this text, or a command's flags

Sizes take binary suffixes (64M, 1G, 16K); durations are Go's (10s, 1m30s,
100us); lists are comma-separated. Results go to --out (default ./zipsim-out):
report.json, report.csv, report.txt and the plots; --format text|json|csv picks
what goes to stdout. Progress bars show on a terminal unless --quiet.
Exit status: 0 ok, 1 a failed run or a missing or damaged data file, 2 bad usage.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	e := &env{stdout: os.Stdout, stderr: os.Stderr, tty: term.IsTerminal(int(os.Stderr.Fd()))}
	code := runMain(ctx, e, os.Args[1:])
	stop()
	os.Exit(code)
}

// runMain runs the command args name and returns the exit status.
func runMain(ctx context.Context, e *env, args []string) int {
	err := dispatch(ctx, e, args)
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return 0
	}
	msg := oneLine(err.Error())
	for strings.HasPrefix(msg, "zipsim: ") {
		msg = strings.TrimPrefix(msg, "zipsim: ")
	}
	fmt.Fprintln(e.stderr, "zipsim: "+msg)
	return exitCode(err)
}

// oneLine keeps an error message on one line.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", "; ")), " ")
}

func dispatch(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 {
		return cmdTour(ctx, e, nil)
	}
	name := args[0]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(args) > 1 && name == "help" {
			if c, ok := lookupCommand(args[1]); ok {
				return c.run(ctx, e, []string{"-h"})
			}
			return usagef("help: unknown command %q: use one of %s", args[1], commandNames())
		}
		fmt.Fprint(e.stdout, usageText)
		return nil
	}
	if strings.HasPrefix(name, "-") {
		// Flags with no command are the tour's: zipsim --quiet.
		return cmdTour(ctx, e, args)
	}
	c, ok := lookupCommand(name)
	if !ok {
		return usagef("unknown command %q: use one of %s (zipsim help)", name, commandNames())
	}
	return c.run(ctx, e, args[1:])
}

func lookupCommand(name string) (command, bool) {
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

func commandNames() string {
	var n []string
	for _, c := range commands {
		n = append(n, c.name)
	}
	return strings.Join(n, ", ")
}

// commandUsage prints a command's usage line, description and flags.
func commandUsage(e *env, fs *flag.FlagSet, synopsis, about string, order ...string) {
	fmt.Fprintf(e.stdout, "Usage: zipsim %s\n\n%s\n", synopsis, strings.TrimSpace(about))
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	if n > 0 {
		fmt.Fprintln(e.stdout, "\nFlags:")
		printFlags(e.stdout, fs, order...)
	}
}
