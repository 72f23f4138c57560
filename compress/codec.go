package compress

import (
	"errors"
	"fmt"
	"sync"
)

// MaxDecompressed is the most bytes Decompress will produce. It bounds the
// memory a corrupt or hostile stream can make a decoder allocate.
const MaxDecompressed = 64 << 20

var (
	// ErrDoesNotFit is CompressLimit's compression failure: the compressed
	// form exceeds the limit. It is returned unwrapped, because callers hit
	// it often (InnoDB's COMPRESS_OPS - COMPRESS_OPS_OK) and it must not
	// allocate.
	ErrDoesNotFit = errors.New("compress: compressed output exceeds the limit")
	// ErrTooLarge means the decompressed output would exceed the limit.
	ErrTooLarge = errors.New("compress: decompressed output exceeds the limit")
	// ErrCorrupt means the input is not a valid stream of the codec's
	// format; returned errors wrap it with detail.
	ErrCorrupt = errors.New("compress: corrupt input")
)

// Options configure a Codec. The zero value reuses codec state.
type Options struct {
	// NoReuse builds a fresh encoder/decoder for every call instead of
	// reusing pooled state. It exists to reproduce the cost InnoDB paid
	// before Facebook's cached zlib heaps (research/targets.md T7
	// "zlib_reuse", T9); never use it otherwise.
	NoReuse bool
}

// Codec compresses and decompresses with one Setting. It is safe for
// concurrent use: per-call encoder and decoder state comes from sync.Pools
// of small state structs (the klauspost writer or reader, a bytes.Reader,
// scratch buffers), so steady-state calls allocate nothing.
type Codec struct {
	setting Setting
	eng     engine
}

// engine is one algorithm's implementation behind Codec. limit is already
// validated: 0 <= limit.
type engine interface {
	compress(dst, src []byte) ([]byte, error)
	compressLimit(dst, src []byte, limit int) ([]byte, error)
	decompress(dst, src []byte, limit int) ([]byte, error)
}

// New returns a Codec for s. A zero level selects the algorithm's default;
// Setting reports the canonical value.
func New(s Setting, opts Options) (*Codec, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	s = s.Canonical()
	c := &Codec{setting: s}
	switch s.Algorithm {
	case Zlib, Deflate:
		c.eng = newFlateEngine(s.Algorithm == Zlib, s.Level, opts.NoReuse)
	case Zstd:
		c.eng = newZstdEngine(s.Level, opts.NoReuse)
	case S2:
		c.eng = newS2Engine(s.Level, opts.NoReuse)
	case None:
		c.eng = noneEngine{}
	case CZlib:
		c.eng = czlibEngineFor(s.Level, opts.NoReuse)
	}
	return c, nil
}

// valueCompressor is an engine whose off-page value streams are made with
// other parameters than its page streams.
type valueCompressor interface {
	compressValue(dst, src []byte) ([]byte, error)
}

// CompressValue is Compress for an off-page column value, which InnoDB
// deflates as one stream with parameters of its own
// [btr_store_big_rec_extern_fields: windowBits 15, memLevel 7]: czlib
// uses those, every other codec its Compress.
func (c *Codec) CompressValue(dst, src []byte) ([]byte, error) {
	if v, ok := c.eng.(valueCompressor); ok {
		return v.compressValue(dst, src)
	}
	return c.eng.compress(dst, src)
}

// fileCompressor is an engine whose transparent page compression streams
// are made with other parameters than its B-tree page streams.
type fileCompressor interface {
	compressFileLimit(dst, src []byte, limit int) ([]byte, error)
}

// CompressFileLimit is CompressLimit for a page the file layer compresses
// on its way to disk (transparent page compression), which InnoDB
// deflates with compress2 [os_file_compress_page], so with zlib's default
// parameters, windowBits 15 and memLevel 8: czlib uses those, every other
// codec its CompressLimit.
func (c *Codec) CompressFileLimit(dst, src []byte, limit int) ([]byte, error) {
	if limit < 0 {
		return dst, fmt.Errorf("compress: limit %d is negative; want 0 or more bytes", limit)
	}
	if f, ok := c.eng.(fileCompressor); ok {
		return f.compressFileLimit(dst, src, limit)
	}
	return c.eng.compressLimit(dst, src, limit)
}

// Setting returns the canonical setting the Codec compresses with.
func (c *Codec) Setting() Setting { return c.setting }

// Compress appends the compressed form of src to dst. dst and src must not
// overlap.
func (c *Codec) Compress(dst, src []byte) ([]byte, error) {
	return c.eng.compress(dst, src)
}

