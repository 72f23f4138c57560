package btree

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim/page"
)

// TestSXLongKeys runs structure changes under the SX index lock on node
// pages full of long separators while Options.MaxKeyLen claims short
// keys (the root package's counts a string column before its escapes):
// long keys go in and out again, the index is reopened, and short keys
// churn under parents that still hold the long separators.
// Which pages a change may touch must be judged by the longest key the
// index has seen, node pages included, not by MaxKeyLen: a miss
// (Stats.LatchMisses) would latch a page after pages below it.
func TestSXLongKeys(t *testing.T) {
	for _, zip := range []int{0, 4096, 8192} {
		t.Run(fmt.Sprintf("zip=%dK", zip/1024), func(t *testing.T) {
			testSXLongKeys(t, zip)
		})
	}
}

func testSXLongKeys(t *testing.T, zip int) {
	e := newDiffEnvLock(t, zip, 8<<20, true)
	e.maxKeyLen = 16
	var err error
	e.ix, err = Open(ctx, e.options(), e.ix.Root()) // the same index with MaxKeyLen set
	require.NoError(t, err)
	longLen := 8
	for longLen < 512 && e.ix.checkSize(make([]byte, 2*longLen), make([]byte, 8)) == nil {
		longLen *= 2
	}
	key := func(i uint64, n int) []byte {
		k := binary.BigEndian.AppendUint64(make([]byte, 0, n), i)
		return append(k, bytes.Repeat([]byte{byte(i)}, n-8)...)
	}
	r := rand.New(rand.NewPCG(uint64(zip), 7))
	model := map[string][]byte{}
	val := func(n int) []byte {
		v := make([]byte, n)
		for i := range v {
			v[i] = byte(r.IntN(256))
		}
		return v
	}
	put := func(k, v []byte) {
		require.NoError(t, e.ix.Insert(ctx, k, v))
		model[string(k)] = v
	}
	// Long keys with short values split first, so the node pages take
	// long separators; short keys with long values fill the leaves
	// between them; then the long keys go, and the leaves stay full
	// enough to keep their separators.
	for i := range 300 {
		put(key(uint64(i)*16, longLen), val(8))
	}
	for _, i := range r.Perm(300 * 15) {
		put(key(uint64(i/15*16+i%15+1), 8), val(200))
	}
	for i := range 300 {
		k := key(uint64(i)*16, longLen)
		require.NoError(t, e.ix.Delete(ctx, k))
		delete(model, string(k))
	}
	grown := e.ix.Stats()
	require.Positive(t, grown.NodeSplitsSpace+grown.NodeSplitsZip, "node splits")
	e.reopen(t)
	requireCheck(t, e.ix) // no key longer than the index knows of
	// Short keys in and out, under parents that still hold long
	// separators.
	for op := range 6000 {
		k := key(uint64(r.IntN(300*16)), 8)
		if _, in := model[string(k)]; in && r.IntN(2) == 0 {
			require.NoError(t, e.ix.Delete(ctx, k), "op %d", op)
			delete(model, string(k))
		} else if !in {
			put(k, val(200))
		}
	}
	requireCheck(t, e.ix)
	n := 0
	require.NoError(t, e.ix.Scan(ctx, nil, nil, false, func(k, v []byte) bool {
		require.Equal(t, model[string(k)], v, "key %x", k)
		n++
		return true
	}))
	require.Equal(t, len(model), n)
	s := e.ix.Stats()
	t.Logf("separators of %d-byte keys; after reopening: %s", longLen, s)
	require.Positive(t, s.Splits(), "splits after reopening")
	require.Positive(t, s.Merges+s.Discards, "merges after reopening")
	require.Positive(t, s.TreeLatches)
	require.Zero(t, s.LatchMisses+grown.LatchMisses, "pages latched by a structure change without latching them in advance")
}

// TestSXLatchTreeRetry lengthens the longest key the index knows of
// between latchTree's pass and its recheck, as a concurrent write of a
// longer key can: the change must let its pages go and latch again from
// the page the longer key's node pointers make safe, here the root, and
// count the pages of that pass alone.
func TestSXLatchTreeRetry(t *testing.T) {
	e := newDiffEnvLock(t, 0, 8<<20, true)
	ix := e.ix
	const keyLen, longLen = 100, 1000
	key := func(i int) []byte {
		k := binary.BigEndian.AppendUint64(make([]byte, 0, keyLen), uint64(i))
		return append(k, bytes.Repeat([]byte{'k'}, keyLen-8)...)
	}
	var passes []int // pages held after each pass of the change under test
	var first heldPage
	var tops []uint32 // the first page each pass latched
	ix.afterTreePass = func() {
		if passes != nil {
			passes = append(passes, len(ix.held))
			tops = append(tops, ix.held[0].no)
			return
		}
		// The first change whose highest latched page is a node page
		// below the root that a longLen-byte separator could split.
		top := ix.held[0]
		p := page.IndexPage(top.g.Frame())
		if top.no == ix.root || p.IsLeaf() || !ix.willModify(p, intentInsert, longLen) {
			return
		}
		passes = []int{len(ix.held)}
		first = top
		ix.noteKey(longLen)
	}
	var before Stats
	for i := 0; passes == nil; i++ {
		require.Less(t, i, 100_000, "no node page came near full")
		before = ix.Stats()
		require.NoError(t, ix.Insert(ctx, key(i), []byte("value-08")))
	}
	ix.afterTreePass = nil
	require.Len(t, passes, 2, "passes of the change that saw a longer key")
	require.Equal(t, []uint32{ix.root}, tops, "the second pass latches from the root down, its first pass's pages let go")
	require.Greater(t, passes[1], passes[0], "the second pass latches from higher up")
	after := ix.Stats()
	require.EqualValues(t, passes[1], after.TreeLatches-before.TreeLatches, "pages counted for the second pass alone")
	require.Zero(t, after.LatchMisses)
	require.Equal(t, longLen, ix.maxKeyLen())
	t.Logf("node page %d could split under a %d-byte separator: %d pages latched, then %d", first.no, longLen, passes[0], passes[1])
	requireCheck(t, ix)
}
