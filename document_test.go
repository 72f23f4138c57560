package zipsim_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim"
	"github.com/zipsim/zipsim/bufpool"
	"github.com/zipsim/zipsim/internal/docgen"
	"github.com/zipsim/zipsim/sim"
)

// loadDocuments loads n documents in id order into a new table of st.
func loadDocuments(t testing.TB, st *zipsim.Store, name string, o zipsim.TableOptions, n int, short bool) *zipsim.Table {
	t.Helper()
	tb, err := st.CreateTable(ctx, name, o)
	require.NoError(t, err)
	g, err := docgen.New(1, docgen.Options{})
	require.NoError(t, err)
	var html, sh []byte
	for id := 1; id <= n; id++ {
		html = g.Text(html[:0], g.HTMLLen())
		sh = sh[:0]
		if short {
			sh = g.Text(sh, g.ShortLen())
		}
		row := zipsim.Row{zipsim.Int(int64(id)), zipsim.Int(int64(id%(n/10+1) + 1)), zipsim.Bytes(html),
			zipsim.Int(1262304000 + int64(id)), zipsim.Int(1262304000 + int64(id)), zipsim.Int(0), zipsim.Bytes(sh)}
		require.NoError(t, tb.Insert(ctx, row))
	}
	return tb
}

// TestDocumentSpace is T3's size part: seed 001's HTML table in COMPACT,
// DYNAMIC and COMPRESSED at KEY_BLOCK_SIZE 1, 4 and 8. Off-page values
// dominate, so DYNAMIC barely changes the total while COMPRESSED, which
// deflates each value as one stream over ZBLOB pages, is not held to the
// 2:1 of B-tree pages and shrinks it about tenfold at any KEY_BLOCK_SIZE.
func TestDocumentSpace(t *testing.T) {
	n := 1000
	if raceEnabled {
		n = 100
	}
	st := openMemPool(t, 32<<20)
	formats := []struct {
		name string
		set  func(*zipsim.TableOptions)
	}{
		{"COMPACT", blobFormats[0].set}, {"DYNAMIC", blobFormats[1].set},
		{"KBS=1", blobFormats[2].set}, {"KBS=4", blobFormats[4].set}, {"KBS=8", blobFormats[5].set},
	}
	use := map[string]zipsim.SpaceUsage{}
	for i, f := range formats {
		o := sim.DocumentTable()
		f.set(&o)
		tb := loadDocuments(t, st, fmt.Sprintf("docs%d", i), o, n, true)
		u, err := tb.Space(ctx)
		require.NoError(t, err)
		require.Empty(t, tb.Check(ctx))
		use[f.name] = u
		t.Logf("%s: total %d KiB, clustered %d KiB, secondary %d KiB, off-page %d KiB in %d values (%d KiB stored, %d KiB unused)",
			f.name, u.TotalBytes()>>10, u.ClusteredBytes()>>10, u.SecondaryBytes()>>10, u.BlobBytes()>>10,
			u.BlobValues, u.BlobData>>10, u.BlobWaste>>10)
	}
	total := func(name string) float64 { return float64(use[name].TotalBytes()) }
	compact := total("COMPACT")
	dyn := total("DYNAMIC") / compact
	require.GreaterOrEqual(t, dyn, 0.9, "DYNAMIC/COMPACT")
	require.LessOrEqual(t, dyn, 1.0, "DYNAMIC/COMPACT")
	require.LessOrEqual(t, total("KBS=8")/compact, 0.15, "COMPRESSED(8K)/COMPACT")
	lo, hi := total("KBS=1"), total("KBS=1")
	for _, k := range []string{"KBS=4", "KBS=8"} {
		lo, hi = min(lo, total(k)), max(hi, total(k))
	}
	require.LessOrEqual(t, hi/lo, 1.4, "sizes across KEY_BLOCK_SIZE 1, 4 and 8")
	t.Logf("DYNAMIC/COMPACT %.3f, COMPRESSED(8K)/COMPACT %.3f, KBS max/min %.2f, clustered DYNAMIC/COMPACT %.3f",
		dyn, total("KBS=8")/compact, hi/lo, float64(use["DYNAMIC"].ClusteredPages)/float64(use["COMPACT"].ClusteredPages))
}

