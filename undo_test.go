package zipsim

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim/bufpool"
)

// undoTable makes a sysbench-like table and returns it with its one
// partition, whose indexes the tests change behind the table's back to
// make a write fail halfway.
func undoTable(t *testing.T) (*Table, *partition) {
	st, err := Open("", Options{Pool: bufpool.Options{Bytes: 4 << 20}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = st.Close() })
	tb, err := st.CreateTable(context.Background(), "t", TableOptions{
		Columns:          []Column{{Name: "id", Type: TypeInt}, {Name: "k", Type: TypeInt}, {Name: "c", Type: TypeVarchar, Len: 10}},
		PrimaryKey:       []string{"id"},
		SecondaryIndexes: []IndexDef{{Name: "c_1", Columns: []string{"c"}}, {Name: "k_1", Columns: []string{"k"}}},
	})
	require.NoError(t, err)
	return tb, tb.parts[0]
}

// entry is the k_1 entry of (id, k).
func entry(tb *Table, id, k int64) []byte {
	return tb.sch.appendKey(nil, &tb.sch.indexes[2], Row{Int(id), Int(k), String("")})
}

func TestUndoInsert(t *testing.T) {
	ctx := context.Background()
	tb, p := undoTable(t)
	// A stray k_1 entry makes the insert of (1, 5) fail at its last step.
	require.NoError(t, p.indexes[2].Insert(ctx, entry(tb, 1, 5), nil))
	err := tb.Insert(ctx, Row{Int(1), Int(5), String("x")})
	require.ErrorIs(t, err, ErrDuplicate)
	require.ErrorContains(t, err, "insert into index k_1")
	_, ok, err := tb.Get(ctx, nil, Int(1))
	require.NoError(t, err)
	require.False(t, ok, "the row is undone")
	_, ok, err = p.indexes[1].Get(ctx, tb.sch.appendKey(nil, &tb.sch.indexes[1], Row{Int(1), Int(5), String("x")}), nil)
	require.NoError(t, err)
	require.False(t, ok, "so is its c_1 entry")
	require.NotEmpty(t, tb.Check(ctx), "the stray entry has no row")
	require.NoError(t, p.indexes[2].Delete(ctx, entry(tb, 1, 5)))
	require.Empty(t, tb.Check(ctx))
}

func TestUndoUpdate(t *testing.T) {
	ctx := context.Background()
	tb, p := undoTable(t)
	require.NoError(t, tb.Insert(ctx, Row{Int(1), Int(5), String("x")}))
	require.NoError(t, p.indexes[2].Insert(ctx, entry(tb, 1, 6), nil))
	err := tb.Update(ctx, Row{Int(1), Int(6), String("y")})
	require.ErrorIs(t, err, ErrDuplicate)
	require.NoError(t, p.indexes[2].Delete(ctx, entry(tb, 1, 6)))
	row, ok, err := tb.Get(ctx, nil, Int(1))
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, Row{Int(1), Int(5), String("x")}, row, "the clustered record is back")
	require.Empty(t, tb.Check(ctx), "and so are both secondary entries")
}

func TestUndoDelete(t *testing.T) {
	ctx := context.Background()
	tb, p := undoTable(t)
	require.NoError(t, tb.Insert(ctx, Row{Int(1), Int(5), String("x")}))
	require.NoError(t, p.indexes[2].Delete(ctx, entry(tb, 1, 5)))
	require.ErrorIs(t, tb.Delete(ctx, Int(1)), ErrNotFound)
	require.NoError(t, p.indexes[2].Insert(ctx, entry(tb, 1, 5), nil))
	_, ok, err := tb.Get(ctx, nil, Int(1))
	require.NoError(t, err)
	require.True(t, ok, "the row is back")
	require.Empty(t, tb.Check(ctx), "with its c_1 entry")
}
