// Package fuzzseed keeps generated fuzz seed corpora in step with the code
// that generates them. A package's test builds its seeds from real
// structures (pages, zip images, tablespace headers); Check compares them
// with the files under testdata/fuzz and, when the -update-corpus flag is
// given, rewrites them. Seeds found by the fuzzer itself (crashers kept as
// regressions) live beside them under other names and are left alone.
package fuzzseed

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update-corpus", false, "rewrite the generated fuzz seed corpora under testdata/fuzz")

// Seeds maps a fuzz target to seed names and their files.
type Seeds map[string]map[string]string

// Add renders vals in the "go test fuzz v1" format as seed name of target.
// The file is stored as seed-<name>.
func (s Seeds) Add(target, name string, vals ...any) {
	var b strings.Builder
	b.WriteString("go test fuzz v1\n")
	for _, v := range vals {
		switch v := v.(type) {
		case []byte:
			fmt.Fprintf(&b, "[]byte(%q)\n", v)
		case byte:
			fmt.Fprintf(&b, "byte(%q)\n", v)
		case bool:
			fmt.Fprintf(&b, "bool(%v)\n", v)
		default:
			panic(fmt.Sprintf("fuzzseed: unsupported seed value %T", v))
		}
	}
	if s[target] == nil {
		s[target] = map[string]string{}
	}
	s[target][name] = b.String()
}

// Check fails t when a generated seed is missing from testdata/fuzz or
// differs from its file, and rewrites the files when the test runs with
// -update-corpus.
func Check(t testing.TB, s Seeds) {
	t.Helper()
	for target, files := range s {
		dir := filepath.Join("testdata", "fuzz", target)
		for name, want := range files {
			path := filepath.Join(dir, "seed-"+name)
			if *update {
				require.NoError(t, os.MkdirAll(dir, 0o755))
				require.NoError(t, os.WriteFile(path, []byte(want), 0o644))
				continue
			}
			got, err := os.ReadFile(path)
			require.NoError(t, err, "missing seed; regenerate with: go test -run TestFuzzCorpusUpToDate -update-corpus")
			require.True(t, want == string(got), "%s is stale; regenerate with: go test -run TestFuzzCorpusUpToDate -update-corpus", path)
		}
	}
}
