// Quickstart opens an in-memory zipsim store, creates sysbench's sbtest
// table twice, as ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=8 and as an
// uncompressed DYNAMIC copy, inserts the same 20,000 rows into both, reads
// some back, and prints the compression counters and the space each copy
// takes.
//
// The InnoDB counterparts: CREATE TABLE ... ROW_FORMAT=COMPRESSED
// KEY_BLOCK_SIZE=8 (dict/dict0crea.cc), page_zip_compress and
// page_zip_decompress (page/page0zip.cc) behind every write and every read
// of a compressed page, and the INFORMATION_SCHEMA tables INNODB_CMP and
// INNODB_CMP_PER_INDEX (page_zip_stat, page_zip_stat_per_index), which
// zipsim.Metrics prints as Pool.CMP.
//
// It exits 1 if no page was compressed or the compressed copy is not
// smaller than the uncompressed one.
//
//	go run ./examples/quickstart
package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/zipsim/zipsim"
	"github.com/zipsim/zipsim/bufpool"
	"github.com/zipsim/zipsim/internal/sbdata"
)

const rows = 20000

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

// sbtest is sysbench's table: id, k, c CHAR(120), pad CHAR(60) and the
// secondary index k_1.
func sbtest(keyBlockSize int) zipsim.TableOptions {
	return zipsim.TableOptions{
		Columns: []zipsim.Column{
			{Name: "id", Type: zipsim.TypeInt, Len: 4},
			{Name: "k", Type: zipsim.TypeInt, Len: 4},
			{Name: "c", Type: zipsim.TypeChar, Len: sbdata.CLen},
			{Name: "pad", Type: zipsim.TypeChar, Len: sbdata.PadLen},
		},
		PrimaryKey:       []string{"id"},
		SecondaryIndexes: []zipsim.IndexDef{{Name: "k_1", Columns: []string{"k"}}},
		KeyBlockSize:     keyBlockSize, // 8: ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=8; 0: DYNAMIC
	}
}

func run() error {
	ctx := context.Background()
	st, err := zipsim.Open("", zipsim.Options{Pool: bufpool.Options{Bytes: 64 << 20}}) // "" = in memory
	if err != nil {
		return err
	}
	defer st.Close()

	zipped, err := st.CreateTable(ctx, "sbtest_zip", sbtest(8))
	if err != nil {
		return err
	}
	plain, err := st.CreateTable(ctx, "sbtest_plain", sbtest(0))
	if err != nil {
		return err
	}

	// Insert the same rows, in a random order as sysbench's prepare with
	// several threads would, into both tables.
	r := sbdata.Rand(1)
	ids := r.Perm(rows)
	var c, pad []byte
	for _, i := range ids {
		id := int64(i + 1)
		c, pad = sbdata.C(c[:0], r), sbdata.Pad(pad[:0], r)
		row := zipsim.Row{zipsim.Int(id), zipsim.Int(int64(r.IntN(rows))), zipsim.Bytes(c), zipsim.Bytes(pad)}
		for _, t := range []*zipsim.Table{zipped, plain} {
			if err := t.Insert(ctx, row); err != nil {
				return err
			}
		}
	}

	// Read some rows back from both and check they agree.
	read := 0
	for id := int64(1); id <= rows; id += 97 {
		a, okA, err := zipped.Get(ctx, nil, zipsim.Int(id))
		if err != nil {
			return err
		}
		b, okB, err := plain.Get(ctx, nil, zipsim.Int(id))
		if err != nil {
			return err
		}
		if !okA || !okB || a[3].String() != b[3].String() {
			return fmt.Errorf("row %d: compressed and plain copies disagree (found %v, %v)", id, okA, okB)
		}
		read++
	}
	fmt.Printf("inserted %d rows into each table, read %d back from both: they agree\n\n", rows, read)

	// INNODB_CMP and INNODB_CMP_PER_INDEX: the pool's compression counters.
	m := st.Metrics()
	fmt.Print(m.Pool.CMP.String())
	var names []string
	for _, x := range m.Indexes {
		names = append(names, fmt.Sprintf("%d=%s.%s", x.ID, x.Table, x.Index))
	}
	fmt.Printf("index ids (INNODB_INDEXES): %s\n\n", strings.Join(names, ", "))

	cmp := m.Pool.CMP.Size(8192)
	if cmp.CompressOpsOK == 0 {
		return fmt.Errorf("no page was compressed into an 8K block (COMPRESS_OPS=%d, COMPRESS_OPS_OK=0)", cmp.CompressOps)
	}

	zu, err := zipped.Space(ctx)
	if err != nil {
		return err
	}
	pu, err := plain.Space(ctx)
	if err != nil {
		return err
	}
	ratio := float64(zu.TotalBytes()) / float64(pu.TotalBytes())
	fmt.Printf("space, ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=8: %d KiB (%d clustered + %d secondary pages of %d B)\n",
		zu.TotalBytes()>>10, zu.ClusteredPages, zu.SecondaryPages, zu.PageBytes)
	fmt.Printf("space, DYNAMIC (uncompressed):              %d KiB (%d clustered + %d secondary pages of %d B)\n",
		pu.TotalBytes()>>10, pu.ClusteredPages, pu.SecondaryPages, pu.PageBytes)
	fmt.Printf("compressed/uncompressed = %.2f; %d of %d compressions succeeded (%.1f%% failed)\n",
		ratio, cmp.CompressOpsOK, cmp.CompressOps, cmp.FailurePct())
	if ratio >= 1 {
		return fmt.Errorf("the compressed table (%d B) is not smaller than the uncompressed one (%d B)", zu.TotalBytes(), pu.TotalBytes())
	}
	fmt.Println("OK: compressed table is smaller")
	return nil
}
