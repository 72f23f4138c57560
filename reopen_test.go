package zipsim_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/cespare/xxhash/v2"
	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim"
	"github.com/zipsim/zipsim/bufpool"
	"github.com/zipsim/zipsim/storage"
)

// smallTable is sysbench's shape with a short c, so that 100,000 rows a
// table load in seconds under the race detector.
func smallTable(kbs int) zipsim.TableOptions {
	return zipsim.TableOptions{
		Columns: []zipsim.Column{
			{Name: "id", Type: zipsim.TypeInt, Len: 4},
			{Name: "k", Type: zipsim.TypeInt, Len: 4},
			{Name: "c", Type: zipsim.TypeChar, Len: 12},
		},
		PrimaryKey:       []string{"id"},
		SecondaryIndexes: []zipsim.IndexDef{{Name: "k_1", Columns: []string{"k"}}},
		KeyBlockSize:     kbs,
	}
}

// reopenRow is row id as the test leaves it: every 100th row deleted,
// every 50th moved to k+100.
func reopenRow(id int) (zipsim.Row, bool) {
	if id%100 == 0 {
		return nil, false
	}
	k := id % 7
	if id%50 == 0 {
		k += 100
	}
	return zipsim.Row{zipsim.Int(int64(id)), zipsim.Int(int64(k)), zipsim.String(fmt.Sprintf("row-%08d", id))}, true
}

