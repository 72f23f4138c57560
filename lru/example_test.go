package lru_test

import (
	"fmt"
	"sync"
	"time"

	"github.com/zipsim/zipsim/lru"
)

// page stands for the buffer pool's page descriptor: it embeds one node per
// list it can be on, and each node points back to it.
type page struct {
	lru lru.Node[*page] // the common LRU
	no  int
}

func newPage(no int) *page {
	pg := &page{no: no}
	pg.lru.Value = pg
	return pg
}

// The calling pattern of the buffer pool: lists change under its mutex, page
// fixes call Access without it and take it only when Access asks. The page
// here is read in, touched twice within innodb_old_blocks_time (a scan), and
// made young only when touched again a second after its first access.
func ExampleMidpoint() {
	var mu sync.Mutex // the pool instance's LRU mutex
	p, err := lru.NewMidpoint[*page](lru.MidpointOptions{PoolPages: 1000})
	if err != nil {
		panic(err)
	}
	now := time.Unix(1_700_000_000, 0)
	evict := func(n *lru.Node[*page]) bool { p.Remove(n, true); return true }

	mu.Lock()
	for i := range 600 {
		p.Add(&newPage(i).lru, now)
	}
	for range 10 { // make room: evict from the tail, which starts the freed-page clock
		p.Scan(1, evict)
	}
	s := p.Stats()
	fmt.Printf("len %d, old %d, freed-page clock %d\n", s.Len, s.OldLen, s.FreedPageClock)
	pg := newPage(600)
	p.Add(&pg.lru, now) // read from storage: inserted after LRU_old
	mu.Unlock()

	for _, d := range []time.Duration{0, 500 * time.Millisecond, time.Second} {
		at := now.Add(d)
		promote := p.Access(&pg.lru, func() time.Time { return at }) // no lock
		if promote {
			mu.Lock()
			p.Promote(&pg.lru, at)
			mu.Unlock()
		}
		fmt.Printf("+%v: promote=%v old=%v\n", d, promote, pg.lru.Old())
	}

	mu.Lock()
	s = p.Stats()
	fmt.Printf("front is page %d; made young %d, not made young %d\n", p.Front().Value.no, s.MadeYoung, s.NotMadeYoung)
	mu.Unlock()
	// Output:
	// len 590, old 231, freed-page clock 10
	// +0s: promote=false old=true
	// +500ms: promote=false old=true
	// +1s: promote=true old=false
	// front is page 600; made young 1, not made young 2
}

// CLOCK never asks for the lock on a hit; the hand gives referenced pages a
// second chance.
func ExampleClock() {
	p := lru.NewClock[*page]()
	pages := make([]*page, 4)
	for i := range pages {
		pages[i] = newPage(i)
		p.Add(&pages[i].lru, time.Time{})
	}
	fmt.Println("promote:", p.Access(&pages[0].lru, time.Now))      // sets page 0's bit
	steps := p.Scan(1, func(*lru.Node[*page]) bool { return true }) // clears it: 1 step, no victim
	var victim *lru.Node[*page]
	p.Scan(0, func(n *lru.Node[*page]) bool { victim = n; p.Remove(n, true); return true })
	fmt.Println("steps:", steps, "victim: page", victim.Value.no)
	// Output:
	// promote: false
	// steps: 1 victim: page 1
}
