package zipsim_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim"
	"github.com/zipsim/zipsim/bufpool"
)

// openGated opens an in-memory store with a gate of limit places, tickets
// and sleep as Options names them, and a 100-row sbtest1.
func openGated(t *testing.T, limit, tickets int, sleep time.Duration) (*zipsim.Store, *zipsim.Table) {
	t.Helper()
	st, err := zipsim.Open("", zipsim.Options{Pool: bufpool.Options{Bytes: 16 << 20},
		ThreadConcurrency: limit, ConcurrencyTickets: tickets, ThreadSleepDelay: sleep})
	require.NoError(t, err)
	t.Cleanup(func() { _ = st.Close() })
	tb := createSbtest(t, st, 0)
	for id := range int64(100) {
		require.NoError(t, tb.Insert(ctx, sbRow(id, id, "c", "pad")))
	}
	return st, tb
}

// waitGate waits until the store's gate satisfies ok.
func waitGate(t *testing.T, st *zipsim.Store, ok func(zipsim.GateStats) bool) {
	t.Helper()
	require.Eventually(t, func() bool { return ok(st.Metrics().Gate) }, 5*time.Second, time.Millisecond,
		"gate: %+v", st.Metrics().Gate)
}

// notYet fails if done is closed within a short while: the call behind it
// must still be waiting.
func notYet(t *testing.T, done <-chan error, what string) {
	t.Helper()
	select {
	case err := <-done:
		t.Fatalf("%s finished (err %v) while it should wait", what, err)
	case <-time.After(50 * time.Millisecond):
	}
}

// wait returns what done gets, failing after 10 s.
func wait(t *testing.T, done <-chan error, what string) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		t.Fatalf("%s still waits after 10 s", what)
		return nil
	}
}

// get runs a Get of row id on ctx in a goroutine; the channel gets its
// error once it returns, and end, when closed, ends the statement.
func get(tb *zipsim.Table, ctx context.Context, sess *zipsim.Session, id int64, end <-chan struct{}) <-chan error {
	done := make(chan error, 1)
	go func() {
		_, _, err := tb.Get(ctx, nil, zipsim.Int(id))
		done <- err
		<-end
		sess.Leave()
	}()
	return done
}

// TestGateQueuesInOrder: with one place, a session inside keeps it until
// its statement ends, even after its call returned; others queue and get
// in first come, first served; calls without a session pass.
func TestGateQueuesInOrder(t *testing.T) {
	st, tb := openGated(t, 1, 0, -1)
	sa, sb, sc := st.NewSession(), st.NewSession(), st.NewSession()
	inA, release := make(chan struct{}), make(chan struct{})
	doneA := make(chan error, 1)
	go func() {
		first := true
		doneA <- tb.Scan(zipsim.WithSession(ctx, sa), nil, nil, false, func(zipsim.Row) bool {
			if first {
				first = false
				close(inA)
				<-release
			}
			return true
		})
	}()
	<-inA
	endB, endC := make(chan struct{}), make(chan struct{})
	doneB := get(tb, zipsim.WithSession(ctx, sb), sb, 1, endB)
	waitGate(t, st, func(g zipsim.GateStats) bool { return g.Queued == 1 })
	doneC := get(tb, zipsim.WithSession(ctx, sc), sc, 2, endC)
	waitGate(t, st, func(g zipsim.GateStats) bool { return g.Queued == 2 })

	_, found, err := tb.Get(ctx, nil, zipsim.Int(3))
	require.NoError(t, err)
	require.True(t, found, "a call without a session passes the gate")

	close(release)
	require.NoError(t, wait(t, doneA, "A's scan"))
	notYet(t, doneB, "B's Get, with A's statement still open")
	sa.Leave()
	require.NoError(t, wait(t, doneB, "B's Get"))
	notYet(t, doneC, "C's Get, queued behind B")
	close(endB)
	require.NoError(t, wait(t, doneC, "C's Get"))
	close(endC)
	waitGate(t, st, func(g zipsim.GateStats) bool { return g.Inside == 0 })

	g := st.Metrics().Gate
	require.Equal(t, 1, g.Limit)
	require.Equal(t, 1, g.MaxInside)
	require.EqualValues(t, 3, g.Enters)
	require.EqualValues(t, 2, g.Queued)
	require.Zero(t, g.Sleeps, "the sleep is off")
	require.Positive(t, g.QueueWait)
	require.Contains(t, st.Metrics().String(), "CONCURRENCY")
}

