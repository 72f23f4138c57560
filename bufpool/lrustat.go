package bufpool

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/zipsim/zipsim/internal/stripe"
)

// The I/O and decompression statistics behind the choice between evicting a
// frame and evicting a whole page [buf_LRU_stat_t, buf_LRU_stat_update]:
// InnoDB keeps the counts of the current second and of the last 50 one-
// second intervals, for the whole pool.
const (
	lruStatIntervals = 50 // BUF_LRU_STAT_N_INTERVAL
	ioToUnzipFactor  = 50 // BUF_LRU_IO_TO_UNZIP_FACTOR
)

const (
	statIO = iota
	statUnzip
)

type lruStat struct {
	cur *stripe.Counters // counts since the pool started; the current interval is cur minus base

	mu   sync.Mutex // rotation
	last time.Time
	hist [lruStatIntervals][2]uint64
	pos  int
	// Read without mu: the sums over hist and cur at the start of the
	// current interval. A reader racing a rotation mixes two windows,
	// which a once-a-second heuristic tolerates, as InnoDB's does.
	sumIO, sumUnzip   atomic.Uint64
	baseIO, baseUnzip atomic.Uint64
}

func (s *lruStat) init(now time.Time) {
	s.cur = stripe.New(2)
	s.last = now
}

// reset forgets the history and the current interval, as a restarted
// server starts with none [buf_LRU_stat_arr zeroed at startup].
func (s *lruStat) reset(now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var cur [2]uint64
	s.cur.SumAll(cur[:])
	s.hist = [lruStatIntervals][2]uint64{}
	s.pos = 0
	s.sumIO.Store(0)
	s.sumUnzip.Store(0)
	s.baseIO.Store(cur[0])
	s.baseUnzip.Store(cur[1])
	s.last = now
}

// io counts a page read or write [buf_LRU_stat_inc_io].
func (s *lruStat) io() { s.cur.Add(statIO, 1) }

// unzip counts a decompression [buf_LRU_stat_inc_unzip].
func (s *lruStat) unzip() { s.cur.Add(statUnzip, 1) }

// rotate moves whole seconds that have passed into the history, as the
// master thread's once-a-second buf_LRU_stat_update does. Only one caller
// rotates at a time; others carry on with the window as it is.
func (s *lruStat) rotate(now time.Time) {
	if !s.mu.TryLock() {
		return
	}
	defer s.mu.Unlock()
	steps := int(now.Sub(s.last) / time.Second)
	if steps <= 0 {
		return
	}
	var cur [2]uint64
	s.cur.SumAll(cur[:])
	for i := 0; i < min(steps, lruStatIntervals); i++ {
		v := [2]uint64{}
		// The counts since the last rotation go into the first second
		// that passed, which has left the window if 50 or more did.
		if i == 0 && steps <= lruStatIntervals {
			v = [2]uint64{cur[0] - s.baseIO.Load(), cur[1] - s.baseUnzip.Load()}
		}
		old := s.hist[s.pos]
		s.hist[s.pos] = v
		s.pos = (s.pos + 1) % lruStatIntervals
		s.sumIO.Add(v[0] - old[0])
		s.sumUnzip.Add(v[1] - old[1])
	}
	s.baseIO.Store(cur[0])
	s.baseUnzip.Store(cur[1])
	s.last = s.last.Add(time.Duration(steps) * time.Second)
}

// ioBound reports whether the load looks I/O-bound, so that evicting
// decompressed frames is cheaper than re-reading pages: unzip_avg ≤
// io_avg × 50, with avg = sum/50 + current [buf_LRU_evict_from_unzip_LRU].
func (s *lruStat) ioBound(now time.Time) bool {
	s.rotate(now)
	var cur [2]uint64
	s.cur.SumAll(cur[:])
	ioAvg := s.sumIO.Load()/lruStatIntervals + (cur[0] - min(cur[0], s.baseIO.Load()))
	unzipAvg := s.sumUnzip.Load()/lruStatIntervals + (cur[1] - min(cur[1], s.baseUnzip.Load()))
	return unzipAvg <= ioAvg*ioToUnzipFactor
}
