package zipsim_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim"
)

// blobFormats are the row formats and zip sizes off-page values are
// tested in.
var blobFormats = []struct {
	name string
	set  func(*zipsim.TableOptions)
}{
	{"COMPACT", func(o *zipsim.TableOptions) { o.RowFormat = zipsim.Compact }},
	{"DYNAMIC", func(o *zipsim.TableOptions) { o.RowFormat = zipsim.Dynamic }},
	{"KBS=1", func(o *zipsim.TableOptions) { o.KeyBlockSize = 1 }},
	{"KBS=2", func(o *zipsim.TableOptions) { o.KeyBlockSize = 2 }},
	{"KBS=4", func(o *zipsim.TableOptions) { o.KeyBlockSize = 4 }},
	{"KBS=8", func(o *zipsim.TableOptions) { o.KeyBlockSize = 8 }},
	{"KBS=16", func(o *zipsim.TableOptions) { o.KeyBlockSize = 16 }},
}

// blobTable has two long columns, one of them indexed (it moves too when
// the record is small enough to need it, at KEY_BLOCK_SIZE=1), and a short
// one that never moves.
func blobTable() zipsim.TableOptions {
	return zipsim.TableOptions{
		Columns: []zipsim.Column{
			{Name: "id", Type: zipsim.TypeInt},
			{Name: "body", Type: zipsim.TypeVarchar, Len: zipsim.MaxVarcharLen},
			{Name: "note", Type: zipsim.TypeVarchar, Len: 300},
			{Name: "tag", Type: zipsim.TypeVarchar, Len: 200},
		},
		PrimaryKey:       []string{"id"},
		SecondaryIndexes: []zipsim.IndexDef{{Name: "note_i", Columns: []string{"note"}}},
	}
}

// blobSizes crosses every boundary: empty, the 40-byte floor, the COMPACT
// prefix, half a page, a page, a compressed page, up to 4 MiB.
var blobSizes = []int{0, 1, 40, 41, 767, 768, 769, 788, 789, 1000, 4000, 8000, 8200, 16 << 10, 100 << 10, 1 << 20, 4 << 20}

