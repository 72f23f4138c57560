package sim

import (
	"context"
	"strings"
	"testing"
)

// BenchmarkT6, BenchmarkT7 and BenchmarkT9 run the scenarios whole (about
// 1.5 min, 1 min and 45 s on 2 cores) and report each checked ratio as a
// metric; run them with -benchtime=1x.

func t679BenchScenario(b *testing.B, id string) {
	var out *Outcome
	for b.Loop() {
		var err error
		if out, err = RunScenario(context.Background(), id, ScenarioOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	for _, c := range out.Checks {
		b.ReportMetric(c.Value, t679MetricUnit(c.Name))
	}
}

// t679MetricUnit turns a check's name into a benchmark unit: no spaces.
func t679MetricUnit(name string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case ' ', '\t':
			return '_'
		case '(', ')', ',':
			return -1
		}
		return r
	}, name)
}

func BenchmarkT6SplitStallRecovery(b *testing.B) { t679BenchScenario(b, "T6") }
func BenchmarkT7PartitionedLoad(b *testing.B)    { t679BenchScenario(b, "T7") }
func BenchmarkT9ArenaMemory(b *testing.B)        { t679BenchScenario(b, "T9") }
