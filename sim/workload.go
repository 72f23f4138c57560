package sim

import (
	"context"
	"fmt"

	"github.com/zipsim/zipsim"
)

// Workload is one of §2's workloads, configured by a Config.
type Workload interface {
	// Name is "sysbench", "linkbench" or "document".
	Name() string
	// Create creates the workload's tables in st, with the row format,
	// partitions and page settings of the Config.
	Create(ctx context.Context, st *zipsim.Store) error
	// Load fills the tables (the load or prepare phase) with loaders
	// goroutines where the workload loads in parallel, calling progress
	// with the number of rows each time a batch is done (progress is safe
	// for concurrent use). Load is deterministic for the Config's seed up
	// to the interleaving of parallel loaders.
	Load(ctx context.Context, st *zipsim.Store, progress func(rows int64)) error
	// LoadRows is how many rows Load inserts, for progress bars.
	LoadRows() int64
	// DataBytes estimates the uncompressed size of the loaded data (rows
	// times their record size), for sizing the pool by PoolRatio.
	DataBytes() int64
	// Ops names the operations a worker reports, indexed as Worker.Next
	// returns them.
	Ops() []string
	// Worker returns the operation source of runner goroutine id, with its
	// own deterministic generator, which id seeds (Run gives each round
	// its own ids). Workers are used by one goroutine each.
	Worker(st *zipsim.Store, id int) (Worker, error)
}

// Worker executes a workload's events. One event is one transaction
// (sysbench) or one request (linkbench, document); it may run several
// operations, each reported through rec with its index in Ops and its
// duration measured by the worker.
type Worker interface {
	Next(ctx context.Context, rec Recorder) error
}

// Recorder receives the operations of an event as they finish.
type Recorder interface {
	// Op records that operation op (an index into Workload.Ops) took ns
	// nanoseconds.
	Op(op int, ns int64)
	// Rows reports that an operation reading several rows (a range or a
	// multiget), about to be recorded by Op, read n, and spends the
	// server layer's per-row CPU (Config.RowCPU) for them. A workload may
	// report each row as it reads it (sysbench's ranges, from their scan
	// callbacks: the CPU then falls between the engine's handler calls,
	// and into the operation's latency) or all before Op. Like Op, it
	// must be called from the goroutine running Next.
	Rows(n int)
}

// New returns the workload c names; c must come from Config.Validate.
func New(c Config) (Workload, error) {
	switch c.Workload {
	case "sysbench":
		return newSysbench(c)
	case "linkbench":
		return newLinkbench(c)
	case "document":
		return newDocument(c)
	}
	return nil, fmt.Errorf("sim: unknown workload %q", c.Workload)
}
