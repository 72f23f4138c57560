package btree

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim/internal/sbdata"
	"github.com/zipsim/zipsim/page"
)

// leafWith returns a clustered leaf holding keys 1..n inserted in order.
func leafWith(t *testing.T, n int) page.IndexPage {
	t.Helper()
	p, err := page.CreateIndex(make([]byte, 16384), page.IndexOptions{PageNo: 1, IndexID: 1, Clustered: true})
	require.NoError(t, err)
	for i := range n {
		_, err := p.Insert(i, page.Record{Key: key8(uint64(10 * (i + 1))), Value: bytes.Repeat([]byte("v"), 100)})
		require.NoError(t, err)
	}
	return p
}

func TestPlanSplit(t *testing.T) {
	_, ix := newIndexT(t, 0, 4<<20)
	const size = 130
	p := leafWith(t, 40)
	// The last insert was at the end: the next one at the end starts an
	// empty right page (btr_page_get_split_rec_to_right, split at new).
	require.Equal(t, splitPlan{cut: 40, up: true, insertEmpty: true}, ix.planSplit(p, 40, size, 0))
	// An insert right after the last one but with two records behind it
	// keeps one of them on the left.
	_, err := p.Insert(20, page.Record{Key: key8(205), Value: []byte("x")})
	require.NoError(t, err)
	require.Equal(t, splitPlan{cut: 22, up: true, insertLeft: true}, ix.planSplit(p, 21, size, 0))
	// Right before the last insert: a descending run, the new page goes left.
	require.Equal(t, splitPlan{cut: 19, up: false, insertLeft: false}, ix.planSplit(p, 20, size, 0))
	// Elsewhere: the middle record.
	require.Equal(t, splitPlan{cut: 20, up: true, insertLeft: true}, ix.planSplit(p, 3, size, 0))
	require.Equal(t, splitPlan{cut: 20, up: true, insertLeft: false}, ix.planSplit(p, 30, size, 0))
	// Later passes split by size: about half the data on each side.
	pl := ix.planSplit(p, 30, size, 1)
	require.True(t, pl.up)
	require.InDelta(t, 20, pl.cut, 2)
}

func TestPlanSplitCompressedInsertEmpty(t *testing.T) {
	_, ix := newIndexT(t, 8192, 4<<20)
	p := leafWith(t, 40)
	// From the second pass on, a compressed page sends a tuple that
	// belongs on the right to an empty page.
	pl := ix.planSplit(p, 35, 130, 1)
	require.Equal(t, splitPlan{cut: 35, up: true, insertEmpty: true}, pl)
}

// TestSequentialFill checks the fill that the split heuristics give:
// ascending and descending loads fill leaves (an uncompressed clustered
// leaf keeps 1/16 free), random ones leave them about 2/3 full.
func TestSequentialFill(t *testing.T) {
	const n = 4000
	for _, c := range []struct {
		name     string
		order    func(i int) int
		min, max float64
	}{
		{"ascending", func(i int) int { return i + 1 }, 0.88, 0.95},
		{"descending", func(i int) int { return n - i }, 0.80, 0.95},
		{"random", nil, 0.55, 0.80},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, ix := newIndexT(t, 0, 16<<20)
			r := sbdata.Rand(5)
			perm := r.Perm(n)
			for i := range n {
				id := perm[i] + 1
				if c.order != nil {
					id = c.order(i)
				}
				k, v := sbRow(r, uint32(id))
				require.NoError(t, ix.Insert(ctx, k, v))
			}
			requireCheck(t, ix)
			s := ix.Stats()
			t.Logf("%s: fill %.3f, %.1f rows per leaf", c.name, s.LeafFill(), s.RowsPerLeaf())
			require.GreaterOrEqual(t, s.LeafFill(), c.min)
			require.LessOrEqual(t, s.LeafFill(), c.max)
		})
	}
}

// TestCompressedLeafReserve checks the update reserve on compressed
// clustered leaves: ascending inserts of rows that compress well fill a
// KBS=16 leaf's frame to the end under 5.6.11+'s rule, and stop short of
// the last 1/16 under the older one (Options.CompressedLeafReserve).
func TestCompressedLeafReserve(t *testing.T) {
	const n = 3000
	fill := map[bool]float64{}
	for _, reserve := range []bool{false, true} {
		e := newEnv(t, 16384, 16<<20)
		o := e.options(1, true)
		o.CompressedLeafReserve = reserve
		ix, err := Create(ctx, o)
		require.NoError(t, err)
		for i := range n {
			require.NoError(t, ix.Insert(ctx, key8(uint64(i+1)), make([]byte, 150)))
		}
		requireCheck(t, ix)
		s := ix.Stats()
		fill[reserve] = s.LeafFill()
		t.Logf("reserve %v: fill %.3f, %.1f rows per leaf", reserve, s.LeafFill(), s.RowsPerLeaf())
		// The reserve's splits are for space, as an uncompressed leaf's.
		require.Positive(t, s.LeafSplitsSpace)
		require.Zero(t, s.LeafSplitsZip)
	}
	require.Greater(t, fill[false], 0.95)
	require.Less(t, fill[true], 15.0/16)
	require.Greater(t, fill[true], 0.88)
}

