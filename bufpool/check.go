package bufpool

import "fmt"

// Check stops each instance (it takes all of its locks) and returns every
// violated invariant [buf_pool_validate, buf_LRU_validate,
// buf_buddy_validate]: the page hash and the LRU hold the same pages;
// pages with both copies are in unzip_LRU and compressed-only ones are
// not; frames and pages point at each other; no free frame belongs to a
// page; every frame is free, a page's, or the buddy allocator's; the
// buddy's used and free blocks add up to its frames, and each block in
// use belongs to a page in the page hash; Legacy's zip_clean holds
// exactly the clean compressed-only pages.
//
// It is safe to call at any time but exact only when no fix, flush or
// eviction is in flight: a frame between the free list and its page, or a
// page between its write and zip_clean, belongs to no list for a moment,
// as in InnoDB, whose validators run with the pool quiet.
func (p *Pool) Check() []error {
	var errs []error
	for _, in := range p.inst {
		errs = append(errs, in.check()...)
	}
	return errs
}

func (in *instance) check() []error {
	var errs []error
	fail := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("bufpool instance %d: %s", in.id, fmt.Sprintf(format, args...)))
	}
	in.lruMu.Lock()
	defer in.lruMu.Unlock()
	for i := range in.hash {
		in.hash[i].mu.Lock()
		defer in.hash[i].mu.Unlock()
	}
	in.zipMu.Lock()
	defer in.zipMu.Unlock()
	in.freeMu.Lock()
	defer in.freeMu.Unlock()
	in.zipFreeMu.Lock()
	defer in.zipFreeMu.Unlock()

	b := &in.buddy
	pages, withFrame, unzipWant, clean, owners := 0, 0, 0, 0, 0
	for i := range in.hash {
		for k, pg := range in.hash[i].t.all() {
			id := pg.id
			pages++
			if hashKey(id) != k || in.part(id) != &in.hash[i] || in.hash[i].t.get(id) != pg {
				fail("page %v is filed under key %#x, in the wrong partition, or cannot be found", id, k)
			}
			if pg.fix.Load() < 0 || pg.fix.Load()&(orphan|ioRead) != 0 {
				fail("page %v has fix count %d", id, pg.fix.Load())
			}
			if !pg.lruNode.InList() {
				fail("page %v is in the page hash but not in the LRU", id)
			}
			switch pg.state {
			case stateFrame:
				withFrame++
				if pg.frame == nil || pg.frame.page.Load() != pg {
					fail("page %v has a frame that does not point back at it", id)
				}
				if pg.zip != nil {
					unzipWant++
					if !pg.unzipNode.InList() {
						fail("page %v has both copies but is not in unzip_LRU", id)
					}
				} else if pg.unzipNode.InList() {
					fail("uncompressed page %v is in unzip_LRU", id)
				}
				if pg.cleanNode.InList() {
					fail("page %v has a frame but is in zip_clean", id)
				}
			case stateZipOnly:
				if pg.frame != nil || pg.zip == nil || pg.unzipNode.InList() {
					fail("compressed-only page %v has a frame, no zip block, or an unzip_LRU entry", id)
				}
				if in.zipClean != nil && pg.cleanNode.InList() == pg.dirty.Load() {
					fail("compressed-only page %v: dirty %v but zip_clean membership %v", id, pg.dirty.Load(), pg.cleanNode.InList())
				}
				if !pg.dirty.Load() {
					clean++
				}
			default:
				fail("page %v has state %d", id, pg.state)
			}
			if pg.zip != nil {
				u := pg.zunit
				if u < 0 || int(u) >= len(b.owner) || b.owner[u] != pg {
					fail("page %v's zip block at unit %d is not registered to it", id, u)
				}
			}
		}
	}
	if n := in.lru.Len(); n != pages {
		fail("LRU holds %d pages, the page hash %d", n, pages)
	}
	if n := in.unzip.Len(); n != unzipWant {
		fail("unzip_LRU holds %d pages, %d have both copies", n, unzipWant)
	}
	if in.zipClean != nil && len(in.pool.inst) == 1 && in.zipClean.Len() != clean {
		fail("zip_clean holds %d pages, %d are clean and compressed-only", in.zipClean.Len(), clean)
	}

	onFree := make([]bool, len(in.frames))
	for _, idx := range in.free {
		f := &in.frames[idx]
		if onFree[idx] {
			fail("frame %d is on the free list twice", idx)
		}
		onFree[idx] = true
		if q := f.page.Load(); q != nil || f.buddy {
			fail("free frame %d belongs to page %v or to the buddy allocator", idx, q)
		}
		if in.pool.opts.Frames == PerMiss && f.buf != nil {
			fail("free frame %d keeps its memory in per-miss mode", idx)
		}
	}
	for i := range in.frames {
		if f := &in.frames[i]; !onFree[i] && len(f.buf) != in.pool.opts.PageSize {
			fail("frame %d is in use with %d bytes of memory, want %d", i, len(f.buf), in.pool.opts.PageSize)
		}
	}
	pageFrames, buddyFrames := 0, 0
	for i := range in.frames {
		f := &in.frames[i]
		q := f.page.Load()
		switch {
		case q != nil:
			pageFrames++
			if q.frame != f {
				fail("frame %d points at page %v, which does not point back", i, q.id)
			}
			if f.buddy || onFree[i] {
				fail("frame %d of page %v is also free or the buddy allocator's", i, q.id)
			}
		case f.buddy:
			buddyFrames++
		case !onFree[i]:
			fail("frame %d is neither free, a page's, nor the buddy allocator's", i)
		}
	}
	if pageFrames != withFrame {
		fail("%d frames hold pages, %d pages have frames", pageFrames, withFrame)
	}
	if buddyFrames != b.frames {
		fail("%d frames are the buddy allocator's, it counts %d", buddyFrames, b.frames)
	}

	units := 0
	for c := 0; c <= b.classes; c++ {
		units += int(b.used[c]) << c
		if c < b.classes {
			units += b.count[c] << c
			n := 0
			for u := b.head[c]; u >= 0; u = b.next[u] {
				if int(b.freeClass[u]) != c {
					fail("free block %d on the %d-byte list is marked class %d", u, buddyUnit<<c, b.freeClass[u])
				}
				n++
				if n > b.count[c] {
					break
				}
			}
			if n != b.count[c] {
				fail("the %d-byte free list has %d blocks, the count says %d", buddyUnit<<c, n, b.count[c])
			}
		}
	}
	for u, o := range b.owner {
		if o == nil {
			continue
		}
		owners++
		if in.part(o.id).t.get(o.id) != o || o.zunit != int32(u) {
			fail("zip block at unit %d is registered to page %v, which is not in the page hash or has its block at unit %d", u, o.id, o.zunit)
		}
	}
	if units != b.frames*b.units {
		fail("buddy blocks in use and free cover %d KiB, its %d frames %d KiB", units, b.frames, b.frames*b.units)
	}
	var used uint64
	for _, n := range b.used {
		used += n
	}
	if uint64(owners) != used {
		fail("%d zip blocks are registered to pages, the buddy counts %d in use", owners, used)
	}
	return errs
}
