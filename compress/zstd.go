package compress

import (
	"errors"
	"math"
	"slices"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// zstdEngine is Zstandard at one of klauspost's four levels. Each pooled
// state owns an Encoder or Decoder built with concurrency 1: EncodeAll and
// DecodeAll on one shared instance would serialize callers on its single
// internal block coder, and concurrency 1 starts no goroutines, so a pooled
// instance the GC drops needs no Close.
type zstdEngine struct {
	level   zstd.EncoderLevel
	noReuse bool
	encPool sync.Pool // *zstdEnc
	decPool sync.Pool // *zstdDec
}

type zstdEnc struct {
	enc     *zstd.Encoder
	scratch []byte // CompressLimit's output before it is known to fit
}

type zstdDec struct {
	dec *zstd.Decoder
	hdr zstd.Header
}

func newZstdEngine(level int, noReuse bool) *zstdEngine {
	e := &zstdEngine{level: zstd.EncoderLevel(level), noReuse: noReuse}
	e.encPool.New = func() any { return e.newEnc() }
	e.decPool.New = func() any { return newZstdDec() }
	return e
}

// newEnc builds an encoder. The frame CRC stays on (klauspost's default)
// so decoding does the integrity work a real zstd deployment does, and
// zero frames are on so empty input still produces a frame that
// Decompress can check. The options are valid constants, so NewWriter
// cannot fail.
func (e *zstdEngine) newEnc() *zstdEnc {
	enc, _ := zstd.NewWriter(nil,
		zstd.WithEncoderConcurrency(1),
		zstd.WithEncoderLevel(e.level),
		zstd.WithEncoderCRC(true),
		zstd.WithZeroFrames(true))
	return &zstdEnc{enc: enc}
}

// newZstdDec builds a decoder. DecodeAll is capped to cap(dst), which is
// how DecompressLimit bounds output per call. The memory ceiling admits the
// 4 GiB an external reference can describe; the window ceiling stays at
// MaxDecompressed, far above the windows zipsim's encoders choose.
func newZstdDec() *zstdDec {
	dec, _ := zstd.NewReader(nil,
		zstd.WithDecoderConcurrency(1),
		zstd.WithDecoderMaxMemory(math.MaxUint32),
		zstd.WithDecoderMaxWindow(MaxDecompressed),
		zstd.WithDecodeAllCapLimit(true))
	return &zstdDec{dec: dec}
}

func (e *zstdEngine) getEnc() *zstdEnc {
	if e.noReuse {
		return e.newEnc()
	}
	return e.encPool.Get().(*zstdEnc)
}

func (e *zstdEngine) putEnc(st *zstdEnc) {
	if !e.noReuse {
		e.encPool.Put(st)
	}
}

func (e *zstdEngine) compress(dst, src []byte) ([]byte, error) {
	st := e.getEnc()
	defer e.putEnc(st)
	return st.enc.EncodeAll(src, dst), nil
}

func (e *zstdEngine) compressLimit(dst, src []byte, limit int) ([]byte, error) {
	st := e.getEnc()
	defer e.putEnc(st)
	out := st.enc.EncodeAll(src, st.scratch[:0])
	st.scratch = out[:0]
	if len(out) > limit {
		return dst, ErrDoesNotFit
	}
	return append(dst, out...), nil
}

func (e *zstdEngine) getDec() *zstdDec {
	if e.noReuse {
		return newZstdDec()
	}
	return e.decPool.Get().(*zstdDec)
}

func (e *zstdEngine) putDec(st *zstdDec) {
	if e.noReuse {
		st.dec.Close()
		return
	}
	e.decPool.Put(st)
}

func (e *zstdEngine) decompress(dst, src []byte, limit int) ([]byte, error) {
	st := e.getDec()
	defer e.putDec(st)
	if err := st.hdr.Decode(src); err != nil {
		return dst, corrupt("zstd", err)
	}
	// room is the output capacity offered to DecodeAll. Our own streams
	// are one frame with its content size, so the first try fits; a frame
	// without a size, or several frames, may need retries, doubling up to
	// limit.
	var room int
	if st.hdr.HasFCS {
		if st.hdr.FrameContentSize > uint64(limit) {
			return dst, tooLarge(limit)
		}
		room = int(st.hdr.FrameContentSize)
	} else {
		room = min(limit, max(cap(dst)-len(dst), 4*len(src)))
	}
	for {
		buf := slices.Grow(dst, room)
		out, err := st.dec.DecodeAll(src, buf[:len(dst):len(dst)+room])
		if err == nil {
			return out, nil
		}
		if !errors.Is(err, zstd.ErrDecoderSizeExceeded) {
			return dst, corrupt("zstd", err)
		}
		if room >= limit {
			return dst, tooLarge(limit)
		}
		room = min(limit, max(2*room, 4096))
	}
}
