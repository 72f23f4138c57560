// Package latch provides the instrumented locks of zipsim's buffer pool and
// B-trees. Every lock has a name, so a report can say which one hurts: how
// often it was taken, how often a taker had to wait, for how long in total
// and at most, and how long holders kept it. The instrumentation stays on
// in benchmarks, so its uncontended cost is kept to about a nanosecond per
// exclusive Lock+Unlock.
//
// # Basics
//
// Mutex and RWMutex wrap sync.Mutex and sync.RWMutex and keep their
// counters inside the lock, next to the sync state, never in a counter
// shared by several locks (that shared counter would become the contention
// being measured). Init registers a lock in a Registry under a name:
//
//	var r = latch.NewRegistry(latch.Options{})
//	pool.lru.Init(r, "LRU_list_mutex#0")   // one class per instance
//	for i := range frames {
//		frames[i].lock.Init(r, "block_lock") // one class, many locks
//	}
//
// Lock first calls TryLock. If it succeeds, the acquisition is counted and
// no clock is read. If it fails, the acquisition is contended: Lock reads
// the clock, blocks in the sync lock, reads the clock again and adds the
// difference to the lock's wait time and maximum wait. RLock does the same
// with TryRLock, counting shared acquisitions separately.
//
// Hold time is sampled. A lock times its 1st, 65th, 129th, ... exclusive
// acquisition from lock to unlock (the decision comes from its own
// acquisition count, so it costs a compare), and a Snapshot scales each
// lock's mean sampled hold by that lock's acquisitions. Sampling the first
// acquisition gives every lock that was ever released at least one sample,
// so classes of many rarely taken locks (page latches) still get an
// estimate. Shared holds are not timed: overlapping readers cannot share
// one start field.
//
// A name is a class. All locks initialised with one name add up in one row;
// a name "base#suffix" is an instance of the group "base", which gets a
// total row of its own (see Registry). Registry.Snapshot reads every lock and
// returns rows sorted by name; Snapshot.Sub gives the delta between two
// snapshots, and Table and String print the LOCKS table. The wait share of a
// row is Wait / (threads × wall): the fraction of the workload's thread time
// spent blocked on those locks, the number research/targets.md asks every
// report for (T1: LRU-mutex wait share ≥ 40% in the legacy mode). Next to
// it, reports print CPU utilisation, the difference of two ProcessCPU
// readings divided by (wall × GOMAXPROCS) (see Utilisation), to mirror seed
// 000's 85% against 7% CPU.
//
// A registry created with Options{Disabled: true}, or a nil *Registry
// passed to Init, makes plain locks: Lock and Unlock go straight to the sync
// package, count nothing and register nothing. Comparing a benchmark run
// both ways measures the instrumentation (BenchmarkMutex, BenchmarkHitPathModel).
//
// # InnoDB counterpart
//
//   - sync/sync0sync.c (5.1–5.6): mutex_enter tries mutex_test_and_set,
//     then mutex_spin_wait spins and waits in the sync array. The global
//     counters mutex_spin_wait_count, mutex_spin_round_count and
//     mutex_os_wait_count, and their rw-lock equivalents in sync0rw.c, are
//     the SEMAPHORES section of SHOW ENGINE INNODB STATUS ("Mutex spin
//     waits N, rounds N, OS waits N"; "RW-shared spins ..., RW-excl spins
//     ..."), which also lists threads waiting right now on a named latch
//     (sync_array_print, the "LRU_list_mutex" waiters in seed 000). SHOW
//     ENGINE INNODB MUTEX prints per-mutex OS waits.
//   - 5.7 and 8.0: the mutex framework of ut0mutex.h / ib0mutex.h (policy
//     mutexes such as TTASEventMutex) with include/sync0types.h's
//     latch_meta_t (LatchMeta: a latch's name, id and level) and
//     LatchCounter, whose Count per latch instance holds m_spins, m_waits
//     and m_calls, enabled by the MutexMonitor (innodb_monitor_enable =
//     'latch') and printed by SHOW ENGINE INNODB MUTEX. A Class is a latch
//     meta, a lock is an instance, Acquisitions is m_calls and Contended
//     is m_waits (Go's runtime spins briefly before parking; the spins are
//     inside our wait time, not counted).
//   - performance_schema times every acquisition of instruments such as
//     wait/synch/mutex/innodb/buf_pool_LRU_list_mutex and
//     wait/synch/rwlock/innodb/hash_table_locks into
//     events_waits_summary_global_by_event_name (COUNT_STAR,
//     SUM_TIMER_WAIT, MAX_TIMER_WAIT). It reads the timer twice per
//     acquisition, contended or not; latch reads it only on contention and
//     on sampled holds, which is why it can stay on. Neither InnoDB source
//     measures hold time.
//   - Names follow 8.0's latch names where one exists (LRU_list_mutex,
//     free_list_mutex, zip_free_mutex, zip_hash_mutex, zip_mutex,
//     flush_list_mutex, hash_table_locks, block_lock for the page latches,
//     index_tree_rw_lock for the index lock); research/innodb-compression.md
//     section 3.8 lists what each guards in each version.
//
// # Concurrency
//
// Locks are safe for concurrent use like their sync counterparts, and must
// not be copied after Init (go vet's copylocks check catches copies). Init
// must be called once, before the lock is shared; it appends the lock to
// its class under the registry's mutex, so the lock must stay at its
// address for the registry's life (the pool keeps locks in arrays it
// allocates once). A lock that was never initialised works as a plain
// sync lock and is not reported.
//
// All counters live in the lock. The exclusive acquisition count is
// written only by the goroutine that has just acquired the lock, so the
// lock orders those writes and a plain increment is exact (owned_plain.go;
// race-detector builds and 32-bit platforms use an atomic add). The shared
// acquisition count of an RWMutex is an atomic add on the lock's own cache
// line, which its readers already write. Wait, maximum and sample counters
// are atomics touched only on contended or sampled paths. Snapshot loads
// them while locks run, so each counter is exact but a row is not one
// instant's. Snapshot holds the registry mutex while it reads, about 0.3 ms
// per 100,000 locks here (BenchmarkSnapshot); it belongs between
// intervals, not on a hot path.
//
// # Cost
//
// On the 2-vCPU Zen 5 machine of research/limits.md an uncontended
// sync.Mutex Lock+Unlock costs about 9.5 ns: two locked instructions at
// ~5 ns each (limits.md: one atomic add 5.7 ns). A third locked
// instruction for the counter would add 50%, hence the plain increment:
// an instrumented Mutex costs about 1 ns more than a plain one, of which
// ~0.7 ns is the two clock reads of every 64th acquisition (the package
// clock, time.Since of a fixed epoch, reads only the monotonic clock:
// ~22 ns, against ~41 ns for time.Now). A shared acquisition is counted
// with a plain increment too, since readers overlap it is approximate
// (below). BenchmarkHitPathModel puts three latches
// around a hot-page lookup. A Mutex is 88 bytes and an RWMutex 112, hot
// words first (TestLayout); neighbours in an array share cache lines, so
// pad locks that different cores take often, as the pool's shards do.
//
// # Implementations
//
// Options.Impl picks how a registry's locks work. Go (the zero value) is
// the sync package's, described above. The other two are InnoDB's own, so
// that a model of an old engine waits as that engine did:
//
//   - Builtin, the builtin InnoDB of MySQL 5.0 and 5.1, built without
//     atomic instructions [sync0sync.c, sync0rw.c, sync0arr.c, ut0ut.c].
//     A mutex is a test-and-set lock word: a failed test-and-set spins up
//     to 20 rounds reading the word, each round an idle loop of a random
//     0 to 5 units of 50 integer adds (srv_n_spin_wait_rounds,
//     srv_spin_wait_delay, ut_delay), yields, tries again, and then
//     reserves a cell in the sync array, sets the mutex's waiters flag
//     and sleeps on the mutex's event; a release that finds the flag set
//     wakes every sleeper (os_event_set broadcasts), and they race again.
//     An rw-lock keeps a writer field, a reader count and a waiters flag
//     that change only under the lock's own mutex, so every shared
//     acquisition and release enters that mutex: readers of one hot latch
//     (the index lock, a root page) serialize on it. A writer that finds
//     readers claims the lock (RW_LOCK_WAIT_EX), which turns new readers
//     away, and waits for the readers to leave.
//   - Plugin, the InnoDB plugin 1.0.4 to MySQL 5.6 with atomic builtins
//     (INNODB_RW_LOCKS_USE_ATOMICS, from Google's SMP patch). The same
//     mutexes and sync array, spinning 30 rounds of up to 6 units, each
//     iteration with PAUSE (taken as ten adds, its cost on the Xeons of
//     2010). An rw-lock is one lock word: X_LOCK_DECR when free, less one
//     per reader, 0 when held exclusively, negative while a writer waits
//     for readers; a shared acquisition is one compare-and-swap, its
//     release one atomic add, and the writer waiting for readers sleeps
//     on an event of its own that only the last reader sets.
//
// Both share one sync array per registry, whose OS mutex every sleep
// enters three times (reserve, mark waiting, free) and, in the builtin,
// every wake-up once (the plugin counts wake-ups with an atomic add); it
// reports as the class sync_array_mutex, an ordinary lock, and
// Snapshot counts its sleeps and wake-ups (OSWaits, Signals: SHOW ENGINE
// INNODB STATUS's "OS waits" and "signal count"). The locks count as
// instrumented locks do. An acquisition is contended when its first
// attempt fails: a taken mutex word, a writer holding or claiming an
// rw-lock, or readers still inside; its wait is timed through the spin
// and the sleep. A builtin rw-lock's own mutex is entered untimed, as
// InnoDB counted those waits as mutex spins: they show as throughput and
// as OS waits, not in the lock's row. BenchmarkRWMutexReadParallel and BenchmarkHitPathModel
// compare the three.
//
// # Caveats
//
//   - Uncontended shared acquisitions are counted with a load and a store,
//     not a locked add, as InnoDB's ib_counter_t counts without atomics:
//     readers that overlap can lose increments, so ReadAcquisitions is a
//     lower bound under concurrency. Exclusive acquisitions, contended
//     acquisitions of both kinds and all waits are exact.
//   - Hold time is an estimate from every 64th exclusive hold. Each sample
//     includes one clock read (~20 ns), so critical sections of a few
//     nanoseconds show as about 20 ns; MaxHold is the longest sampled hold
//     and can miss the true maximum. Shared holds are not timed.
//   - Wait is the wall time from the failed TryLock to the return of Lock,
//     so it includes the runtime's spinning, parking and the delay before
//     the woken goroutine runs on a P. When runnable goroutines outnumber
//     Ps, or GOMAXPROCS exceeds the cores the machine really has, that
//     scheduling delay counts as lock wait and the wait share can exceed
//     what InnoDB, with one OS thread per connection, would show. A wait in
//     progress is not counted until it ends.
//   - TryLock first changes Go's mutex fairness very little: TryLock fails
//     in starvation mode, as Lock's fast path does, and in normal mode a
//     newcomer may barge past woken waiters either way. A failed TryLock
//     or TryRLock call by the user counts nothing.
//   - RLock goes through TryRLock, a load and a compare-and-swap loop,
//     where sync's RLock is one atomic add; with many readers on many cores
//     the CAS can retry, on top of the counter's extra atomic.
//   - A contended shared acquisition is one that found a writer holding or
//     waiting for the lock; readers never wait for readers.
//   - MaxWait and MaxHold are maxima since the registry was created; a
//     delta from Snapshot.Sub keeps the later snapshot's maxima.
//   - Inside a testing/synctest bubble the clock is the bubble's fake clock,
//     so waits and holds measure fake time.
//   - InnoDB's implementations sleep on a sync.Cond, which parks a
//     goroutine; an OS thread's futex sleep and wake-up cost several
//     microseconds more, so their sleeps are cheaper here than in InnoDB.
//     Their yields are runtime.Gosched. Go has no plain atomic store, so
//     a builtin rw-lock's state changes under its mutex cost a locked
//     instruction each where InnoDB's plain stores did not, which makes
//     a builtin shared acquisition and release (about 32 ns here, against
//     12 for the plugin's and 10 for Go's; BenchmarkRWMutexReadParallel
//     at -cpu 1) dearer than the original's. Their lock words sit behind
//     a pointer or two, where InnoDB embedded them in the block or index,
//     so the pool's padding, which keeps Go's lock words on lines of their
//     own, does not place theirs.
//   - Both wait as the plugin's os_event_wait_low does, against the
//     signal count the reset returned. The builtin's os_event_wait read
//     the count on entry, so a reset by a second waiter between a release
//     and the first waiter's sleep could leave that waiter asleep until
//     the latch's next release, or the error monitor's wake-up a second
//     later (sync_arr_wake_threads_if_sema_free); that stall is not
//     modelled.
package latch
