package compress

import (
	"bytes"
	"fmt"
	"testing"
)

// benchSettings are the settings worth a row in a report: InnoDB's levels
// at both ends and its default, raw deflate, and the comparison codecs.
var benchSettings = []string{
	"zlib:1", "zlib:6", "zlib:9", "deflate:6",
	"zstd:fastest", "zstd:default", "s2", "s2:better", "none",
}

// benchCodec parses text and builds its Codec.
func benchCodec(b *testing.B, text string, opts Options) *Codec {
	s, err := ParseSetting(text)
	if err != nil {
		b.Fatal(err)
	}
	c, err := New(s, opts)
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// benchCompress compresses the sysbench page into a reused buffer.
func benchCompress(b *testing.B, c *Codec) {
	page := sbPage()
	dst := make([]byte, 0, 64<<10)
	b.ReportAllocs()
	b.SetBytes(int64(len(page)))
	var n int
	for b.Loop() {
		out, err := c.Compress(dst[:0], page)
		if err != nil || len(out) == 0 {
			b.Fatalf("Compress: %d bytes, %v", len(out), err)
		}
		n = len(out)
	}
	b.ReportMetric(float64(n)/float64(len(page)), "ratio")
}

func BenchmarkCompress(b *testing.B) {
	for _, text := range benchSettings {
		b.Run("codec="+text, func(b *testing.B) { benchCompress(b, benchCodec(b, text, Options{})) })
	}
}

// reuseSettings are the codecs whose state Options.NoReuse builds per call:
// klauspost's zlib and InnoDB's deflate (czlib).
var reuseSettings = []string{"zlib:6", "czlib:6"}

// BenchmarkCompressNoReuse shows what building an encoder per call costs,
// the pre-Facebook InnoDB behaviour that Options.NoReuse reproduces, with
// each codec's reused encoder beside it.
func BenchmarkCompressNoReuse(b *testing.B) {
	for _, text := range reuseSettings {
		for _, noReuse := range []bool{false, true} {
			b.Run(fmt.Sprintf("codec=%s/reuse=%t", text, !noReuse), func(b *testing.B) {
				benchCompress(b, benchCodec(b, text, Options{NoReuse: noReuse}))
			})
		}
	}
}

// BenchmarkDecompressNoReuse is BenchmarkCompressNoReuse's inflater side.
func BenchmarkDecompressNoReuse(b *testing.B) {
	for _, text := range reuseSettings {
		for _, noReuse := range []bool{false, true} {
			b.Run(fmt.Sprintf("codec=%s/reuse=%t", text, !noReuse), func(b *testing.B) {
				benchDecompress(b, benchCodec(b, text, Options{NoReuse: noReuse}))
			})
		}
	}
}

func BenchmarkDecompress(b *testing.B) {
	for _, text := range benchSettings {
		b.Run("codec="+text, func(b *testing.B) { benchDecompress(b, benchCodec(b, text, Options{})) })
	}
}

// benchDecompress inflates c's stream of the sysbench page into a reused
// buffer.
func benchDecompress(b *testing.B, c *Codec) {
	page := sbPage()
	comp, err := c.Compress(nil, page)
	if err != nil {
		b.Fatal(err)
	}
	dst := make([]byte, 0, len(page))
	b.ReportAllocs()
	b.SetBytes(int64(len(page)))
	for i := 0; b.Loop(); i++ {
		out, err := c.Decompress(dst[:0], comp)
		if err != nil || len(out) != len(page) || (i%1024 == 0 && !bytes.Equal(out, page)) {
			b.Fatalf("Decompress: %d bytes, %v", len(out), err)
		}
	}
	b.ReportMetric(float64(len(comp))/float64(len(page)), "ratio")
}
