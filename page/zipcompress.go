package page

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/zipsim/zipsim/compress"
)

// zipScratch is per-call working space, pooled so that compressing and
// decompressing allocate nothing in steady state.
type zipScratch struct {
	stream []byte   // the records to deflate, or the inflated stream
	out    []byte   // compressed output
	byHeap []uint16 // record origins indexed by heap_no-2
	state  []uint8  // per heap_no-2: recLive, recWritten
}

const (
	recLive    = 1 << 0
	recWritten = 1 << 1
)

var scratchPool = sync.Pool{New: func() any {
	return &zipScratch{
		stream: make([]byte, 0, MaxPageSize),
		out:    make([]byte, 0, MaxPageSize),
		byHeap: make([]uint16, 0, 2048),
		state:  make([]uint8, 0, 2048),
	}
}}

func getScratch(nDense int) *zipScratch {
	s := scratchPool.Get().(*zipScratch)
	s.byHeap = slices.Grow(s.byHeap[:0], nDense)[:nDense]
	s.state = slices.Grow(s.state[:0], nDense)[:nDense]
	clear(s.byHeap)
	clear(s.state)
	return s
}

// Compress compresses the index page p into the zip block [page_zip_compress].
// On success the modification log is empty and the image decompresses to p.
// When the records, the uncompressed trailer and an empty log do not fit
// the block it returns ErrDoesNotFit and leaves the image as it was. Each
// call counts one COMPRESS_OPS (and COMPRESS_OPS_OK on success) in env.Stats,
// under the zip size and p's index id.
func (z *Zip) Compress(p IndexPage, env Env) error {
	start := time.Now()
	err := z.compress(p, env)
	if err == nil || errors.Is(err, ErrDoesNotFit) {
		env.Stats.RecordCompress(len(z.data), p.IndexID(), err == nil, time.Since(start))
	}
	return err
}

