package sim

import (
	"fmt"
	"testing"
	"time"
)

// BenchmarkT4PointSelect is T4: point selects on 8 tables at page sizes
// 16K, 8K and 4K, uncompressed and compressed 2:1, with a pool of 1/16 of
// the compressed data. Each sub-benchmark at 8K and 4K also reports its
// throughput over the 16K one of the same table ("vs-16K"), the ratio T4's
// bands judge.
func BenchmarkT4PointSelect(b *testing.B) {
	for _, ps := range []int{16384, 8192, 4096} {
		base := Config{Workload: "sysbench", Seed: 1, PageSize: ps, StatementCPU: t4StatementCPU, Latches: seedLatches,
			Sysbench: SysbenchConfig{Tables: t4Tables, Rows: t4Rows, Dist: "uniform", Event: "oltp_point_select"}}
		cc, uc := base, base
		cc.RowFormat, cc.KBS = "compressed", ps/2/1024
		uc.RowFormat = "dynamic"
		cd := t145BenchPrepare(b, fmt.Sprintf("t4c%d", ps), cc)
		ud := t145BenchPrepare(b, fmt.Sprintf("t4u%d", ps), uc)
		pool := (cd.load.DiskBytes/t4PoolDiv + int64(ps) - 1) / int64(ps) * int64(ps)
		for _, t := range []struct {
			name string
			d    *t145Data
		}{{"u", ud}, {"c", cd}} {
			b.Run(fmt.Sprintf("%dK/%s", ps/1024, t.name), func(b *testing.B) {
				cfg := t.d.cfg
				cfg.PoolBytes, cfg.PoolRatio = pool, 0
				st := t145BenchOpen(b, t.d, cfg)
				rate := t145Bench(b, cfg, st, 500*time.Millisecond)
				key := fmt.Sprintf("t4/%s/%d", t.name, testingProcs())
				if ps == 16384 {
					t145BenchRate[key] = rate
				} else if r16 := t145BenchRate[key]; r16 > 0 {
					b.ReportMetric(rate/r16, "vs-16K")
				}
			})
		}
	}
}
