//go:build zipsim_czlib_c && cgo

package compress

// With the zipsim_czlib_c build tag, czlib's streams come from the
// system's C zlib through cgo instead of the Go port: the same bytes
// (czlib is byte-identical to zlib 1.2.13, and TestCZlibC checks the two
// agree), at C zlib's speed. It exists to measure what czlib's speed
// costs a scenario (BENCHMARKS.md, T8); builds without the tag, CI's
// included, use the port. Needs a C compiler and zlib's headers.

/*
#cgo LDFLAGS: -lz
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static z_stream *zc_new_deflate(int level, int wbits, int mem) {
	z_stream *s = calloc(1, sizeof *s);
	if (s != NULL && deflateInit2(s, level, Z_DEFLATED, wbits, mem, Z_DEFAULT_STRATEGY) != Z_OK) {
		free(s);
		s = NULL;
	}
	return s;
}

static z_stream *zc_new_inflate(void) {
	z_stream *s = calloc(1, sizeof *s);
	if (s != NULL && inflateInit2(s, 15) != Z_OK) {
		free(s);
		s = NULL;
	}
	return s;
}

static void zc_free_deflate(z_stream *s) { deflateEnd(s); free(s); }
static void zc_free_inflate(z_stream *s) { inflateEnd(s); free(s); }

// zc_deflate is one deflate(Z_FINISH) of in into out after deflateReset,
// as page_zip_compress runs it: Z_STREAM_END when the stream fit. The
// stream's avail_out tells what was left of out. Go's pointers live in
// the stream only during the call.
static int zc_deflate(z_stream *s, unsigned char *in, unsigned in_len, unsigned char *out, unsigned out_cap) {
	int rc = deflateReset(s);
	if (rc != Z_OK) return rc;
	s->next_in = in; s->avail_in = in_len;
	s->next_out = out; s->avail_out = out_cap;
	rc = deflate(s, Z_FINISH);
	s->next_in = NULL; s->next_out = NULL;
	return rc;
}

// zc_inflate runs inflate over in into out, from a reset stream when
// reset is set; avail_in and avail_out tell what it consumed and made.
static int zc_inflate(z_stream *s, int reset, unsigned char *in, unsigned in_len, unsigned char *out, unsigned out_cap) {
	if (reset && inflateReset(s) != Z_OK) return Z_STREAM_ERROR;
	s->next_in = in; s->avail_in = in_len;
	s->next_out = out; s->avail_out = out_cap;
	int rc = inflate(s, Z_NO_FLUSH);
	s->next_in = NULL; s->next_out = NULL;
	return rc;
}
*/
import "C"

import (
	"errors"
	"math"
	"runtime"
	"slices"
	"sync"
	"unsafe"
)

// czlibEngineFor returns the engine behind the CZlib setting: C zlib here.
func czlibEngineFor(level int, noReuse bool) engine { return newCZlibCEngine(level, noReuse) }

// CZlibImplementation says what the czlib setting runs in this build.
func CZlibImplementation() string { return "C zlib " + C.GoString(C.zlibVersion()) + " through cgo" }

// CZlibPerCallState says what the czlib setting builds for each call
// with Options.NoReuse in this build: zlib's deflate takes
// (1 << (windowBits+2)) + (1 << (memLevel+9)) bytes besides its state
// (zconf.h), 320 KiB at page_zip_compress's 14 and 9.
func CZlibPerCallState() string {
	return "C zlib's deflateInit2 state, about 320 KiB, for each compression and inflateInit2's, about 40 KiB with its window, for each decompression, malloc'd and freed"
}

// cZlibEngine keeps C zlib streams in pools, as czlibEngine keeps the
// port's writers. A pooled stream lives in C memory; a pool may drop it,
// so each is freed by a cleanup attached to its Go handle.
type cZlibEngine struct {
	level                                      int
	noReuse                                    bool
	pagePool, filePool, valuePool, inflatePool sync.Pool // *cStream
}

// cStream is one C zlib stream and, for deflate, CompressLimit's scratch,
// so that a failure leaves the caller's spare capacity untouched. free
// releases the C state at once (NoReuse) instead of at a collection,
// which cannot see C memory.
type cStream struct {
	s       *C.z_stream
	scratch []byte
	cleanup runtime.Cleanup
	end     func(*C.z_stream)
}

func newCStream(s *C.z_stream, end func(*C.z_stream)) *cStream {
	st := &cStream{s: s, end: end}
	st.cleanup = runtime.AddCleanup(st, end, s)
	return st
}

func (st *cStream) free() {
	st.cleanup.Stop()
	st.end(st.s)
}

func newCZlibCEngine(level int, noReuse bool) *cZlibEngine {
	e := &cZlibEngine{level: level, noReuse: noReuse}
	e.pagePool.New = func() any { return e.newDeflate(czlibWindowBits, czlibMemLevel) }
	e.filePool.New = func() any { return e.newDeflate(czlibFileWindowBits, czlibFileMemLevel) }
	e.valuePool.New = func() any { return e.newDeflate(czlibValueWindowBits, czlibValueMemLevel) }
	e.inflatePool.New = func() any { return newCInflate() }
	return e
}

var (
	// errCStream is an init failure: C zlib could not allocate its state.
	errCStream = errors.New("compress: C zlib could not allocate a stream")
	// errCTooLarge: zlib counts a call's input and output in 32 bits, and
	// deflate takes a stream in one call, as page_zip_compress does.
	errCTooLarge = errors.New("compress: C zlib deflates at most 4 GiB in one stream; use the port (a build without the zipsim_czlib_c tag)")
)

