package zipsim_test

import (
	"bytes"
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim"
)

// TestTypesRoundTrip stores every column type at its limits and reads it
// back by Get and by Scan.
func TestTypesRoundTrip(t *testing.T) {
	st := openMem(t)
	for _, kbs := range []int{0, 4} {
		tb, err := st.CreateTable(ctx, "types"+string(rune('0'+kbs)), zipsim.TableOptions{
			Columns: []zipsim.Column{
				{Name: "id", Type: zipsim.TypeInt},
				{Name: "i1", Type: zipsim.TypeInt, Len: 1},
				{Name: "i2", Type: zipsim.TypeInt, Len: 2},
				{Name: "i3", Type: zipsim.TypeInt, Len: 3},
				{Name: "i4", Type: zipsim.TypeInt, Len: 4},
				{Name: "ch", Type: zipsim.TypeChar, Len: 5},
				{Name: "vc", Type: zipsim.TypeVarchar, Len: 10},
				{Name: "blob", Type: zipsim.TypeVarchar, Len: 1 << 20},
			},
			PrimaryKey:   []string{"id"},
			KeyBlockSize: kbs,
		})
		require.NoError(t, err)
		rows := []zipsim.Row{
			{zipsim.Int(math.MinInt64), zipsim.Int(-128), zipsim.Int(-32768), zipsim.Int(-1 << 23), zipsim.Int(math.MinInt32),
				zipsim.String(""), zipsim.String(""), zipsim.String("")},
			{zipsim.Int(-1), zipsim.Int(-1), zipsim.Int(-1), zipsim.Int(-1), zipsim.Int(-1),
				zipsim.String("ab"), zipsim.String("a\x00b"), zipsim.Bytes([]byte{0, 0, 0xff})},
			{zipsim.Int(0), zipsim.Int(0), zipsim.Int(0), zipsim.Int(0), zipsim.Int(0),
				zipsim.String("abcde"), zipsim.String("0123456789"), zipsim.Bytes(bytes.Repeat([]byte("xyz"), 1000))},
			{zipsim.Int(math.MaxInt64), zipsim.Int(127), zipsim.Int(32767), zipsim.Int(1<<23 - 1), zipsim.Int(math.MaxInt32),
				zipsim.String("\xff\xff"), zipsim.String("\x00"), zipsim.String("end")},
		}
		for _, i := range rand.Perm(len(rows)) {
			require.NoError(t, tb.Insert(ctx, rows[i]))
		}
		want := func(r zipsim.Row) zipsim.Row {
			r = r.Clone()
			r[5] = zipsim.Bytes(append(r[5].Bytes(), bytes.Repeat([]byte(" "), 5-len(r[5].Bytes()))...))
			return r
		}
		var got zipsim.Row
		for _, r := range rows {
			var ok bool
			got, ok, err = tb.Get(ctx, got, r[0])
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, want(r), got, "CHAR comes back padded, everything else as written")
		}
		all := scanAll(t, func(fn func(zipsim.Row) bool) error { return tb.Scan(ctx, nil, nil, false, fn) })
		require.Len(t, all, len(rows))
		for i := range rows {
			require.Equal(t, want(rows[i]), all[i], "negative keys sort first")
		}
		desc := scanAll(t, func(fn func(zipsim.Row) bool) error { return tb.Scan(ctx, nil, nil, true, fn) })
		require.Equal(t, []int64{math.MaxInt64, 0, -1, math.MinInt64}, ints(desc, 0))
		mid := scanAll(t, func(fn func(zipsim.Row) bool) error {
			return tb.Scan(ctx, vals(zipsim.Int(-1)), vals(zipsim.Int(1)), false, fn)
		})
		require.Equal(t, []int64{-1, 0}, ints(mid, 0))
		require.Empty(t, tb.Check(ctx))
	}
}

// TestKeyOrder checks that byte order of encoded keys is tuple order for
// composite keys of every type, VARCHARs with zero bytes and prefixes
// included.
func TestKeyOrder(t *testing.T) {
	st := openMem(t)
	tb, err := st.CreateTable(ctx, "k", zipsim.TableOptions{
		Columns: []zipsim.Column{
			{Name: "v", Type: zipsim.TypeVarchar, Len: 8},
			{Name: "i", Type: zipsim.TypeInt, Len: 2},
			{Name: "c", Type: zipsim.TypeChar, Len: 2},
		},
		PrimaryKey: []string{"v", "i", "c"},
	})
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte{0, 1, 'a', 0xff}
	seen := map[string]bool{}
	var rows []zipsim.Row
	for len(rows) < 500 {
		v := make([]byte, r.IntN(4))
		for i := range v {
			v[i] = alphabet[r.IntN(len(alphabet))]
		}
		row := zipsim.Row{zipsim.Bytes(v), zipsim.Int(int64(r.IntN(7) - 3)), zipsim.Bytes([]byte{alphabet[r.IntN(4)], alphabet[r.IntN(4)]})}
		k := row[0].String() + "|" + row[1].String() + "|" + row[2].String()
		if seen[k] {
			continue
		}
		seen[k] = true
		rows = append(rows, row)
		require.NoError(t, tb.Insert(ctx, row))
	}
	slices.SortFunc(rows, func(a, b zipsim.Row) int {
		return cmp.Or(bytes.Compare(a[0].Bytes(), b[0].Bytes()), cmp.Compare(a[1].Int(), b[1].Int()), bytes.Compare(a[2].Bytes(), b[2].Bytes()))
	})
	got := scanAll(t, func(fn func(zipsim.Row) bool) error { return tb.Scan(ctx, nil, nil, false, fn) })
	require.Equal(t, rows, got)
	// A bound on the leading column alone: every key whose v is "a".
	var want []zipsim.Row
	for _, row := range rows {
		if string(row[0].Bytes()) == "a" {
			want = append(want, row)
		}
	}
	got = scanAll(t, func(fn func(zipsim.Row) bool) error {
		return tb.Scan(ctx, vals(zipsim.String("a")), vals(zipsim.String("a\x00")), false, fn)
	})
	require.Equal(t, want, got)
}

func TestValue(t *testing.T) {
	require.Equal(t, "-5", zipsim.Int(-5).String())
	require.Equal(t, "abc", zipsim.String("abc").String())
	require.Equal(t, "<no value>", zipsim.Value{}.String())
	require.Nil(t, zipsim.Int(1).Bytes())
	require.Zero(t, zipsim.String("x").Int())
	b := []byte("keep")
	r := zipsim.Row{zipsim.Bytes(b)}
	c := r.Clone()
	b[0] = 'X'
	require.Equal(t, "keep", c[0].String())
}
