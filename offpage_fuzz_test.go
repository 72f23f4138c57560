package zipsim

import (
	"bytes"
	"context"
	"encoding/binary"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim/bufpool"
	"github.com/zipsim/zipsim/page"
)

// fuzzValueTables are tables of every off-page format whose chains exist,
// for FuzzClusteredValue: references in a fuzzed value point at real BLOB
// and ZBLOB pages, B-tree pages, free pages and pages past the end.
type fuzzValueTables struct {
	tables []*Table
	// seeds are the stored clustered values, by table, and rows the rows
	// they hold.
	seeds [][][]byte
	rows  [][]Row
}

var (
	fuzzValueOnce sync.Once
	fuzzValueSet  fuzzValueTables
	fuzzValueErr  error
)

// fuzzValueColumns cover every kind of field: fixed INTs and CHARs, a
// VARCHAR too short to move, a VARCHAR(300) that moves only on small
// pages, and two long ones.
func fuzzValueColumns() []Column {
	return []Column{
		{Name: "id", Type: TypeInt},
		{Name: "i4", Type: TypeInt, Len: 4},
		{Name: "ch", Type: TypeChar, Len: 5},
		{Name: "v", Type: TypeVarchar, Len: 10},
		{Name: "body", Type: TypeVarchar, Len: MaxVarcharLen},
		{Name: "note", Type: TypeVarchar, Len: 300},
		{Name: "extra", Type: TypeVarchar, Len: 70000},
		{Name: "i1", Type: TypeInt, Len: 1},
	}
}

// setupFuzzValueTables loads a few rows, short and long, into a COMPACT,
// a DYNAMIC and two compressed tables of one store, and keeps their
// stored values.
func setupFuzzValueTables() (fuzzValueTables, error) {
	ctx := context.Background()
	var set fuzzValueTables
	st, err := Open("", Options{Pool: bufpool.Options{Bytes: 2 << 20}})
	if err != nil {
		return set, err
	}
	formats := []TableOptions{
		{RowFormat: Compact}, {RowFormat: Dynamic}, {KeyBlockSize: 1}, {KeyBlockSize: 8, Codec: "zstd"},
	}
	r := rand.New(rand.NewPCG(21, 22))
	text := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = "abc <p>\n"[r.IntN(8)]
		}
		return b
	}
	random := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		return b
	}
	for i, o := range formats {
		o.Columns = fuzzValueColumns()
		o.PrimaryKey = []string{"id"}
		o.SecondaryIndexes = []IndexDef{{Name: "note_i", Columns: []string{"note"}}}
		tb, err := st.CreateTable(ctx, "f"+string(rune('0'+i)), o)
		if err != nil {
			return set, err
		}
		var rows []Row
		for id, sizes := range [][3]int{{0, 0, 0}, {5, 10, 300}, {800, 300, 100}, {9000, 300, 9000}, {70000, 300, 70000}, {300000, 1, 20000}, {20, 300, 69000}} {
			row := Row{Int(int64(id)), Int(int64(-id)), String("abcde"), String("vv"),
				Bytes(text(sizes[0])), Bytes(random(sizes[1])), Bytes(random(sizes[2])), Int(int64(id - 3))}
			if err := tb.Insert(ctx, row); err != nil {
				return set, err
			}
			rows = append(rows, row)
		}
		var vals [][]byte
		err = tb.parts[0].indexes[0].Scan(ctx, nil, nil, false, func(_, val []byte) bool {
			vals = append(vals, bytes.Clone(val))
			return true
		})
		if err != nil {
			return set, err
		}
		set.tables = append(set.tables, tb)
		set.seeds = append(set.seeds, vals)
		set.rows = append(set.rows, rows)
	}
	return set, nil
}

func fuzzValueSetup(t testing.TB) fuzzValueTables {
	fuzzValueOnce.Do(func() { fuzzValueSet, fuzzValueErr = setupFuzzValueTables() })
	require.NoError(t, fuzzValueErr)
	return fuzzValueSet
}

// TestClusteredValueSeeds checks the fuzz target's premises: the stored
// values decode to the rows inserted, and some carry references.
func TestClusteredValueSeeds(t *testing.T) {
	set := fuzzValueSetup(t)
	for i, tb := range set.tables {
		w := getWork()
		bs := tb.blobs(context.Background(), w, tb.parts[0])
		refs := 0
		for j, val := range set.seeds[i] {
			n, err := tb.sch.externRefs(val)
			require.NoError(t, err)
			refs += n
			row := make(Row, len(tb.sch.cols))
			require.NoError(t, tb.sch.decodeValue(row, val, bs, nil))
			row[0] = set.rows[i][j][0]
			require.Equal(t, set.rows[i][j], row, "table %s row %d", tb.name, j)
		}
		putWork(w)
		require.GreaterOrEqual(t, refs, 4, "table %s", tb.name)
	}
}

