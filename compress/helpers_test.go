package compress

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zipsim/zipsim/internal/sbdata"
)

// allSettings lists every valid canonical setting, every level of every
// algorithm.
func allSettings() []Setting {
	var out []Setting
	for a := range algorithmNames {
		li := levels[a]
		if li.max == 0 {
			out = append(out, Setting{Algorithm: Algorithm(a)})
			continue
		}
		for l := 1; l <= li.max; l++ {
			out = append(out, Setting{Algorithm: Algorithm(a), Level: l})
		}
	}
	return out
}

// newCodec builds a reusing Codec or fails the test.
func newCodec(t testing.TB, s Setting) *Codec {
	t.Helper()
	c, err := New(s, Options{})
	require.NoError(t, err)
	return c
}

// sbPage is the realistic sysbench leaf image.
func sbPage() []byte { return sbdata.PageImage(16384, 1) }

// randomBytes returns n incompressible bytes, the same for a seed.
func randomBytes(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, seed))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// textBytes returns n bytes of English-like prose.
func textBytes(n int) []byte {
	words := strings.Fields("the of and to in a is that for it as was with be by on not he this are or his from at which but have an they you were her she there been one all we their has would when if so no will more about up out who get them some into time than its")
	r := rand.New(rand.NewPCG(7, 7))
	var b []byte
	for len(b) < n {
		b = append(b, words[r.IntN(len(words))]...)
		if r.IntN(12) == 0 {
			b = append(b, ". "...)
		} else {
			b = append(b, ' ')
		}
	}
	return b[:n]
}

// bigValue returns a 4 MiB BLOB-like value of sysbench strings.
func bigValue() []byte {
	r := sbdata.Rand(3)
	b := make([]byte, 0, 4<<20)
	for len(b) < 4<<20 {
		b = sbdata.C(b, r)
	}
	return b[:4<<20]
}

type input struct {
	name string
	data []byte
}

func inputs() []input {
	return []input{
		{"empty", []byte{}},
		{"one-byte", []byte{'x'}},
		{"sysbench-page", sbPage()},
		{"random-16k", randomBytes(16384, 1)},
		{"text", textBytes(16384)},
		{"value-4m", bigValue()},
	}
}
