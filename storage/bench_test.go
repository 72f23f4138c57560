package storage

import (
	"testing"

	"github.com/zipsim/zipsim/page"
)

// benchSpace returns a space on a memory device with 64 sysbench pages.
func benchSpace(b *testing.B, mode string) (*Tablespace, [][]byte) {
	o := Options{}
	if mode == "transparent" {
		o.Compression = "zlib"
	}
	ts, err := Create(mustMemory(b), o)
	if err != nil {
		b.Fatal(err)
	}
	pages := make([][]byte, 64)
	for i := range pages {
		pages[i] = sbPage(16384, 0, uint32(i+1), uint64(i+1))
		if err := ts.WritePage(uint32(i+1), pages[i]); err != nil {
			b.Fatal(err)
		}
	}
	return ts, pages
}

func BenchmarkWritePage(b *testing.B) {
	for _, mode := range []string{"plain", "transparent"} {
		b.Run("mode="+mode+"/dev=memory", func(b *testing.B) {
			ts, pages := benchSpace(b, mode)
			s0 := ts.Stats()
			b.SetBytes(16384)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if err := ts.WritePage(uint32(i%64+1), pages[i%64]); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			s := ts.Stats().Sub(s0)
			b.ReportMetric(float64(s.BytesWritten)/float64(s.Writes), "disk-bytes/op")
		})
	}
}

func BenchmarkReadPage(b *testing.B) {
	for _, mode := range []string{"plain", "transparent"} {
		b.Run("mode="+mode+"/dev=memory", func(b *testing.B) {
			ts, _ := benchSpace(b, mode)
			buf := make([]byte, 16384)
			b.SetBytes(16384)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if err := ts.ReadPage(uint32(i%64+1), buf); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			if err := page.Verify(buf); err != nil {
				b.Fatal(err)
			}
		})
	}
}

func BenchmarkReadPageParallel(b *testing.B) {
	for _, mode := range []string{"plain", "transparent"} {
		b.Run("mode="+mode+"/dev=memory", func(b *testing.B) {
			ts, _ := benchSpace(b, mode)
			b.SetBytes(16384)
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				buf := make([]byte, 16384)
				i := 0
				for pb.Next() {
					if err := ts.ReadPage(uint32(i%64+1), buf); err != nil {
						b.Error(err)
						return
					}
					i++
				}
			})
		})
	}
}
