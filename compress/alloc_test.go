//go:build !race

// Allocation counts are meaningless under -race, where sync.Pool drops
// items at random; CI runs these tests in a second, non-race pass
// (go test -run ZeroAllocs ./...), see README.md.

package compress

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestZeroAllocs checks the promise that reused codec state makes every
// steady-state call allocation-free, including a failing CompressLimit.
func TestZeroAllocs(t *testing.T) {
	page := sbPage()
	for _, s := range allSettings() {
		c := newCodec(t, s)
		cbuf := make([]byte, 0, 16384) // a frame-sized buffer, as page code passes
		dbuf := make([]byte, 0, 16384)
		comp, err := c.Compress(nil, page)
		require.NoError(t, err)
		fit, short := len(comp), len(comp)-1

		ops := map[string]func(){
			"Compress": func() {
				out, err := c.Compress(cbuf[:0], page)
				if err != nil || len(out) != fit {
					t.Fatalf("%s: Compress: %d bytes, %v", s, len(out), err)
				}
			},
			"CompressLimit/fits": func() {
				out, err := c.CompressLimit(cbuf[:0], page, fit)
				if err != nil || len(out) != fit {
					t.Fatalf("%s: CompressLimit: %d bytes, %v", s, len(out), err)
				}
			},
			"CompressLimit/fails": func() {
				if _, err := c.CompressLimit(cbuf[:0], page, short); err != ErrDoesNotFit {
					t.Fatalf("%s: CompressLimit %d: %v", s, short, err)
				}
			},
			"CompressFileLimit/fits": func() {
				if _, err := c.CompressFileLimit(cbuf[:0], page, len(page)); err != nil {
					t.Fatalf("%s: CompressFileLimit: %v", s, err)
				}
			},
			"CompressFileLimit/fails": func() {
				if _, err := c.CompressFileLimit(cbuf[:0], page, 64); err != ErrDoesNotFit {
					t.Fatalf("%s: CompressFileLimit 64: %v", s, err)
				}
			},
			"CompressValue": func() {
				if _, err := c.CompressValue(cbuf[:0], page); err != nil {
					t.Fatalf("%s: CompressValue: %v", s, err)
				}
			},
			"Decompress": func() {
				out, err := c.Decompress(dbuf[:0], comp)
				if err != nil || len(out) != len(page) {
					t.Fatalf("%s: Decompress: %d bytes, %v", s, len(out), err)
				}
			},
			"DecompressLimit": func() {
				out, err := c.DecompressLimit(dbuf[:0], comp, len(page))
				if err != nil || len(out) != len(page) {
					t.Fatalf("%s: DecompressLimit: %d bytes, %v", s, len(out), err)
				}
			},
		}
		for name, op := range ops {
			op() // warm-up: builds the pooled state
			require.Zero(t, testing.AllocsPerRun(20, op), "%s %s", s, name)
		}
	}
}