func TestTooBig(t *testing.T) {
	for _, c := range []struct {
		zip, value int
	}{{0, 9000}, {1024, 1000}, {8192, 8200}} {
		t.Run(fmt.Sprintf("zip=%d", c.zip), func(t *testing.T) {
			_, ix := newIndexT(t, c.zip, 4<<20)
			err := ix.Insert(ctx, key8(1), make([]byte, c.value))
			require.ErrorIs(t, err, ErrTooBig)
			require.NoError(t, ix.Insert(ctx, key8(1), make([]byte, 100)))
			require.ErrorIs(t, ix.Update(ctx, key8(1), make([]byte, c.value)), ErrTooBig)
			requireCheck(t, ix)
		})
	}
	e := newEnv(t, 1024, 4<<20)
	o := e.options(1, true)
	o.MaxKeyLen = 600
	_, err := Create(ctx, o)
	require.ErrorIs(t, err, ErrTooBig)
	require.ErrorContains(t, err, "KEY_BLOCK_SIZE is too small")
	o.MaxKeyLen = 300
	_, err = Create(ctx, o)
	require.NoError(t, err)
}

func TestEmptyKey(t *testing.T) {
	_, ix := newIndexT(t, 0, 4<<20)
	require.Error(t, ix.Insert(ctx, nil, []byte("v")))
}

// wideKey is a key of 1000 bytes ordered by id, so that a node page holds
// about 16 pointers and a few hundred rows make a tree of three levels.
func wideKey(id uint64) []byte { return append(key8(id), bytes.Repeat([]byte("k"), 992)...) }

// siblingTree loads ids 10, 20, ... in order and returns the leaves left
// to right with each leaf's parent.
func siblingTree(t *testing.T, ix *Index) (leaves []uint32, parent map[uint32]uint32) {
	t.Helper()
	for id := uint64(10); id <= 6000; id += 10 {
		require.NoError(t, ix.Insert(ctx, wideKey(id), []byte("v")))
	}
	leaves, parent = treeShape(t, ix)
	require.Equal(t, 3, int(ix.height.Load()), "three levels")
	return leaves, parent
}

// treeShape returns the leaves left to right with each leaf's parent.
func treeShape(t *testing.T, ix *Index) (leaves []uint32, parent map[uint32]uint32) {
	t.Helper()
	parent = map[uint32]uint32{}
	require.NoError(t, ix.walk(ctx, false, func(level int, p page.IndexPage) error {
		switch level {
		case 0:
			leaves = append(leaves, p.PageNo())
		case 1:
			for i := range p.NRecs() {
				parent[p.Child(i)] = p.PageNo()
			}
		}
		return nil
	}))
	return leaves, parent
}

// TestSiblingInsert checks btr_insert_into_right_sibling: a record that
// belongs after the last one of a full leaf goes to the start of the next
// leaf when that leaf has room and shares the parent, whose pointer then
// takes the record's key; otherwise, or with NoSiblingInsert, the leaf
// splits.
func TestSiblingInsert(t *testing.T) {
	for _, tc := range []struct {
		name        string
		zip         int
		noSibling   bool
		crossParent bool
		sibling     bool
	}{
		{"same parent", 0, false, false, true},
		{"same parent, compressed", 8192, false, false, true},
		{"NoSiblingInsert", 0, true, false, false},
		{"next leaf under another parent", 0, false, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, tc.zip, 64<<20)
			o := e.options(1, true)
			o.NoSiblingInsert = tc.noSibling
			ix, err := Create(ctx, o)
			require.NoError(t, err)
			leaves, parent := siblingTree(t, ix)
			// A full leaf, not the last, whose next leaf does or does not
			// share its parent.
			at := -1
			for i := 1; i+2 < len(leaves); i++ {
				if (parent[leaves[i]] != parent[leaves[i+1]]) == tc.crossParent {
					at = i
					break
				}
			}
			require.GreaterOrEqual(t, at, 0)
			left, next := leaves[at], leaves[at+1]
			keys := leafKeys(t, ix, left)
			nextKeys := leafKeys(t, ix, next)
			// Room on the next leaf: drop its first record.
			require.NoError(t, ix.Delete(ctx, nextKeys[0]))
			id := binary.BigEndian.Uint64(keys[len(keys)-1]) + 1
			before := ix.Stats()
			require.NoError(t, ix.Insert(ctx, wideKey(id), []byte("new")))
			d := ix.Stats().Sub(before)
			requireCheck(t, ix)
			got, ok, err := ix.Get(ctx, wideKey(id), nil)
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, "new", string(got))
			if tc.sibling {
				require.EqualValues(t, 1, d.SiblingInserts)
				require.Zero(t, d.Splits(), "no split")
				require.Equal(t, next, leafOf(t, ix, wideKey(id)), "the record went to the next leaf")
				require.Equal(t, wideKey(id), leafKeys(t, ix, next)[0])
				require.Equal(t, keys, leafKeys(t, ix, left), "the full leaf is unchanged")
			} else {
				require.Zero(t, d.SiblingInserts)
				require.EqualValues(t, 1, d.LeafSplitsSpace, "the full leaf split")
			}
		})
	}
}

