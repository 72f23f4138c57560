package zipsim_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim"
	"github.com/zipsim/zipsim/btree"
	"github.com/zipsim/zipsim/bufpool"
)

func TestOpenOptionErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts zipsim.Options
		want string
	}{
		{"threshold", zipsim.Options{Padding: btree.Padding{ThresholdPct: 101}}, "ThresholdPct is 101: use 1..100"},
		{"pad max", zipsim.Options{Padding: btree.Padding{MaxPct: 80}}, "MaxPct is 80: use 1..75"},
		{"page size", zipsim.Options{Pool: bufpool.Options{PageSize: 1000}}, "Options.Pool"},
		{"instances", zipsim.Options{Pool: bufpool.Options{Instances: 65}}, "use 1..64"},
		{"pool bytes", zipsim.Options{Pool: bufpool.Options{Bytes: 16384}}, "at least"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := zipsim.Open("", tc.opts)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

func TestZeroOptions(t *testing.T) {
	st, err := zipsim.Open("", zipsim.Options{})
	require.NoError(t, err)
	tb, err := st.CreateTable(ctx, "t", zipsim.TableOptions{
		Columns:    []zipsim.Column{{Name: "id", Type: zipsim.TypeInt}},
		PrimaryKey: []string{"id"},
	})
	require.NoError(t, err)
	o := tb.Options()
	require.Equal(t, zipsim.Dynamic, o.RowFormat)
	require.Equal(t, 8, o.Columns[0].Len, "INT defaults to 8 bytes")
	require.Equal(t, 1, o.Partitions)
	require.Equal(t, 50, o.MergeThresholdPct)
	require.NoError(t, st.Close())
	require.ErrorIs(t, st.Close(), zipsim.ErrClosed)
}

func TestTableOptionDefaults(t *testing.T) {
	st := openMem(t)
	for i, tc := range []struct {
		name        string
		edit        func(o *zipsim.TableOptions)
		format      zipsim.RowFormat
		kbs         int
		codec       string
		transparent string
	}{
		{"dynamic", func(o *zipsim.TableOptions) {}, zipsim.Dynamic, 0, "", ""},
		{"compressed", func(o *zipsim.TableOptions) { o.RowFormat = zipsim.Compressed }, zipsim.Compressed, 8, "zlib:6", ""},
		{"kbs alone", func(o *zipsim.TableOptions) { o.KeyBlockSize = 4 }, zipsim.Compressed, 4, "zlib:6", ""},
		{"codec", func(o *zipsim.TableOptions) { o.KeyBlockSize = 16; o.Codec = "ZSTD" }, zipsim.Compressed, 16, "zstd:fastest", ""},
		{"transparent", func(o *zipsim.TableOptions) { o.RowFormat = zipsim.Compact; o.Compression = "zlib" }, zipsim.Compact, 0, "", "zlib:6"},
		{"none", func(o *zipsim.TableOptions) { o.Compression = "None" }, zipsim.Dynamic, 0, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := sysbench()
			tc.edit(&o)
			tb, err := st.CreateTable(ctx, fmt.Sprintf("t%d", i), o)
			require.NoError(t, err)
			got := tb.Options()
			require.Equal(t, tc.format, got.RowFormat)
			require.Equal(t, tc.kbs, got.KeyBlockSize)
			require.Equal(t, tc.codec, got.Codec)
			require.Equal(t, tc.transparent, got.Compression)
			require.Empty(t, tb.Check(ctx))
		})
	}
}

func TestCreateTableErrors(t *testing.T) {
	st := openMem(t)
	_, err := st.CreateTable(ctx, "sbtest", sysbench())
	require.NoError(t, err)
	char := func(name string, n int) zipsim.Column {
		return zipsim.Column{Name: name, Type: zipsim.TypeChar, Len: n}
	}
	for _, tc := range []struct {
		name  string
		table string
		edit  func(o *zipsim.TableOptions)
		want  string
	}{
		{"table name", "a-b", nil, `table name "a-b": use 1..64 characters`},
		{"table exists", "SBTEST", nil, "table SBTEST exists"},
		{"no columns", "", func(o *zipsim.TableOptions) { o.Columns = nil }, "0 columns: a table has 1..1017"},
		{"column name", "", func(o *zipsim.TableOptions) { o.Columns[2].Name = "c d" }, `name "c d"`},
		{"duplicate column", "", func(o *zipsim.TableOptions) { o.Columns[2].Name = "K" }, `column "K" appears twice`},
		{"int len", "", func(o *zipsim.TableOptions) { o.Columns[1].Len = 5 }, "INT of 5 bytes: use 1, 2, 3, 4 or 8"},
		{"char len", "", func(o *zipsim.TableOptions) { o.Columns[2].Len = 256 }, "CHAR(256): use 1..255"},
		{"varchar len", "", func(o *zipsim.TableOptions) {
			o.Columns[2] = zipsim.Column{Name: "c", Type: zipsim.TypeVarchar}
		}, "VARCHAR(0): use 1..16777215"},
		{"type", "", func(o *zipsim.TableOptions) { o.Columns[2].Type = 0 }, "type Type(0): use TypeInt, TypeChar or TypeVarchar"},
		{"no primary key", "", func(o *zipsim.TableOptions) { o.PrimaryKey = nil }, "no primary key"},
		{"primary key column", "", func(o *zipsim.TableOptions) { o.PrimaryKey = []string{"nope"} }, `PRIMARY KEY names column "nope", which the table does not have`},
		{"primary key twice", "", func(o *zipsim.TableOptions) { o.PrimaryKey = []string{"id", "ID"} }, `names column "ID" twice`},
		{"index PRIMARY", "", func(o *zipsim.TableOptions) { o.SecondaryIndexes[0].Name = "primary" }, `index name "primary" is taken`},
		{"index column", "", func(o *zipsim.TableOptions) { o.SecondaryIndexes[0].Columns = []string{"x"} }, `index k_1 names column "x"`},
		{"index empty", "", func(o *zipsim.TableOptions) { o.SecondaryIndexes[0].Columns = nil }, "index k_1 has 0 columns: use 1..16"},
		{"kbs", "", func(o *zipsim.TableOptions) { o.KeyBlockSize = 3 }, "KEY_BLOCK_SIZE=3: use 1, 2, 4, 8 or 16"},
		{"kbs compact", "", func(o *zipsim.TableOptions) { o.KeyBlockSize = 8; o.RowFormat = zipsim.Compact }, "needs ROW_FORMAT=COMPRESSED, not COMPACT"},
		{"row format", "", func(o *zipsim.TableOptions) { o.RowFormat = 7 }, "row format 7: use Dynamic, Compact or Compressed"},
		{"codec uncompressed", "", func(o *zipsim.TableOptions) { o.Codec = "zstd" }, "only ROW_FORMAT=COMPRESSED tables compress pages"},
		{"codec", "", func(o *zipsim.TableOptions) { o.KeyBlockSize = 8; o.Codec = "lz4" }, "Codec:"},
		{"transparent and compressed", "", func(o *zipsim.TableOptions) { o.KeyBlockSize = 8; o.Compression = "zlib" }, "cannot be combined with ROW_FORMAT=COMPRESSED"},
		{"transparent", "", func(o *zipsim.TableOptions) { o.Compression = "lz4" }, "Compression:"},
		{"partitions", "", func(o *zipsim.TableOptions) { o.Partitions = 2000 }, "2000 partitions: use 1..1024"},
		{"partition by alone", "", func(o *zipsim.TableOptions) { o.PartitionBy = []string{"id"} }, "PartitionBy needs Partitions of 2 or more"},
		{"partition by", "", func(o *zipsim.TableOptions) { o.Partitions = 4; o.PartitionBy = []string{"k"} }, `PartitionBy column "k" is not in the primary key`},
		{"merge threshold", "", func(o *zipsim.TableOptions) { o.MergeThresholdPct = 60 }, "MergeThresholdPct is 60: use 1..50"},
		{"key too long", "", func(o *zipsim.TableOptions) {
			o.Columns[2] = zipsim.Column{Name: "c", Type: zipsim.TypeVarchar, Len: 4000}
			o.SecondaryIndexes[0].Columns = []string{"c"}
		}, `index k_1: column "c" is 4000 bytes; an index column may be at most 3072 bytes`},
		{"compact prefix", "", func(o *zipsim.TableOptions) {
			o.RowFormat = zipsim.Compact
			o.Columns[2] = zipsim.Column{Name: "c", Type: zipsim.TypeVarchar, Len: 1000}
			o.SecondaryIndexes[0].Columns = []string{"c"}
		}, "at most 767 bytes with ROW_FORMAT=COMPACT"},
		{"key sum", "", func(o *zipsim.TableOptions) {
			for _, n := range []string{"a", "b", "c2", "d", "e", "f", "g", "h", "i", "j", "k2", "l", "m"} {
				o.Columns = append(o.Columns, char(n, 255))
			}
			o.SecondaryIndexes[0].Columns = []string{"a", "b", "c2", "d", "e", "f", "g", "h", "i", "j", "k2", "l", "m"}
		}, "index k_1 is 3315 bytes long; max key length is 3072 bytes"},
		{"row too large", "", func(o *zipsim.TableOptions) {
			for _, n := range []string{"a", "b", "c2", "d", "e", "f", "g", "h", "i", "j", "k2", "l", "m", "n", "o", "p", "q", "r", "s", "t", "u", "v", "w", "x", "y", "z", "aa", "bb", "cc", "dd", "ee", "ff"} {
				o.Columns = append(o.Columns, char(n, 255))
			}
		}, "row size too large"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := sysbench()
			o.Columns = slices.Clone(o.Columns)
			if tc.edit != nil {
				tc.edit(&o)
			}
			name := tc.table
			if name == "" {
				name = "t"
			}
			_, err := st.CreateTable(ctx, name, o)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

func TestKeyBlockSizeTooSmall(t *testing.T) {
	dir := t.TempDir()
	st, err := zipsim.Open(dir, zipsim.Options{Pool: bufpool.Options{Bytes: 16 << 20}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = st.Close() })
	o := zipsim.TableOptions{
		Columns: []zipsim.Column{
			{Name: "a", Type: zipsim.TypeChar, Len: 255}, {Name: "b", Type: zipsim.TypeChar, Len: 255},
		},
		PrimaryKey:   []string{"a", "b"},
		KeyBlockSize: 1,
	}
	_, err = st.CreateTable(ctx, "wide", o)
	require.ErrorIs(t, err, zipsim.ErrTooBig)
	require.ErrorContains(t, err, "KEY_BLOCK_SIZE is too small")
	require.Nil(t, st.Table("wide"), "a failed CREATE TABLE leaves no table")
	files, err := filepath.Glob(filepath.Join(dir, "*.ibd"))
	require.NoError(t, err)
	require.Empty(t, files, "the refusal comes before any file is made")
	o.KeyBlockSize = 4
	tb, err := st.CreateTable(ctx, "wide", o)
	require.NoError(t, err)
	require.Empty(t, tb.Check(ctx))
}

func TestPageSizeLimits(t *testing.T) {
	st, err := zipsim.Open("", zipsim.Options{Pool: bufpool.Options{Bytes: 4 << 20, PageSize: 8192}})
	require.NoError(t, err)
	defer st.Close()
	o := sysbench()
	o.KeyBlockSize = 16
	_, err = st.CreateTable(ctx, "t", o)
	require.ErrorContains(t, err, "KEY_BLOCK_SIZE=16 is larger than the 8192-byte pages: use at most 8")
	o.KeyBlockSize = 0
	o.RowFormat = zipsim.Compressed
	tb, err := st.CreateTable(ctx, "t", o)
	require.NoError(t, err)
	require.Equal(t, 4, tb.Options().KeyBlockSize, "COMPRESSED alone is half the page size")
}

func TestRowErrors(t *testing.T) {
	st := openMem(t)
	tb, err := st.CreateTable(ctx, "sbtest", sysbench())
	require.NoError(t, err)
	for _, tc := range []struct {
		name string
		row  zipsim.Row
		want string
	}{
		{"short", zipsim.Row{zipsim.Int(1)}, "the row has 1 values; the table has 4 columns"},
		{"kind", zipsim.Row{zipsim.String("1"), zipsim.Int(1), zipsim.String(""), zipsim.String("")}, `column "id" is INT: give it zipsim.Int`},
		{"bytes kind", sbRow(1, 1, "", "")[:2:2], "the row has 2 values"},
		{"int range", sbRow(1<<31, 1, "", ""), `column "id" is a 4-byte INT: 2147483648 is outside -2147483648..2147483647`},
		{"char kind", zipsim.Row{zipsim.Int(1), zipsim.Int(1), zipsim.Int(3), zipsim.String("")}, `column "c" is CHAR(120): give it zipsim.Bytes or zipsim.String`},
		{"char long", sbRow(1, 1, string(make([]byte, 121)), ""), `column "c" is CHAR(120): the value has 121 bytes`},
		{"no value", zipsim.Row{zipsim.Int(1), {}, zipsim.String(""), zipsim.String("")}, `column "k" is INT`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.ErrorContains(t, tb.Insert(ctx, tc.row), tc.want)
			require.ErrorContains(t, tb.Update(ctx, tc.row), tc.want)
		})
	}
	_, _, err = tb.Get(ctx, nil)
	require.ErrorContains(t, err, "0 primary key values: the key has 1 columns")
	require.ErrorContains(t, tb.Delete(ctx, zipsim.String("x")), `column "id" is INT`)
	all := func(zipsim.Row) bool { return true }
	require.ErrorContains(t, tb.Scan(ctx, vals(zipsim.Int(1), zipsim.Int(2)), nil, false, all), "2 values for index PRIMARY of 1 columns")
	require.ErrorContains(t, tb.ScanIndex(ctx, "k_1", nil, vals(zipsim.String("1")), false, all), `scan to: column "k" is INT`)
	require.ErrorContains(t, tb.ScanIndex(ctx, "nope", nil, nil, false, all), `has no secondary index "nope"; it has [k_1]`)
	require.ErrorContains(t, tb.Scan(ctx, nil, nil, false, nil), "scan with a nil callback")

	require.NoError(t, tb.Insert(ctx, sbRow(1, 1, "c", "pad")))
	require.ErrorIs(t, tb.Insert(ctx, sbRow(1, 2, "c", "pad")), zipsim.ErrDuplicate)
	require.ErrorIs(t, tb.Update(ctx, sbRow(2, 2, "c", "pad")), zipsim.ErrNotFound)
	require.ErrorIs(t, tb.Delete(ctx, zipsim.Int(2)), zipsim.ErrNotFound)
	require.True(t, errors.Is(zipsim.ErrNotFound, btree.ErrNotFound))
	require.Empty(t, tb.Check(ctx))
}

// TestRowTooBig checks that a row too big for a page even with its long
// columns off-page fails with ErrTooBig, and that a failed update leaves
// the row as it was: VARCHAR(255) columns never move on DYNAMIC (they are
// not DATA_BIG_COL), so forty full ones make a record of over 10 KB.
func TestRowTooBig(t *testing.T) {
	st := openMem(t)
	o := zipsim.TableOptions{
		Columns:          []zipsim.Column{{Name: "id", Type: zipsim.TypeInt}, {Name: "k", Type: zipsim.TypeInt}},
		PrimaryKey:       []string{"id"},
		SecondaryIndexes: []zipsim.IndexDef{{Name: "k_i", Columns: []string{"k"}}},
	}
	for i := range 40 {
		o.Columns = append(o.Columns, zipsim.Column{Name: fmt.Sprintf("c%d", i), Type: zipsim.TypeVarchar, Len: 255})
	}
	tb, err := st.CreateTable(ctx, "wide", o)
	require.NoError(t, err)
	row := func(k int64, n int) zipsim.Row {
		r := zipsim.Row{zipsim.Int(1), zipsim.Int(k)}
		for range 40 {
			r = append(r, zipsim.Bytes(make([]byte, n)))
		}
		return r
	}
	require.ErrorIs(t, tb.Insert(ctx, row(7, 255)), zipsim.ErrTooBig)
	require.NoError(t, tb.Insert(ctx, row(7, 100)))
	require.ErrorIs(t, tb.Update(ctx, row(8, 255)), zipsim.ErrTooBig)
	got, ok, err := tb.Get(ctx, nil, zipsim.Int(1))
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, int64(7), got[1].Int(), "a failed update leaves the row as it was")
	require.Len(t, got[2].Bytes(), 100)
	require.Empty(t, tb.Check(ctx))
}
