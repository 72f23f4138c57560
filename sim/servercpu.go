package sim

import (
	"sync"
	"time"

	"github.com/cespare/xxhash/v2"
)

// serverCPU spends, after each statement, the CPU a MySQL server spends
// outside the storage engine: parsing, optimizing, the handler calls and
// sending the result, per statement and per row a range reads. zipsim's workloads call the engine directly, so
// without it a cached point select costs 3-5 µs of CPU where MariaDB
// spends 12-13 µs in the same shape (sim/calibration/mariadb_t4.sh), and
// every engine cost (a page read, an inflate, a lock wait) weighs up to
// three times as much in a throughput ratio as it does on a real server.
//
// The spending is work, not a sleep or a spin on the clock: a fixed
// number of hash rounds, calibrated once per process, so that a
// goroutine that loses its core spends it later, as a server thread
// would. It holds no latch.
type serverCPU struct {
	rounds    int // per statement
	rowRounds float64
	sink      uint64 // keeps the rounds from being optimized away
}

// serverRoundBytes is one round's input: a cache-resident buffer.
const serverRoundBytes = 64

func newServerCPU(perStatement, perRow time.Duration) serverCPU {
	s := serverCPU{sink: 1}
	if perStatement > 0 {
		s.rounds = max(1, int(float64(perStatement)/roundNanos()))
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

// spendRows burns the CPU of n rows read by a range statement.
func (s *serverCPU) spendRows(n int) {
	if r := int(s.rowRounds * float64(n)); r > 0 {
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

// roundNanos is the cost of one round on this machine: the fastest of a
// few timed batches, since a batch that lost its core overstates it.
var roundNanos = sync.OnceValue(func() float64 {
	const batch = 1 << 16
	best := time.Duration(1 << 62)
	for range 5 {
		t0 := time.Now()
		serverRounds(batch, 1)
		best = min(best, time.Since(t0))
	}
	return max(float64(best)/batch, 0.1)
})
