package btree

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim/compress"
	"github.com/zipsim/zipsim/internal/sbdata"
)

// loadResult is what one load of sysbench rows left behind.
type loadResult struct {
	stats Stats
	cmp   compress.Snapshot
	// fileBytes is the tablespace's apparent size after a flush, what
	// ls -l shows for the .ibd: T2's "6 GB -> 3.1 GB per table" compares
	// exactly this, and research/targets.md section 3 reports space as
	// "disk bytes per table and index (pages x block size)". The header
	// page is included on both sides.
	fileBytes int64
	// indexBytes is the index's pages (every level) x the slot size: the
	// same measure from the tree's side, without the header page.
	indexBytes int64
	took       time.Duration
}

// loadSysbench loads sbtest rows 1..n in id order into a fresh clustered
// index of zip size zip, one goroutine as sysbench's prepare does per
// table, through Insert (auto-increment INSERTs) or BulkLoad (a sorted
// index build). The pool holds the whole table, as in T2's cached load.
func loadSysbench(t *testing.T, zip, n int, method string) loadResult {
	t.Helper()
	e := newDiffEnv(t, zip, max(int64(n)*400, 4<<20))
	ix := e.ix
	r := sbdata.Rand(2)
	start := time.Now()
	switch method {
	case "insert":
		for id := 1; id <= n; id++ {
			k, v := sbRow(r, uint32(id))
			require.NoError(t, ix.Insert(ctx, k, v), "row %d", id)
		}
	case "bulk":
		id := 0
		require.NoError(t, ix.BulkLoad(ctx, func() ([]byte, []byte, bool, error) {
			if id == n {
				return nil, nil, false, nil
			}
			id++
			k, v := sbRow(r, uint32(id))
			return k, v, true, nil
		}))
	default:
		t.Fatalf("load method %q", method)
	}
	took := time.Since(start)
	require.NoError(t, e.pool.Flush())
	requireCheck(t, ix)
	s := ix.Stats()
	require.EqualValues(t, n, s.Rows)
	for id := 1; id <= n; id += 101 {
		_, found, err := ix.Get(ctx, sbdata.Key(uint32(id)), nil)
		require.NoError(t, err)
		require.True(t, found, "row %d", id)
	}
	pages := 0
	for _, p := range s.PagesPerLevel {
		pages += p
	}
	slot := int64(e.ts.PhysicalSize())
	u := e.ts.Usage()
	// Page numbers come from a counter, so the file is the header page plus
	// the index's pages and the few a load gave back (BulkLoad frees the
	// page it built the top level on after copying it into the root).
	require.GreaterOrEqual(t, u.Pages, int64(pages+1), "tablespace pages")
	require.LessOrEqual(t, u.Pages, int64(pages+1+s.Height), "tablespace pages")
	return loadResult{stats: s, cmp: e.pool.CMP().Snapshot(), fileBytes: u.ApparentBytes,
		indexBytes: int64(pages) * slot, took: took}
}

