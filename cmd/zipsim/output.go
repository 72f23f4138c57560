package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/zipsim/zipsim/sim"
)

// outputFlags are the flags of commands that write reports.
type outputFlags struct {
	out    string
	format string
	plots  string
	quiet  bool
}

// addOutputFlags registers --out, --format, --plots and --quiet.
func addOutputFlags(fs *flag.FlagSet, o *outputFlags, defOut string) {
	fs.StringVar(&o.out, "out", defOut, "write report.json, report.csv, report.txt and the plots into `DIR`")
	fs.StringVar(&o.format, "format", "text", "what goes to stdout: text, json or csv")
	fs.StringVar(&o.plots, "plots", "png", "plot files: png, svg, png,svg or none")
	fs.BoolVar(&o.quiet, "quiet", false, "no progress bars or status lines")
}

// check validates --format, --plots and --out.
func (o *outputFlags) check() error {
	switch o.format {
	case "text", "json", "csv":
	default:
		return usagef("--format %q: use text, json or csv", o.format)
	}
	if _, err := o.plotExts(); err != nil {
		return err
	}
	if strings.TrimSpace(o.out) == "" {
		return usagef("--out: give a directory for the reports and plots")
	}
	return nil
}

// plotExts returns the file extensions --plots asks for.
func (o *outputFlags) plotExts() ([]string, error) {
	var exts []string
	for _, f := range splitList(o.plots) {
		switch f {
		case "png", "svg":
			exts = append(exts, "."+f)
		case "none":
		default:
			return nil, usagef("--plots %q: use png, svg, both (png,svg) or none", o.plots)
		}
	}
	return exts, nil
}

// writeFile writes path through fn, naming path in any error.
func writeFile(path string, fn func(w io.Writer) error) error {
	var b bytes.Buffer
	if err := fn(&b); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		return err
	}
	return nil
}

// writeRunOutputs writes one run's report.json, report.csv (a row per
// interval), report.txt and its throughput and latency plots into dir,
// and returns the paths written.
func writeRunOutputs(dir string, rep *sim.Report, exts []string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var files []string
	for _, f := range []struct {
		name string
		fn   func(io.Writer) error
	}{
		{"report.json", rep.WriteJSON},
		{"report.csv", func(w io.Writer) error { return rep.WriteCSV(w, true) }},
		{"report.txt", rep.WriteText},
	} {
		p := filepath.Join(dir, f.name)
		if err := writeFile(p, f.fn); err != nil {
			return files, err
		}
		files = append(files, p)
	}
	for _, ext := range exts {
		for _, pl := range []struct {
			name string
			fn   func(*sim.Report, string) error
		}{{"throughput", sim.PlotThroughput}, {"latency", sim.PlotLatency}} {
			p := filepath.Join(dir, pl.name+ext)
			if err := pl.fn(rep, p); err != nil {
				return files, fmt.Errorf("%s: %w", p, err)
			}
			files = append(files, p)
		}
	}
	return files, nil
}

// writeStdout writes rep to stdout in format.
func writeStdout(w io.Writer, format string, rep *sim.Report) error {
	switch format {
	case "json":
		return rep.WriteJSON(w)
	case "csv":
		return rep.WriteCSV(w, true)
	default:
		return rep.WriteText(w)
	}
}

// writeJSONArray writes reports as one indented JSON array.
func writeJSONArray(w io.Writer, reports []*sim.Report) error { return writeJSONValue(w, reports) }

// writeJSONValue writes v as indented JSON.
func writeJSONValue(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
