package czlib

import (
	"bytes"
	"testing"

	kzlib "github.com/klauspost/compress/zlib"
)

// BenchmarkCompress compresses the ~13 KB sysbench-like input the way
// InnoDB does (level 6, windowBits 14, memLevel 9) and, for comparison, with
// klauspost/compress's zlib at level 6. bytes/op-out is the stream size.
func BenchmarkCompress(b *testing.B) {
	in := goldenInput("rows1")
	b.Run("czlib", func(b *testing.B) {
		w, err := NewWriter(6, 14, 9)
		if err != nil {
			b.Fatal(err)
		}
		dst := make([]byte, 0, 2*len(in)+64)
		b.SetBytes(int64(len(in)))
		b.ReportAllocs()
		var out []byte
		for b.Loop() {
			out = w.Compress(dst[:0], in)
		}
		b.ReportMetric(float64(len(out)), "bytes/op-out")
	})
	b.Run("klauspost", func(b *testing.B) {
		var buf bytes.Buffer
		buf.Grow(2*len(in) + 64)
		zw, err := kzlib.NewWriterLevel(&buf, 6)
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(in)))
		b.ReportAllocs()
		for b.Loop() {
			buf.Reset()
			zw.Reset(&buf)
			if _, err := zw.Write(in); err != nil {
				b.Fatal(err)
			}
			if err := zw.Close(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(buf.Len()), "bytes/op-out")
	})
}
