package bufpool

import "fmt"

// Frames selects where the pool's frame memory comes from
// (research/targets.md T9).
type Frames uint8

const (
	// Arena allocates every frame of an instance up front in one block,
	// as buf_chunk_init does, outside the Go heap where the platform
	// allows (an anonymous mmap on Linux, see arena_linux.go): the
	// garbage collector neither scans it nor counts it toward GOGC's
	// target, so the process stays near pool size plus a small heap. The
	// zero value.
	Arena Frames = iota
	// PerMiss gives a frame fresh memory (make) each time it leaves the
	// free list and drops it when the frame goes back, so every page read
	// or created, and every frame the buddy allocator carves into zip
	// blocks, is a short-lived 16 KiB Go allocation: a cache that
	// allocates on read and frees on eviction, where GC headroom plays the
	// part fragmentation plays in malloc (seed 004's RSS/cache of
	// 1.26-2.54).
	PerMiss
)

// String returns "arena" or "per-miss", the names benchmarks use.
func (f Frames) String() string {
	switch f {
	case Arena:
		return "arena"
	case PerMiss:
		return "per-miss"
	}
	return fmt.Sprintf("Frames(%d)", uint8(f))
}

// takeFrame gives a frame leaving the free list its memory in PerMiss
// mode, under freeMu (Check reads free frames under it). Its taker owns
// the frame and publishes it to others only under locks.
func (in *instance) takeFrame(f *frame) {
	if in.pool.opts.Frames == PerMiss {
		f.buf = make([]byte, in.pool.opts.PageSize)
	}
}

// releaseFrame drops a frame's memory in PerMiss mode as it goes back to
// the free list, under freeMu.
func (in *instance) releaseFrame(f *frame) {
	if in.pool.opts.Frames == PerMiss {
		f.buf = nil
	}
}
