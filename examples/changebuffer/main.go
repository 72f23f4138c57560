// Changebuffer shows InnoDB's change buffer sparing the reads of
// secondary-index leaves that a write would otherwise make.
//
// A row update that changes an indexed column deletes the old secondary
// entry and inserts the new one. When the leaf that should take the
// change is not in the buffer pool, InnoDB (innodb_change_buffering=all,
// MySQL 5.5–8.0's default) keeps the change in the change buffer instead
// of reading the leaf, and applies it when the leaf is next read: by a
// query, or when the buffer fills. The program loads the same sysbench
// table, whose secondary index k_1 is larger than the pool, into two
// stores, one with the buffer and one without, runs the same updates of k
// on both, and prints the page reads each update cost, what the buffer
// took and merged (INSERT_BUFFER), and how many merges a full scan of the
// index then makes. Both stores must end up with the same entries, which
// CHECK TABLE (Table.Check) compares with the rows.
//
// InnoDB counterparts: ibuf/ibuf0ibuf.cc ibuf_insert (buffering, with the
// insert buffer bitmap's free bits deciding what fits the leaf),
// ibuf_merge_or_delete_for_page (the merge when a leaf is read), and SHOW
// ENGINE INNODB STATUS's "INSERT BUFFER AND ADAPTIVE HASH INDEX"
// section, whose counters zipsim.Metrics prints as INSERT_BUFFER.
//
// It exits 1 unless the buffer took changes, updates with it read at most
// 0.8 times the pages they read without it, and both tables check clean
// with the same rows.
//
//	go run ./examples/changebuffer
package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"

	"github.com/zipsim/zipsim"
	"github.com/zipsim/zipsim/bufpool"
	"github.com/zipsim/zipsim/internal/sbdata"
	"github.com/zipsim/zipsim/sim"
)

const (
	rows      = 100_000
	updates   = 20_000
	poolBytes = 2 << 20 // 128 frames: less than k_1's leaves and the rows'
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "changebuffer:", err)
		os.Exit(1)
	}
}

// result is what one store measured.
type result struct {
	readsPerUpdate float64
	ibuf           zipsim.Metrics
	scanMerges     uint64
	entries        int
}

func run() error {
	ctx := context.Background()
	off, err := measure(ctx, false)
	if err != nil {
		return err
	}
	on, err := measure(ctx, true)
	if err != nil {
		return err
	}
	fmt.Printf("%d updates of k on %d rows, pool %d KiB\n", updates, rows, poolBytes>>10)
	fmt.Printf("  without the change buffer: %.2f page reads an update\n", off.readsPerUpdate)
	fmt.Printf("  with it:                   %.2f page reads an update\n\n", on.readsPerUpdate)
	b := on.ibuf.ChangeBuffer
	fmt.Print(b.String())
	share := float64(b.Inserts+b.Deletes) / float64(2*updates)
	fmt.Printf("\nthe buffer took %.0f%% of k_1's %d changes; %d leaves got theirs when an update read them, or when the buffer filled\n",
		100*share, 2*updates, b.Merges)
	fmt.Printf("a scan of k_1 afterwards merged %d more leaves and saw %d entries (%d without the buffer)\n",
		on.scanMerges, on.entries, off.entries)
	switch {
	case b.Inserts == 0 || b.Deletes == 0:
		return fmt.Errorf("the buffer took %d inserts and %d deletes: it should take both", b.Inserts, b.Deletes)
	case on.readsPerUpdate > 0.8*off.readsPerUpdate:
		return fmt.Errorf("with the buffer an update read %.2f pages, without it %.2f: the buffer saved too little", on.readsPerUpdate, off.readsPerUpdate)
	case on.entries != off.entries:
		return fmt.Errorf("k_1 holds %d entries with the buffer and %d without", on.entries, off.entries)
	}
	fmt.Printf("OK: the change buffer saved %.0f%% of the reads\n", 100*(1-on.readsPerUpdate/off.readsPerUpdate))
	return nil
}

// measure loads the table into a store with the change buffer on or off,
// updates k of random rows, and scans k_1.
func measure(ctx context.Context, buffering bool) (result, error) {
	var res result
	st, err := zipsim.Open("", zipsim.Options{Pool: bufpool.Options{Bytes: poolBytes}, ChangeBuffering: buffering})
	if err != nil {
		return res, err
	}
	defer st.Close()
	t, err := st.CreateTable(ctx, "sbtest1", sim.SysbenchTable(1))
	if err != nil {
		return res, err
	}
	r := sbdata.Rand(1)
	var c, pad []byte
	row := func(id int64, k int64) zipsim.Row {
		c, pad = sbdata.C(c[:0], r), sbdata.Pad(pad[:0], r)
		return zipsim.Row{zipsim.Int(id), zipsim.Int(k), zipsim.Bytes(c), zipsim.Bytes(pad)}
	}
	for id := int64(1); id <= rows; id++ {
		if err := t.Insert(ctx, row(id, int64(r.IntN(rows)))); err != nil {
			return res, err
		}
	}

	// The same updates on both stores: a fresh generator for them.
	u := rand.New(rand.NewPCG(2, 3))
	before := st.Metrics()
	for range updates {
		id := 1 + int64(u.IntN(rows))
		if err := t.Update(ctx, row(id, int64(u.IntN(rows)))); err != nil {
			return res, err
		}
	}
	after := st.Metrics()
	d := after.Sub(before)
	res.readsPerUpdate = float64(d.Pool.Reads) / updates
	res.ibuf = d

	err = t.ScanIndex(ctx, "k_1", nil, nil, false, func(zipsim.Row) bool {
		res.entries++
		return true
	})
	if err != nil {
		return res, err
	}
	res.scanMerges = st.Metrics().ChangeBuffer.Sub(after.ChangeBuffer).Merges
	if errs := t.Check(ctx); len(errs) > 0 {
		return res, fmt.Errorf("CHECK TABLE with buffering=%v: %v (and %d more)", buffering, errs[0], len(errs)-1)
	}
	return res, nil
}