// TestLoadSysbench is the load test, T2's mechanism: 100k sysbench
// rows (10k under -race, 25k with -short) loaded in id order at
// KEY_BLOCK_SIZE=8 fail some compressions (at most T2's 60%), take
// 0.45-0.62 of the uncompressed table's bytes, and the uncompressed load
// compresses nothing. Through Insert the sequential appends fill the
// modification log, recompress, fail and split; through BulkLoad pages are
// filled to the pad and split in half when they do not compress.
//
// Bytes are the tablespace file's apparent size after a flush (see
// loadResult), compressed over uncompressed for the same rows loaded the
// same way, which is what T2's 0.52 compares.
func TestLoadSysbench(t *testing.T) {
	n := 100_000
	switch {
	case raceEnabled:
		n = 10_000
	case testing.Short():
		n = 25_000
	}
	for _, method := range []string{"insert", "bulk"} {
		t.Run("load="+method, func(t *testing.T) {
			u := loadSysbench(t, 0, n, method)
			c := loadSysbench(t, 8192, n, method)

			// The uncompressed table never compresses or decompresses.
			require.Zero(t, u.cmp.Total().CompressOps, "compressions on the uncompressed table")
			require.Zero(t, u.cmp.Total().UncompressOps, "decompressions on the uncompressed table")

			// The compressed one fails some compressions, below T2's 60%.
			row := c.cmp.Size(8192)
			require.Greater(t, row.CompressOps, row.CompressOpsOK, "compression failures during the load")
			require.LessOrEqual(t, row.FailurePct(), 60.0, "T2: failure rate during the load at most 60%")
			// CMP_PER_INDEX counts the same attempts as CMP.
			require.Equal(t, row.CompressOps, c.cmp.PerIndex[c.stats.ID].CompressOps)
			require.Equal(t, row.CompressOpsOK, c.cmp.PerIndex[c.stats.ID].CompressOpsOK)

			fileRatio := float64(c.fileBytes) / float64(u.fileBytes)
			indexRatio := float64(c.indexBytes) / float64(u.indexBytes)
			t.Logf("%d rows by %s: compressed %d leaves (%.1f rows/leaf, fill %.3f, pad %d), %d KiB; uncompressed %d leaves (%.1f rows/leaf), %d KiB",
				n, method, c.stats.LeafPages(), c.stats.RowsPerLeaf(), c.stats.LeafFill(), c.stats.Pad, c.fileBytes>>10,
				u.stats.LeafPages(), u.stats.RowsPerLeaf(), u.fileBytes>>10)
			t.Logf("bytes c/u: file %.3f, index pages %.3f; INNODB_CMP 8K: %d compressions, %d ok (%.1f%% failed), %d decompressions",
				fileRatio, indexRatio, row.CompressOps, row.CompressOpsOK, row.FailurePct(), row.UncompressOps)
			t.Logf("splits: leaf %d space + %d zip, node %d + %d; load time c/u %.2f (T2 band 1.5-3.5, informative only: %v vs %v)",
				c.stats.LeafSplitsSpace, c.stats.LeafSplitsZip, c.stats.NodeSplitsSpace, c.stats.NodeSplitsZip,
				c.took.Seconds()/u.took.Seconds(), c.took.Round(time.Millisecond), u.took.Round(time.Millisecond))
			require.InDelta(t, fileRatio, indexRatio, 0.01)
			if method == "bulk" && n < 100_000 {
				// BulkLoad fills compressed pages up to the pad, which
				// starts at 0 and grows 128 bytes per round of 128
				// compressions: the first pages are filled to the brim,
				// fail, and split in half (about 38 rows of 76). The
				// size reaches T2's band only once the pad has learned,
				// around 100k rows (0.94 at 10k, 0.84 at 20k, 0.66 at
				// 50k, 0.60 at 100k with this data).
				t.Logf("bytes c/u checked against T2's band only with 100k rows")
				return
			}
			require.GreaterOrEqual(t, fileRatio, 0.45, "T2: bytes c/u")
			require.LessOrEqual(t, fileRatio, 0.62, "T2: bytes c/u")
			if method == "insert" {
				require.Positive(t, c.stats.LeafSplitsZip, "leaf splits caused by compression failures")
			}
		})
	}
}

// TestLoadSysbenchZipSizes logs the same load at every zip size, for the
// record; it asserts only that every load is intact (loadSysbench checks)
// and that only compressed tables compress. Under -race and -short it
// loads fewer rows.
func TestLoadSysbenchZipSizes(t *testing.T) {
	n := 20_000
	if raceEnabled || testing.Short() {
		n = 2_000
	}
	u := loadSysbench(t, 0, n, "insert")
	require.Zero(t, u.cmp.Total().CompressOps)
	for _, zip := range []int{1024, 2048, 4096, 16384} {
		t.Run(fmt.Sprintf("zip=%dK", zip/1024), func(t *testing.T) {
			c := loadSysbench(t, zip, n, "insert")
			row := c.cmp.Size(zip)
			require.Positive(t, row.CompressOps)
			t.Logf("bytes c/u %.3f, %.1f rows/leaf, %.1f%% of %d compressions failed, pad %d",
				float64(c.fileBytes)/float64(u.fileBytes), c.stats.RowsPerLeaf(), row.FailurePct(), row.CompressOps, c.stats.Pad)
		})
	}
}