// CompressLimit is Compress for a bounded output, InnoDB's compression
// failure: when the compressed form of src would exceed limit bytes it
// returns dst unchanged and ErrDoesNotFit. The attempt runs in pooled
// scratch and is copied to dst only when it fits, so a failure leaves even
// dst's spare capacity untouched, as page_zip_compress leaves the old zip
// image intact. zlib and deflate write through a bounded writer, so the
// encoder stops emitting once the limit is passed. It does not allocate in
// steady state, whether it succeeds or fails.
func (c *Codec) CompressLimit(dst, src []byte, limit int) ([]byte, error) {
	if limit < 0 {
		return dst, fmt.Errorf("compress: limit %d is negative; want 0 or more bytes", limit)
	}
	return c.eng.compressLimit(dst, src, limit)
}

// Decompress appends the decompressed form of src to dst. src must be
// exactly one compressed stream: trailing bytes are ErrCorrupt. Output
// larger than MaxDecompressed is ErrTooLarge. Where the format carries a
// checksum (zlib adler32, zstd frame CRC) it is verified.
func (c *Codec) Decompress(dst, src []byte) ([]byte, error) {
	return c.eng.decompress(dst, src, MaxDecompressed)
}

// DecompressLimit is Decompress that fails with ErrTooLarge when the output
// would exceed limit bytes. The limit is the caller's: decoders of untrusted
// page images pass the page size, a BLOB reader the length its reference
// gives, so corrupt input can never make them allocate more than the
// structure claims. Deflate output grows as it is produced; zstd and s2
// streams declare their size, and a stream that declares up to limit bytes
// gets a buffer that large before it is decoded. On error dst is returned
// unchanged.
func (c *Codec) DecompressLimit(dst, src []byte, limit int) ([]byte, error) {
	if limit < 0 {
		return dst, fmt.Errorf("compress: limit %d is negative; want 0 or more bytes", limit)
	}
	return c.eng.decompress(dst, src, limit)
}

var shared sync.Map // Setting -> *Codec

// Shared returns a process-wide Codec for s, built on first use, so that
// every tablespace and page cache with the same setting shares one set of
// pooled encoder and decoder state (a zlib:6 encoder holds about 1 MiB).
func Shared(s Setting) (*Codec, error) {
	s = s.Canonical()
	if c, ok := shared.Load(s); ok {
		return c.(*Codec), nil
	}
	c, err := New(s, Options{})
	if err != nil {
		return nil, err
	}
	v, _ := shared.LoadOrStore(s, c)
	return v.(*Codec), nil
}

// ZlibBound is zlib's compressBound(n): the most bytes deflate can produce
// for n input bytes (n + n>>12 + n>>14 + n>>25 + 13). InnoDB uses it in
// page_zip_empty_size and to reserve ZBLOB pages. A negative n counts as 0.
func ZlibBound(n int) int {
	n = max(n, 0)
	return n + n>>12 + n>>14 + n>>25 + 13
}

// corrupt wraps a decoder's error as ErrCorrupt, naming the format.
func corrupt(format string, err error) error {
	return fmt.Errorf("%w: %s: %v", ErrCorrupt, format, err)
}

// tooLarge wraps ErrTooLarge with the limit that was exceeded.
func tooLarge(limit int) error {
	return fmt.Errorf("%w: more than %d bytes", ErrTooLarge, limit)
}

// sliceWriter appends to buf and refuses writes that would take it past max
// bytes, which is how a deflate encoder is bounded without a second pass.
type sliceWriter struct {
	buf  []byte
	max  int
	full bool // a write was refused
}

func (w *sliceWriter) Write(p []byte) (int, error) {
	if len(p) > w.max-len(w.buf) {
		w.full = true
		return 0, ErrDoesNotFit
	}
	w.buf = append(w.buf, p...)
	return len(p), nil
}

// noneEngine copies bytes: the control setting.
type noneEngine struct{}

func (noneEngine) compress(dst, src []byte) ([]byte, error) { return append(dst, src...), nil }

func (noneEngine) compressLimit(dst, src []byte, limit int) ([]byte, error) {
	if len(src) > limit {
		return dst, ErrDoesNotFit
	}
	return append(dst, src...), nil
}

func (noneEngine) decompress(dst, src []byte, limit int) ([]byte, error) {
	if len(src) > limit {
		return dst, tooLarge(limit)
	}
	return append(dst, src...), nil
}
