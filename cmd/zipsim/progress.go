package main

import (
	"fmt"
	"time"

	"github.com/schollz/progressbar/v3"
)

// bar is a progress bar on stderr, or nothing when e has no terminal or
// the command runs with --quiet. Its methods are safe for concurrent use
// and do nothing on a nil bar.
type bar struct{ pb *progressbar.ProgressBar }

// newBar returns a bar counting to max, or nil when bars are off.
func (e *env) newBar(quiet bool, max int64, desc string, unit string) *bar {
	if quiet || !e.tty || max <= 0 {
		return nil
	}
	opts := []progressbar.Option{
		progressbar.OptionSetWriter(e.stderr),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(100 * time.Millisecond),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetRenderBlankState(true),
	}
	if unit != "" {
		opts = append(opts, progressbar.OptionShowCount(), progressbar.OptionSetItsString(unit), progressbar.OptionShowIts())
	}
	return &bar{pb: progressbar.NewOptions64(max, opts...)}
}

// add advances the bar by n.
func (b *bar) add(n int64) {
	if b != nil {
		_ = b.pb.Add64(n)
	}
}

// set moves the bar to n.
func (b *bar) set(n int64) {
	if b != nil {
		_ = b.pb.Set64(n)
	}
}

// finish clears the bar.
func (b *bar) finish() {
	if b != nil {
		_ = b.pb.Finish()
		_ = b.pb.Clear()
	}
}

// loadProgress returns a progress function for Prepare that drives a bar
// of rows, and a function that clears it.
func (e *env) loadProgress(quiet bool, rows int64, desc string) (func(int64), func()) {
	b := e.newBar(quiet, rows, desc, "rows")
	if b == nil {
		return nil, func() {}
	}
	return b.add, b.finish
}

// runProgress returns a progress function for Run (done and total in
// seconds, or in events) and a function that clears its bar.
func (e *env) runProgress(quiet bool, desc string, byEvents bool, total float64) (func(done, total float64), func()) {
	scale := 10.0 // tenths of a second
	if byEvents {
		scale = 1
	}
	b := e.newBar(quiet, int64(total*scale+0.5), desc, "")
	if b == nil {
		return nil, func() {}
	}
	return func(done, _ float64) { b.set(int64(done*scale + 0.5)) }, b.finish
}

// statusf prints a status line to stderr unless quiet. Status lines say
// what a long command is doing; results go to stdout.
func (e *env) statusf(quiet bool, format string, args ...any) {
	if quiet {
		return
	}
	fmt.Fprintf(e.stderr, format+"\n", args...)
}
