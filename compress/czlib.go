package compress

import (
	"sync"

	"github.com/zipsim/zipsim/compress/internal/czlib"
)

// InnoDB's page_zip_compress calls deflateInit2 with windowBits
// srv_page_size_shift (14 for 16 KiB pages) and memLevel MAX_MEM_LEVEL (9)
// [page0zip.cc]. CZlib uses 14 and 9 for every page stream, so its page
// streams are InnoDB's for 16 KiB pages. For 8 and 4 KiB pages InnoDB uses
// windowBits 13 and 12, which changes the header byte and some streams'
// lengths by a few bytes. An off-page value is one stream of up to
// gigabytes, for which btr_store_big_rec_extern_fields calls deflateInit2
// with windowBits 15 and memLevel 7 [btr0cur.cc]; CompressValue uses
// those: on seed 001's documents (internal/docgen) the wider window
// deflates html 10.1:1 against 8.7:1 with the page parameters.
// Transparent page compression deflates a page on its way to the file
// with compress2 at the configured level [MySQL 5.7's
// os_file_compress_page; MariaDB's fil_page_compress_low], so with
// deflateInit's defaults, windowBits 15 and memLevel 8; CompressFileLimit
// uses those, with which the port deflates LinkBench's leaves about 8%
// faster than with the page parameters, and C zlib 1-9% (BENCHMARKS.md,
// T8).
const (
	czlibWindowBits      = 14
	czlibMemLevel        = 9
	czlibValueWindowBits = 15
	czlibValueMemLevel   = 7
	czlibFileWindowBits  = 15
	czlibFileMemLevel    = 8
)

// czlibEngine writes the streams C zlib 1.2.13 writes, byte for byte
// (internal/czlib, a port of its deflate), and reads them with the flate
// engine's inflater: any zlib stream inflates alike.
type czlibEngine struct {
	level     int
	noReuse   bool
	encPool   sync.Pool // *czlibEnc
	filePool  sync.Pool // *czlibEnc with transparent compression's parameters
	valuePool sync.Pool // *czlib.Writer with the off-page value parameters
	inflate   *flateEngine
}

// czlibEnc is one goroutine's encoder state: the writer (window, hash
// chains and symbol buffer: about 320 KiB with the page parameters, 256
// KiB with compress2's) and CompressLimit's scratch, so that a failure
// leaves the caller's spare capacity untouched.
type czlibEnc struct {
	w       *czlib.Writer
	scratch []byte
}

func newCZlibEngine(level int, noReuse bool) *czlibEngine {
	e := &czlibEngine{level: level, noReuse: noReuse, inflate: newFlateEngine(true, level, noReuse)}
	e.encPool.New = func() any { return e.newEnc(czlibWindowBits, czlibMemLevel) }
	e.filePool.New = func() any { return e.newEnc(czlibFileWindowBits, czlibFileMemLevel) }
	e.valuePool.New = func() any { return e.newValueWriter() }
	return e
}

// newEnc builds encoder state; New validated the level and the stream
// parameters are valid constants, so the writer's constructor cannot fail.
func (e *czlibEngine) newEnc(windowBits, memLevel int) *czlibEnc {
	w, _ := czlib.NewWriter(e.level, windowBits, memLevel)
	return &czlibEnc{w: w}
}

// newValueWriter builds an off-page value's writer; the parameters are
// valid constants, so the constructor cannot fail.
func (e *czlibEngine) newValueWriter() *czlib.Writer {
	w, _ := czlib.NewWriter(e.level, czlibValueWindowBits, czlibValueMemLevel)
	return w
}

func (e *czlibEngine) compressValue(dst, src []byte) ([]byte, error) {
	if e.noReuse {
		return e.newValueWriter().Compress(dst, src), nil
	}
	w := e.valuePool.Get().(*czlib.Writer)
	defer e.valuePool.Put(w)
	return w.Compress(dst, src), nil
}

// getEnc takes encoder state from p, or builds it (NoReuse).
func (e *czlibEngine) getEnc(p *sync.Pool) *czlibEnc {
	if e.noReuse {
		return p.New().(*czlibEnc)
	}
	return p.Get().(*czlibEnc)
}

func (e *czlibEngine) putEnc(p *sync.Pool, st *czlibEnc) {
	if !e.noReuse {
		p.Put(st)
	}
}

func (e *czlibEngine) compress(dst, src []byte) ([]byte, error) {
	st := e.getEnc(&e.encPool)
	defer e.putEnc(&e.encPool, st)
	return st.w.Compress(dst, src), nil
}

func (e *czlibEngine) compressLimit(dst, src []byte, limit int) ([]byte, error) {
	return e.deflateLimit(&e.encPool, dst, src, limit)
}

func (e *czlibEngine) compressFileLimit(dst, src []byte, limit int) ([]byte, error) {
	return e.deflateLimit(&e.filePool, dst, src, limit)
}

// deflateLimit is CompressLimit with the encoder state in p.
func (e *czlibEngine) deflateLimit(p *sync.Pool, dst, src []byte, limit int) ([]byte, error) {
	st := e.getEnc(p)
	defer e.putEnc(p, st)
	// The writer never writes past limit; with the room there it never
	// allocates either, failing or not.
	if n := min(limit, ZlibBound(len(src))); cap(st.scratch) < n {
		st.scratch = make([]byte, 0, n)
	}
	out, ok := st.w.CompressLimit(st.scratch[:0], src, limit)
	if !ok {
		return dst, ErrDoesNotFit
	}
	return append(dst, out...), nil
}

func (e *czlibEngine) decompress(dst, src []byte, limit int) ([]byte, error) {
	return e.inflate.decompress(dst, src, limit)
}
