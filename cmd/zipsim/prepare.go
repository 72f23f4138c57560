package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"time"

	"github.com/zipsim/zipsim"
	"github.com/zipsim/zipsim/compress"
	"github.com/zipsim/zipsim/sim"
)

// preparedName is the file in a prepared directory that holds the
// Config it was prepared with and what the load measured.
const preparedName = "zipsim-prepare.json"

// preparedFormat identifies the file's layout.
const preparedFormat = "zipsim-prepare v1"

// prepared is the content of preparedName.
type prepared struct {
	Format  string          `json:"format"`
	Created time.Time       `json:"created"`
	Config  sim.Config      `json:"config"` // validated
	Load    *sim.LoadResult `json:"load,omitempty"`
}

const prepareAbout = `Creates and loads a workload's tables once into DIR (the store's files: a
catalog and one .ibd per table or partition) and records the configuration in
DIR/zipsim-prepare.json. zipsim run --data DIR then runs on a copy of it, so the
prepared data never changes; zipsim inspect and zipsim check read its files.
The workload and schema knobs (workload, seed, tables, rows, data-style,
maxid1, docs, small-docs, page-size, row-format, kbs, codec, partitions,
merge-threshold) are fixed by prepare; run --data refuses different values
and takes them from the directory when not given. The pool knobs apply to
the load.`

func cmdPrepare(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("prepare")
	var quiet bool
	var dir string
	fs.StringVar(&dir, "data", "", "the `DIR` to prepare (or give it as the argument)")
	fs.BoolVar(&quiet, "quiet", false, "no progress bar or status lines")
	cf := addConfigFlags(fs, sim.Config{})
	pos, err := parseArgs(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		commandUsage(e, fs, "prepare [flags] DIR", prepareAbout, append([]string{"data", "quiet"}, knobNames()...)...)
		return err
	}
	if err != nil {
		return err
	}
	switch {
	case dir == "" && len(pos) == 1:
		dir = pos[0]
	case dir != "" && len(pos) == 0:
	case dir == "" && len(pos) == 0:
		return usagef("prepare: give the directory to prepare: zipsim prepare [flags] DIR")
	default:
		return usagef("prepare: one directory, not %q", append([]string{dir}, pos...))
	}
	cfg, err := cf.check()
	if err != nil {
		return err
	}
	p, err := prepareDataset(ctx, e, quiet, cfg, dir, "")
	if err != nil {
		return interrupted(err)
	}
	printPrepared(e.stdout, dir, p)
	return nil
}

// prepareDataset creates and loads cfg's tables into dir, which must be
// missing or empty, and writes preparedName. On failure it removes what
// it made. label prefixes the status line and the progress bar.
func prepareDataset(ctx context.Context, e *env, quiet bool, cfg sim.Config, dir, label string) (*prepared, error) {
	w, err := sim.New(cfg)
	if err != nil {
		return nil, usageErr(err)
	}
	opts, err := cfg.StoreOptions(w.DataBytes())
	if err != nil {
		return nil, usageErr(err)
	}
	created := false
	switch ents, err := os.ReadDir(dir); {
	case errors.Is(err, fs.ErrNotExist):
		created = true
	case err != nil:
		return nil, err
	case len(ents) > 0:
		return nil, usagef("prepare: %s is not empty: prepare into a new or empty directory", dir)
	}
	cleanup := func() {
		if created {
			os.RemoveAll(dir)
			return
		}
		ents, _ := os.ReadDir(dir)
		for _, ent := range ents {
			os.RemoveAll(filepath.Join(dir, ent.Name()))
		}
	}
	st, err := zipsim.Open(dir, opts)
	if err != nil {
		cleanup()
		return nil, err
	}
	if label == "" {
		e.statusf(quiet, "preparing %s in %s (%d rows)", describeData(cfg), dir, w.LoadRows())
	} else {
		e.statusf(quiet, "%sloading %s (%d rows)", label, describeData(cfg), w.LoadRows())
	}
	progress, done := e.loadProgress(quiet, w.LoadRows(), "load")
	load, err := sim.Prepare(ctx, cfg, st, w, progress)
	done()
	if cerr := st.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("close %s: %w", dir, cerr)
	}
	if err != nil {
		cleanup()
		return nil, err
	}
	p := &prepared{Format: preparedFormat, Created: time.Now().UTC(), Config: cfg, Load: &load}
	if err := writeFile(filepath.Join(dir, preparedName), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(p)
	}); err != nil {
		cleanup()
		return nil, err
	}
	return p, nil
}