func (e *cZlibEngine) newDeflate(wbits, mem int) any {
	s := C.zc_new_deflate(C.int(e.level), C.int(wbits), C.int(mem))
	if s == nil {
		return nil
	}
	return newCStream(s, func(s *C.z_stream) { C.zc_free_deflate(s) })
}

func newCInflate() any {
	s := C.zc_new_inflate()
	if s == nil {
		return nil
	}
	return newCStream(s, func(s *C.z_stream) { C.zc_free_inflate(s) })
}

// get takes a stream from p, or a fresh one (NoReuse: zlib_reuse=off).
func (e *cZlibEngine) get(p *sync.Pool) (*cStream, error) {
	var v any
	if e.noReuse {
		v = p.New()
	} else {
		v = p.Get()
	}
	st, ok := v.(*cStream)
	if !ok {
		return nil, errCStream
	}
	return st, nil
}

func (e *cZlibEngine) put(p *sync.Pool, st *cStream) {
	if e.noReuse {
		st.free()
		return
	}
	p.Put(st)
}

// deflate appends src's stream to dst, failing with ErrDoesNotFit past
// limit bytes; below deflateBound it deflates into the stream's scratch.
func (e *cZlibEngine) deflate(p *sync.Pool, dst, src []byte, limit int) ([]byte, error) {
	st, err := e.get(p)
	if err != nil {
		return dst, err
	}
	defer e.put(p, st)
	bound := int(C.deflateBound(st.s, C.uLong(len(src))))
	if bound > math.MaxUint32 {
		return dst, errCTooLarge
	}
	if limit >= bound {
		// Into dst's spare capacity first, which usually holds the
		// stream; deflateBound's room only when it does not.
		if spare := dst[len(dst):cap(dst)]; len(spare) > 0 && len(spare) < bound {
			if n, ok := st.run(src, spare); ok {
				return dst[:len(dst)+n], nil
			}
		}
		out := slices.Grow(dst, bound)
		n, ok := st.run(src, out[len(out):len(out)+bound])
		if !ok {
			return dst, ErrDoesNotFit
		}
		return out[:len(out)+n], nil
	}
	// limit < bound here, so it fits zlib's 32-bit counts too.
	if cap(st.scratch) < limit {
		st.scratch = make([]byte, limit)
	}
	n, ok := st.run(src, st.scratch[:limit])
	if !ok {
		return dst, ErrDoesNotFit
	}
	return append(dst, st.scratch[:n]...), nil
}

// run deflates src into out and reports the stream's length and whether
// it fit.
func (st *cStream) run(src, out []byte) (int, bool) {
	rc := C.zc_deflate(st.s, cBytes(src), C.uint(len(src)), cBytes(out), C.uint(len(out)))
	return len(out) - int(st.s.avail_out), rc == C.Z_STREAM_END
}

func (e *cZlibEngine) compress(dst, src []byte) ([]byte, error) {
	return e.deflate(&e.pagePool, dst, src, math.MaxInt)
}

func (e *cZlibEngine) compressLimit(dst, src []byte, limit int) ([]byte, error) {
	return e.deflate(&e.pagePool, dst, src, limit)
}

func (e *cZlibEngine) compressFileLimit(dst, src []byte, limit int) ([]byte, error) {
	return e.deflate(&e.filePool, dst, src, limit)
}

func (e *cZlibEngine) compressValue(dst, src []byte) ([]byte, error) {
	return e.deflate(&e.valuePool, dst, src, math.MaxInt)
}

func (e *cZlibEngine) decompress(dst, src []byte, limit int) ([]byte, error) {
	st, err := e.get(&e.inflatePool)
	if err != nil {
		return dst, err
	}
	defer e.put(&e.inflatePool, st)
	start, in, out := len(dst), src, dst
	for reset := C.int(1); ; reset = 0 {
		produced := len(out) - start
		// One byte of room past limit tells a stream that is too large.
		left := limit - produced
		if len(out) == cap(out) {
			out = slices.Grow(out, min(left, max(produced, 2*len(src), 4096))+1)
		}
		room := cap(out) - len(out)
		if left < room {
			room = left + 1
		}
		room = min(room, math.MaxUint32) // zlib's counts are 32 bits: larger runs take more calls
		feed := min(len(in), math.MaxUint32)
		rc := C.zc_inflate(st.s, reset, cBytes(in), C.uint(feed), cBytes(out[len(out):len(out)+room]), C.uint(room))
		in = in[feed-int(st.s.avail_in):]
		out = out[:len(out)+room-int(st.s.avail_out)]
		if len(out)-start > limit {
			return dst, tooLarge(limit)
		}
		switch rc {
		case C.Z_STREAM_END:
			if len(in) > 0 {
				return dst, corrupt("zlib", errors.New("bytes after the stream's end"))
			}
			return out, nil
		case C.Z_OK:
		case C.Z_BUF_ERROR: // no progress with room to write: the input ended early
			return dst, corrupt("zlib", errors.New("truncated stream"))
		case C.Z_MEM_ERROR:
			return dst, errCStream
		case C.Z_NEED_DICT:
			return dst, corrupt("zlib", errors.New("the stream wants a preset dictionary"))
		default:
			msg := C.GoString(st.s.msg)
			if msg == "" {
				msg = "inflate failed"
			}
			return dst, corrupt("zlib", errors.New(msg))
		}
	}
}

// cBytes is b's first byte for C, or nil for an empty slice. C only reads
// or writes it during the call.
func cBytes(b []byte) *C.uchar {
	if len(b) == 0 {
		return nil
	}
	return (*C.uchar)(unsafe.Pointer(&b[0]))
}
