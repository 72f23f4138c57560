package btree

import (
	"bytes"
	"context"

	"github.com/zipsim/zipsim/bufpool"
	"github.com/zipsim/zipsim/page"
)

// This file is the index lock's SX mode (Options.SXIndexLock), MySQL
// 5.7's and MariaDB 10.2+'s: a structure change takes the index lock SX,
// which excludes other structure changes but not the searches that hold
// it shared, so it neither waits for them to drain nor stops new ones.
// Searches are then kept off a half-done change by page latches alone:
// they couple their latches top-down, and the change latches exclusively,
// top-down and before it changes anything, every page it may change, and
// keeps them until it ends [btr_cur_search_to_nth_level, BTR_MODIFY_TREE:
// mtr_sx_lock of the index lock, btr_cur_will_modify_tree,
// btr_cur_latch_leaves; MariaDB btr_cur_t::search_leaf].
//
// Nothing takes the lock exclusively in SX mode but BulkLoad, so SX is
// modelled as a mutex of its own beside the rw-lock that searches take
// shared: with no exclusive holder the two behave as one rw-lock with an
// SX mode. The mutex counts under the index lock's name.

// treeIntent is what a structure change may do to the node pages above
// its leaf [btr_intention_t].
type treeIntent uint8

const (
	intentInsert treeIntent = 1 << iota // a split adds node pointers
	intentDelete                        // a merge or discard removes them
	intentBoth   = intentInsert | intentDelete
)

// heldPage is a page a structure change latched exclusively in advance.
type heldPage struct {
	no uint32
	g  bufpool.Guard
}

// lockTree takes the index lock for a structure change: exclusively, or
// SX in SX mode.
func (ix *Index) lockTree() {
	if ix.o.SXIndexLock {
		ix.sx.Lock()
		return
	}
	ix.lock.Lock()
}

// unlockTree releases what lockTree took, after endTree.
func (ix *Index) unlockTree() {
	if ix.o.SXIndexLock {
		ix.sx.Unlock()
		return
	}
	ix.lock.Unlock()
}

// endTree releases the pages a structure change latched in SX mode, as
// InnoDB's mini-transaction commit does.
func (ix *Index) endTree() {
	if !ix.o.SXIndexLock {
		return
	}
	// A freed page keeps the records a merge copied away: its adaptive
	// hash guesses must go before its latch does, or a read could find a
	// row there after a write changed it in its new page.
	for _, no := range ix.freed {
		if g, ok := ix.holding(no); ok {
			g.HashInfo().Store(0)
		}
	}
	ix.releaseHeld()
	ix.inTree = false
	for _, no := range ix.freed {
		ix.giveBack(no)
	}
	ix.freed = ix.freed[:0]
}

// releaseHeld releases the pages a structure change latched.
func (ix *Index) releaseHeld() {
	for i := range ix.held {
		ix.held[i].g.Release()
		ix.held[i] = heldPage{}
	}
	ix.held = ix.held[:0]
}

// lockStructure keeps structure changes out while the caller reads the
// tree's shape (Check, Open's walk): the lock shared, or SX in SX mode,
// where shared does not exclude them.
func (ix *Index) lockStructure() {
	if ix.o.SXIndexLock {
		ix.sx.Lock()
		return
	}
	ix.lock.RLock()
}

func (ix *Index) unlockStructure() {
	if ix.o.SXIndexLock {
		ix.sx.Unlock()
		return
	}
	ix.lock.RUnlock()
}

// holding returns the guard of pageNo if the structure change latched it.
func (ix *Index) holding(pageNo uint32) (*bufpool.Guard, bool) {
	for i := range ix.held {
		if ix.held[i].no == pageNo {
			return &ix.held[i].g, true
		}
	}
	return nil, false
}

// hold latches pageNo exclusively until endTree and returns a borrowed
// guard of it.
func (ix *Index) hold(ctx context.Context, pageNo uint32) (bufpool.Guard, error) {
	if g, ok := ix.holding(pageNo); ok {
		return g.Borrow(), nil
	}
	g, err := ix.fix(ctx, pageNo, bufpool.Exclusive)
	if err != nil {
		return g, err
	}
	ix.held = append(ix.held, heldPage{no: pageNo, g: g})
	return g.Borrow(), nil
}

// fixTree fixes a page for a structure change: the change's own latch
// when it holds the page, else a new fix. In SX mode an exclusive fix of
// a page not latched in advance is kept to the end of the change like the
// others, and counted: it means the change misjudged which pages it could
// touch, and it latched a page after pages below it, which a search
// coupling latches down through it could deadlock against.
func (ix *Index) fixTree(ctx context.Context, pageNo uint32, mode bufpool.Mode) (bufpool.Guard, error) {
	if g, ok := ix.holding(pageNo); ok {
		return g.Borrow(), nil
	}
	if !ix.o.SXIndexLock || mode == bufpool.Shared {
		return ix.fix(ctx, pageNo, mode)
	}
	ix.ctr.Add(cLatchMisses, 1)
	return ix.hold(ctx, pageNo)
}

// keepNew hands a page a structure change created to the pages it holds
// until endTree in SX mode, and returns the guard to use meanwhile.
func (ix *Index) keepNew(pageNo uint32, g bufpool.Guard) bufpool.Guard {
	if !ix.o.SXIndexLock {
		return g
	}
	ix.held = append(ix.held, heldPage{no: pageNo, g: g})
	return g.Borrow()
}

