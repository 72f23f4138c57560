package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim/sim"
)

// bin is the zipsim binary TestMain builds (without -race: the tests
// drive it as a user would, and -race on the test binary is enough).
var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "zipsim-cmd-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = filepath.Join(dir, "zipsim")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	goCmd := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goCmd); err != nil {
		goCmd = "go"
	}
	build := exec.Command(goCmd, "build", "-o", bin, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building zipsim:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// result is one run of the binary.
type result struct {
	stdout, stderr string
	code           int
}

// exe runs the binary in dir with args.
func exe(t *testing.T, dir string, args ...string) result {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	default:
		t.Fatalf("zipsim %v: %v", args, err)
	}
	return r
}

// mustRun runs the binary and requires exit status 0.
func mustRun(t *testing.T, dir string, args ...string) result {
	t.Helper()
	r := exe(t, dir, args...)
	require.Equal(t, 0, r.code, "zipsim %s\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.stdout, r.stderr)
	return r
}

// tiny is a sysbench configuration that loads and runs in about a second.
var tiny = []string{"--rows", "2000", "--threads", "2", "--quiet"}

func TestBadInputs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "garbage.ibd"), bytes.Repeat([]byte("not a tablespace "), 1000), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "empty.ibd"), nil, 0o644))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "empty"), 0o755))
	for _, c := range []struct {
		args []string
		code int
		want string // in the one line on stderr
	}{
		{[]string{"run", "--workload", "nosuch"}, 2, `workload "nosuch"`},
		{[]string{"run", "--nosuch"}, 2, "unknown flag --nosuch"},
		{[]string{"run", "--kbs", "32"}, 2, "--kbs 32"},
		{[]string{"run", "--kbs", "16", "--page-size", "8192"}, 2, "--kbs 16 is larger than the 8K page"},
		{[]string{"run", "--pool", "1K"}, 2, "--pool 1K"},
		{[]string{"run", "--pool", "1M", "--instances", "16"}, 2, "per instance"},
		{[]string{"run", "--threads", "0"}, 2, "--threads 0"},
		{[]string{"run", "--rows", "-5"}, 2, "--rows -5"},
		{[]string{"run", "--page-size", "32K"}, 2, "--page-size 32K"},
		{[]string{"run", "--duration", "soon"}, 2, "--duration"},
		{[]string{"run", "--pool", "12X"}, 2, `"12X"`},
		{[]string{"run", "--format", "xml"}, 2, "--format"},
		{[]string{"run", "--row-format", "dynamic", "--kbs", "8"}, 2, "kbs 8"},
		{[]string{"run", "extra"}, 2, `"extra"`},
		{[]string{"run", "--workload", "document", "--rows", "5"}, 2, "--rows is a sysbench knob"},
		{[]string{"run", "--codec", "zstd"}, 2, `codec "zstd": only compressed and transparent`},
		{[]string{"run", "--pool", "64M", "--pool-ratio", "0.5"}, 2, "give one of them"},
		{[]string{"nosuch"}, 2, `unknown command "nosuch"`},
		{[]string{"run", "--frames", "slab"}, 2, `frames "slab": use arena or per-miss`},
		{[]string{"calibrate", "--kbs", "3"}, 2, `--kbs "3"`},
		{[]string{"calibrate", "--rows", "0"}, 2, "--rows 0"},
		{[]string{"reproduce"}, 2, "name the targets"},
		{[]string{"reproduce", "T99"}, 2, `no scenario "T99"`},
		{[]string{"sweep", "--threads", "1"}, 2, "comma-separated list"},
		{[]string{"sweep", "--threads", "1,2", "--kbs", "8,4"}, 2, "one knob at a time"},
		{[]string{"sweep", "--threads", "1,0"}, 2, "--threads 0"},
		{[]string{"tour", "--rows", "10"}, 2, "--rows 10"},
		{[]string{"inspect", "missing.ibd"}, 1, "missing.ibd: no such file"},
		{[]string{"inspect", "garbage.ibd"}, 1, "garbage.ibd: not a zipsim tablespace"},
		{[]string{"inspect", "empty.ibd"}, 1, "empty.ibd"},
		{[]string{"inspect"}, 2, "give one .ibd file"},
		{[]string{"check", "empty"}, 1, "zipsim.catalog: not found"},
		{[]string{"check", "missing"}, 1, "missing: no such directory"},
		{[]string{"run", "--data", "empty"}, 1, "zipsim-prepare.json: not found"},
		{[]string{"run", "--data", "missing"}, 1, "--data missing"},
	} {
		r := exe(t, dir, c.args...)
		name := strings.Join(c.args, " ")
		require.Equal(t, c.code, r.code, "%s: stderr %q", name, r.stderr)
		line := strings.TrimSuffix(r.stderr, "\n")
		require.NotContains(t, line, "\n", "%s: one line on stderr", name)
		require.True(t, strings.HasPrefix(line, "zipsim: "), "%s: %q", name, line)
		require.Contains(t, line, c.want, name)
		require.NotContains(t, r.stderr, "panic", name)
	}
}

