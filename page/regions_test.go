package page

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// requireTiling checks that regions cover [0, size) in order without gaps.
func requireTiling(t *testing.T, regions []Region, size int) {
	t.Helper()
	at := 0
	for _, r := range regions {
		require.Equal(t, at, r.Start, "%s starts where the previous ends", r.Name)
		require.LessOrEqual(t, r.Start, r.End, r.Name)
		at = r.End
	}
	require.Equal(t, size, at)
}

func TestRegions(t *testing.T) {
	leaf, _ := sbLeaf(t, 16384, 1)
	rs, err := Regions(leaf, 16384, 0, Env{})
	require.NoError(t, err)
	requireTiling(t, rs, 16384)
	require.Equal(t, "record heap", rs[3].Name)

	z, err := NewZip(make([]byte, 16384))
	require.NoError(t, err)
	require.NoError(t, z.Compress(leaf, Env{}))
	rs, err = Regions(z.Data(), 16384, 16384, Env{})
	require.NoError(t, err)
	requireTiling(t, rs, 16384)
	names := []string{}
	for _, r := range rs {
		names = append(names, r.Name)
	}
	require.Equal(t, []string{"FIL header", "index header", "stream length", "compressed records", "modification log",
		"free space", "BLOB pointers", "uncompressed columns", "dense directory"}, names)

	blob := make([]byte, 16384)
	require.NoError(t, FormatBlobPage(blob, 5, 1, []byte("hello"), FilNull))
	rs, err = Regions(blob, 16384, 0, Env{})
	require.NoError(t, err)
	requireTiling(t, rs, 16384)
	require.Equal(t, 5, rs[2].End-rs[2].Start, "the BLOB data region holds the part")

	zb := make([]byte, 2048)
	require.NoError(t, FormatZBlobPage(zb, 6, 1, true, []byte("stream"), FilNull))
	rs, err = Regions(zb, 16384, 2048, Env{})
	require.NoError(t, err)
	requireTiling(t, rs, 2048)
}

// FuzzRegions dumps arbitrary images: an error or regions, never a panic.
func FuzzRegions(f *testing.F) {
	leaf, _ := sbLeaf(f, 4096, 2)
	z, err := NewZip(make([]byte, 4096))
	require.NoError(f, err)
	require.NoError(f, z.Compress(leaf, Env{}))
	f.Add([]byte(leaf), false)
	f.Add(z.Data(), true)
	f.Fuzz(func(t *testing.T, b []byte, zip bool) {
		zipSize := 0
		if zip {
			zipSize = 4096
		}
		_, _ = Regions(b, 4096, zipSize, Env{})
	})
}
