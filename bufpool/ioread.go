package bufpool

// Reads in flight [io_fix = BUF_IO_READ]. A page is published in the page
// hash before its block is read, so that a second fixer finds it instead of
// reading it again; until the read is done the reader holds the page's io
// mutex and the ioRead bit is set in its fix count. A fixer that pinned
// the page and sees the bit waits on the io mutex, as InnoDB's fixers wait
// for io_fix to leave BUF_IO_READ [buf_page_get_zip, buf_wait_for_read].
// Fixers that latch a frame need not look: the reader of a page with a
// frame holds its latch as well. The bit also counts as a pin, so eviction,
// relocation and DropSpace leave the page alone meanwhile.

// beginRead marks pg's read in flight. pg must not be published yet, so
// that no one else holds its io mutex.
func beginRead(pg *Page) {
	pg.io.Lock()
	pg.fix.Or(ioRead)
}

// endRead ends pg's read, after its block is in or after drop has
// orphaned it, and wakes the fixers waiting for it.
func endRead(pg *Page) {
	pg.fix.Add(-ioRead)
	pg.io.Unlock()
}

// awaitRead waits until a read of pinned pg in flight is done and reports
// whether the page may be used: false when its read failed, and the
// caller must unfix it and look it up again. Once the bit is seen clear,
// the block's bytes are visible (the atomic orders them, as the io mutex
// does for a waiter).
func awaitRead(pg *Page) bool {
	v := pg.fix.Load()
	if v&(ioRead|orphan) == 0 {
		return true
	}
	if v&ioRead != 0 {
		pg.io.Lock() // held by the reader until the block is in
		pg.io.Unlock()
	}
	return pg.fix.Load()&orphan == 0
}