// describeData names the data a Config makes: "sysbench 1×10000 rows,
// compressed KBS=8, 16K pages".
func describeData(c sim.Config) string {
	var s string
	switch c.Workload {
	case "sysbench":
		s = fmt.Sprintf("sysbench %d×%d rows (%s)", c.Sysbench.Tables, c.Sysbench.Rows, c.Sysbench.DataStyle)
	case "linkbench":
		s = fmt.Sprintf("linkbench maxid1=%d", c.Linkbench.MaxID1)
	case "document":
		s = fmt.Sprintf("document %d docs", c.Document.Docs)
	default:
		s = c.Workload
	}
	s += ", " + c.RowFormat
	if c.KBS != 0 {
		s += fmt.Sprintf(" KBS=%d", c.KBS)
	}
	if c.Codec != "" {
		s += " " + c.Codec
	}
	page := c.PageSize
	if page == 0 {
		page = 16384
	}
	s += fmt.Sprintf(", %dK pages", page/1024)
	if c.Partitions > 1 {
		s += fmt.Sprintf(", %d partitions", c.Partitions)
	}
	return s
}

// printPrepared says what prepare made.
func printPrepared(w io.Writer, dir string, p *prepared) {
	fmt.Fprintf(w, "prepared %s in %s\n", describeData(p.Config), dir)
	if l := p.Load; l != nil {
		c := l.Metrics.Pool.CMP.Total()
		fmt.Fprintf(w, "  load: %d rows in %.2fs (%.0f rows/s, CPU %.0f%%)\n", l.Rows, l.Wall.Seconds(), l.RowsPerSec, 100*l.CPUUtil)
		ratio := 0.0
		if l.DataBytes > 0 {
			ratio = float64(l.DiskBytes) / float64(l.DataBytes)
		}
		fmt.Fprintf(w, "  space: %s in pages, %.2f× the %s of uncompressed row data\n", humanBytes(l.DiskBytes), ratio, humanBytes(l.DataBytes))
		if c.CompressOps > 0 {
			fmt.Fprintf(w, "  compression: %d compress ops, %d failed (%.1f%%)\n", c.CompressOps, c.CompressOps-c.CompressOpsOK, c.FailurePct())
		}
		for _, t := range l.Tables {
			fmt.Fprintf(w, "  %s: clustered %d, secondary %d, off-page %d, free %d pages of %d bytes (%s)\n",
				t.Table, t.ClusteredPages, t.SecondaryPages, t.BlobPages, t.FreePages, t.PageBytes, humanBytes(t.TotalBytes()))
		}
	}
	fmt.Fprintf(w, "run it with: zipsim run --data %s [run flags]\n", dir)
}

// readPrepared reads dir's preparedName. Errors name the file.
func readPrepared(dir string) (*prepared, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("--data %s: %w", dir, errors.Unwrap(err))
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("--data %s: not a directory", dir)
	}
	path := filepath.Join(dir, preparedName)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: not found: %s is not a dataset made by zipsim prepare", path, dir)
	}
	if err != nil {
		return nil, err
	}
	var p prepared
	d := json.NewDecoder(bytes.NewReader(b))
	if err := d.Decode(&p); err != nil {
		return nil, fmt.Errorf("%s: damaged: %v", path, err)
	}
	if p.Format != preparedFormat {
		return nil, fmt.Errorf("%s: format %q, want %q", path, p.Format, preparedFormat)
	}
	v, err := p.Config.Validate()
	if err != nil {
		return nil, fmt.Errorf("%s: damaged: %v", path, err)
	}
	p.Config = v
	return &p, nil
}

