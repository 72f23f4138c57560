package zipsim

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/zipsim/zipsim/internal/latch"
	"github.com/zipsim/zipsim/internal/table"
)

// gate is InnoDB's thread concurrency gate, innodb_thread_concurrency as
// MySQL 5.1's builtin InnoDB and the Plugin ran it [srv0srv.c:
// srv_conc_enter_innodb, srv_conc_exit_innodb,
// srv_conc_force_exit_innodb, srv_conc_force_enter_innodb]: at most limit
// sessions are inside the engine at once, counted under one OS mutex,
// srv_conc_mutex. A session that finds the gate full sleeps once (unless
// the sleep is off), tries again, then waits in a FIFO queue until a
// leaving session hands it its place. Entering sets the session's tickets;
// each later handler call spends one instead of taking the mutex, and a
// session keeps its place while it has tickets, until it leaves.
type gate struct {
	mu      latch.Mutex // srv_conc_mutex
	limit   int         // srv_thread_concurrency
	tickets int         // innodb_concurrency_tickets
	sleep   time.Duration
	// Guarded by mu.
	inside      int      // srv_conc_n_threads
	waiting     int      // srv_conc_n_waiting_threads: sleeping or queued
	head, tail  *Session // srv_conc_queue
	enters      uint64   // entries through the mutex
	sleeps      uint64
	queued      uint64
	queueWait   time.Duration
	maxInside   int // the most sessions inside at once, for tests and reports
	forceEnters uint64
}

func newGate(r *latch.Registry, o Options) *gate {
	g := &gate{limit: o.ThreadConcurrency, tickets: o.ConcurrencyTickets, sleep: o.ThreadSleepDelay}
	if g.tickets == 0 {
		g.tickets = 500
	}
	switch {
	case g.sleep == 0:
		g.sleep = 10 * time.Millisecond
	case g.sleep < 0:
		g.sleep = 0
	}
	g.mu.InitOS(r, "srv_conc_mutex")
	return g
}

// Session is one client connection's place at the store's concurrency gate
// (Options.ThreadConcurrency): InnoDB keeps it in the connection's trx_t
// (declared_to_be_inside_innodb, n_tickets_to_enter_innodb). Only calls
// whose context carries a Session (WithSession) pass the gate; the first
// call of a statement enters it and the session stays inside until Leave,
// or until its tickets run out. A Session belongs to one goroutine at a
// time, as a connection's thread does, and gates only the calls of the
// store that made it.
//
// A session inside the gate holds a place others may be waiting for: a
// goroutine must call Leave before it stops using its session. A call
// waiting for a place waits as InnoDB's threads do, whatever its
// context: cancelling it does not end the wait.
type Session struct {
	g       *gate
	inside  bool
	tickets int
	next    *Session      // in the gate's queue
	wake    chan struct{} // the queue slot's event
}

// NewSession returns a session for calls on s. Without
// Options.ThreadConcurrency it gates nothing.
func (s *Store) NewSession() *Session {
	return &Session{g: s.gate, wake: make(chan struct{}, 1)}
}

type sessionKey struct{}

// WithSession returns a context whose calls pass the gate as sess; a nil
// sess makes them pass it untouched.
func WithSession(ctx context.Context, sess *Session) context.Context {
	return context.WithValue(ctx, sessionKey{}, sess)
}

// SessionOf returns the session ctx carries, or nil.
func SessionOf(ctx context.Context) *Session {
	sess, _ := ctx.Value(sessionKey{}).(*Session)
	return sess
}

// session returns the session of ctx that t's store gates, or nil.
func (t *Table) session(ctx context.Context) *Session {
	g := t.store.gate
	if g == nil {
		return nil
	}
	if sess := SessionOf(ctx); sess != nil && sess.g == g {
		return sess
	}
	return nil
}

// enter starts a handler call [srv_conc_enter_innodb]. A session is never
// inside without tickets when a call starts: the call that spends the last
// one leaves at its exit.
func (sess *Session) enter() {
	if sess == nil {
		return
	}
	if sess.tickets > 0 {
		sess.tickets--
		return
	}
	g := sess.g
	g.mu.Lock()
	g.enters++
	if g.inside >= g.limit {
		// Sleep once, then queue; zipsim's calls hold no transaction
		// locks at this point, which is when InnoDB lets a thread sleep.
		g.waiting++
		g.mu.Unlock()
		if g.sleep > 0 {
			time.Sleep(g.sleep)
		}
		g.mu.Lock()
		g.waiting--
		if g.sleep > 0 {
			g.sleeps++
		}
		if g.inside >= g.limit {
			g.queue(sess) // returns with g.mu held and sess let in
			sess.admit(g.tickets)
			g.mu.Unlock()
			return
		}
	}
	g.inside++
	sess.admit(g.tickets)
	g.mu.Unlock()
}