func (z *Zip) compress(p IndexPage, env Env) error {
	zs := len(z.data)
	if zs == 0 {
		return fmt.Errorf("page: Compress on a Zip without a block")
	}
	if zs > len(p) {
		return fmt.Errorf("page %d: zip size %d exceeds the page size %d", p.PageNo(), zs, len(p))
	}
	if Fil(p).Type() != TypeIndex {
		return fmt.Errorf("page %d: only index pages are compressed, not %v", p.PageNo(), Fil(p).Type())
	}
	if top := p.HeapTop(); top < HeapStart || top > len(p)-FilTrailerSize-dirSlotSize*p.NRecs() {
		return &CorruptError{PageNo: p.PageNo(), Reason: fmt.Sprintf("heap top %d out of range", top)}
	}
	if p.NHeap() < 2 || p.NRecs() > p.NHeap()-2 {
		return &CorruptError{PageNo: p.PageNo(), Reason: fmt.Sprintf("n_heap %d, n_recs %d", p.NHeap(), p.NRecs())}
	}
	k := p.Kind()
	t := k.TrailerLen()
	nDense := p.NHeap() - 2
	if nDense*dirSlotSize >= zs {
		return ErrDoesNotFit
	}
	s := getScratch(nDense)
	defer scratchPool.Put(s)
	if err := p.heapOrder(s); err != nil {
		return err
	}

	// Gather the stream: for each record in heap (= address) order, the bytes
	// since the previous record (its extra bytes and any reuse slack), then
	// its data without the fields kept uncompressed.
	in := s.stream[:0]
	pos := HeapStart
	nBlobs := 0
	top := p.HeapTop()
	for h, o16 := range s.byHeap {
		o := int(o16)
		r, ok := p.layoutChecked(o, k, pos)
		if !ok || r.end() > top {
			return &CorruptError{PageNo: p.PageNo(), Reason: fmt.Sprintf("record at %d overlaps its neighbours or the heap top", o)}
		}
		in = append(in, p[pos:o-RecHeaderSize]...)
		switch k {
		case ClusteredLeaf:
			in = append(in, p[o:o+r.keyLen]...)
			in = append(in, p[o+r.keyLen+TrxRollLen:r.end()-ExternRefSize*r.nExt]...)
			if s.state[h]&recLive != 0 {
				nBlobs += r.nExt
			}
		case SecondaryLeaf:
			in = append(in, p[o:r.end()]...)
		default:
			in = append(in, p[o:r.end()-NodePtrSize]...)
		}
		pos = r.end()
	}
	in = append(in, p[pos:top]...)
	s.stream = in

	trailer := nDense*(dirSlotSize+t) + nBlobs*ExternRefSize
	limit := zs - zipStream - 1 - trailer // the log's end marker needs a byte
	if limit <= 0 {
		return ErrDoesNotFit
	}
	out, err := env.codec().CompressLimit(s.out[:0], in, limit)
	if err != nil {
		if errors.Is(err, compress.ErrDoesNotFit) {
			return ErrDoesNotFit
		}
		return fmt.Errorf("page %d: %w", p.PageNo(), err)
	}
	s.out = out

	d := z.data
	copy(d[:PageData], p[:PageData])
	binary.BigEndian.PutUint16(d[zipStreamLen:], uint16(len(out)))
	mStart := zipStream + copy(d[zipStream:], out)
	clear(d[mStart : zs-trailer])

	n := p.NRecs()
	for i := 0; i < n; i++ {
		o := p.Offset(i)
		v := o | zipDirOwned
		if p.info(o)&infoDeleted != 0 {
			v |= zipDirDeleted
		}
		binary.BigEndian.PutUint16(d[zs-dirSlotSize*(i+1):], uint16(v))
	}
	for i, f := n, p.FreeHead(); f != 0; i, f = i+1, p.u16(f-2) {
		binary.BigEndian.PutUint16(d[zs-dirSlotSize*(i+1):], uint16(f))
	}

	dirStart := zs - dirSlotSize*nDense
	ext := dirStart - t*nDense
	for h, o16 := range s.byHeap {
		o := int(o16)
		r := p.layout(o)
		switch k {
		case ClusteredLeaf:
			copy(d[dirStart-(h+1)*TrxRollLen:], p[o+r.keyLen:o+r.keyLen+TrxRollLen])
			if s.state[h]&recLive != 0 {
				for j := 0; j < r.nExt; j++ {
					ext -= ExternRefSize
					ro := r.end() - ExternRefSize*(r.nExt-j)
					copy(d[ext:], p[ro:ro+ExternRefSize])
				}
			}
		case NodePage:
			copy(d[dirStart-(h+1)*NodePtrSize:], p[r.end()-NodePtrSize:r.end()])
		}
	}
	z.mStart, z.mEnd, z.nBlobs, z.known = mStart, mStart, nBlobs, true
	return nil
}

// heapOrder fills s.byHeap with the origin of every record, live or on the
// free list, by heap number, and marks the live ones. With the layout checks
// in compress it guards against a damaged page, so that compressing one is
// an error, not a panic.
func (p IndexPage) heapOrder(s *zipScratch) error {
	nHeap := p.NHeap()
	put := func(o int, live bool) error {
		if o < HeapStart+RecHeaderSize || o >= len(p) {
			return &CorruptError{PageNo: p.PageNo(), Reason: fmt.Sprintf("record origin %d outside the heap", o)}
		}
		h := p.heapNo(o)
		if h < 2 || h >= nHeap || s.byHeap[h-2] != 0 {
			return &CorruptError{PageNo: p.PageNo(), Reason: fmt.Sprintf("record at %d has heap number %d (n_heap %d) or shares it", o, h, nHeap)}
		}
		s.byHeap[h-2] = uint16(o)
		if live {
			s.state[h-2] = recLive
		}
		return nil
	}
	for i, n := 0, p.NRecs(); i < n; i++ {
		if err := put(p.Offset(i), true); err != nil {
			return err
		}
	}
	for f, steps := p.FreeHead(), 0; f != 0; f, steps = p.u16(f-2), steps+1 {
		if steps >= nHeap {
			return &CorruptError{PageNo: p.PageNo(), Reason: "free list does not end"}
		}
		if err := put(f, false); err != nil {
			return err
		}
	}
	for h, o := range s.byHeap {
		if o == 0 {
			return &CorruptError{PageNo: p.PageNo(), Reason: fmt.Sprintf("heap number %d is neither in the directory nor on the free list", h+2)}
		}
	}
	return nil
}
