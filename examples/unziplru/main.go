// Unziplru shows the buffer pool choosing its eviction victim by whether
// the load looks I/O-bound or CPU-bound.
//
// A page of a compressed table can be in the pool twice: its 8K zip block
// and a 16K uncompressed frame. Pages with both copies are also on a
// second list, unzip_LRU. To free a frame the pool can either drop only
// the frame of a page from the unzip_LRU tail, keeping the page
// compressed-only (reading it again costs a decompression but no I/O), or
// drop a whole page from the common LRU tail (reading it again costs an
// I/O). InnoDB chooses by counting decompressions and I/Os over the last
// 50 one-second intervals: while decompressions are at most 50 times the
// I/Os the load is I/O-bound and frames go, as long as unzip_LRU holds
// over 10% of the LRU; otherwise it is CPU-bound and whole pages go.
//
// The program runs two phases on a KEY_BLOCK_SIZE=8 sysbench table whose
// compressed pages alone do not fit the pool. Phase 1 reads uniformly over
// the whole table: most reads miss, so there are few decompressions per
// I/O (I/O-bound); it ends with one pass over a hot range of rows. After a
// quiet minute, which empties the 50-second window, phase 2 reads only the
// hot range, whose pages are all in the pool compressed: reads decompress
// and never wait for I/O (CPU-bound). The pool runs on a simulated clock:
// 50 reads per second in phase 1, 1,000 in phase 2 (reads that need no
// I/O go faster), so the heuristic's seconds do not depend on how fast
// this machine is. Every dirty page is written after the load, so that
// evictions never write (a write counts as an I/O too).
//
// InnoDB counterparts: buf/buf0lru.cc buf_LRU_evict_from_unzip_LRU,
// buf_LRU_free_from_unzip_LRU_list, buf_LRU_free_from_common_LRU_list and
// buf_LRU_stat_update (BUF_LRU_IO_TO_UNZIP_FACTOR = 50,
// BUF_LRU_STAT_N_INTERVAL = 50). The counters printed are bufpool.Stats'
// Reads, EvictFrame and EvictPage and INNODB_CMP's UNCOMPRESS_OPS.
//
// It exits 1 unless frame-only evictions are the majority in the I/O-bound
// phase and whole-page evictions the majority in the CPU-bound one.
//
//	go run ./examples/unziplru
package main

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	"github.com/zipsim/zipsim"
	"github.com/zipsim/zipsim/bufpool"
	"github.com/zipsim/zipsim/internal/sbdata"
	"github.com/zipsim/zipsim/sim"
)

const (
	poolBytes  = 4 << 20 // 256 frames of 16K
	rows       = 50000   // about 700 leaves
	hotRows    = 7000    // about 100 leaves: 150 frames with both copies
	ioRate     = 50      // reads per simulated second while reads wait for I/O
	cpuRate    = 1000    // reads per simulated second once they need none
	ioSeconds  = 300     // phase 1, before the pass over the hot rows
	cpuSeconds = 10      // phase 2
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "unziplru:", err)
		os.Exit(1)
	}
}

// clock is the simulated time the pool's eviction heuristic reads.
type clock struct{ ns atomic.Int64 }

func (c *clock) now() time.Time          { return time.Unix(0, c.ns.Load()) }
func (c *clock) advance(d time.Duration) { c.ns.Add(int64(d)) }

