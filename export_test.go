package zipsim

// PausePurge holds purge's batches back until resume is called: the batch
// the coordinator has taken waits to start, and writes meanwhile wait in
// the history.
func PausePurge(s *Store) (resume func()) {
	s.purge.running.Lock()
	return s.purge.running.Unlock
}

// PurgeStatsOf reads purge's counters, also after Close.
func PurgeStatsOf(s *Store) PurgeStats { return s.purge.stats() }

// MarkDropped sets the flag DropTable sets first, so that a test can
// order it against purge's batches.
func MarkDropped(t *Table) { t.dropped.Store(true) }

// LockRow takes the row lock a write of t's row pk takes, as a writer
// that holds it would, and returns its release.
func LockRow(t *Table, pk ...Value) (unlock func()) {
	w := getWork()
	defer putWork(w)
	_, h := t.locatePK(w, pk)
	return t.lockRow(h, nil).Unlock
}
