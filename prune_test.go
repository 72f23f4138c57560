package zipsim

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim/bufpool"
)

func TestPrune(t *testing.T) {
	st, err := Open("", Options{Pool: bufpool.Options{Bytes: 4 << 20}})
	require.NoError(t, err)
	defer st.Close()
	o := TableOptions{
		Columns:          []Column{{Name: "id1", Type: TypeInt}, {Name: "type", Type: TypeInt}, {Name: "id2", Type: TypeInt}, {Name: "t", Type: TypeInt}},
		PrimaryKey:       []string{"type", "id1", "id2"},
		SecondaryIndexes: []IndexDef{{Name: "id1_type", Columns: []string{"id1", "type", "t"}}},
		Partitions:       8,
		PartitionBy:      []string{"id1"},
	}
	tb, err := st.CreateTable(context.Background(), "link", o)
	require.NoError(t, err)
	w := getWork()
	defer putWork(w)
	pk, sec := &tb.sch.indexes[0], &tb.sch.indexes[1]
	home := func(id1 int64) *partition {
		p, _ := tb.locate(w, Row{Int(id1), Int(1), Int(2), Int(0)})
		return p
	}
	for id1 := int64(0); id1 < 20; id1++ {
		require.Equal(t, home(id1), tb.prune(w, sec, []Value{Int(id1), Int(1)}, []Value{Int(id1), Int(2)}), "id1 fixed: one partition")
		require.Equal(t, home(id1), tb.prune(w, pk, []Value{Int(1), Int(id1)}, []Value{Int(1), Int(id1), Int(9)}))
	}
	require.Nil(t, tb.prune(w, sec, []Value{Int(1)}, []Value{Int(2)}), "a range of id1: every partition")
	require.Nil(t, tb.prune(w, pk, []Value{Int(1), Int(1)}, []Value{Int(2), Int(1)}), "id1 after a differing column")
	require.Nil(t, tb.prune(w, sec, nil, nil))
}