// TestGateTickets: a session enters through the mutex once every
// tickets+1 handler calls, staying inside in between; a scan makes a
// handler call per row and one to find the range's end.
func TestGateTickets(t *testing.T) {
	st, tb := openGated(t, 1, 3, 0)
	sess := st.NewSession()
	sctx := zipsim.WithSession(ctx, sess)
	for i := range 8 {
		_, _, err := tb.Get(sctx, nil, zipsim.Int(int64(i)))
		require.NoError(t, err)
	}
	g := st.Metrics().Gate
	require.EqualValues(t, 2, g.Enters, "8 calls at 1+3 a mutex entry")
	require.Zero(t, g.Inside, "the 8th call spent the last ticket and left")
	for i := range 2 {
		_, _, err := tb.Get(sctx, nil, zipsim.Int(int64(i)))
		require.NoError(t, err)
	}
	g = st.Metrics().Gate
	require.EqualValues(t, 3, g.Enters)
	require.Equal(t, 1, g.Inside)
	sess.Leave()
	require.Zero(t, st.Metrics().Gate.Inside)

	before := st.Metrics().Gate
	rows := 0
	require.NoError(t, tb.Scan(sctx, nil, nil, false, func(zipsim.Row) bool { rows++; return true }))
	sess.Leave()
	require.Equal(t, 100, rows)
	require.EqualValues(t, 26, st.Metrics().Gate.Sub(before).Enters, "101 handler calls, 4 a mutex entry")
}

// TestGateSleepsOnce: a session that finds the gate full sleeps once,
// then queues.
func TestGateSleepsOnce(t *testing.T) {
	st, tb := openGated(t, 1, 0, 2*time.Millisecond)
	sa, sb := st.NewSession(), st.NewSession()
	_, _, err := tb.Get(zipsim.WithSession(ctx, sa), nil, zipsim.Int(1))
	require.NoError(t, err)
	end := make(chan struct{})
	done := get(tb, zipsim.WithSession(ctx, sb), sb, 2, end)
	waitGate(t, st, func(g zipsim.GateStats) bool { return g.Queued == 1 })
	require.EqualValues(t, 1, st.Metrics().Gate.Sleeps)
	sa.Leave()
	require.NoError(t, wait(t, done, "B's Get"))
	close(end)
}

// TestGateSleepThenEnter: a session whose place came free while it slept
// enters without queueing.
func TestGateSleepThenEnter(t *testing.T) {
	st, tb := openGated(t, 1, 0, time.Second)
	sa, sb := st.NewSession(), st.NewSession()
	_, _, err := tb.Get(zipsim.WithSession(ctx, sa), nil, zipsim.Int(1))
	require.NoError(t, err)
	end := make(chan struct{})
	done := get(tb, zipsim.WithSession(ctx, sb), sb, 2, end)
	waitGate(t, st, func(g zipsim.GateStats) bool { return g.Waiting == 1 }) // B sleeps
	sa.Leave()
	require.NoError(t, wait(t, done, "B's Get"))
	close(end)
	g := st.Metrics().Gate
	require.EqualValues(t, 1, g.Sleeps)
	require.Zero(t, g.Queued)
}

// TestGateRowLockWait: a session waiting for a row lock leaves the gate,
// so that others (the lock's holder among them) get in, and comes back
// regardless of the limit.
func TestGateRowLockWait(t *testing.T) {
	st, tb := openGated(t, 1, 0, -1)
	sa, sb := st.NewSession(), st.NewSession()
	unlock := zipsim.LockRow(tb, zipsim.Int(5))
	doneA := make(chan error, 1)
	go func() {
		doneA <- tb.Update(zipsim.WithSession(ctx, sa), sbRow(5, 50, "c", "pad"))
	}()
	waitGate(t, st, func(g zipsim.GateStats) bool { return g.Enters == 1 && g.Inside == 0 })
	end := make(chan struct{})
	require.NoError(t, wait(t, get(tb, zipsim.WithSession(ctx, sb), sb, 6, end), "B's Get while A waits for the row"))
	notYet(t, doneA, "A's Update, its row still locked")
	unlock()
	require.NoError(t, wait(t, doneA, "A's Update"))
	g := st.Metrics().Gate
	require.EqualValues(t, 1, g.ForceEnters)
	require.Equal(t, 2, g.Inside, "A came back over the limit, B's statement is open")

	// Over the limit, a leaving session lets nobody in until the count
	// is below it again.
	sc := st.NewSession()
	endC := make(chan struct{})
	doneC := get(tb, zipsim.WithSession(ctx, sc), sc, 7, endC)
	waitGate(t, st, func(g zipsim.GateStats) bool { return g.Queued == 1 })
	sa.Leave()
	notYet(t, doneC, "C's Get, with B still inside at the limit")
	close(end)
	require.NoError(t, wait(t, doneC, "C's Get after B left"))
	close(endC)
	waitGate(t, st, func(g zipsim.GateStats) bool { return g.Inside == 0 })
}

