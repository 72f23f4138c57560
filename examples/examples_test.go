package examples_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// examples are the programs under examples/ and a line each must print
// when it saw what it demonstrates.
var examples = []struct {
	dir, key string
}{
	{"quickstart", "OK: compressed table is smaller"},
	{"modlog", "compression failed at insert"},
	{"split", "were caused by compression"},
	{"unziplru", "freed whole pages (common LRU)"},
	{"contention", "as much as each of Split's"},
	{"blob", "OK: off-page compression beats 2:1"},
	{"changebuffer", "OK: the change buffer saved"},
	{"latches", "OK: only InnoDB's latches have a sync array"},
}

// TestExamples builds every example with the go command (a normal build,
// also when the test runs under -race) and runs it: it must exit 0 and
// print its key line. The examples run one after another, since
// contention measures lock timing.
func TestExamples(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to build the examples: %v", err)
	}
	bin := t.TempDir()
	args := []string{"build", "-o", bin + string(filepath.Separator)}
	for _, e := range examples {
		args = append(args, "./"+e.dir)
	}
	start := time.Now()
	if out, err := exec.Command(goTool, args...).CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	t.Logf("built %d examples in %v", len(examples), time.Since(start).Round(time.Millisecond))

	for _, e := range examples {
		t.Run(e.dir, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			start := time.Now()
			out, err := exec.CommandContext(ctx, filepath.Join(bin, e.dir)).CombinedOutput()
			t.Logf("%s ran in %v:\n%s", e.dir, time.Since(start).Round(time.Millisecond), out)
			if err != nil {
				t.Fatalf("%s: %v", e.dir, err)
			}
			if !strings.Contains(string(out), e.key) {
				t.Fatalf("%s: output lacks %q", e.dir, e.key)
			}
		})
	}
}
