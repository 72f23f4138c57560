// Latches runs one workload on three implementations of the same latches:
// Go's sync locks (zipsim's default), the builtin InnoDB of MySQL 5.0 and
// 5.1, and the InnoDB plugin that replaced it (through MySQL 5.6), and
// prints what each latch costs and how often threads had to sleep.
//
// Every page of a B-tree has a latch, an rw-lock that readers take shared
// and writers exclusively, and so has every index (the index lock). The
// builtin engine kept an rw-lock's state (writer, reader count, waiters)
// under a mutex of the lock's own, so each shared acquisition and release
// entered that mutex: readers of the same hot page, such as the root,
// serialize on it even when no writer is about. The plugin made the state
// one lock word changed by compare-and-swap (Google's SMP patch,
// INNODB_RW_LOCKS_USE_ATOMICS). Both spin a while when a latch is taken,
// then sleep in the sync array, a table of waiting threads with one mutex,
// until the holder's release wakes them all. Go's locks spin briefly too,
// then park the goroutine.
//
// Eight goroutines read rows of a cached table by primary key and update
// one row in ten, on a hot tenth of the table, so that readers meet the
// writers' exclusive latches on the same leaves. Each implementation runs
// three short rounds, interleaved with the others', and the program prints
// the median operations per second, the share of page-latch and
// index-lock acquisitions that had to wait (contended %), and the sync
// array's sleeps
// ("OS waits") and wake-ups ("signal count"), as SHOW ENGINE INNODB STATUS
// prints them. It then times one goroutine's reads alone, where no latch
// is ever contended, to show what the builtin's extra mutex costs by
// itself.
//
// What two cores show: with no SQL layer around it, the engine pays
// plainly for the builtin's latches. On this project's 2-core machine a
// lone cached read took about 500 ns with them against 410 with the
// plugin's (each shared hold enters a mutex twice, about 20 ns more; four
// runs), and the eight goroutines made 2.46-2.56 million operations a
// second against 2.97-3.10 million (six runs, 2026-12-01). Scenario T5 runs the same
// latches under a server layer's CPU (9 µs a statement), which dilutes
// that to about 1%.
//
// InnoDB counterparts: sync/sync0rw.c rw_lock_s_lock_func and
// rw_lock_x_lock_func (builtin and plugin versions), sync/sync0sync.c
// mutex_spin_wait, sync/sync0arr.c sync_array_reserve_cell and
// sync_array_wait_event, os/os0sync.c os_event_set.
//
// It exits 1 unless the rows read back right under every implementation,
// only InnoDB's report a sync array, and, on a machine with fewer cores
// than goroutines, threads slept in it under both of InnoDB's
// implementations.
//
//	go run ./examples/latches
package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zipsim/zipsim"
	"github.com/zipsim/zipsim/bufpool"
	"github.com/zipsim/zipsim/internal/sbdata"
	"github.com/zipsim/zipsim/sim"
)

const (
	rows       = 20_000
	hot        = rows / 10 // the rows every goroutine reads and updates
	goroutines = 8
	rounds     = 3
	round      = 200 * time.Millisecond
)

var impls = []bufpool.Latching{bufpool.GoLatches, bufpool.BuiltinLatches, bufpool.PluginLatches}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "latches:", err)
		os.Exit(1)
	}
}

// arm is one implementation's store and what its rounds measured.
type arm struct {
	latching bufpool.Latching
	st       *zipsim.Store
	t        *zipsim.Table
	opsPerS  []float64
	before   zipsim.Metrics // before the first round; the store is idle between its rounds
}

