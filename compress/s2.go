package compress

import (
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/klauspost/compress/s2"
)

// s2Engine is the S2 block format. Blocks are stateless to encode and
// decode, so the only reused state is CompressLimit's scratch buffer; the
// block format has no checksum (only S2's stream format does), so
// Decompress checks structure, not content.
type s2Engine struct {
	encode  func(dst, src []byte) []byte
	noReuse bool
	pool    sync.Pool // *[]byte scratch
}

func newS2Engine(level int, noReuse bool) *s2Engine {
	e := &s2Engine{encode: [...]func(dst, src []byte) []byte{s2.Encode, s2.EncodeBetter, s2.EncodeBest}[level-1], noReuse: noReuse}
	e.pool.New = func() any { return new([]byte) }
	return e
}

// maxLen is the room s2 needs to encode n bytes, or an error for input
// larger than one block can describe (s2's encoders panic on it).
func maxLen(n int) (int, error) {
	m := s2.MaxEncodedLen(n)
	if m < 0 {
		return 0, fmt.Errorf("compress: s2 cannot encode %d bytes in one block", n)
	}
	return m, nil
}

func (e *s2Engine) compress(dst, src []byte) ([]byte, error) {
	m, err := maxLen(len(src))
	if err != nil {
		return dst, err
	}
	if cap(dst)-len(dst) < m {
		// s2 needs room for the worst case to encode in place; go through
		// scratch so a dst sized for the real output still needs no growth.
		return e.compressLimit(dst, src, math.MaxInt)
	}
	out := e.encode(dst[len(dst):len(dst)+m], src)
	return dst[:len(dst)+len(out)], nil
}

func (e *s2Engine) compressLimit(dst, src []byte, limit int) ([]byte, error) {
	m, err := maxLen(len(src))
	if err != nil {
		return dst, err
	}
	var scratch *[]byte
	if e.noReuse {
		scratch = new([]byte)
	} else {
		scratch = e.pool.Get().(*[]byte)
		defer e.pool.Put(scratch)
	}
	*scratch = slices.Grow((*scratch)[:0], m)
	out := e.encode((*scratch)[:m], src)
	if len(out) > limit {
		return dst, ErrDoesNotFit
	}
	return append(dst, out...), nil
}

func (e *s2Engine) decompress(dst, src []byte, limit int) ([]byte, error) {
	n, err := s2.DecodedLen(src)
	if err != nil {
		return dst, corrupt("s2", err)
	}
	if n > limit {
		return dst, tooLarge(limit)
	}
	buf := slices.Grow(dst, n)
	if _, err := s2.Decode(buf[len(dst):len(dst)+n], src); err != nil {
		return dst, corrupt("s2", err)
	}
	return buf[:len(dst)+n], nil
}
