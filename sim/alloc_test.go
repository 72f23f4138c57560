//go:build !race

// Allocation counts are meaningless under -race (sync.Pool drops items at
// random); CI runs the ZeroAllocs tests in a second pass without it.

package sim

import (
	"context"
	"testing"
)

// TestZeroAllocsSysbench checks that sysbench's events allocate nothing in
// steady state: the workload reuses its rows and buffers, the store's
// reads allocate nothing, and its writes reuse their scratch, including
// the pessimistic deletes and merges read-write events cause.
func TestZeroAllocsSysbench(t *testing.T) {
	c := Config{Seed: 4, Sysbench: SysbenchConfig{Tables: 2, Rows: 2000}}
	s, st := sbSetup(t, c)
	ctx := context.Background()
	rec := newSbCounter()
	for _, ev := range []string{"oltp_point_select", "oltp_read_only", "oltp_read_write"} {
		s.sb.Event = ev
		w, err := s.Worker(st, 0)
		if err != nil {
			t.Fatal(err)
		}
		for range 50 {
			if err := w.Next(ctx, rec); err != nil {
				t.Fatal(err)
			}
		}
		if a := testing.AllocsPerRun(200, func() {
			if err := w.Next(ctx, rec); err != nil {
				t.Fatal(err)
			}
		}); a != 0 {
			t.Errorf("%s: %.1f allocations per event, want 0", ev, a)
		}
	}
}
