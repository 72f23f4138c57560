package sim

import (
	"context"
	"testing"
	"time"
)

// Benchmarks of T2, T3 and T8 at reduced sizes, reporting each scenario's
// ratios (zipsim reproduce runs them at full size with the pass bands):
//
//	go test -run '^$' -bench 'T2|T3|T8' -benchtime 1x ./sim

func BenchmarkT2Load(b *testing.B) {
	for b.Loop() {
		m, err := t2Measure(context.Background(), ScenarioOptions{}, t2Seed, 50_000, 1)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(m.loadRatio, "load_c/u")
		b.ReportMetric(m.bytesRatio, "bytes_c/u")
		b.ReportMetric(m.failRate, "fail_rate")
		b.ReportMetric(float64(m.uCompress), "u_compress_ops")
	}
}

func BenchmarkT3Documents(b *testing.B) {
	for b.Loop() {
		m, err := t3Measure(context.Background(), ScenarioOptions{}, 500, 300)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(m.dyn, "dyn/compact")
		b.ReportMetric(m.c8, "kbs8/compact")
		b.ReportMetric(m.kbsSpread, "kbs_max/min")
		b.ReportMetric(m.clus, "clustered_dyn/compact")
		b.ReportMetric(m.readRatio, "reads_compact/kbs8")
	}
}

func BenchmarkT8Transparent(b *testing.B) {
	for b.Loop() {
		m, err := t8Measure(context.Background(), ScenarioOptions{}, 50_000, 3*time.Second, t8Sync)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(m.load, "load_t/old")
		b.ReportMetric(m.qps, "qps_t/old")
		b.ReportMetric(m.size, "size_t/old")
		b.ReportMetric(m.ext, "extents_t/old")
		b.ReportMetric(m.drp, "drop_t/old")
	}
}
