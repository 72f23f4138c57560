package sim

import (
	"math"
	"runtime"
	"sync"
	"time"

	"github.com/cespare/xxhash/v2"
)

// serverCPU spends the CPU a MySQL server spends outside the storage
// engine: per statement (parsing, optimizing, the handler calls) and per
// row a range or multiget reads (handler calls, sending the row) or a
// load inserts (Config.LoadRowCPU).
// zipsim's workloads call the engine directly, so without it a cached
// point select costs 3-5 µs of CPU where MariaDB spends 12-13 µs in the
// same shape (sim/calibration/mariadb_t4.sh), and every engine cost (a
// page read, an inflate, a lock wait) weighs up to three times as much in
// a throughput ratio as it does on a real server.
//
// The spending is work, not a sleep or a spin on the clock: a number of
// hash rounds calibrated once per process, so that a goroutine that
// loses its core spends it later, as a server thread would. It holds no
// latch. A serverCPU belongs to one goroutine.
type serverCPU struct {
	rounds    int     // per statement
	rowRounds float64 // per row; rows too cheap for a round add up in rowDebt
	rowDebt   float64
	sink      uint64 // keeps the rounds from being optimized away
}

// serverRoundBytes is one round's input: a cache-resident buffer.
const serverRoundBytes = 64

func newServerCPU(perStatement, perRow time.Duration) serverCPU {
	s := serverCPU{sink: 1}
	if perStatement > 0 {
		s.rounds = max(1, int(math.Round(float64(perStatement)/roundNanos())))
	}
	if perRow > 0 {
		s.rowRounds = float64(perRow) / roundNanos()
	}
	return s
}

// spend burns one statement's CPU.
func (s *serverCPU) spend() {
	if s.rounds > 0 {
		s.sink = serverRounds(s.rounds, s.sink)
	}
}

// spendRows burns the CPU of n rows, read by a range or multiget or
// inserted by a load.
func (s *serverCPU) spendRows(n int) {
	if s.rowRounds == 0 {
		return
	}
	s.rowDebt += s.rowRounds * float64(n)
	if r := int(s.rowDebt); r > 0 {
		s.rowDebt -= float64(r)
		s.sink = serverRounds(r, s.sink)
	}
}

func serverRounds(n int, seed uint64) uint64 {
	var b [serverRoundBytes]byte
	h := seed
	for range n {
		b[0], b[1] = byte(h), byte(h>>8)
		h = xxhash.Sum64(b[:])
	}
	return h
}

// roundSink takes the calibration's hashes.
var roundSink uint64

// roundNanos is the cost of one round on this machine: the fastest of 24
// short batches, after a collection, since a batch that lost its core or
// ran beside the collector overstates it and every later spend would
// fall short by as much.
var roundNanos = sync.OnceValue(func() float64 {
	const batch, batches = 1 << 14, 24
	runtime.GC()
	best := time.Duration(math.MaxInt64)
	for range batches {
		t0 := time.Now()
		roundSink = serverRounds(batch, roundSink)
		best = min(best, time.Since(t0))
		runtime.Gosched()
	}
	return max(float64(best)/batch, 0.1)
})
