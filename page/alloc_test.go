//go:build !race

// Allocation counts are meaningless under -race, where sync.Pool drops
// items at random; CI runs these tests in a second, non-race pass
// (go test -run ZeroAllocs ./...), see README.md.

package page

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim/internal/sbdata"
)

// TestZeroAllocsHotPaths pins the zero-allocation promise of the
// operations the buffer pool and the B-tree run per row or per page.
func TestZeroAllocsHotPaths(t *testing.T) {
	full, _ := sbLeaf(t, 16384, 9)
	env := Env{Codec: mustCodec(t, "zlib:6")}
	z16, err := NewZip(make([]byte, 16384))
	require.NoError(t, err)
	require.NoError(t, z16.Compress(full, env))
	dst := make([]byte, 16384)
	key := bytes.Clone(full.Key(40))

	z8, err := NewZip(make([]byte, 8192))
	require.NoError(t, err)
	r := sbdata.Rand(4)
	rec := sbRecord(r, 1)
	size := RecordSize(ClusteredLeaf, len(rec.Key), len(rec.Value))
	empty, err := CreateIndex(make([]byte, 16384), IndexOptions{PageNo: 3, IndexID: 42, Clustered: true})
	require.NoError(t, err)
	p := IndexPage(make([]byte, 16384))

	cases := map[string]func(){
		"Search":      func() { full.Search(key, bytes.Compare) },
		"Compress":    func() { _ = z16.Compress(full, env) },
		"Decompress":  func() { _ = z16.Decompress(dst, env) },
		"CompressFit": func() { _ = z8.Compress(full, env) }, // fails: too big for 8K
		"Available":   func() { z16.Available(size, true) },
		"InsertLogInsertUpdateDelete": func() {
			copy(p, empty)
			_ = z8.Compress(p, env)
			_, _ = p.Insert(0, rec)
			_ = z8.LogInsert(p, 0)
			_ = p.UpdateInPlace(0, rec)
			_ = z8.LogUpdate(p, 0)
			_, _ = p.Delete(0)
			_ = z8.LogDelete(p, 0)
		},
	}
	for name, f := range cases {
		f() // warm the pools
		require.Zero(t, testing.AllocsPerRun(50, f), name)
	}
}