// queue waits, g.mu held, until a leaving session hands sess its place;
// it returns with g.mu held again.
func (g *gate) queue(sess *Session) {
	sess.next = nil
	if g.tail == nil {
		g.head = sess
	} else {
		g.tail.next = sess
	}
	g.tail = sess
	g.queued++
	g.waiting++
	g.mu.Unlock()
	start := time.Now()
	<-sess.wake
	wait := time.Since(start)
	g.mu.Lock()
	g.waiting--
	g.queueWait += wait
}

// admit declares sess inside with tickets; g.mu held.
func (sess *Session) admit(tickets int) {
	sess.inside, sess.tickets = true, tickets
	sess.g.maxInside = max(sess.g.maxInside, sess.g.inside)
}

// exit ends a handler call [srv_conc_exit_innodb]: a session with tickets
// left stays inside, saving the mutex on its next call.
func (sess *Session) exit() {
	if sess == nil || sess.tickets > 0 {
		return
	}
	sess.leave()
}

// Leave leaves the gate [srv_conc_force_exit_innodb], giving the
// session's place to the first queued session; it does nothing for a
// session outside. MySQL leaves at the end of every statement
// [innobase_release_stat_resources, from external_lock], and 5.1's server
// also whenever it passes control to the client, such as for every row it
// sends [select_send::send_data, ha_release_temporary_latches]; the next
// handler call then enters again through the mutex.
func (sess *Session) Leave() {
	if sess != nil {
		sess.leave()
	}
}

// leave is srv_conc_force_exit_innodb.
func (sess *Session) leave() {
	if !sess.inside {
		return
	}
	g := sess.g
	g.mu.Lock()
	g.inside--
	sess.inside, sess.tickets = false, 0
	var next *Session
	if g.inside < g.limit && g.head != nil {
		next = g.head
		g.head = next.next
		if g.head == nil {
			g.tail = nil
		}
		next.next = nil
		g.inside++ // on behalf of the session it lets in
	}
	g.mu.Unlock()
	if next != nil {
		next.wake <- struct{}{}
	}
}

// lockRow takes a row lock for a session's call. A session that must wait
// for it leaves the gate while it waits and comes back regardless of the
// limit, with one ticket, as InnoDB's lock waits do [srv_suspend_mysql_thread,
// srv_conc_force_enter_innodb]: a thread waiting for a lock does not keep
// a place from the threads that can run.
func (sess *Session) lockRow(mu *latch.Mutex) {
	if sess == nil || !sess.inside {
		mu.Lock()
		return
	}
	if !mu.LockOr(sess.leave) {
		return
	}
	g := sess.g
	g.mu.Lock()
	g.inside++
	g.forceEnters++
	sess.admit(1)
	g.mu.Unlock()
}

// GateStats is a snapshot of the concurrency gate (SHOW ENGINE INNODB
// STATUS's "N queries inside InnoDB, M queries in queue"). Sub gives the
// change between two snapshots but for Limit, Inside, Waiting and
// MaxInside, which stay the later one's.
type GateStats struct {
	Limit       int           // innodb_thread_concurrency; 0 when the gate is off
	Inside      int           // sessions inside now
	Waiting     int           // sessions sleeping or queued now
	MaxInside   int           // the most inside at once since Open
	Enters      uint64        // entries that took srv_conc_mutex
	Sleeps      uint64        // sleeps before queueing (innodb_thread_sleep_delay)
	Queued      uint64        // waits in the queue
	QueueWait   time.Duration // time spent in the queue
	ForceEnters uint64        // returns after a row-lock wait
}

func (g *gate) stats() GateStats {
	g.mu.Lock()
	defer g.mu.Unlock()
	return GateStats{Limit: g.limit, Inside: g.inside, Waiting: g.waiting, MaxInside: g.maxInside,
		Enters: g.enters, Sleeps: g.sleeps, Queued: g.queued, QueueWait: g.queueWait, ForceEnters: g.forceEnters}
}

// Sub returns the counter changes since prev.
func (s GateStats) Sub(prev GateStats) GateStats {
	d := s
	d.Enters -= prev.Enters
	d.Sleeps -= prev.Sleeps
	d.Queued -= prev.Queued
	d.QueueWait -= prev.QueueWait
	d.ForceEnters -= prev.ForceEnters
	return d
}

// String prints the snapshot as a CONCURRENCY table.
func (s GateStats) String() string {
	var b strings.Builder
	i, u := strconv.Itoa, func(v uint64) string { return strconv.FormatUint(v, 10) }
	table.Write(&b, "CONCURRENCY", []string{"LIMIT", "INSIDE", "WAITING", "MAX_INSIDE", "ENTERS", "SLEEPS", "QUEUED", "QUEUE_WAIT", "FORCE_ENTERS"},
		[][]string{{i(s.Limit), i(s.Inside), i(s.Waiting), i(s.MaxInside), u(s.Enters), u(s.Sleeps), u(s.Queued), s.QueueWait.String(), u(s.ForceEnters)}})
	return b.String()
}
