package storage

import (
	"fmt"
	"math/bits"
	"sync"
	"sync/atomic"
	"unsafe"
)

// MemoryOptions configures a Memory device. The zero value works.
type MemoryOptions struct {
	// BlockSize is the allocation unit, the filesystem block that a real
	// file would allocate and a punched hole would free: a power of two from
	// 512 to 1 MiB. 0 means 4096, the usual ext4/XFS block. A tablespace
	// takes its FSBlockSize from it (BlockSizer), so one on this device
	// needs 512 to 65536.
	BlockSize int
}

// MaxMemorySize is the largest size a Memory device can reach: 64 TiB
// (2^46 bytes), 2^32 slots of 16 KiB, one more than the largest tablespace
// has. A
// WriteAt or PunchHole whose range ends past it returns an error instead of
// growing the chunk table towards it; ReadAt there reads zeros, as past any
// device's end.
const MaxMemorySize = 1 << 46

// maxFreeChunks bounds the free list of punched chunks kept for reuse.
const maxFreeChunks = 1024

// The chunk table's second level: segments of memSegLen chunk pointers.
const (
	memSegShift = 12
	memSegLen   = 1 << memSegShift
	memSegMask  = memSegLen - 1
)

type memSeg [memSegLen]atomic.Pointer[byte]

// Memory is a sparse in-memory Device, the stand-in for a file on a
// filesystem with hole punching. Storage is allocated in chunks of BlockSize
// bytes when a write first touches them, so Allocated() is the number of live
// chunks × BlockSize, as st_blocks would be on ext4. PunchHole frees the
// chunks wholly inside the range and zeroes the parts of the ones at its
// edges, as fallocate(PUNCH_HOLE) does.
//
// # Concurrency
//
// The chunk table (a directory of segments of chunk pointers) is published
// through an atomic pointer and each entry is an atomic pointer, so ReadAt and WriteAt into chunks that already exist take
// no lock at all: many goroutines can read and write different pages at once
// without the device becoming the contention a simulation measures. Only
// changes of structure (allocating a chunk, growing the table, punching) take
// a mutex. Freed chunks go to a small free list and are reused, so a space
// written with transparent compression reaches a steady state without
// allocations.
//
// # Close and restart
//
// Close marks the Memory closed: I/O returns ErrClosed, but the contents are
// kept, because a Memory is also the "disk" that survives a restart. Reopen
// clears the mark so the same Memory can be handed to Open again:
//
//	ts.Close()                       // clean shutdown
//	ts, err = storage.Open(mem.Reopen())
//
// To model a crash, Open the Memory (or a Clone taken while a tablespace was
// open) without closing the tablespace first; Open then reports ErrNotClean.
type Memory struct {
	bs    int
	shift uint

	// dir is the chunk table, two levels deep so that a write far out costs
	// one pointer per memSegLen chunks before it, not one per chunk: chunk i
	// (bytes [i<<shift, (i+1)<<shift)) is (*dir)[i>>memSegShift][i&memSegMask].
	dir    atomic.Pointer[[]atomic.Pointer[memSeg]]
	size   atomic.Int64
	chunks atomic.Int64
	closed atomic.Bool

	mu   sync.Mutex // structure changes: allocating and freeing chunks, growing the table
	free []*byte    // punched chunks kept for reuse; guarded by mu
}

// NewMemory returns an empty Memory device, or an error if opts.BlockSize is
// not 0 or a power of two in [512, 1 MiB].
func NewMemory(opts MemoryOptions) (*Memory, error) {
	bs := opts.BlockSize
	if bs == 0 {
		bs = 4096
	}
	if bs < 512 || bs > 1<<20 || bs&(bs-1) != 0 {
		return nil, fmt.Errorf("storage: MemoryOptions.BlockSize %d: use 0 (4096) or a power of two from 512 to 1048576", opts.BlockSize)
	}
	return newMemory(bs), nil
}

func newMemory(bs int) *Memory {
	m := &Memory{bs: bs, shift: uint(bits.TrailingZeros(uint(bs)))}
	d := make([]atomic.Pointer[memSeg], 0)
	m.dir.Store(&d)
	return m
}

// lookup returns chunk idx, or nil if it is not allocated. It takes no lock.
func (m *Memory) lookup(idx int64) *byte {
	d := *m.dir.Load()
	if s := idx >> memSegShift; s < int64(len(d)) {
		if seg := d[s].Load(); seg != nil {
			return seg[idx&memSegMask].Load()
		}
	}
	return nil
}

// BlockSize implements BlockSizer: the allocation unit, MemoryOptions.BlockSize.
func (m *Memory) BlockSize() int { return m.bs }

// checkMax rejects a write or punch that reaches past MaxMemorySize, after
// checkRange has ruled out overflow.
func checkMax(op string, off, n int64) error {
	if off+n > MaxMemorySize {
		return fmt.Errorf("storage: Memory %s at offset %d, length %d: past the largest Memory device, %d bytes (64 TiB, 2^32 pages of 16 KiB)", op, off, n, int64(MaxMemorySize))
	}
	return nil
}

// maxSegs is the number of segments that MaxMemorySize spans.
func (m *Memory) maxSegs() int64 {
	return MaxMemorySize >> (m.shift + memSegShift)
}

func (m *Memory) chunk(p *byte) []byte { return unsafe.Slice(p, m.bs) }

