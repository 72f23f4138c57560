package bufpool

import (
	"fmt"

	"github.com/zipsim/zipsim/page"
)

// inflate fills frame f from pg's zip block by its FIL page type
// [buf_zip_decompress]. An index page is decompressed: one UNCOMPRESS_OPS,
// counted for the eviction heuristic too (page_zip_decompress does
// buf_LRU_stat_inc_unzip). A page InnoDB stores in a zip block as it is
// (ALLOCATED, FSP_HDR, ZBLOB, ZBLOB2) is copied to the start of the frame,
// the rest zeroed, which is no decompression; its descriptor is reset, so
// that it describes no index page until one is compressed into the block
// (a freed BLOB page reused as a B-tree page). Any other type is corrupt,
// as InnoDB's "unknown compressed page type". It reports whether it
// decompressed.
func (in *instance) inflate(pg *Page, f *frame) (bool, error) {
	switch typ := page.Fil(pg.zip).Type(); typ {
	case page.TypeIndex:
		if err := pg.zipd.Decompress(f.buf, pg.space.env); err != nil {
			return false, err
		}
		in.pool.stat.unzip()
		return true, nil
	case page.TypeAllocated, page.TypeFSPHeader, page.TypeZBlob, page.TypeZBlob2:
		clear(f.buf[copy(f.buf, pg.zip):])
		return false, pg.zipd.Init(pg.zip)
	default:
		return false, &page.CorruptError{PageNo: pg.id.PageNo, Reason: fmt.Sprintf("zip block of type %v, neither an index page nor a type stored as is", typ)}
	}
}