// TestGateNestedCall: a call made from a scan's callback with the scan's
// session goes on, as a transaction InnoDB has declared inside does.
func TestGateNestedCall(t *testing.T) {
	st, tb := openGated(t, 1, 2, -1)
	sess := st.NewSession()
	sctx := zipsim.WithSession(ctx, sess)
	done := make(chan error, 1)
	go func() {
		done <- tb.Scan(sctx, nil, nil, false, func(r zipsim.Row) bool {
			_, found, err := tb.Get(sctx, nil, r[0])
			return err == nil && found
		})
	}()
	require.NoError(t, wait(t, done, "a scan whose callback calls Get"))
	sess.Leave()
	require.Zero(t, st.Metrics().Gate.Inside)
}

// TestGateOptions: bad settings are refused with what is allowed; without
// a gate sessions change nothing and no CONCURRENCY table is printed.
func TestGateOptions(t *testing.T) {
	for _, c := range []struct {
		o    zipsim.Options
		want string
	}{
		{zipsim.Options{ThreadConcurrency: -1}, "use 1..1000"},
		{zipsim.Options{ThreadConcurrency: 1001}, "use 1..1000"},
		{zipsim.Options{ThreadConcurrency: 8, ConcurrencyTickets: -1}, "0 for 500"},
		{zipsim.Options{ThreadConcurrency: 8, ThreadSleepDelay: 2 * time.Second}, "up to 1s"},
		{zipsim.Options{ConcurrencyTickets: 10}, "need ThreadConcurrency"},
		{zipsim.Options{ThreadSleepDelay: time.Millisecond}, "need ThreadConcurrency"},
	} {
		_, err := zipsim.Open("", c.o)
		require.ErrorContains(t, err, c.want, "%+v", c.o)
	}
	st := openMem(t)
	tb := createSbtest(t, st, 0)
	require.NoError(t, tb.Insert(ctx, sbRow(1, 1, "c", "pad")))
	sess := st.NewSession()
	_, found, err := tb.Get(zipsim.WithSession(ctx, sess), nil, zipsim.Int(1))
	require.NoError(t, err)
	require.True(t, found)
	sess.Leave()
	require.Zero(t, st.Metrics().Gate)
	require.False(t, strings.Contains(st.Metrics().String(), "CONCURRENCY"))
}

// TestGateLeavePerRow: a scan whose callback leaves the gate for each row,
// as 5.1's server does when it sends a row to the client, enters again
// through the mutex for every later handler call.
func TestGateLeavePerRow(t *testing.T) {
	st, tb := openGated(t, 1, 0, -1)
	sess := st.NewSession()
	sctx := zipsim.WithSession(ctx, sess)
	before := st.Metrics().Gate
	rows := 0
	require.NoError(t, tb.Scan(sctx, nil, nil, false, func(zipsim.Row) bool {
		rows++
		zipsim.SessionOf(sctx).Leave()
		return true
	}))
	sess.Leave()
	require.Equal(t, 100, rows)
	require.EqualValues(t, 101, st.Metrics().Gate.Sub(before).Enters, "every handler call enters")
	require.Zero(t, st.Metrics().Gate.Inside)

	// A callback that stops the scan makes no further handler call.
	before = st.Metrics().Gate
	require.NoError(t, tb.Scan(sctx, nil, nil, false, func(zipsim.Row) bool {
		sess.Leave()
		return false
	}))
	require.EqualValues(t, 1, st.Metrics().Gate.Sub(before).Enters)
	require.Zero(t, st.Metrics().Gate.Inside)
}

// TestGateUngated: a nil session, another store's session and AddIndex's
// build pass a full gate untouched.
func TestGateUngated(t *testing.T) {
	st, tb := openGated(t, 1, 0, -1)
	other, _ := openGated(t, 1, 0, -1)
	sa := st.NewSession()
	_, _, err := tb.Get(zipsim.WithSession(ctx, sa), nil, zipsim.Int(1))
	require.NoError(t, err)
	require.Equal(t, 1, st.Metrics().Gate.Inside, "A keeps the one place")
	enters := st.Metrics().Gate.Enters
	for _, c := range []context.Context{zipsim.WithSession(ctx, nil), zipsim.WithSession(ctx, other.NewSession())} {
		_, found, err := tb.Get(c, nil, zipsim.Int(2))
		require.NoError(t, err)
		require.True(t, found)
	}
	sb := st.NewSession()
	done := make(chan error, 1)
	go func() {
		done <- tb.AddIndex(zipsim.WithSession(ctx, sb), zipsim.IndexDef{Name: "c_idx", Columns: []string{"c"}})
	}()
	require.NoError(t, wait(t, done, "AddIndex with a session, the gate full"))
	require.Equal(t, enters, st.Metrics().Gate.Enters)
	require.Nil(t, zipsim.SessionOf(ctx))
	sa.Leave()
}
