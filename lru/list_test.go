package lru

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// item is the owner type the tests embed nodes in, as the buffer pool's page
// descriptor will.
type item struct {
	node Node[*item]
	id   int
}

func newItems(n int) []*item {
	items := make([]*item, n)
	for i := range items {
		it := &item{id: i}
		it.node.Value = it
		items[i] = it
	}
	return items
}

// listIDs returns the ids from front to back, checking Prev agrees with Next.
func listIDs(t *testing.T, l *List[*item]) []int {
	t.Helper()
	var ids []int
	var prev *Node[*item]
	for n := l.Front(); n != nil; n = n.Next() {
		require.Same(t, prev, n.Prev())
		ids = append(ids, n.Value.id)
		prev = n
	}
	require.Same(t, prev, l.Back())
	require.NoError(t, l.Check())
	return ids
}

func TestListZeroValue(t *testing.T) {
	var l List[*item]
	require.Zero(t, l.Len())
	require.Nil(t, l.Front())
	require.Nil(t, l.Back())
	require.Zero(t, l.Scan(0, func(*Node[*item]) bool { t.Fatal("visited an empty list"); return false }))
	require.NoError(t, l.Check())
}

func TestListOps(t *testing.T) {
	var l List[*item]
	it := newItems(6)
	l.PushBack(&it[1].node)
	l.PushFront(&it[0].node)
	l.PushBack(&it[3].node)
	l.InsertAfter(&it[2].node, &it[1].node)
	l.InsertAfter(&it[4].node, &it[3].node) // after the back
	require.Equal(t, []int{0, 1, 2, 3, 4}, listIDs(t, &l))
	require.Equal(t, 5, l.Len())
	require.True(t, it[2].node.InList())
	require.False(t, it[5].node.InList())

	l.MoveToFront(&it[3].node)
	require.Equal(t, []int{3, 0, 1, 2, 4}, listIDs(t, &l))
	l.MoveToFront(&it[3].node) // already there
	require.Equal(t, []int{3, 0, 1, 2, 4}, listIDs(t, &l))
	l.MoveToFront(&it[4].node) // from the back
	require.Equal(t, []int{4, 3, 0, 1, 2}, listIDs(t, &l))

	l.Remove(&it[4].node) // front
	l.Remove(&it[1].node) // middle
	l.Remove(&it[2].node) // back
	require.Equal(t, []int{3, 0}, listIDs(t, &l))
	require.False(t, it[1].node.InList())
	require.Nil(t, it[1].node.Next())
	require.Nil(t, it[1].node.Prev())

	// A removed node can go into another list.
	var other List[*item]
	other.PushFront(&it[1].node)
	require.Equal(t, []int{1}, listIDs(t, &other))
	require.Equal(t, []int{3, 0}, listIDs(t, &l))
}

func TestListMisusePanics(t *testing.T) {
	var a, b List[*item]
	it := newItems(3)
	a.PushFront(&it[0].node)
	require.PanicsWithValue(t, "lru: node is already in a list", func() { b.PushFront(&it[0].node) })
	require.PanicsWithValue(t, "lru: node is already in a list", func() { a.PushBack(&it[0].node) })
	require.Panics(t, func() { b.Remove(&it[0].node) })
	require.Panics(t, func() { b.MoveToFront(&it[0].node) })
	require.Panics(t, func() { b.InsertAfter(&it[1].node, &it[0].node) })
	require.Panics(t, func() { a.Remove(&it[2].node) })
	require.Equal(t, []int{0}, listIDs(t, &a))
}

func TestListScan(t *testing.T) {
	fill := func() (*List[*item], []*item) {
		l := &List[*item]{}
		it := newItems(8)
		for _, x := range it {
			l.PushFront(&x.node) // 7 6 5 ... 0: back is 0
		}
		return l, it
	}
	collect := func(l *List[*item], max int, stopAt int) ([]int, int) {
		var seen []int
		n := l.Scan(max, func(n *Node[*item]) bool {
			seen = append(seen, n.Value.id)
			return n.Value.id == stopAt
		})
		return seen, n
	}

	l, _ := fill()
	seen, n := collect(l, 0, -1)
	require.Equal(t, []int{0, 1, 2, 3, 4, 5, 6, 7}, seen)
	require.Equal(t, 8, n)

	seen, n = collect(l, 3, -1)
	require.Equal(t, []int{0, 1, 2}, seen)
	require.Equal(t, 3, n)

	seen, n = collect(l, 0, 4)
	require.Equal(t, []int{0, 1, 2, 3, 4}, seen)
	require.Equal(t, 5, n)

	// visit removes every even node it is given.
	l, _ = fill()
	n = l.Scan(0, func(n *Node[*item]) bool {
		if n.Value.id%2 == 0 {
			l.Remove(n)
		}
		return false
	})
	require.Equal(t, 8, n)
	require.Equal(t, []int{7, 5, 3, 1}, listIDs(t, l))

	// visit removes every node: the list empties, each visited once.
	l, _ = fill()
	var seenAll []int
	n = l.Scan(0, func(n *Node[*item]) bool { seenAll = append(seenAll, n.Value.id); l.Remove(n); return false })
	require.Equal(t, 8, n)
	require.Equal(t, []int{0, 1, 2, 3, 4, 5, 6, 7}, seenAll)
	require.Zero(t, l.Len())

	// visit moves every node to the front: Scan(0) still stops after Len
	// nodes instead of going round for ever.
	l, _ = fill()
	n = l.Scan(0, func(n *Node[*item]) bool { l.MoveToFront(n); return false })
	require.Equal(t, 8, n)
	require.NoError(t, l.Check())
}

// clockAt returns a clock stopped at t, for Access.
func clockAt(t time.Time) func() time.Time { return func() time.Time { return t } }
