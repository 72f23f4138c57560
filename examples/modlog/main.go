// Modlog watches the modification log of one compressed page fill up.
//
// A page of a ROW_FORMAT=COMPRESSED table lives in two copies: the
// uncompressed 16K page that reads and writes use, and its zip image in an
// 8K block (KEY_BLOCK_SIZE=8). An insert does not recompress the page: it
// changes the uncompressed page and appends the record to the image's
// modification log, the space between the compressed stream and the
// uncompressed trailer at the end of the block. Only when the log has no
// room is the page recompressed; and when the records no longer compress
// into 8K the B-tree has to split the page.
//
// The program does what btr_cur_optimistic_insert does for one leaf, using
// the page package directly: page_zip_available (Zip.Available) before each
// insert, page_cur_insert_rec_zip (IndexPage.Insert, then Zip.LogInsert,
// which is page_zip_write_rec), and on a full log page_zip_reorganize
// (Zip.Reorganize), and on a failed recompression page_zip_decompress
// (Zip.Decompress) to restore the page, where InnoDB would go on to
// btr_page_split_and_insert. The InnoDB code is in page/page0zip.cc,
// include/page0zip.ic, page/page0cur.cc and btr/btr0cur.cc.
//
// It exits 1 if the log never fills, or if the page never fails to
// recompress before the uncompressed page itself is full.
//
//	go run ./examples/modlog
package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"

	"github.com/zipsim/zipsim/compress"
	"github.com/zipsim/zipsim/internal/sbdata"
	"github.com/zipsim/zipsim/page"
)

const (
	pageSize = 16384
	zipSize  = 8192 // KEY_BLOCK_SIZE=8
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "modlog:", err)
		os.Exit(1)
	}
}

func run() error {
	stats := compress.NewStats() // INNODB_CMP counters for this page
	env := page.Env{Stats: stats}
	scratch := make([]byte, pageSize)

	// An empty clustered leaf and its zip image [page_create_zip].
	p, err := page.CreateIndex(make([]byte, pageSize), page.IndexOptions{PageNo: 3, SpaceID: 1, IndexID: 1, Clustered: true})
	if err != nil {
		return err
	}
	z, err := page.NewZip(make([]byte, zipSize))
	if err != nil {
		return err
	}
	if err := z.Compress(p, env); err != nil {
		return err
	}
	fmt.Printf("empty page compressed: stream ends at byte %d of the %d-byte block, log room %d B\n",
		z.MStart(), zipSize, z.MaxInsertSize())
	fmt.Println("step  record  log bytes  log room  what happened")

	r := sbdata.Rand(7)
	ids := r.Perm(10000) // sysbench rows in random key order
	fullAt, failAt, recompressed := 0, 0, 0
	for step := 1; step <= len(ids); step++ {
		key, sys, value := sbdata.Row(r, uint32(ids[step-1]+1))
		rec := page.Record{Key: key, Sys: sys, Value: value}
		size := page.RecordSize(page.ClusteredLeaf, len(key), len(value))
		slot, dup := p.Search(key, bytes.Compare)
		if dup {
			return fmt.Errorf("step %d: duplicate key", step)
		}
		logged := z.Available(size, true) // page_zip_available
		if _, err := p.Insert(slot, rec); err != nil {
			if errors.Is(err, page.ErrNoSpace) {
				return fmt.Errorf("step %d: the uncompressed page is full (%d records) and every recompression succeeded: no compression failure seen", step, p.NRecs())
			}
			return err
		}
		if logged {
			if err := z.LogInsert(p, slot); err != nil { // page_zip_write_rec
				return fmt.Errorf("step %d: %w", step, err)
			}
			fmt.Printf("%4d  %4d B  %7d B  %6d B  logged\n", step, size, z.MEnd()-z.MStart(), z.MaxInsertSize())
			continue
		}
		// The log has no room: recompress the page with the new record
		// [page_zip_reorganize after an insert into the uncompressed page].
		if fullAt == 0 {
			fullAt = step
		}
		logBefore := z.MEnd() - z.MStart()
		err = z.Reorganize(p, env, scratch)
		if err == nil {
			recompressed++
			fmt.Printf("%4d  %4d B  %7d B  %6d B  LOG FULL (%d B): page_zip_reorganize recompressed %d records, stream now ends at byte %d\n",
				step, size, z.MEnd()-z.MStart(), z.MaxInsertSize(), logBefore, p.NRecs(), z.MStart())
			continue
		}
		if !errors.Is(err, page.ErrDoesNotFit) {
			return err
		}
		// Compression failure: the image still holds the page as it was
		// before this insert; decompress it to undo the insert. InnoDB
		// would now split the page (btr_page_split_and_insert).
		if err := z.Decompress(p, env); err != nil {
			return err
		}
		failAt = step
		fmt.Printf("%4d  %4d B  %7d B  %6d B  LOG FULL (%d B): recompression FAILED, %d records do not fit %d bytes; page restored from the image with %d records: the B-tree must split it\n",
			step, size, logBefore, z.MaxInsertSize(), logBefore, p.NRecs()+1, zipSize, p.NRecs())
		break
	}
	if err := z.Validate(p, page.Env{}, scratch); err != nil {
		return fmt.Errorf("image and page disagree at the end: %w", err)
	}
	c := stats.Snapshot().Size(zipSize)
	fmt.Printf("INNODB_CMP for this page: COMPRESS_OPS %d, COMPRESS_OPS_OK %d, UNCOMPRESS_OPS %d\n", c.CompressOps, c.CompressOpsOK, c.UncompressOps)
	if fullAt == 0 {
		return errors.New("the modification log never filled")
	}
	if failAt == 0 {
		return errors.New("the page never failed to recompress")
	}
	fmt.Printf("OK: log first full at insert %d, recompressed %d times, compression failed at insert %d (a split)\n", fullAt, recompressed, failAt)
	return nil
}