// blobValue is n bytes, compressible text when text is set, random
// otherwise.
func blobValue(r *rand.Rand, n int, text bool) []byte {
	b := make([]byte, n)
	words := []string{"table ", "page ", "zip ", "<p>", "</p>\n", "compress ", "row "}
	if text {
		for i := 0; i < n; {
			i += copy(b[i:], words[r.IntN(len(words))])
		}
		return b
	}
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

type blobRow struct {
	body, note []byte
}

func (b blobRow) row(id int) zipsim.Row {
	return zipsim.Row{zipsim.Int(int64(id)), zipsim.Bytes(b.body), zipsim.Bytes(b.note), zipsim.String("t")}
}

// TestOffPageRoundTrip stores values from 0 bytes to 4 MiB in every row
// format and zip size through a pool smaller than the data, updates and
// deletes some, reopens the store and reads every value back, with Check
// clean (chains sound, no page leaked) at each step.
func TestOffPageRoundTrip(t *testing.T) {
	poolBytes := int64(1 << 20)
	if raceEnabled {
		poolBytes = 512 << 10 // the chains are smaller, see below
	}
	for _, f := range blobFormats {
		t.Run(f.name, func(t *testing.T) {
			dir := t.TempDir()
			st := openDir(t, dir, poolBytes)
			o := blobTable()
			f.set(&o)
			tb, err := st.CreateTable(ctx, "docs", o)
			require.NoError(t, err)
			r := rand.New(rand.NewPCG(5, 6))
			model := map[int]blobRow{}
			id, long := 0, 0
			for _, n := range blobSizes {
				for _, text := range []bool{false, true} {
					if raceEnabled && n > 100<<10 && !text {
						// Under the race detector a chain of 4,000 1K
						// pages takes half a minute; the text values
						// still reach 4 MiB.
						continue
					}
					b := blobRow{body: blobValue(r, n, text), note: blobValue(r, min(n, 300), !text)}
					require.NoError(t, tb.Insert(ctx, b.row(id)), "size %d", n)
					if n >= 8200 {
						long++
					}
					model[id] = b
					id++
				}
			}
			requireBlobs(t, tb, model)
			u, err := tb.Space(ctx)
			require.NoError(t, err)
			require.GreaterOrEqual(t, u.BlobValues, int64(long), "the values of 8200 bytes and more went off-page")
			require.Greater(t, u.BlobBytes(), poolBytes, "the chains outgrow the pool")
			t.Logf("%s", u)
			// Grow, shrink, move in and out of the record, keep as is.
			for i := 0; i < id; i += 3 {
				b := model[i]
				switch i % 4 {
				case 0:
					b.body = blobValue(r, len(b.body)/3, true)
				case 1:
					b.body = blobValue(r, 2*len(b.body)+10000, false)
				case 2:
					b.note = blobValue(r, 300-len(b.note)/2, true)
				}
				require.NoError(t, tb.Update(ctx, b.row(i)))
				model[i] = b
			}
			for i := 1; i < id; i += 4 {
				require.NoError(t, tb.Delete(ctx, zipsim.Int(int64(i))))
				delete(model, i)
			}
			requireBlobs(t, tb, model)
			require.NoError(t, st.Close())

			st = openDir(t, dir, poolBytes)
			defer st.Close()
			tb = st.Table("docs")
			requireBlobs(t, tb, model)
			for i := range id {
				if _, ok := model[i]; ok {
					require.NoError(t, tb.Delete(ctx, zipsim.Int(int64(i))))
				}
			}
			requireBlobs(t, tb, map[int]blobRow{})
			u, err = tb.Space(ctx)
			require.NoError(t, err)
			require.Zero(t, u.BlobPages, "every chain freed")
			require.Zero(t, u.BlobValues)
		})
	}
}

// requireBlobs checks the table against model by point reads and a scan,
// and runs Check.
func requireBlobs(t *testing.T, tb *zipsim.Table, model map[int]blobRow) {
	t.Helper()
	var row zipsim.Row
	for id, b := range model {
		var ok bool
		var err error
		row, ok, err = tb.Get(ctx, row, zipsim.Int(int64(id)))
		require.NoError(t, err)
		require.True(t, ok, "row %d", id)
		require.True(t, bytes.Equal(b.body, row[1].Bytes()), "row %d body: %d bytes, want %d", id, len(row[1].Bytes()), len(b.body))
		require.True(t, bytes.Equal(b.note, row[2].Bytes()), "row %d note", id)
	}
	n := 0
	require.NoError(t, tb.Scan(ctx, nil, nil, false, func(r zipsim.Row) bool {
		b, ok := model[int(r[0].Int())]
		require.True(t, ok)
		require.True(t, bytes.Equal(b.body, r[1].Bytes()))
		n++
		return true
	}))
	require.Equal(t, len(model), n)
	n = 0
	require.NoError(t, tb.ScanIndex(ctx, "note_i", nil, nil, false, func(r zipsim.Row) bool {
		b := model[int(r[0].Int())]
		require.True(t, bytes.Equal(b.body, r[1].Bytes()))
		n++
		return true
	}))
	require.Equal(t, len(model), n)
	for _, err := range tb.Check(ctx) {
		t.Error(err)
	}
	if t.Failed() {
		t.FailNow()
	}
}

// TestOffPageRules checks which values leave the record, by format: the
// record limit (half a page, or the zip size), the 40-byte floor, COMPACT's
// 768-byte prefix and DYNAMIC's DATA_BIG_COL rule.
func TestOffPageRules(t *testing.T) {
	cases := []struct {
		format string
		set    func(*zipsim.TableOptions)
		size   int
		moved  bool
	}{
		{"COMPACT", blobFormats[0].set, 8000, false},
		{"COMPACT", blobFormats[0].set, 8200, true},
		{"DYNAMIC", blobFormats[1].set, 8000, false},
		{"DYNAMIC", blobFormats[1].set, 8200, true},
		{"KBS=1", blobFormats[2].set, 700, false},
		{"KBS=1", blobFormats[2].set, 1000, true},
		{"KBS=8", blobFormats[5].set, 7000, false},
		{"KBS=8", blobFormats[5].set, 8100, true},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s/size=%d", c.format, c.size), func(t *testing.T) {
			st := openMem(t)
			o := blobTable()
			c.set(&o)
			tb, err := st.CreateTable(ctx, "t", o)
			require.NoError(t, err)
			r := rand.New(rand.NewPCG(1, 1))
			require.NoError(t, tb.Insert(ctx, blobRow{body: blobValue(r, c.size, false), note: []byte("n")}.row(1)))
			u, err := tb.Space(ctx)
			require.NoError(t, err)
			want := int64(0)
			if c.moved {
				want = 1
			}
			require.Equal(t, want, u.BlobValues)
		})
	}
	// A VARCHAR(255) is never moved on DYNAMIC (not DATA_BIG_COL), so a
	// row of many of them is too big.
	st := openMem(t)
	o := zipsim.TableOptions{PrimaryKey: []string{"id"}, Columns: []zipsim.Column{{Name: "id", Type: zipsim.TypeInt}}}
	row := zipsim.Row{zipsim.Int(1)}
	for i := range 40 {
		o.Columns = append(o.Columns, zipsim.Column{Name: fmt.Sprintf("c%d", i), Type: zipsim.TypeVarchar, Len: 255})
		row = append(row, zipsim.Bytes(bytes.Repeat([]byte("x"), 255)))
	}
	tb, err := st.CreateTable(ctx, "wide", o)
	require.NoError(t, err)
	require.ErrorIs(t, tb.Insert(ctx, row), zipsim.ErrTooBig)
}