// TestReopen loads 150,000 rows into each of an uncompressed and a
// KEY_BLOCK_SIZE=8 table, at once, through a pool smaller than either,
// updates and deletes some, closes the store and opens the directory
// again: every table, index, row and secondary entry is back, and the page
// allocators go on where they stopped. (It takes about 1 s, and 16 s
// under the race detector on two cores.)
func TestReopen(t *testing.T) {
	const n = 150_000
	dir := t.TempDir()
	opts := zipsim.Options{Pool: bufpool.Options{Bytes: 2 << 20}, NoSync: true}
	st, err := zipsim.Open(dir, opts)
	require.NoError(t, err)
	var wg sync.WaitGroup
	for _, kbs := range []int{0, 8} {
		tb, err := st.CreateTable(ctx, fmt.Sprint("sb", kbs), smallTable(kbs))
		require.NoError(t, err)
		wg.Go(func() {
			for id := range n {
				if err := tb.Insert(ctx, zipsim.Row{zipsim.Int(int64(id)), zipsim.Int(int64(id % 7)), zipsim.String(fmt.Sprintf("row-%08d", id))}); err != nil {
					t.Error(err)
					return
				}
			}
			for id := 0; id < n; id += 50 {
				row, ok := reopenRow(id)
				if ok {
					err = tb.Update(ctx, row)
				} else {
					err = tb.Delete(ctx, zipsim.Int(int64(id)))
				}
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	require.False(t, t.Failed())
	before := st.Metrics()
	for _, s := range before.Spaces {
		require.Greater(t, s.Usage.Pages*int64(max(s.ZipSize, s.PageSize)), opts.Pool.Bytes, "%s is larger than the pool", s.Name)
	}
	require.Positive(t, before.Pool.EvictPage)
	require.NoError(t, st.Close())

	st, err = zipsim.Open(dir, opts)
	require.NoError(t, err)
	defer st.Close()
	after := st.Metrics()
	// Open read every page to verify it, then emptied the pool: a
	// restart starts cold.
	require.Zero(t, after.Pool.LRULen, "the pool starts empty")
	require.Zero(t, after.Pool.Pages)
	require.Positive(t, after.Pool.Reads, "the verifying walk read the pages")
	require.Len(t, after.Indexes, 4)
	for i, x := range after.Indexes {
		b := before.Indexes[i]
		require.Equal(t, [4]any{b.Table, b.Index, b.ID, b.Root}, [4]any{x.Table, x.Index, x.ID, x.Root})
		require.Equal(t, b.BTree.Rows, x.BTree.Rows)
		require.Equal(t, b.BTree.PagesPerLevel, x.BTree.PagesPerLevel)
	}
	for _, tb := range st.Tables() {
		want := 0
		require.NoError(t, tb.Scan(ctx, nil, nil, false, func(got zipsim.Row) bool {
			for ; ; want++ {
				if row, ok := reopenRow(want); ok {
					require.Equal(t, row, got)
					want++
					return true
				}
			}
		}))
		require.Equal(t, n, want, tb.Name())
		moved := scanAll(t, func(fn func(zipsim.Row) bool) error {
			return tb.ScanIndex(ctx, "k_1", vals(zipsim.Int(103)), vals(zipsim.Int(104)), false, fn)
		})
		var wantMoved []int64
		for id := 50; id < n; id += 100 {
			if id%7 == 3 {
				wantMoved = append(wantMoved, int64(id))
			}
		}
		require.Equal(t, wantMoved, ints(moved, 0))
		// New rows take new pages (or freed ones), never pages in use.
		for id := n; id < n+2000; id++ {
			require.NoError(t, tb.Insert(ctx, zipsim.Row{zipsim.Int(int64(id)), zipsim.Int(1), zipsim.String("new")}))
		}
	}
	require.Empty(t, st.Check(ctx))
}

func TestReopenEmptyAndOptions(t *testing.T) {
	dir := t.TempDir()
	opts := zipsim.Options{Pool: bufpool.Options{Bytes: 4 << 20, PageSize: 8192}, NoSync: true, Latency: &storage.LatencyModel{}}
	st, err := zipsim.Open(dir, opts)
	require.NoError(t, err)
	_, err = st.CreateTable(ctx, "t", sysbench())
	require.NoError(t, err)
	tpc := sysbench()
	tpc.Compression = "zlib"
	zstd := sysbench()
	zstd.KeyBlockSize, zstd.Codec, zstd.Partitions = 2, "zstd", 2
	for name, o := range map[string]zipsim.TableOptions{"tpc": tpc, "zstd": zstd} {
		tb, err := st.CreateTable(ctx, name, o)
		require.NoError(t, err)
		for id := range int64(500) {
			require.NoError(t, tb.Insert(ctx, sbRow(id, id%3, name, "")))
		}
	}
	require.NoError(t, st.Close())
	opts.Pool.PageSize = 16384
	_, err = zipsim.Open(dir, opts)
	require.ErrorContains(t, err, "has 8192-byte pages: set Options.Pool.PageSize to 8192 or 0, not 16384")
	opts.Pool.PageSize = 0
	st, err = zipsim.Open(dir, opts)
	require.NoError(t, err)
	tb := st.Table("T")
	require.NotNil(t, tb)
	require.Equal(t, sysbench().SecondaryIndexes, tb.Options().SecondaryIndexes)
	for _, name := range []string{"tpc", "zstd"} {
		tb := st.Table(name)
		row, ok, err := tb.Get(ctx, nil, zipsim.Int(499))
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, name, string(row[2].Bytes()[:len(name)]))
	}
	require.Equal(t, "zstd:fastest", st.Table("zstd").Options().Codec)
	_, err = st.CreateTable(ctx, "t2", sysbench())
	require.NoError(t, err)
	m := st.Metrics()
	ids := map[uint64]bool{}
	for _, x := range m.Indexes {
		require.False(t, ids[x.ID], "index ids are unique in the store")
		ids[x.ID] = true
	}
	require.Len(t, ids, 10)
	require.Empty(t, st.Check(ctx))
	require.NoError(t, st.Close())

	_, err = st.CreateTable(ctx, "t3", sysbench())
	require.ErrorIs(t, err, zipsim.ErrClosed)
	require.ErrorIs(t, tb.Insert(ctx, sbRow(1, 1, "", "")), zipsim.ErrClosed)
	_, _, err = tb.Get(ctx, nil, zipsim.Int(1))
	require.ErrorIs(t, err, zipsim.ErrClosed)
}

// TestNotClean opens a store twice: the second Open finds the tablespaces
// marked open, as after a crash, and refuses them.
func TestNotClean(t *testing.T) {
	dir := t.TempDir()
	opts := zipsim.Options{Pool: bufpool.Options{Bytes: 2 << 20}, NoSync: true}
	st, err := zipsim.Open(dir, opts)
	require.NoError(t, err)
	_, err = st.CreateTable(ctx, "t", sysbench())
	require.NoError(t, err)
	require.NoError(t, st.Close())
	st, err = zipsim.Open(dir, opts)
	require.NoError(t, err)
	_, err = zipsim.Open(dir, opts)
	require.ErrorIs(t, err, storage.ErrNotClean)
	require.NoError(t, st.Close())
	st, err = zipsim.Open(dir, opts)
	require.NoError(t, err, "the refused Open left the files as they were")
	require.NoError(t, st.Close())
}

// TestDamagedCatalog damages the catalog in every way a test can think of;
// Open must say what is wrong, never panic.
func TestDamagedCatalog(t *testing.T) {
	dir := t.TempDir()
	opts := zipsim.Options{Pool: bufpool.Options{Bytes: 2 << 20}, NoSync: true}
	st, err := zipsim.Open(dir, opts)
	require.NoError(t, err)
	o := sysbench()
	o.Partitions = 2
	_, err = st.CreateTable(ctx, "t", o)
	require.NoError(t, err)
	require.NoError(t, st.Close())
	path := filepath.Join(dir, "zipsim.catalog")
	good, err := os.ReadFile(path)
	require.NoError(t, err)
	head, body, _ := bytes.Cut(good, []byte("\n"))
	// resum returns a catalog with body edited and a valid checksum.
	resum := func(old, new string) []byte {
		b := bytes.Replace(body, []byte(old), []byte(new), 1)
		require.NotEqual(t, body, b, "the edit %q applies", old)
		return slices.Concat(fmt.Appendf(nil, "zipsim-catalog v2 xxh64:%016x\n", xxhash.Sum64(b)), b)
	}
	for _, tc := range []struct {
		name string
		file []byte
		want string
	}{
		{"empty", nil, "no header line"},
		{"garbage", []byte("hello\nworld"), "is not \"zipsim-catalog v2 xxh64:<hex>\""},
		{"version", slices.Concat([]byte("zipsim-catalog v9 xxh64:0\n"), body), "version 9"},
		{"xxhash partitions", slices.Concat([]byte("zipsim-catalog v1 xxh64:0\n"), body), "version 1"},
		{"flipped byte", slices.Concat(head, []byte("\n"), bytes.Replace(body, []byte(`"k_1"`), []byte(`"k_2"`), 1)), "checksum"},
		{"truncated", good[:len(good)/2], "checksum"},
		{"not json", append(fmt.Appendf(nil, "zipsim-catalog v2 xxh64:%016x\n", xxhash.Sum64([]byte("{"))), '{'), "decode"},
		{"unknown field", resum(`"PageSize"`, `"PageSise"`), "unknown field"},
		{"page size", resum(`"PageSize": 16384`, `"PageSize": 1000`), "page size"},
		{"column type", resum(`"Type": "INT"`, `"Type": "FLOAT"`), `unknown column type "FLOAT"`},
		{"row format", resum(`"RowFormat": "DYNAMIC"`, `"RowFormat": "FAST"`), `unknown row format "FAST"`},
		{"schema", resum(`"PrimaryKey": [`, `"PrimaryKey": ["nope", `), `names column "nope"`},
		{"partitions", resum(`"Partitions": 2`, `"Partitions": 3`), "2 tablespaces for 3 partitions"},
		{"space", resum(`"Space": 2`, `"Space": 1`), "space id 1 is 0, repeated"},
		{"index id", resum(`"ID": 2`, `"ID": 1`), "has id 1: 0, repeated"},
		{"index name", resum(`"Name": "k_1"`, `"Name": "k_2"`), `index 1 is "k_1", the table's is "k_2"`},
		{"root", resum(`"Root": 1`, `"Root": 0`), "root page 0"},
		{"free", resum(`"Free": null`, `"Free": [1]`), "root page 1: 0, free"},
		{"free list", resum(`"Free": null`, `"Free": [99]`), "free page 99 is outside"},
		{"next", resum(`"Next": 3`, `"Next": 0`), "page limit 0"},
		{"table name", resum(`"Name": "t"`, `"Name": "t/../x"`), `table name "t/../x"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.NoError(t, os.WriteFile(path, tc.file, 0o644))
			_, err := zipsim.Open(dir, opts)
			require.ErrorContains(t, err, tc.want)
		})
	}
	require.NoError(t, os.WriteFile(path, good, 0o644))
	require.NoError(t, os.Remove(filepath.Join(dir, "t#p#p1.ibd")))
	_, err = zipsim.Open(dir, opts)
	require.ErrorContains(t, err, "the catalog lists table t, but its tablespace")
	require.NoFileExists(t, filepath.Join(dir, "t#p#p1.ibd"), "Open creates no file")
	st, err = zipsim.Open(t.TempDir(), opts)
	require.NoError(t, err, "a directory without a catalog is a new store")
	require.NoError(t, st.Close())
}

// TestReopenLegacyWalkIsLinear: under Legacy locking each compressed read
// walks the LRU towards its tail (5.1's zip_clean insert), so a verifying
// walk that left every page it read in the pool took time quadratic in
// the store. Open evicts each page after its visit, and its reads walk
// one or two steps each, where they walked about half the pages before.
func TestReopenLegacyWalkIsLinear(t *testing.T) {
	dir := t.TempDir()
	opts := zipsim.Options{Pool: bufpool.Options{Bytes: 16 << 20, Locking: bufpool.Legacy}, NoSync: true}
	st, err := zipsim.Open(dir, opts)
	require.NoError(t, err)
	tb, err := st.CreateTable(ctx, "sb", smallTable(8))
	require.NoError(t, err)
	for id := range 30_000 {
		require.NoError(t, tb.Insert(ctx, zipsim.Row{zipsim.Int(int64(id)), zipsim.Int(int64(id % 7)), zipsim.String(fmt.Sprintf("row-%08d", id))}))
	}
	require.NoError(t, st.Close())

	st, err = zipsim.Open(dir, opts)
	require.NoError(t, err)
	defer st.Close()
	m := st.Metrics().Pool
	require.Greater(t, m.ZipCleanReadInserts, uint64(100), "the walk read the compressed pages")
	require.LessOrEqual(t, m.ZipCleanReadSteps, 2*m.ZipCleanReadInserts, "each read walked past the pages the walk kept")
	require.Empty(t, st.Check(ctx))
}
