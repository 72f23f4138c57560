package bufpool

import (
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"sync"
	"sync/atomic"

	"github.com/cespare/xxhash/v2"
	"github.com/zipsim/zipsim/compress"
	"github.com/zipsim/zipsim/internal/latch"
	"github.com/zipsim/zipsim/lru"
	"github.com/zipsim/zipsim/page"
	"github.com/zipsim/zipsim/storage"
)

// ErrClosed is returned by a Pool after Close.
var ErrClosed = errors.New("bufpool: pool is closed")

// ErrNoFreeFrame means every frame of an instance stayed fixed while a
// frame was needed: the pool is too small for the number of pages held at
// once (InnoDB logs "difficult to find free blocks" and keeps waiting).
var ErrNoFreeFrame = errors.New("bufpool: no frame could be freed")

// space is a tablespace the pool serves.
type space struct {
	id      uint32
	ts      *storage.Tablespace
	zipSize int // 0 for an uncompressed table
	env     page.Env
}

// Pool is a buffer pool: instances of preallocated frames holding pages of
// registered tablespaces, compressed and uncompressed, behind InnoDB's
// lists and locks. All methods are safe for concurrent use.
type Pool struct {
	opts     Options
	inst     []*instance
	spaces   atomic.Pointer[map[uint32]*space]
	spaceMu  sync.Mutex // serializes AddSpace
	latches  *latch.Registry
	cmp      *compress.Stats
	stat     lruStat
	closed   atomic.Bool
	writeBuf sync.Pool // page-size scratch for stamping pages on their way to storage
	cleaner  *cleaner  // nil unless Options.PageCleaner
}

// New builds a pool, allocating every frame up front as InnoDB allocates its
// buffer pool chunks.
func New(opts Options) (*Pool, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	p := &Pool{opts: o, latches: o.Latches, cmp: o.CMP}
	if p.latches == nil {
		p.latches = latch.NewRegistry(latch.Options{Impl: o.Latching.impl()})
	}
	if p.cmp == nil {
		p.cmp = compress.NewStats()
	}
	empty := map[uint32]*space{}
	p.spaces.Store(&empty)
	size := o.PageSize
	p.writeBuf.New = func() any { b := make([]byte, size); return &b }
	p.stat.init(o.Clock())

	// Legacy and Global share one of each mutex across the pool.
	var shared *sharedLocks
	if o.Locking != Split {
		shared = newSharedLocks(p.latches)
	}
	frames := int(o.Bytes / int64(o.PageSize))
	for i := 0; i < o.Instances; i++ {
		n := frames / o.Instances
		if i < frames%o.Instances {
			n++
		}
		in, err := newInstance(p, i, n, shared)
		if err != nil {
			return nil, err
		}
		p.inst = append(p.inst, in)
	}
	if o.PageCleaner {
		p.startCleaner()
	}
	return p, nil
}

// AddSpace registers a tablespace under id. Its logical page size must be
// the pool's. Compressed spaces (a zip size) are decompressed with codec, or
// zlib:6 when codec is nil; every space of a Pool feeds the same CMP
// counters.
func (p *Pool) AddSpace(id uint32, ts *storage.Tablespace, codec *compress.Codec) error {
	o := ts.Options()
	if o.PageSize != p.opts.PageSize {
		return fmt.Errorf("bufpool: space %d has %d-byte pages, the pool %d-byte frames", id, o.PageSize, p.opts.PageSize)
	}
	p.spaceMu.Lock()
	defer p.spaceMu.Unlock()
	old := *p.spaces.Load()
	if _, ok := old[id]; ok {
		return fmt.Errorf("bufpool: space %d is already registered", id)
	}
	next := maps.Clone(old)
	next[id] = &space{id: id, ts: ts, zipSize: o.ZipSize, env: page.Env{Codec: codec, Stats: p.cmp}}
	p.spaces.Store(&next)
	return nil
}

func (p *Pool) space(id uint32) (*space, error) {
	if s := (*p.spaces.Load())[id]; s != nil {
		return s, nil
	}
	return nil, fmt.Errorf("bufpool: space %d is not registered; call AddSpace first", id)
}

// instanceOf maps a page to its instance by hashing (space, page_no >> 6),
// so that a 64-page extent stays in one instance [buf_pool_get].
func (p *Pool) instanceOf(id PageID) *instance {
	if len(p.inst) == 1 {
		return p.inst[0]
	}
	var b [8]byte
	binary.LittleEndian.PutUint32(b[:], id.Space)
	binary.LittleEndian.PutUint32(b[4:], id.PageNo>>6)
	return p.inst[xxhash.Sum64(b[:])%uint64(len(p.inst))]
}

// Latches returns the registry of the pool's instrumented locks.
func (p *Pool) Latches() *latch.Registry { return p.latches }

// CMP returns the INNODB_CMP counters the pool's decompressions feed.
func (p *Pool) CMP() *compress.Stats { return p.cmp }

// Options returns the pool's options with defaults filled in.
func (p *Pool) Options() Options { return p.opts }

// newPolicy builds an instance's replacement policy.
func (p *Pool) newPolicy(frames int) (lru.Policy[*Page], error) {
	if p.opts.Policy != nil {
		return p.opts.Policy(frames)
	}
	return lru.NewMidpoint[*Page](lru.MidpointOptions{OldPct: p.opts.OldPct, OldBlocksTime: p.opts.OldBlocksTime, PoolPages: frames})
}