// TestSiblingInsertParentSplits checks the sibling insert whose new
// pointer does not fit the full parent: the parent splits, as
// btr_insert_on_non_leaf_level does.
func TestSiblingInsertParentSplits(t *testing.T) {
	e := newEnv(t, 0, 64<<20)
	ix, err := Create(ctx, e.options(1, true))
	require.NoError(t, err)
	leaves, parent := siblingTree(t, ix)
	// The first leaf whose parent is not the last one and which shares
	// it with its next leaf: ascending loads leave such parents full.
	last := parent[leaves[len(leaves)-1]]
	at := -1
	for i := 0; i+1 < len(leaves); i++ {
		if parent[leaves[i]] != last && parent[leaves[i]] == parent[leaves[i+1]] {
			at = i
			break
		}
	}
	require.GreaterOrEqual(t, at, 0)
	left, next := leaves[at], leaves[at+1]
	for _, k := range leafKeys(t, ix, next)[:2] {
		require.NoError(t, ix.Delete(ctx, k))
	}
	keys := leafKeys(t, ix, left)
	// A longer key than the pointer it replaces.
	key := append(key8(binary.BigEndian.Uint64(keys[len(keys)-1])+1), bytes.Repeat([]byte("k"), 1492)...)
	before := ix.Stats()
	require.NoError(t, ix.Insert(ctx, key, []byte("new")))
	d := ix.Stats().Sub(before)
	requireCheck(t, ix)
	require.EqualValues(t, 1, d.SiblingInserts)
	require.Zero(t, d.LeafSplitsSpace+d.LeafSplitsZip, "no leaf split")
	require.EqualValues(t, 1, d.NodeSplitsSpace, "the parent split for the longer pointer")
	require.Equal(t, next, leafOf(t, ix, key))
}

// TestSiblingInsertUpdate checks that a pessimistic update of a full
// leaf's last record, which no longer fits, moves it to the next leaf
// [btr_cur_pessimistic_update, then btr_cur_pessimistic_insert].
func TestSiblingInsertUpdate(t *testing.T) {
	e := newEnv(t, 0, 64<<20)
	ix, err := Create(ctx, e.options(1, true))
	require.NoError(t, err)
	leaves, _ := siblingTree(t, ix)
	// Ascending inserts until a new last leaf starts: it holds one record
	// and the leaf before it is full.
	for id := uint64(6001); len(leaves) == len(leafPages(t, ix)); id++ {
		require.NoError(t, ix.Insert(ctx, wideKey(id), []byte("v")))
	}
	leaves, parent := treeShape(t, ix)
	left, next := leaves[len(leaves)-2], leaves[len(leaves)-1]
	require.Equal(t, parent[left], parent[next])
	require.Len(t, leafKeys(t, ix, next), 1)
	keys := leafKeys(t, ix, left)
	lastKey := keys[len(keys)-1]
	// A value that the left leaf cannot take even reorganized.
	value := bytes.Repeat([]byte("u"), rv2Leaf(t, ix, lastKey).MaxInsertSizeAfterReorganize()+200)
	before := ix.Stats()
	require.NoError(t, ix.Update(ctx, lastKey, value))
	d := ix.Stats().Sub(before)
	requireCheck(t, ix)
	require.EqualValues(t, 1, d.UpdatesPessimistic)
	require.EqualValues(t, 1, d.SiblingInserts)
	require.Zero(t, d.Splits())
	require.Equal(t, next, leafOf(t, ix, lastKey))
	require.Equal(t, keys[:len(keys)-1], leafKeys(t, ix, left))
	got, ok, err := ix.Get(ctx, lastKey, nil)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, value, got)
}