// TestDocumentClusteredIndex shows why DYNAMIC lets seed 001's primary
// index fit in memory: COMPACT keeps 768 bytes of each long value in the
// record, DYNAMIC only the 20-byte reference. With html alone moving, the
// clustered index shrinks by the prefix; short_html (2 KiB median) stays
// in the record in both formats, as dtuple_convert_big_rec moves columns
// only while the record exceeds half a page, so it dilutes the gain.
func TestDocumentClusteredIndex(t *testing.T) {
	n := 300
	if raceEnabled {
		n = 80
	}
	st := openMemPool(t, 32<<20)
	pages := func(name string, set func(*zipsim.TableOptions), short bool) int64 {
		o := sim.DocumentTable()
		set(&o)
		tb := loadDocuments(t, st, name, o, n, short)
		u, err := tb.Space(ctx)
		require.NoError(t, err)
		require.GreaterOrEqual(t, u.BlobValues, int64(n), "%s: every html value is off-page", name)
		require.LessOrEqual(t, u.BlobValues, int64(n+n/50), "%s: short_html only where the record is still too big", name)
		return u.ClusteredPages
	}
	htmlOnly := float64(pages("d1", blobFormats[1].set, false)) / float64(pages("c1", blobFormats[0].set, false))
	withShort := float64(pages("d2", blobFormats[1].set, true)) / float64(pages("c2", blobFormats[0].set, true))
	t.Logf("clustered pages DYNAMIC/COMPACT: %.3f with html only, %.3f with short_html in the record", htmlOnly, withShort)
	require.LessOrEqual(t, htmlOnly, 0.25)
	require.Less(t, withShort, 0.85)
}

// BenchmarkDocument loads seed 001's documents and reads them back whole
// or without their html (a projection), per row format.
func BenchmarkDocument(b *testing.B) {
	formats := []struct {
		name string
		set  func(*zipsim.TableOptions)
	}{{"COMPACT", blobFormats[0].set}, {"DYNAMIC", blobFormats[1].set}, {"KBS=8", blobFormats[5].set}}
	for _, f := range formats {
		o := sim.DocumentTable()
		f.set(&o)
		b.Run("format="+f.name+"/op=load", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				st, err := zipsim.Open("", zipsim.Options{Pool: bufpool.Options{Bytes: 64 << 20}})
				require.NoError(b, err)
				loadDocuments(b, st, "docs", o, 200, true)
				require.NoError(b, st.Close())
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*200), "ns/doc")
		})
		st, err := zipsim.Open("", zipsim.Options{Pool: bufpool.Options{Bytes: 64 << 20}})
		require.NoError(b, err)
		tb := loadDocuments(b, st, "docs", o, 200, true)
		small, err := tb.Columns("id", "word_document_id", "short_html")
		require.NoError(b, err)
		for _, read := range []string{"get", "get-no-html"} {
			b.Run("format="+f.name+"/op="+read, func(b *testing.B) {
				b.ReportAllocs()
				var row zipsim.Row
				var bytes int64
				i := 0
				for b.Loop() {
					id := zipsim.Int(int64(i%200 + 1))
					i++
					var err error
					if read == "get" {
						row, _, err = tb.Get(ctx, row, id)
					} else {
						row, _, err = tb.GetColumns(ctx, row, small, id)
					}
					if err != nil {
						b.Fatal(err)
					}
					bytes += int64(len(row[2].Bytes()) + len(row[6].Bytes()))
				}
				b.ReportMetric(float64(bytes)/float64(b.N), "bytes/op")
			})
		}
		require.NoError(b, st.Close())
	}
}
