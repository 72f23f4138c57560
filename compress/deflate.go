package compress

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"slices"
	"sync"

	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/zlib"
)

// flateEngine is zlib (framed) or raw deflate at one level, the codec of
// page0zip.cc page_zip_compress/page_zip_decompress and of
// btr_store_big_rec_extern_fields' ZBLOB streams.
type flateEngine struct {
	zlib    bool
	level   int
	noReuse bool
	// Separate pools, so goroutines that only read never build encoders
	// (hash tables of hundreds of KiB) and writers never build inflaters.
	encPool sync.Pool // *flateEnc
	decPool sync.Pool // *flateDec
}

// resetWriter is what *zlib.Writer and *flate.Writer have in common.
type resetWriter interface {
	io.WriteCloser
	Reset(w io.Writer)
}

// resetReader is what the zlib and flate readers have in common; both
// implement it (zlib.Resetter, flate.Resetter).
type resetReader interface {
	io.Reader
	Reset(r io.Reader, dict []byte) error
}

// flateEnc is one goroutine's encoder state. The encoder writes into w,
// which points into the same struct, so Reset never allocates.
type flateEnc struct {
	w       sliceWriter
	enc     resetWriter
	scratch []byte // CompressLimit's output before it is known to fit
}

// flateDec is one goroutine's decoder state. br is a flate.Reader (it has
// ReadByte), so the inflater reads src directly with no bufio and never
// past the end of the stream.
type flateDec struct {
	br    bytes.Reader
	dec   resetReader
	probe [1]byte // checks for more output when dst is exactly full
}

// emptyZlib is a complete zlib stream of no data. zlib.NewReader parses a
// header at construction, so pooled readers are built on this and Reset
// onto real input later.
var emptyZlib = []byte{0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01}

func newFlateEngine(zlibFraming bool, level int, noReuse bool) *flateEngine {
	e := &flateEngine{zlib: zlibFraming, level: level, noReuse: noReuse}
	e.encPool.New = func() any { return e.newEnc() }
	e.decPool.New = func() any { return e.newDec() }
	return e
}

func (e *flateEngine) format() string {
	if e.zlib {
		return "zlib"
	}
	return "deflate"
}

// newEnc builds encoder state. The level was validated by New, so the
// constructors cannot fail.
func (e *flateEngine) newEnc() *flateEnc {
	st := &flateEnc{}
	if e.zlib {
		st.enc, _ = zlib.NewWriterLevel(&st.w, e.level)
	} else {
		st.enc, _ = flate.NewWriter(&st.w, e.level)
	}
	return st
}

// newDec builds decoder state; see emptyZlib.
func (e *flateEngine) newDec() *flateDec {
	st := &flateDec{}
	if e.zlib {
		st.br.Reset(emptyZlib)
		r, _ := zlib.NewReader(&st.br)
		st.dec = r.(resetReader)
	} else {
		st.dec = flate.NewReader(&st.br).(resetReader)
	}
	return st
}

func (e *flateEngine) getEnc() *flateEnc {
	if e.noReuse {
		return e.newEnc()
	}
	return e.encPool.Get().(*flateEnc)
}

func (e *flateEngine) putEnc(st *flateEnc) {
	st.w = sliceWriter{} // drop the caller's dst
	if !e.noReuse {
		e.encPool.Put(st)
	}
}

// deflate runs one complete stream of src into st.w.
func (st *flateEnc) deflate(src []byte) error {
	st.enc.Reset(&st.w)
	if _, err := st.enc.Write(src); err != nil {
		return err
	}
	return st.enc.Close()
}

func (e *flateEngine) compress(dst, src []byte) ([]byte, error) {
	st := e.getEnc()
	defer e.putEnc(st)
	st.w = sliceWriter{buf: dst, max: math.MaxInt}
	if err := st.deflate(src); err != nil {
		return dst, err
	}
	return st.w.buf, nil
}

func (e *flateEngine) compressLimit(dst, src []byte, limit int) ([]byte, error) {
	st := e.getEnc()
	defer e.putEnc(st)
	st.w = sliceWriter{buf: st.scratch[:0], max: limit}
	err := st.deflate(src)
	st.scratch = st.w.buf[:0]
	if st.w.full {
		return dst, ErrDoesNotFit
	}
	if err != nil {
		return dst, err
	}
	return append(dst, st.w.buf...), nil
}

func (e *flateEngine) getDec() *flateDec {
	if e.noReuse {
		return e.newDec()
	}
	return e.decPool.Get().(*flateDec)
}

func (e *flateEngine) putDec(st *flateDec) {
	st.br.Reset(nil) // drop the caller's src
	if !e.noReuse {
		e.decPool.Put(st)
	}
}

func (e *flateEngine) decompress(dst, src []byte, limit int) ([]byte, error) {
	st := e.getDec()
	defer e.putDec(st)
	st.br.Reset(src)
	if err := st.dec.Reset(&st.br, nil); err != nil { // parses the zlib header
		return dst, corrupt(e.format(), err)
	}
	return st.inflate(dst, src, limit, e.format())
}

// inflate reads the whole stream into dst's spare capacity, growing dst
// only when the output does not fit, and never past limit bytes of output.
// Reading to io.EOF makes the zlib reader verify adler32.
func (st *flateDec) inflate(dst, src []byte, limit int, format string) ([]byte, error) {
	start := len(dst)
	out := dst
	for {
		if len(out) == cap(out) || len(out)-start == limit {
			// Ask for one byte first: a stream that ends exactly here must
			// not cost an allocation or count as too large.
			n, err := st.dec.Read(st.probe[:])
			if n > 0 {
				if len(out)-start == limit {
					return dst, tooLarge(limit)
				}
				produced := len(out) - start
				out = slices.Grow(out, min(limit-produced, max(produced, 2*len(src), 4096)))
				out = append(out, st.probe[0])
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				return dst, corrupt(format, err)
			}
			continue
		}
		n, err := st.dec.Read(out[len(out):min(cap(out), start+limit)])
		out = out[:len(out)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return dst, corrupt(format, err)
		}
	}
	if rest := st.br.Len(); rest > 0 {
		return dst, corrupt(format, fmt.Errorf("%d bytes after the end of the stream", rest))
	}
	return out, nil
}