func TestHelp(t *testing.T) {
	t.Parallel()
	r := mustRun(t, t.TempDir(), "help")
	for _, c := range []string{"run", "sweep", "prepare", "inspect", "check", "tour"} {
		require.Contains(t, r.stdout, "zipsim "+c)
		h := mustRun(t, t.TempDir(), c, "-h")
		require.Contains(t, h.stdout, "Usage: zipsim "+c)
	}
	r = mustRun(t, t.TempDir(), "run", "--help")
	for _, f := range []string{"--workload", "--tables", "--rows", "--threads", "--duration", "--row-format", "--kbs",
		"--page-size", "--codec", "--pool", "--instances", "--locking", "--latches", "--io", "--partitions", "--seed", "--out",
		"--format", "--events", "--warmup", "--interval", "--event", "--dist", "--data-style", "--maxid1", "--docs",
		"--pool-ratio", "--data"} {
		require.Contains(t, r.stdout, "  "+f+" ", f)
	}
}

// requireFiles checks that dir holds files with these names, not empty.
func requireFiles(t *testing.T, dir string, names ...string) {
	t.Helper()
	for _, n := range names {
		fi, err := os.Stat(filepath.Join(dir, n))
		require.NoError(t, err, n)
		require.Positive(t, fi.Size(), n)
	}
}

// readCSV reads a CSV file's records.
func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	require.NoError(t, err)
	return recs
}

func TestRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	args := append([]string{"run", "--kbs", "8", "--duration", "2s", "--interval", "1s", "--out", "out", "--plots", "png,svg"}, tiny...)
	r := mustRun(t, dir, args...)
	require.Contains(t, r.stdout, "THROUGHPUT")
	require.Empty(t, r.stderr, "--quiet and no terminal: nothing on stderr")
	out := filepath.Join(dir, "out")
	requireFiles(t, out, "report.json", "report.csv", "report.txt", "throughput.png", "latency.png", "throughput.svg", "latency.svg")
	var rep sim.Report
	b, err := os.ReadFile(filepath.Join(out, "report.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &rep))
	require.Equal(t, 8, rep.Header.KBS)
	require.Equal(t, 2000, rep.Header.Sysbench.Rows)
	require.Positive(t, rep.Totals.Events)
	require.NotNil(t, rep.Load)
	recs := readCSV(t, filepath.Join(out, "report.csv"))
	require.GreaterOrEqual(t, len(recs), 3, "a header and a row per interval")

	// --format json prints the report; --format csv the rows.
	r = mustRun(t, dir, append([]string{"run", "--duration", "1s", "--out", "out2", "--format", "json", "--plots", "none"}, tiny...)...)
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep))
	require.Equal(t, "dynamic", rep.Header.RowFormat)
	r = mustRun(t, dir, append([]string{"run", "--duration", "1s", "--out", "out3", "--format", "csv", "--plots", "none", "--pool", "4M"}, tiny...)...)
	require.True(t, strings.HasPrefix(r.stdout, "config_hash,"), r.stdout)
}