// mergePrepared returns the run's Config: the data knobs from p, the
// run knobs from the command line. A data knob given on the command
// line with another value than p's is a bad-usage error.
func mergePrepared(cf *configFlags, dir string, p *prepared) (sim.Config, error) {
	set := setFlags(cf.fs)
	if set["load-row-cpu"] {
		return cf.cfg, usagef("--load-row-cpu is spent by a load, and run --data %s loads nothing: give it to zipsim prepare", dir)
	}
	given := cf.cfg
	// Validate a copy to compare like with like (defaults filled in).
	gv, _ := given.Validate()
	gv = normalizeData(gv)
	pv := normalizeData(p.Config)
	var diffs []string
	for _, k := range knobs {
		if !k.data {
			continue
		}
		want := reflect.ValueOf(k.field(&p.Config)).Elem()
		if set[k.name] {
			got := reflect.ValueOf(k.field(&gv)).Elem()
			want := reflect.ValueOf(k.field(&pv)).Elem()
			if !reflect.DeepEqual(got.Interface(), want.Interface()) {
				diffs = append(diffs, fmt.Sprintf("--%s %v (prepared with %v)", k.name, show(got), show(want)))
			}
			continue
		}
		reflect.ValueOf(k.field(&cf.cfg)).Elem().Set(want)
	}
	if len(diffs) > 0 {
		return cf.cfg, usagef("--data %s was prepared with other data knobs: %s; prepare another directory or leave these flags out", dir, strings.Join(diffs, ", "))
	}
	return cf.check()
}

// normalizeData spells the data knobs of a validated Config one way, so
// that a default and its explicit value compare equal: page size 0 is
// 16384, a compressed table's KBS 0 is half the page, codecs are
// canonical (zlib is zlib:6), partitions 1 is 0, merge threshold 0 is 50.
func normalizeData(c sim.Config) sim.Config {
	if c.PageSize == 0 {
		c.PageSize = 16384
	}
	if c.RowFormat == "compressed" && c.KBS == 0 {
		c.KBS = c.PageSize / 2048
	}
	switch {
	case c.RowFormat != "compressed" && c.RowFormat != "transparent":
		c.Codec = ""
	case c.Codec == "" && c.RowFormat == "compressed":
		c.Codec = "zlib:6"
	case c.Codec == "" && c.RowFormat == "transparent":
		c.Codec = "zlib"
	}
	if c.Codec != "" {
		if s, err := compress.ParseSetting(c.Codec); err == nil {
			c.Codec = s.String()
		}
	}
	if c.Partitions == 1 {
		c.Partitions = 0
	}
	if c.MergeThreshold == 0 {
		c.MergeThreshold = 50
	}
	return c
}

// show prints a knob value for messages.
func show(v reflect.Value) string {
	if s, ok := v.Interface().(string); ok && s == "" {
		return `""`
	}
	return fmt.Sprint(v.Interface())
}

// copyDir copies the regular files of src into dst (created), keeping
// runs of zero blocks as holes so that transparently compressed files
// stay sparse.
func copyDir(src, dst string) error {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	ents, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	for _, ent := range ents {
		s, d := filepath.Join(src, ent.Name()), filepath.Join(dst, ent.Name())
		switch {
		case ent.IsDir():
			if err := copyDir(s, d); err != nil {
				return err
			}
		case ent.Type().IsRegular():
			if err := copySparse(s, d); err != nil {
				return err
			}
		}
	}
	return nil
}

func copySparse(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	const block = 4096
	buf := make([]byte, 256*block)
	zero := make([]byte, block)
	var off int64
	for {
		n, rerr := io.ReadFull(in, buf)
		for i := 0; i < n; i += block {
			b := buf[i:min(i+block, n)]
			if !bytes.Equal(b, zero[:len(b)]) {
				if _, err := out.WriteAt(b, off+int64(i)); err != nil {
					out.Close()
					return err
				}
			}
		}
		off += int64(n)
		if rerr == io.EOF || rerr == io.ErrUnexpectedEOF {
			break
		}
		if rerr != nil {
			out.Close()
			return rerr
		}
	}
	if err := out.Truncate(fi.Size()); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
