package bufpool

import (
	"math/bits"
	"time"

	"github.com/zipsim/zipsim/page"
)

// buddyUnit is the smallest block, BUF_BUDDY_LOW.
const buddyUnit = 1024

// buddyMergeMin is the free-list length below which a freed block is not
// merged with its buddy [buf_buddy_free_low: "Do not recombine blocks if
// there are few free blocks"].
const buddyMergeMin = 16

// buddy carves zip blocks of 1K, 2K, ... PageSize/2 out of frames, like
// InnoDB's buf0buddy.cc; a zip block of the page size takes a whole frame.
// Blocks are named by their first 1 KiB unit counted over the instance's
// frames in order (frame i holds units i×units ...). It is
// guarded by the instance's zipFreeMu.
type buddy struct {
	in      *instance
	classes int // BUF_BUDDY_SIZES: log2(PageSize / 1024); class classes is a whole frame
	units   int // units per frame

	head      []int32 // per class: first free block, -1 if none
	count     []int   // per class: free blocks (len(zip_free[i]))
	next      []int32 // per unit: free-list links of the free block starting there
	prev      []int32
	freeClass []int8  // per unit: class of the free block starting there, -1 if none
	owner     []*Page // per unit: page whose zip block starts there [zip_hash]

	used       []uint64 // per class, whole frames included: buddy_stat[i].used
	relocated  []uint64 // per class: buddy_stat[i].relocated
	relocNanos []uint64 // per class: buddy_stat[i].relocated_usec, in ns
	frames     int      // frames carved or used whole for zip blocks
}

func (b *buddy) init(in *instance, pageSize int) {
	b.in = in
	b.units = pageSize / buddyUnit
	b.classes = bits.TrailingZeros(uint(b.units))
	n := len(in.frames) * b.units
	b.head = make([]int32, b.classes)
	for i := range b.head {
		b.head[i] = -1
	}
	b.count = make([]int, b.classes)
	b.next = make([]int32, n)
	b.prev = make([]int32, n)
	b.freeClass = make([]int8, n)
	for i := range b.freeClass {
		b.freeClass[i] = -1
	}
	b.owner = make([]*Page, n)
	b.used = make([]uint64, b.classes+1)
	b.relocated = make([]uint64, b.classes+1)
	b.relocNanos = make([]uint64, b.classes+1)
}

// classOf returns the class of a zip size.
func (b *buddy) classOf(zipSize int) int { return bits.TrailingZeros(uint(zipSize / buddyUnit)) }

// block returns the bytes of a block: a piece of the frame it was carved
// from.
func (b *buddy) block(u int32, cls int) []byte {
	off := int(u) * buddyUnit
	n := buddyUnit << cls
	f, size := &b.in.frames[off/b.in.pool.opts.PageSize], b.in.pool.opts.PageSize
	off %= size
	return f.buf[off : off+n : off+n]
}

func (b *buddy) push(u int32, cls int) {
	b.freeClass[u] = int8(cls)
	b.prev[u] = -1
	b.next[u] = b.head[cls]
	if b.head[cls] >= 0 {
		b.prev[b.head[cls]] = u
	}
	b.head[cls] = u
	b.count[cls]++
}

func (b *buddy) remove(u int32, cls int) {
	if b.prev[u] >= 0 {
		b.next[b.prev[u]] = b.next[u]
	} else {
		b.head[cls] = b.next[u]
	}
	if b.next[u] >= 0 {
		b.prev[b.next[u]] = b.prev[u]
	}
	b.freeClass[u] = -1
	b.count[cls]--
}

// alloc takes a block of class cls from the free lists, splitting a larger
// one if needed [buf_buddy_alloc_zip]. It returns -1 when a frame must be
// carved.
func (b *buddy) alloc(cls int) int32 {
	for j := cls; j < b.classes; j++ {
		u := b.head[j]
		if u < 0 {
			continue
		}
		b.remove(u, j)
		for j > cls {
			j--
			b.push(u+int32(1)<<j, j)
		}
		b.used[cls]++
		return u
	}
	return -1
}

// carve turns frame f into blocks and returns one of class cls, putting
// the other halves on the free lists [buf_buddy_alloc_from].
func (b *buddy) carve(f *frame, cls int) int32 {
	f.buddy = true
	b.frames++
	u := f.idx * int32(b.units)
	for j := b.classes; j > cls; {
		j--
		b.push(u+int32(1)<<j, j)
	}
	b.used[cls]++
	return u
}

// free returns a block of class cls, merging it with its buddy or moving
// the buddy's page elsewhere to merge [buf_buddy_free_low]. It returns the
// frame that became wholly free, or nil.
func (b *buddy) free(u int32, cls int) *frame {
	b.used[cls]--
	b.owner[u] = nil
	for {
		if cls == b.classes {
			f := &b.in.frames[u/int32(b.units)]
			f.buddy = false
			b.frames--
			return f
		}
		if b.count[cls] < buddyMergeMin {
			break
		}
		bu := u ^ int32(1)<<cls
		if int(b.freeClass[bu]) == cls {
			b.remove(bu, cls)
			u = min(u, bu)
			cls++
			continue
		}
		if q := b.owner[bu]; q != nil && b.classOf(len(q.zip)) == cls && b.head[cls] >= 0 {
			to := b.head[cls]
			b.remove(to, cls)
			if b.relocate(q, bu, to, cls) {
				u = min(u, bu)
				cls++
				continue
			}
			b.push(to, cls)
		}
		break
	}
	b.push(u, cls)
	return nil
}

// relocate moves page q's zip block from unit from to unit to
// [buf_buddy_relocate]. Only an unfixed page moves. The page hash latch and
// the zip mutex are only tried, never waited for: the caller holds
// zipFreeMu, which ranks below them.
func (b *buddy) relocate(q *Page, from, to int32, cls int) bool {
	in := b.in
	hp := in.part(q.id)
	if !hp.mu.TryLock() {
		return false
	}
	defer hp.mu.Unlock()
	if !in.zipMu.TryLock() {
		return false
	}
	defer in.zipMu.Unlock()
	if q.fix.Load() != 0 || q.zunit != from {
		return false
	}
	start := time.Now()
	var moved page.Zip
	if moved.Init(b.block(to, cls)) != nil || moved.CopyFrom(&q.zipd) != nil {
		return false
	}
	q.zipd = moved
	q.zip = moved.Data()
	q.zunit = to
	b.owner[to], b.owner[from] = q, nil
	b.relocated[cls]++
	b.relocNanos[cls] += uint64(time.Since(start))
	return true
}
