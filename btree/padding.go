package btree

import (
	"sync/atomic"

	"github.com/zipsim/zipsim/internal/latch"
)

// InnoDB's padding constants [include/dict0mem.h].
const (
	zipPadRoundLen     = 128 // ZIP_PAD_ROUND_LEN: compressions per round
	zipPadIncr         = 128 // ZIP_PAD_INCR: bytes added or removed per step
	zipPadSuccessLimit = 5   // ZIP_PAD_SUCCESSFUL_ROUND_LIMIT
)

// padding is an index's zip_pad_info_t: how much of a compressed leaf to
// leave empty so that pages compress [dict0dict.cc: dict_index_zip_success,
// dict_index_zip_failure, dict_index_zip_pad_update,
// dict_index_zip_pad_optimal_page_size]. The pad starts at 0 on every open,
// as InnoDB never persists it. Every leaf compression takes the mutex, as
// InnoDB's do; the pad itself is read without it.
type padding struct {
	mu       latch.Mutex
	pad      atomic.Int32
	success  int
	failure  int
	rounds   int // successful rounds in a row
	disabled bool
	thresh   int
	maxPct   int
	pageSize int
}

func (p *padding) init(r *latch.Registry, name string, o Padding, pageSize int) {
	p.mu.Init(r, "zip_pad_mutex#"+name)
	p.disabled = o.Disabled
	p.thresh = o.ThresholdPct
	p.maxPct = o.MaxPct
	p.pageSize = pageSize
}

// record feeds one leaf compression's outcome.
func (p *padding) record(ok bool) {
	if p.disabled {
		return
	}
	p.mu.Lock()
	if ok {
		p.success++
	} else {
		p.failure++
	}
	if total := p.success + p.failure; total >= zipPadRoundLen {
		failPct := p.failure * 100 / total
		p.success, p.failure = 0, 0
		pad := int(p.pad.Load())
		if failPct > p.thresh {
			if pad+zipPadIncr < p.pageSize*p.maxPct/100 {
				p.pad.Store(int32(pad + zipPadIncr))
			}
			p.rounds = 0
		} else {
			p.rounds++
			if p.rounds >= zipPadSuccessLimit && pad > 0 {
				p.pad.Store(int32(pad - zipPadIncr))
				p.rounds = 0
			}
		}
	}
	p.mu.Unlock()
}

// optimal is dict_index_zip_pad_optimal_page_size: the data size a
// compressed leaf should not reach.
func (p *padding) optimal() int {
	if p.disabled {
		return p.pageSize
	}
	minSize := p.pageSize * (100 - p.maxPct) / 100
	return max(p.pageSize-int(p.pad.Load()), minSize)
}

// current returns the pad in bytes.
func (p *padding) current() int { return int(p.pad.Load()) }
