package page

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim/internal/sbdata"
)

var benchSettings = []string{"zlib:1", "zlib:6", "zlib:9", "deflate:6", "zstd:fastest", "zstd:default", "s2", "s2:better", "none"}

// benchLeaf returns a 16K clustered leaf holding rows sysbench rows (0 =
// as many as fit).
func benchLeaf(b *testing.B, rows int) IndexPage {
	if rows == 0 {
		p, _ := sbLeaf(b, 16384, 1)
		return p
	}
	p, err := CreateIndex(make([]byte, 16384), IndexOptions{PageNo: 3, IndexID: 42, Clustered: true})
	require.NoError(b, err)
	r := sbdata.Rand(1)
	for i := 0; i < rows; i++ {
		_, err := p.Insert(i, sbRecord(r, uint32(i+1)))
		require.NoError(b, err)
	}
	return p
}

// benchZip returns a sysbench leaf, an empty zip block and a codec.
func benchZip(b *testing.B, zip, rows int, setting string) (IndexPage, *Zip, Env) {
	z, err := NewZip(make([]byte, zip))
	require.NoError(b, err)
	return benchLeaf(b, rows), z, Env{Codec: mustCodec(b, setting)}
}

// zipCases are a full leaf in a 16K block and a leaf of 60 rows, about what
// KEY_BLOCK_SIZE=8 holds after splits, in an 8K block.
var zipCases = []struct {
	zip, rows int
}{{16384, 0}, {8192, 60}}

// BenchmarkZipCompress measures page_zip_compress on a sysbench leaf per
// codec. ratio is the zip image's used bytes (header, stream, trailer) over
// the 16K page; fits is 1 when the page fits the block.
func BenchmarkZipCompress(b *testing.B) {
	for _, zc := range zipCases {
		for _, s := range benchSettings {
			b.Run(fmt.Sprintf("codec=%s/zip=%dK", s, zc.zip/1024), func(b *testing.B) {
				p, z, env := benchZip(b, zc.zip, zc.rows, s)
				fits := z.Compress(p, env) == nil
				b.ReportAllocs()
				b.SetBytes(16384)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if err := z.Compress(p, env); (err == nil) != fits {
						b.Fatalf("compress result changed: %v", err)
					}
				}
				b.StopTimer()
				if fits {
					b.ReportMetric(float64(z.MStart()+1+z.trailerLen())/16384, "ratio")
					b.ReportMetric(1, "fits")
				} else {
					b.ReportMetric(0, "fits")
				}
			})
		}
	}
}

// BenchmarkZipDecompress measures page_zip_decompress, what a read of a
// compressed-only page costs, per codec.
func BenchmarkZipDecompress(b *testing.B) {
	for _, zc := range zipCases {
		for _, s := range benchSettings {
			b.Run(fmt.Sprintf("codec=%s/zip=%dK", s, zc.zip/1024), func(b *testing.B) {
				p, z, env := benchZip(b, zc.zip, zc.rows, s)
				if err := z.Compress(p, env); err != nil {
					b.Skipf("%s does not fit a sysbench leaf in %d bytes", s, zc.zip)
				}
				dst := make([]byte, 16384)
				b.ReportAllocs()
				b.SetBytes(16384)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if err := z.Decompress(dst, env); err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				if !bytes.Equal(dst[FilPageNo:], p[FilPageNo:]) {
					b.Fatal("decompressed page differs")
				}
				b.ReportMetric(float64(z.MStart()+1+z.trailerLen())/16384, "ratio")
			})
		}
	}
}

// BenchmarkSearch is the row lookup inside a page, the part of a buffer
// pool hit after the page is found.
func BenchmarkSearch(b *testing.B) {
	p := benchLeaf(b, 0)
	keys := make([][]byte, p.NRecs())
	for i := range keys {
		keys[i] = bytes.Clone(p.Key(i))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, found := p.Search(keys[i%len(keys)], bytes.Compare); !found {
			b.Fatal("key not found")
		}
	}
}

// BenchmarkLogInsert appends sysbench rows to a compressed leaf through the
// modification log until Available says no, then starts over: the cost of
// an insert that needs no recompression.
func BenchmarkLogInsert(b *testing.B) {
	env := Env{Codec: mustCodec(b, "zlib:6")}
	empty, err := CreateIndex(make([]byte, 16384), IndexOptions{PageNo: 3, IndexID: 42, Clustered: true})
	require.NoError(b, err)
	z, err := NewZip(make([]byte, 8192))
	require.NoError(b, err)
	p := IndexPage(make([]byte, 16384))
	r := sbdata.Rand(2)
	recs := make([]Record, 64)
	for i := range recs {
		recs[i] = sbRecord(r, uint32(i+1))
	}
	reset := func() {
		copy(p, empty)
		require.NoError(b, z.Compress(p, env))
	}
	reset()
	b.ReportAllocs()
	b.ResetTimer()
	n := 0
	for i := 0; i < b.N; i++ {
		rec := recs[n%len(recs)]
		if n == len(recs) || !z.Available(RecordSize(ClusteredLeaf, len(rec.Key), len(rec.Value)), true) {
			b.StopTimer()
			reset()
			n = 0
			b.StartTimer()
			rec = recs[0]
		}
		if _, err := p.Insert(n, rec); err != nil {
			b.Fatal(err)
		}
		if err := z.LogInsert(p, n); err != nil {
			b.Fatal(err)
		}
		n++
	}
}