// FuzzClusteredValue feeds arbitrary bytes to the clustered value
// decoders, against a table whose chains exist: externRefs, visitExtern,
// decodeValue with and without a projection, wantsExtern and the chain
// check must give an error or a row, never panic, and agree with each
// other. The seeds are real stored values, with and without references,
// and damaged copies of them.
func FuzzClusteredValue(f *testing.F) {
	set := fuzzValueSetup(f)
	for i, vals := range set.seeds {
		for _, val := range vals {
			f.Add(uint8(i), val)
			if len(val) > page.ExternRefSize {
				// A reference moved to another page, and cut short.
				b := bytes.Clone(val)
				binary.BigEndian.PutUint32(b[len(b)-page.ExternRefSize+4:], 3)
				f.Add(uint8(i), b)
				f.Add(uint8(i), val[:len(val)-1])
				// The length field grown.
				b = bytes.Clone(val)
				binary.BigEndian.PutUint32(b[len(b)-4:], 1<<31)
				f.Add(uint8(i), b)
			}
		}
	}
	f.Add(uint8(0), []byte{})
	f.Add(uint8(1), bytes.Repeat([]byte{0xff}, 40))
	f.Add(uint8(2), append(make([]byte, 16), 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01))
	f.Fuzz(func(t *testing.T, which uint8, val []byte) {
		tb := set.tables[int(which)%len(set.tables)]
		s := tb.sch
		w := getWork()
		defer putWork(w)
		bs := tb.blobs(context.Background(), w, tb.parts[0])

		n, err := s.externRefs(val)
		if err == nil {
			require.GreaterOrEqual(t, n, 0)
			require.LessOrEqual(t, n*page.ExternRefSize, len(val))
		}
		visited := 0
		verr := s.visitExtern(val, func(p int, local []byte, ref page.ExternRef) error {
			require.True(t, s.extCap[p], "column %d cannot be off-page", p)
			require.LessOrEqual(t, len(local), s.cols[p].Len)
			visited++
			return nil
		})
		if err != nil {
			require.Error(t, verr, "visitExtern accepts what externRefs refuses")
		} else if verr == nil {
			require.Equal(t, n, visited)
		}

		row := make(Row, len(s.cols))
		derr := s.decodeValue(row, val, bs, nil)
		if err != nil {
			require.Error(t, derr, "decodeValue accepts what externRefs refuses")
		}
		if derr == nil {
			for _, p := range s.vals {
				c := &s.cols[p]
				v := row[p]
				switch c.Type {
				case TypeInt:
					require.Equal(t, kindInt, v.kind)
					require.NoError(t, checkValue(c, v), "column %s", c.Name)
				default:
					require.Equal(t, kindBytes, v.kind, "column %s", c.Name)
					require.NotNil(t, v.b)
					require.LessOrEqual(t, len(v.b), c.Len, "column %s", c.Name)
					if c.Type == TypeChar {
						require.Len(t, v.b, c.Len)
					}
				}
			}
		}

		// Without a store, or asking only for the columns that never
		// move: no page is read.
		short := make([]bool, len(s.cols))
		for _, p := range s.vals {
			short[p] = !s.extCap[p]
		}
		serr := s.decodeValue(make(Row, len(s.cols)), val, nil, short)
		if err == nil {
			require.NoError(t, serr, "the short columns of a value externRefs accepts decode")
			_ = s.wantsExtern(val, short)
			_ = s.wantsExtern(val, nil)
		}
		nerr := s.decodeValue(make(Row, len(s.cols)), val, nil, nil)
		if err == nil && n == 0 {
			require.NoError(t, nerr)
		}
		if n > 0 {
			require.Error(t, nerr, "off-page columns need a store")
		}

		// The chain check and the lookups of one column.
		_ = tb.checkExtern(bs, val, map[uint32]bool{})
		for _, p := range s.vals {
			_, _, ok, err := s.externOf(val, p)
			if ok && err == nil {
				require.True(t, s.extCap[p])
			}
		}
	})
}
