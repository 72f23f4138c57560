// Split shows compression failures turning into page splits.
//
// On a ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=8 table a 16K leaf must also
// fit, compressed, in 8K. When an insert fills the modification log and
// the recompressed page no longer fits its block, the insert fails
// although the uncompressed page still has room, and the B-tree splits the
// leaf anyway: a split caused by compression, not by space. Each such
// failure wastes a compression (COMPRESS_OPS without COMPRESS_OPS_OK) and
// a decompression to restore the page. An uncompressed table splits only
// when a page is out of space.
//
// InnoDB's adaptive padding (innodb_compression_failure_threshold_pct=5,
// innodb_compression_pad_pct_max=50) reacts to a round of 128 leaf
// compressions with more than 5% failures by keeping 128 more bytes of
// every leaf empty: an insert that would fill the pad is refused before
// any compression is tried, and the leaf splits without wasting one. The
// program loads the same sysbench rows, in random order, into an
// uncompressed table, a compressed one with padding disabled and one with
// InnoDB's default padding, and prints the splits by cause and the
// INNODB_CMP counters of each load.
//
// InnoDB counterparts: btr/btr0cur.cc btr_cur_optimistic_insert (the
// failed page_zip_reorganize, then btr_cur_pessimistic_insert),
// btr/btr0btr.cc btr_page_split_and_insert, and dict/dict0dict.cc
// dict_index_zip_failure, dict_index_zip_pad_update and
// dict_index_zip_pad_optimal_page_size. The counters are btree.Stats
// (LeafSplitsZip, LeafSplitsSpace, PadRefusals) and INNODB_CMP.
//
// It exits 1 if the compressed table without padding shows no split
// caused by compression, or the uncompressed table shows one.
//
//	go run ./examples/split
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/zipsim/zipsim"
	"github.com/zipsim/zipsim/btree"
	"github.com/zipsim/zipsim/bufpool"
	"github.com/zipsim/zipsim/compress"
	"github.com/zipsim/zipsim/internal/sbdata"
	"github.com/zipsim/zipsim/sim"
)

const rows = 20000

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "split:", err)
		os.Exit(1)
	}
}

type result struct {
	bt  btree.Stats
	cmp compress.CMP
}

// load inserts the sysbench rows into a fresh table and returns the
// clustered index's B-tree counters and the INNODB_CMP row of 8K pages.
func load(keyBlockSize int, pad btree.Padding) (result, error) {
	ctx := context.Background()
	st, err := zipsim.Open("", zipsim.Options{Pool: bufpool.Options{Bytes: 64 << 20}, Padding: pad})
	if err != nil {
		return result{}, err
	}
	defer st.Close()
	t, err := st.CreateTable(ctx, "sbtest1", sbtestClustered(keyBlockSize))
	if err != nil {
		return result{}, err
	}
	r := sbdata.Rand(3) // the same rows in the same order for every load
	var c, p []byte
	for _, i := range r.Perm(rows) {
		c, p = sbdata.C(c[:0], r), sbdata.Pad(p[:0], r)
		row := zipsim.Row{zipsim.Int(int64(i + 1)), zipsim.Int(int64(r.IntN(rows))), zipsim.Bytes(c), zipsim.Bytes(p)}
		if err := t.Insert(ctx, row); err != nil {
			return result{}, err
		}
	}
	if errs := t.Check(ctx); len(errs) > 0 {
		return result{}, fmt.Errorf("check: %v", errs[0])
	}
	m := st.Metrics()
	return result{bt: m.Indexes[0].BTree, cmp: m.Pool.CMP.Size(8192)}, nil
}

func run() error {
	fmt.Printf("%d sysbench rows in random order, clustered index only\n", rows)
	fmt.Println("table                    leaf splits: space  compression | pad refusals | COMPRESS_OPS   _OK  failed | leaves  rows/leaf  pad")
	var res [3]result
	for i, c := range []struct {
		name string
		kbs  int
		pad  btree.Padding
	}{
		{"DYNAMIC (uncompressed)", 0, btree.Padding{}},
		{"KBS=8, padding off", 8, btree.Padding{Disabled: true}},
		{"KBS=8, padding default", 8, btree.Padding{}},
	} {
		r, err := load(c.kbs, c.pad)
		if err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		res[i] = r
		fmt.Printf("%-22s  %19d  %11d | %12d | %12d %5d  %5.1f%% | %6d  %9.1f  %3d B\n",
			c.name, r.bt.LeafSplitsSpace, r.bt.LeafSplitsZip, r.bt.PadRefusals,
			r.cmp.CompressOps, r.cmp.CompressOpsOK, r.cmp.FailurePct(),
			r.bt.LeafPages(), r.bt.RowsPerLeaf(), r.bt.Pad)
	}
	plain, off, on := res[0], res[1], res[2]
	if plain.bt.LeafSplitsZip != 0 || plain.bt.LeafSplitsSpace == 0 {
		return fmt.Errorf("uncompressed table: %d space splits, %d compression splits: expected space splits only",
			plain.bt.LeafSplitsSpace, plain.bt.LeafSplitsZip)
	}
	if off.bt.LeafSplitsZip == 0 {
		return fmt.Errorf("no leaf split caused by compression with padding off (%d space splits, %d of %d compressions failed)",
			off.bt.LeafSplitsSpace, off.cmp.CompressOps-off.cmp.CompressOpsOK, off.cmp.CompressOps)
	}
	fmt.Printf("OK: uncompressed, all %d leaf splits were for space; at KEY_BLOCK_SIZE=8 without padding %d of %d were caused by compression,\n",
		plain.bt.LeafSplitsSpace, off.bt.LeafSplitsZip, off.bt.LeafSplitsZip+off.bt.LeafSplitsSpace)
	fmt.Printf("    after %d failed compressions; with padding the pad refused %d inserts first and only %d compressions failed\n",
		off.cmp.CompressOps-off.cmp.CompressOpsOK, on.bt.PadRefusals, on.cmp.CompressOps-on.cmp.CompressOpsOK)
	return nil
}

// sbtestClustered is sysbench's table without its secondary index, so
// that only the clustered index is measured.
func sbtestClustered(keyBlockSize int) zipsim.TableOptions {
	o := sim.SysbenchTable(1)
	o.SecondaryIndexes = nil
	o.KeyBlockSize = keyBlockSize
	return o
}