// hashDir hashes every file in dir, by name.
func hashDir(t *testing.T, dir string) map[string][32]byte {
	t.Helper()
	m := map[string][32]byte{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		m[p] = sha256.Sum256(b)
		return nil
	}))
	return m
}

func TestPrepareRunInspectCheck(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := mustRun(t, dir, append([]string{"prepare", "data", "--kbs", "8"}, tiny...)...)
	require.Contains(t, r.stdout, "prepared sysbench")
	data := filepath.Join(dir, "data")
	requireFiles(t, data, preparedName, "zipsim.catalog", "sbtest1.ibd")
	p, err := readPrepared(data)
	require.NoError(t, err)
	require.Equal(t, 8, p.Config.KBS)
	require.Equal(t, 2000, p.Config.Sysbench.Rows)

	// Preparing into a directory that is not empty is refused.
	r = exe(t, dir, "prepare", "--quiet", "data")
	require.Equal(t, 2, r.code, r.stderr)
	require.Contains(t, r.stderr, "not empty")

	// run --data reuses it, taking the data knobs from it and leaving it
	// as it was.
	before := hashDir(t, data)
	r = mustRun(t, dir, "run", "--data", "data", "--duration", "1s", "--threads", "2", "--out", "out", "--format", "json", "--quiet",
		"--cpuprofile", "run.pprof")
	prof, err := os.ReadFile(filepath.Join(dir, "run.pprof"))
	require.NoError(t, err)
	require.Equal(t, []byte{0x1f, 0x8b}, prof[:2], "--cpuprofile writes a (gzipped) CPU profile")
	var rep sim.Report
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep))
	require.Equal(t, 8, rep.Header.KBS)
	require.Equal(t, 2000, rep.Header.Sysbench.Rows)
	require.NotNil(t, rep.Load, "the prepared load goes into the report")
	requireFiles(t, filepath.Join(dir, "out"), "report.json", "report.csv", "report.txt", "throughput.png", "latency.png")
	require.Equal(t, before, hashDir(t, data), "run --data must not change the prepared directory")

	// Different data knobs are refused with a clear message; the same
	// ones, spelled otherwise, are not.
	r = exe(t, dir, "run", "--data", "data", "--rows", "3000", "--quiet")
	require.Equal(t, 2, r.code, r.stderr)
	require.Contains(t, r.stderr, "--rows 3000 (prepared with 2000)")
	r = exe(t, dir, "run", "--data", "data", "--kbs", "4", "--quiet")
	require.Equal(t, 2, r.code, r.stderr)
	require.Contains(t, r.stderr, "--kbs 4 (prepared with 8)")
	r = exe(t, dir, "run", "--data", "data", "--load-row-cpu", "4us", "--quiet")
	require.Equal(t, 2, r.code, r.stderr)
	require.Contains(t, r.stderr, "--load-row-cpu is spent by a load, and run --data data loads nothing")
	mustRun(t, dir, "run", "--data", "data", "--kbs", "8", "--page-size", "16K", "--codec", "zlib", "--rows", "2000",
		"--duration", "1s", "--out", "out2", "--plots", "none", "--quiet")

	// inspect dumps a page as named regions and the space map.
	ibd := filepath.Join("data", "sbtest1.ibd")
	r = mustRun(t, dir, "inspect", ibd)
	for _, name := range []string{"FIL header", "index header", "compressed records", "modification log", "free space",
		"BLOB pointers", "uncompressed columns", "dense directory", "root of PRIMARY"} {
		require.Contains(t, r.stdout, name)
	}
	r = mustRun(t, dir, "inspect", "--page", "2", "--records", "3", "--hex", "16", ibd)
	require.Contains(t, r.stdout, "records (first 3")
	r = mustRun(t, dir, "inspect", "--space-map", ibd)
	require.Contains(t, r.stdout, "PRIMARY")
	require.Contains(t, r.stdout, "k_1")
	lines := strings.Count(r.stdout, "\n")
	r = mustRun(t, dir, "inspect", "--space-map", "--runs", ibd)
	require.Less(t, strings.Count(r.stdout, "\n"), lines, "runs summarise")
	require.Equal(t, before, hashDir(t, data), "inspect must not change the file")

	// check passes on the prepared directory.
	r = mustRun(t, dir, "check", "data")
	require.Contains(t, r.stdout, "sbtest1: ok")

	// A damaged page is reported with its file, never a panic.
	damage := func(off int64) {
		f, err := os.OpenFile(filepath.Join(data, "sbtest1.ibd"), os.O_RDWR, 0)
		require.NoError(t, err)
		_, err = f.WriteAt(bytes.Repeat([]byte{0xAB}, 64), off)
		require.NoError(t, err)
		require.NoError(t, f.Close())
	}
	damage(5*8192 + 300) // inside page 5 of 8K slots
	r = mustRun(t, dir, "inspect", "--space-map", ibd)
	require.Contains(t, r.stdout, "bad checksum")
	r = exe(t, dir, "inspect", "--page", "5", ibd)
	require.Equal(t, 1, r.code, r.stderr)
	require.Contains(t, r.stderr, "sbtest1.ibd: page 5")
	r = exe(t, dir, "check", "data")
	require.Equal(t, 1, r.code, r.stderr)
	require.Contains(t, r.stderr, "sbtest1.ibd")
	require.NotContains(t, r.stderr, "panic")

	// A damaged header is an error naming the file.
	damage(40)
	r = exe(t, dir, "inspect", ibd)
	require.Equal(t, 1, r.code, r.stderr)
	require.Contains(t, r.stderr, "sbtest1.ibd")
	r = exe(t, dir, "check", "data")
	require.Equal(t, 1, r.code, r.stderr)
	require.Contains(t, r.stderr+r.stdout, "sbtest1")
	require.NotContains(t, r.stderr, "panic")
	r = exe(t, dir, "run", "--data", "data", "--duration", "1s", "--quiet")
	require.Equal(t, 1, r.code, r.stderr)
	require.Contains(t, r.stderr, "sbtest1.ibd")
	require.NotContains(t, r.stderr, os.TempDir()+"/zipsim-run-", "errors name the prepared file, not the copy")
}

