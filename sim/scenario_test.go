package sim

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestScenarioCPUProfileName(t *testing.T) {
	require.Empty(t, ScenarioOptions{}.cpuProfile("T8", "transparent"), "no directory, no profile")
	o := ScenarioOptions{CPUProfiles: "prof"}
	for _, c := range []struct {
		parts []string
		want  string
	}{
		{[]string{"T8", "transparent"}, "T8-transparent"},
		{[]string{"T8", "old-style KBS=8"}, "T8-old-style-KBS-8"},
		{[]string{"T1", "tight/legacy/c", "r2"}, "T1-tight-legacy-c-r2"},
		{[]string{"T9", "arena, zlib_reuse=off (2)"}, "T9-arena-zlib-reuse-off-2"},
		{[]string{"T6", "u MERGE_THRESHOLD=50"}, "T6-u-MERGE-THRESHOLD-50"},
		{[]string{"T5", "KBS=1.5 ../x"}, "T5-KBS-1.5-..-x"},
	} {
		require.Equal(t, filepath.Join("prof", c.want+".pprof"), o.cpuProfile(c.parts...), "%q", c.parts)
	}
}