// latchTree is seekLeafX in SX mode. A first descent, with shared latches
// released level by level (the SX lock keeps node pages as they are),
// finds the path and the highest page the change may touch: the lowest
// node page that will not split or merge whatever happens below it, or
// the root. The second pass latches exclusively that page and every page
// of the path below it, each node page that may split or merge together
// with its siblings, and at the leaf level the left sibling, the leaf and
// the right sibling, in that order, as btr_cur_latch_leaves does.
func (ix *Index) latchTree(ctx context.Context, key []byte, intent treeIntent) (leafPos, error) {
	ix.inTree = true
	for {
		keyLen := ix.maxKeyLen()
		lp, err := ix.latchTreeFor(ctx, key, intent, keyLen)
		// A longer key may have reached the leaf between the passes: it
		// was noted before it went in, so once the leaf is latched the
		// estimate holds for every key the change can move up.
		if err != nil {
			return lp, err
		}
		if ix.afterTreePass != nil {
			ix.afterTreePass()
		}
		if ix.maxKeyLen() == keyLen {
			ix.ctr.Add(cTreeLatches, uint64(len(ix.held)))
			return lp, nil
		}
		ix.releaseHeld()
	}
}

// latchTreeFor is latchTree with node pointers judged for keys of keyLen
// bytes.
func (ix *Index) latchTreeFor(ctx context.Context, key []byte, intent treeIntent, keyLen int) (leafPos, error) {
	path := ix.xPath[:0]
	top := 0 // index in path of the highest page to latch
	pageNo := ix.root
	var prev, next uint32
	for l := int(ix.height.Load()) - 1; ; l-- {
		path = append(path, pageNo)
		g, err := ix.fix(ctx, pageNo, bufpool.Shared)
		if err != nil {
			return leafPos{}, err
		}
		p := page.IndexPage(g.Frame())
		if l == 0 {
			prev, next = p.Fil().Prev(), p.Fil().Next()
			g.Release()
			break
		}
		if len(path) > 1 && !ix.willModify(p, intent, keyLen) {
			top = len(path) - 1
		}
		pageNo = p.Child(nodeSlot(p, key))
		g.Release()
	}
	ix.xPath = path[:0]
	leaf := len(path) - 1
	for i := top; i < leaf; i++ {
		g, err := ix.hold(ctx, path[i])
		if err != nil {
			return leafPos{}, err
		}
		if i == top {
			continue // it takes or loses a pointer but keeps its place
		}
		f := page.IndexPage(g.Frame()).Fil()
		for _, sib := range [2]uint32{f.Prev(), f.Next()} {
			if sib == page.FilNull {
				continue
			}
			if _, err := ix.hold(ctx, sib); err != nil {
				return leafPos{}, err
			}
		}
	}
	if prev != page.FilNull {
		if _, err := ix.hold(ctx, prev); err != nil {
			return leafPos{}, err
		}
	}
	g, err := ix.hold(ctx, path[leaf])
	if err != nil {
		return leafPos{}, err
	}
	if next != page.FilNull {
		if _, err := ix.hold(ctx, next); err != nil {
			return leafPos{}, err
		}
	}
	lp := leafPos{path: path, g: g, p: page.IndexPage(g.Frame()), z: g.Zip()}
	lp.slot, lp.found = lp.p.Search(key, bytes.Compare)
	return lp, nil
}

// willModify is btr_cur_will_modify_tree for a node page below the root:
// whether a change below it may make it split (it must take up to two
// node pointers of keyLen-byte keys: a split can repeat on the half that
// takes the record) or merge (it may lose one). A compressed page is
// judged by the worst compression, page_zip_empty_size, as InnoDB does.
func (ix *Index) willModify(p page.IndexPage, intent treeIntent, keyLen int) bool {
	ptr := page.RecordSize(page.NodePage, keyLen, 0)
	if intent&intentDelete != 0 {
		if p.NRecs() <= 2 || p.DataSize()-2*ptr < ix.mergeLimit() {
			return true
		}
	}
	if intent&intentInsert != 0 {
		room := p.MaxInsertSizeAfterReorganize()
		if room < ix.pageSize/32+ptr || room < 2*ptr {
			return true
		}
		if ix.zip != 0 && page.EmptySize(ix.o.Fields, ix.zip) < 2*ptr+p.DataSize()+dirReserved(p.NRecs()+2)+1 {
			return true
		}
	}
	return false
}

// maxKeyLen is the longest key a node pointer of the index may carry:
// the longest key written, or found on any page when the index was
// opened, or Options.MaxKeyLen if that is longer (it is not enforced on
// writes, and the root package's counts a string column's bytes before
// their escapes). Only the SX mode asks; its Open is sure to read every
// leaf's keys, and Check holds keys to this bound in that mode alone.
func (ix *Index) maxKeyLen() int {
	return max(ix.o.MaxKeyLen, int(ix.keyMax.Load()))
}

// noteKey records the length of a key written to the index.
func (ix *Index) noteKey(n int) {
	for {
		old := ix.keyMax.Load()
		if int32(n) <= old || ix.keyMax.CompareAndSwap(old, int32(n)) {
			return
		}
	}
}