func TestSweep(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := mustRun(t, dir, append([]string{"sweep", "--threads", "1,2", "--duration", "1s", "--out", "out"}, tiny[:2]...)...)
	require.Contains(t, r.stdout, "THREADS")
	out := filepath.Join(dir, "out")
	requireFiles(t, out, "report.csv", "report.json", "report.txt", "sweep-threads.png")
	recs := readCSV(t, filepath.Join(out, "report.csv"))
	require.Len(t, recs, 3, "a header and one row per run")
	col := -1
	for i, h := range recs[0] {
		if h == "threads" {
			col = i
		}
	}
	require.GreaterOrEqual(t, col, 0)
	require.Equal(t, "1", recs[1][col])
	require.Equal(t, "2", recs[2][col])
	var reps []sim.Report
	b, err := os.ReadFile(filepath.Join(out, "report.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &reps))
	require.Len(t, reps, 2)
}

func TestTourSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("the tour takes about 15 seconds even when small")
	}
	t.Parallel()
	dir := t.TempDir()
	r := mustRun(t, dir, "tour", "--rows", "6000", "--threads", "2", "--duration", "1s", "--warmup", "0s", "--quiet", "--out", "out")
	for _, s := range []string{"space (pages in the file)", "load time", "compress ops", "uncompress ops per query",
		"busiest pool lock", "its wait share", "QPS KBS=8 / uncompressed", "->"} {
		require.Contains(t, r.stdout, s)
	}
	require.Contains(t, r.stdout, "but not the uncompressed one", "the pool sits between the two tables")
	out := filepath.Join(dir, "out")
	requireFiles(t, out, "report.txt", "report.json", "report.csv", "tour-point_select.png", "tour-read_only.png")
	require.Len(t, readCSV(t, filepath.Join(out, "report.csv")), 9, "a header and eight runs")
	ents, err := os.ReadDir(filepath.Join(out, "runs"))
	require.NoError(t, err)
	require.Len(t, ents, 8)
}
