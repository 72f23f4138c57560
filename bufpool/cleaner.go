package bufpool

import (
	"sync"
	"time"
)

// cleanerInterval is how often the page cleaner wakes on its own
// [buf_flush_page_cleaner_thread sleeps up to one second]; a variable so
// that tests can leave the cleaner to its wake-ups.
var cleanerInterval = time.Second

// lruMinLen is BUF_LRU_MIN_LEN: the cleaner leaves at least this many
// pages in an instance's LRU.
const lruMinLen = 256

// cleanerWriters is how many of the cleaner's writes may be in flight at
// once, innodb_write_io_threads' default: InnoDB queues a batch's writes
// to asynchronous I/O rather than waiting for each.
const cleanerWriters = 4

// cleanerPasses bounds a round to four times LRUScanDepth scans.
const cleanerPasses = 4

// cleaner is the page cleaner's goroutine: it wakes every second, or when
// a fixer found a free list empty, and tops up every instance's free list
// [buf_flush_page_cleaner_coordinator, buf_flush_LRU_lists].
type cleaner struct {
	wake    chan struct{} // capacity 1: a wake-up pending or not
	stop    chan struct{}
	done    chan struct{}
	writes  chan cleanerWrite // to the writers
	pending sync.WaitGroup    // writes handed to the writers and not done
}

// cleanerWrite is a dirty page a scan pinned, io-fixed and maybe latched
// for one of the cleaner's writers.
type cleanerWrite struct {
	in *instance
	pg *Page
	f  *frame
}

func (p *Pool) startCleaner() {
	c := &cleaner{wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{}),
		writes: make(chan cleanerWrite)}
	p.cleaner = c
	for range cleanerWriters {
		go c.write()
	}
	go p.cleanLoop()
}

// stopping reports whether Close asked the cleaner to stop.
func (c *cleaner) stopping() bool {
	select {
	case <-c.stop:
		return true
	default:
		return false
	}
}

// write is one of the cleaner's writers. A failed write leaves the page
// dirty; the fixer that meets it next reports the error.
func (c *cleaner) write() {
	for w := range c.writes {
		st := w.in.stats.Stripe()
		_ = w.in.flushVictim(w.pg, w.f, st, flushBatch)
		w.in.unfix(w.pg)
		c.pending.Done()
	}
}

// stopCleaner stops the cleaner and waits for its round to end.
func (p *Pool) stopCleaner() {
	if p.cleaner == nil {
		return
	}
	close(p.cleaner.stop)
	<-p.cleaner.done
}

// wakeCleaner asks for a round now without waiting for it
// [buf_LRU_get_free_block: os_event_set(buf_flush_event), in 5.7 after
// the fixer's own scan failed; zipsim wakes it on the first empty free
// list].
func (p *Pool) wakeCleaner() {
	if p.cleaner == nil {
		return
	}
	select {
	case p.cleaner.wake <- struct{}{}:
	default:
	}
}

func (p *Pool) cleanLoop() {
	defer close(p.cleaner.done)
	defer close(p.cleaner.writes)
	t := time.NewTicker(cleanerInterval)
	defer t.Stop()
	for {
		select {
		case <-p.cleaner.stop:
			return
		case <-t.C:
		case <-p.cleaner.wake:
		}
		for _, in := range p.inst {
			if p.cleaner.stopping() {
				return
			}
			in.cleanLRU()
		}
	}
}

// cleanLRU frees pages from the tail of the instance's LRU until
// LRUScanDepth frames are free, the LRU is down to BUF_LRU_MIN_LEN pages
// or Close asks it to stop [buf_flush_LRU_list_batch]. Clean pages go as
// a fixer's victims would; a dirty one is handed to the cleaner's writers
// when the scan finds nothing clean, and the next scans skip it while its
// write is in flight. A pass scans at most LRUScanDepth times and ends
// when its writes are done; the next pass frees the pages written, as
// InnoDB frees an LRU batch's pages when their writes complete, and
// writes more if need be, up to four passes a round. So fixers find
// frames free and write none themselves while holding their latches.
func (in *instance) cleanLRU() {
	for range cleanerPasses {
		if in.cleanPass() {
			return
		}
	}
}

// cleanPass is one pass of cleanLRU. It reports whether the round is
// over: enough frames free, the LRU at its floor, nothing to free or
// write, or the cleaner stopping.
func (in *instance) cleanPass() bool {
	depth := in.pool.opts.LRUScanDepth
	st := in.stats.Stripe()
	c := in.pool.cleaner
	defer c.pending.Wait()
	wrote := false
	for range depth {
		if c.stopping() {
			return true
		}
		in.freeMu.Lock()
		free := len(in.free)
		in.freeMu.Unlock()
		in.lruMu.Lock()
		lruLen := in.lru.Len()
		in.lruMu.Unlock()
		if free >= depth || lruLen <= lruMinLen {
			return true
		}
		freed, flush, f := in.scanAndFree(false, st)
		switch {
		case freed:
			st.Add(cBatchEvict, 1)
		case flush != nil:
			wrote = true
			c.pending.Add(1)
			c.writes <- cleanerWrite{in: in, pg: flush, f: f}
		default:
			return !wrote
		}
	}
	return !wrote
}
