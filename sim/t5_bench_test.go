package sim

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/zipsim/zipsim"
)

// BenchmarkT5 is T5: sysbench 0.4 oltp on one table of legacy04 data
// (special distribution, everything cached in a 96 MiB pool of 8
// instances), uncompressed and at KEY_BLOCK_SIZE 16..1, read-only and
// read-write, as the builtin engine ("global": Global locking with builtin
// latches) and as the plugin ("sharded": Split locking with atomic
// latches), the scenario's arms. The sharded sub-benchmarks also report
// sharded/global, and the compressed
// ones c/u against the uncompressed table under the same locking. RW
// sub-benchmarks change their store, so each gets a fresh load.
func BenchmarkT5(b *testing.B) {
	for _, kbs := range []int{0, 16, 8, 4, 2, 1} {
		for _, ev := range []string{"oltp_read_only", "oltp_read_write"} {
			for _, locking := range []string{"global", "split"} {
				name := fmt.Sprintf("%s/%s/%s", t5Label(kbs), map[string]string{"oltp_read_only": "RO", "oltp_read_write": "RW"}[ev],
					map[string]string{"global": "global", "split": "sharded"}[locking])
				b.Run(name, func(b *testing.B) {
					cfg := engine51(Config{Workload: "sysbench", Seed: 1, Instances: t5Inst, PoolBytes: t5Pool, StatementCPU: t4StatementCPU, RowCPU: t1RowCPU, AdaptiveHash: true, AdaptiveHashParts: 1,
						Sysbench: SysbenchConfig{Tables: 1, Rows: t5Rows, DataStyle: "legacy04", Dist: "special", Event: ev}})
					t5Arm(&cfg, locking)
					if kbs == 0 {
						cfg.RowFormat = "dynamic"
					} else {
						cfg.RowFormat, cfg.KBS = "compressed", kbs
					}
					cfg, err := cfg.Validate()
					if err != nil {
						b.Fatal(err)
					}
					w, err := New(cfg)
					if err != nil {
						b.Fatal(err)
					}
					opts, err := cfg.StoreOptions(w.DataBytes())
					if err != nil {
						b.Fatal(err)
					}
					st, err := zipsim.Open("", opts)
					if err != nil {
						b.Fatal(err)
					}
					defer st.Close()
					if _, err := Prepare(context.Background(), cfg, st, w, nil); err != nil {
						b.Fatal(err)
					}
					rate := t145Bench(b, cfg, st, 300*time.Millisecond)
					procs := testingProcs()
					t145BenchRate[fmt.Sprintf("t5/%d/%s/%s/%d", kbs, ev, locking, procs)] = rate
					if g := t145BenchRate[fmt.Sprintf("t5/%d/%s/global/%d", kbs, ev, procs)]; locking == "split" && g > 0 {
						b.ReportMetric(rate/g, "sharded/global")
					}
					if u := t145BenchRate[fmt.Sprintf("t5/0/%s/%s/%d", ev, locking, procs)]; kbs != 0 && u > 0 {
						b.ReportMetric(rate/u, "c/u")
					}
				})
			}
		}
	}
}