func run() error {
	ctx := context.Background()
	clk := &clock{}
	clk.advance(time.Duration(1_000_000) * time.Second)
	st, err := zipsim.Open("", zipsim.Options{Pool: bufpool.Options{Bytes: poolBytes, Clock: clk.now}})
	if err != nil {
		return err
	}
	defer st.Close()
	t, err := st.CreateTable(ctx, "sbtest1", sbtestClustered(8))
	if err != nil {
		return err
	}
	r := sbdata.Rand(1)
	var c, p []byte
	for i := 1; i <= rows; i++ {
		c, p = sbdata.C(c[:0], r), sbdata.Pad(p[:0], r)
		if err := t.Insert(ctx, zipsim.Row{zipsim.Int(int64(i)), zipsim.Int(int64(r.IntN(rows))), zipsim.Bytes(c), zipsim.Bytes(p)}); err != nil {
			return err
		}
		if i%ioRate == 0 {
			clk.advance(time.Second)
		}
	}
	if err := st.Flush(); err != nil {
		return err
	}
	m := st.Metrics()
	leaves := m.Indexes[0].BTree.LeafPages()
	fmt.Printf("pool: %d frames of 16K; table: %d rows in %d leaves, whose 8K blocks alone need %.1fx the pool; hot range: %d rows\n",
		m.Pool.Frames, rows, leaves, float64(leaves)/2/float64(m.Pool.Frames), hotRows)

	var row zipsim.Row
	// read does seconds simulated seconds of rate point reads each, of
	// the ids next draws.
	read := func(seconds, rate int, next func() int64) error {
		for s := 0; s < seconds; s++ {
			for i := 0; i < rate; i++ {
				var ok bool
				var err error
				if row, ok, err = t.Get(ctx, row, zipsim.Int(next())); err != nil {
					return err
				} else if !ok {
					return fmt.Errorf("a row is missing")
				}
			}
			clk.advance(time.Second)
		}
		return nil
	}
	uniform := func() int64 { return int64(r.IntN(rows) + 1) }
	hot := func() int64 { return int64(r.IntN(hotRows) + 1) }
	id := int64(0)
	inOrder := func() int64 { id++; return id }

	// Phase 1: uniform reads over the whole table, then one pass over the
	// hot rows, which brings their pages into the pool.
	before := st.Metrics().Pool
	if err := read(ioSeconds, ioRate, uniform); err != nil {
		return err
	}
	if err := read(hotRows/ioRate, ioRate, inOrder); err != nil {
		return err
	}
	io := st.Metrics().Pool.Sub(before)

	// A quiet minute: the window of 50 one-second intervals forgets phase 1.
	// The pool rotates its intervals only when it next weighs a victim, so
	// the counts of phase 1's last, unrotated second stay in the window as
	// one interval; at 50 reads a second they are under 50 I/Os, which the
	// window's integer average over 50 intervals rounds to 0.
	clk.advance(time.Minute)

	// Phase 2: reads of the hot range only, which decompress without I/O.
	before = st.Metrics().Pool
	if err := read(cpuSeconds, cpuRate, hot); err != nil {
		return err
	}
	cpu := st.Metrics().Pool.Sub(before)

	fmt.Println("phase                        row reads  page reads (I/O)  decompressions  per I/O | evicted: frame only  whole page")
	for _, ph := range []struct {
		name  string
		reads int
		s     bufpool.Stats
	}{
		{"1 I/O-bound: uniform + pass", ioSeconds*ioRate + hotRows, io},
		{"2 CPU-bound: hot range", cpuSeconds * cpuRate, cpu},
	} {
		unzip := ph.s.CMP.Size(8192).UncompressOps
		perIO := "-"
		if ph.s.Reads > 0 {
			perIO = fmt.Sprintf("%.1f", float64(unzip)/float64(ph.s.Reads))
		}
		fmt.Printf("%-28s %9d  %16d  %14d  %7s | %13d (%2.0f%%)  %5d (%2.0f%%)\n", ph.name, ph.reads, ph.s.Reads, unzip, perIO,
			ph.s.EvictFrame, 100*frameShare(ph.s), ph.s.EvictPage, 100*(1-frameShare(ph.s)))
	}
	if io.EvictFrame <= io.EvictPage {
		return fmt.Errorf("I/O-bound phase: %d frame-only evictions, %d whole-page: expected mostly frames", io.EvictFrame, io.EvictPage)
	}
	if cpu.EvictPage <= cpu.EvictFrame {
		return fmt.Errorf("CPU-bound phase: %d frame-only evictions, %d whole-page: expected mostly whole pages", cpu.EvictFrame, cpu.EvictPage)
	}
	fmt.Printf("OK: I/O-bound, %.0f%% of evictions freed only a frame (unzip_LRU; the rest came when unzip_LRU was down to 10%% of the LRU);\n"+
		"    CPU-bound, %.0f%% freed whole pages (common LRU)\n", 100*frameShare(io), 100*(1-frameShare(cpu)))
	return nil
}

// frameShare is the share of evictions that freed only a frame.
func frameShare(s bufpool.Stats) float64 {
	return float64(s.EvictFrame) / float64(max(s.EvictFrame+s.EvictPage, 1))
}

// sbtestClustered is sysbench's table without its secondary index, so
// that only the clustered index is measured.
func sbtestClustered(keyBlockSize int) zipsim.TableOptions {
	o := sim.SysbenchTable(1)
	o.SecondaryIndexes = nil
	o.KeyBlockSize = keyBlockSize
	return o
}
