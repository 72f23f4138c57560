package bufpool

import "iter"

// pageHash is one partition of the page hash [buf_pool->page_hash,
// hash0hash.cc]: open addressing with linear probing over two flat arrays,
// keyed by (space, page_no). A Go map would do, but its lookup costs about
// 15 ns more on the hit path and scales worse across cores. Readers hold
// the partition's latch shared, writers exclusively.
type pageHash struct {
	keys []uint64 // 0 marks an empty slot; page 0 is never cached
	vals []*Page
	mask uint64
	n    int
}

func hashKey(id PageID) uint64 { return uint64(id.Space)<<32 | uint64(id.PageNo) }

func (h *pageHash) init(capacity int) {
	c := 8
	for c < 2*capacity {
		c <<= 1
	}
	h.keys = make([]uint64, c)
	h.vals = make([]*Page, c)
	h.mask = uint64(c - 1)
	h.n = 0
}

// slot is where the probe for k starts.
func (h *pageHash) slot(k uint64) uint64 { return (k * 0x9e3779b97f4a7c15 >> 32) & h.mask }

func (h *pageHash) get(id PageID) *Page {
	k := hashKey(id)
	for i := h.slot(k); ; i = (i + 1) & h.mask {
		switch h.keys[i] {
		case k:
			return h.vals[i]
		case 0:
			return nil
		}
	}
}

// put adds a page that is not in the table, growing it past half full.
func (h *pageHash) put(id PageID, p *Page) {
	if 2*(h.n+1) > len(h.keys) {
		old := *h
		h.init(len(h.keys))
		for i, k := range old.keys {
			if k != 0 {
				h.insert(k, old.vals[i])
			}
		}
	}
	h.insert(hashKey(id), p)
}

func (h *pageHash) insert(k uint64, p *Page) {
	i := h.slot(k)
	for h.keys[i] != 0 {
		i = (i + 1) & h.mask
	}
	h.keys[i], h.vals[i] = k, p
	h.n++
}

// del removes a page, shifting later entries of its probe run back so that
// no tombstones are needed.
func (h *pageHash) del(id PageID) {
	k := hashKey(id)
	i := h.slot(k)
	for h.keys[i] != k {
		if h.keys[i] == 0 {
			return
		}
		i = (i + 1) & h.mask
	}
	for j := (i + 1) & h.mask; h.keys[j] != 0; j = (j + 1) & h.mask {
		// Move j back into the hole at i if its home slot does not lie
		// cyclically in (i, j].
		home := h.slot(h.keys[j])
		if (j-home)&h.mask >= (j-i)&h.mask {
			h.keys[i], h.vals[i] = h.keys[j], h.vals[j]
			i = j
		}
	}
	h.keys[i], h.vals[i] = 0, nil
	h.n--
}

// all yields every key and page.
func (h *pageHash) all() iter.Seq2[uint64, *Page] {
	return func(yield func(uint64, *Page) bool) {
		for i, k := range h.keys {
			if k != 0 && !yield(k, h.vals[i]) {
				return
			}
		}
	}
}