func run() error {
	ctx := context.Background()
	arms := make([]*arm, len(impls))
	for i, l := range impls {
		a, err := open(ctx, l)
		if err != nil {
			return err
		}
		defer a.st.Close()
		arms[i] = a
	}
	for _, a := range arms {
		a.before = a.st.Metrics()
	}
	for r := range rounds {
		for _, a := range arms {
			if err := a.round(ctx, uint64(r)); err != nil {
				return fmt.Errorf("%v: %w", a.latching, err)
			}
		}
	}
	fmt.Printf("%d goroutines, reads by primary key with one update in ten, on %d hot rows of %d (cached), %d rounds of %v\n\n",
		goroutines, hot, rows, rounds, round)
	fmt.Printf("%-8s %10s %14s %14s %9s %9s\n", "latches", "ops/s", "page latch %", "index lock %", "OS waits", "signals")
	locks := make([]zipsim.Metrics, len(arms))
	for i, a := range arms {
		locks[i] = a.st.Metrics().Sub(a.before)
		l := locks[i].Pool.Latches
		page, _ := l.Get("block_lock")
		index, _ := l.Get("index_lock")
		fmt.Printf("%-8v %10.0f %14.3f %14.3f %9d %9d\n", a.latching, median(a.opsPerS),
			page.ContentionPct(), index.ContentionPct(), l.OSWaits, l.Signals)
	}
	fmt.Println("\none goroutine, reads only (no latch is ever contended):")
	for _, a := range arms {
		ns, err := a.soloRead(ctx)
		if err != nil {
			return err
		}
		fmt.Printf("  %-8v %6.0f ns a read\n", a.latching, ns)
	}

	// With fewer cores than goroutines a waiter's spin often outlasts its
	// turn on a core, so sleeps are certain; with as many cores, short
	// holds may end within every spin.
	oversubscribed := runtime.GOMAXPROCS(0) < goroutines
	for i, a := range arms {
		l := locks[i].Pool.Latches
		_, hasArray := l.Get("sync_array_mutex")
		innodb := a.latching != bufpool.GoLatches
		switch {
		case hasArray != innodb:
			return fmt.Errorf("%v latches: sync array reported %v", a.latching, hasArray)
		case innodb && l.OSWaits == 0 && oversubscribed:
			return fmt.Errorf("%v latches: no thread slept in the sync array, though writers held hot leaves", a.latching)
		}
		if errs := a.st.Check(ctx); len(errs) > 0 {
			return fmt.Errorf("%v latches: %v", a.latching, errs[0])
		}
	}
	slept := "threads slept in it under both"
	for i, a := range arms {
		if a.latching != bufpool.GoLatches && locks[i].Pool.Latches.OSWaits == 0 {
			slept = "with as many cores as goroutines, not every one saw a thread sleep"
		}
	}
	fmt.Printf("\nOK: only InnoDB's latches have a sync array; %s\n", slept)
	return nil
}

// open loads the table into a store whose latches are l's.
func open(ctx context.Context, l bufpool.Latching) (*arm, error) {
	st, err := zipsim.Open("", zipsim.Options{Pool: bufpool.Options{Bytes: 32 << 20, Latching: l}})
	if err != nil {
		return nil, err
	}
	t, err := st.CreateTable(ctx, "sbtest1", sim.SysbenchTable(1))
	if err != nil {
		st.Close()
		return nil, err
	}
	r := sbdata.Rand(1)
	var c, pad []byte
	for id := int64(1); id <= rows; id++ {
		c, pad = sbdata.C(c[:0], r), sbdata.Pad(pad[:0], r)
		if err := t.Insert(ctx, zipsim.Row{zipsim.Int(id), zipsim.Int(id), zipsim.Bytes(c), zipsim.Bytes(pad)}); err != nil {
			st.Close()
			return nil, err
		}
	}
	return &arm{latching: l, st: st, t: t}, nil
}

// round runs the goroutines for one round and adds what it measured.
func (a *arm) round(ctx context.Context, seed uint64) error {
	var ops atomic.Int64
	errs := make([]error, goroutines) // one slot a goroutine: errors of any type
	stop := time.Now().Add(round)
	start := time.Now()
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(seed, uint64(g)))
			var row zipsim.Row
			n := 0
			for ; time.Now().Before(stop); n++ {
				id := 1 + r.Int64N(hot)
				var err error
				if n%10 == 9 {
					err = a.t.Update(ctx, zipsim.Row{zipsim.Int(id), zipsim.Int(id), zipsim.Bytes(sbdata.C(nil, r)), zipsim.Bytes(sbdata.Pad(nil, r))})
				} else {
					var ok bool
					row, ok, err = a.t.Get(ctx, row, zipsim.Int(id))
					if err == nil && (!ok || row[0].Int() != id || row[1].Int() != id) {
						err = fmt.Errorf("read of id %d got %v (found %v)", id, row, ok)
					}
				}
				if err != nil {
					errs[g] = err
					return
				}
			}
			ops.Add(int64(n))
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	a.opsPerS = append(a.opsPerS, float64(ops.Load())/time.Since(start).Seconds())
	return nil
}

// soloRead is one goroutine's mean time per cached read, in ns.
func (a *arm) soloRead(ctx context.Context) (float64, error) {
	const reads = 200_000
	r := rand.New(rand.NewPCG(9, 9))
	var row zipsim.Row
	start := time.Now()
	for range reads {
		var err error
		if row, _, err = a.t.Get(ctx, row, zipsim.Int(1+r.Int64N(rows))); err != nil {
			return 0, err
		}
	}
	return float64(time.Since(start).Nanoseconds()) / reads, nil
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