// ReadAt implements Device. It takes no lock.
func (m *Memory) ReadAt(p []byte, off int64) error {
	if m.closed.Load() {
		return ErrClosed
	}
	if err := checkRange("read", off, int64(len(p))); err != nil {
		return err
	}
	for len(p) > 0 {
		idx := off >> m.shift
		in := int(off & int64(m.bs-1))
		n := min(len(p), m.bs-in)
		if c := m.lookup(idx); c == nil {
			clear(p[:n])
		} else {
			copy(p[:n], m.chunk(c)[in:])
		}
		p = p[n:]
		off += int64(n)
	}
	return nil
}

// WriteAt implements Device. Writes into chunks that exist take no lock.
func (m *Memory) WriteAt(p []byte, off int64) error {
	if m.closed.Load() {
		return ErrClosed
	}
	if err := checkRange("write", off, int64(len(p))); err != nil {
		return err
	}
	if err := checkMax("write", off, int64(len(p))); err != nil {
		return err
	}
	end := off + int64(len(p))
	for len(p) > 0 {
		idx := off >> m.shift
		in := int(off & int64(m.bs-1))
		n := min(len(p), m.bs-in)
		c := m.lookup(idx)
		if c == nil {
			c = m.allocate(idx)
		}
		copy(m.chunk(c)[in:], p[:n])
		p = p[n:]
		off += int64(n)
	}
	for {
		s := m.size.Load()
		if end <= s || m.size.CompareAndSwap(s, end) {
			break
		}
	}
	return nil
}

// allocate returns chunk idx, creating it (zeroed) if it does not exist yet.
func (m *Memory) allocate(idx int64) *byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	d := *m.dir.Load()
	si := idx >> memSegShift
	if si >= int64(len(d)) {
		// Doubling, but never past what MaxMemorySize needs.
		nd := make([]atomic.Pointer[memSeg], min(max(int64(len(d))*2, si+1, 4), m.maxSegs()))
		for i := range d {
			nd[i].Store(d[i].Load())
		}
		m.dir.Store(&nd)
		d = nd
	}
	seg := d[si].Load()
	if seg == nil {
		seg = new(memSeg)
		d[si].Store(seg)
	}
	if c := seg[idx&memSegMask].Load(); c != nil {
		return c
	}
	var c *byte
	if k := len(m.free); k > 0 {
		c = m.free[k-1]
		m.free = m.free[:k-1]
		clear(m.chunk(c))
	} else {
		c = &make([]byte, m.bs)[0]
	}
	seg[idx&memSegMask].Store(c)
	m.chunks.Add(1)
	return c
}

// PunchHole implements Device: chunks wholly inside the range are freed,
// the covered parts of the chunks at its edges are zeroed.
func (m *Memory) PunchHole(off, length int64) error {
	if m.closed.Load() {
		return ErrClosed
	}
	if err := checkRange("punch hole", off, length); err != nil {
		return err
	}
	if err := checkMax("punch hole", off, length); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	d := *m.dir.Load()
	end := min(off+length, int64(len(d))<<(memSegShift+m.shift))
	for off < end {
		idx := off >> m.shift
		in := int(off & int64(m.bs-1))
		n := int(min(end-off, int64(m.bs-in)))
		seg := d[idx>>memSegShift].Load()
		if seg == nil {
			// Nothing allocated in this segment: skip to the next one.
			off = (idx>>memSegShift + 1) << (memSegShift + m.shift)
			continue
		}
		slot := &seg[idx&memSegMask]
		if in == 0 && n == m.bs {
			if c := slot.Swap(nil); c != nil {
				m.chunks.Add(-1)
				if len(m.free) < maxFreeChunks {
					m.free = append(m.free, c)
				}
			}
		} else if c := slot.Load(); c != nil {
			clear(m.chunk(c)[in : in+n])
		}
		off += int64(n)
	}
	return nil
}

// Sync implements Device; memory is as durable as it gets.
func (m *Memory) Sync() error {
	if m.closed.Load() {
		return ErrClosed
	}
	return nil
}

// Size implements Device.
func (m *Memory) Size() int64 { return m.size.Load() }

// Allocated implements Device: live chunks × BlockSize.
func (m *Memory) Allocated() int64 { return m.chunks.Load() * int64(m.bs) }

// Close marks the Memory closed for I/O. It keeps the contents; see Reopen.
// Closing a closed Memory returns ErrClosed.
func (m *Memory) Close() error {
	if m.closed.Swap(true) {
		return ErrClosed
	}
	return nil
}

// Reopen clears the closed mark so the Memory can be used again, the model
// of a restart: pass the result to Open. It is harmless on an open Memory.
func (m *Memory) Reopen() *Memory {
	m.closed.Store(false)
	return m
}

// Closed reports whether the Memory is closed.
func (m *Memory) Closed() bool { return m.closed.Load() }

// Clone returns an open copy of the contents, size and allocation, a disk
// image taken at this moment: opening a clone of a Memory under an open
// tablespace models a crash. It must not run concurrently with writes or
// punches.
func (m *Memory) Clone() *Memory {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := newMemory(m.bs)
	d := *m.dir.Load()
	nd := make([]atomic.Pointer[memSeg], len(d))
	var n int64
	for i := range d {
		seg := d[i].Load()
		if seg == nil {
			continue
		}
		ns := new(memSeg)
		for j := range seg {
			if p := seg[j].Load(); p != nil {
				b := make([]byte, m.bs)
				copy(b, m.chunk(p))
				ns[j].Store(&b[0])
				n++
			}
		}
		nd[i].Store(ns)
	}
	c.dir.Store(&nd)
	c.chunks.Store(n)
	c.size.Store(m.size.Load())
	return c
}
