package btree

import (
	"bytes"
	"context"
	"fmt"

	"github.com/zipsim/zipsim/bufpool"
	"github.com/zipsim/zipsim/page"
)

// ResetSysFields is what purge writes over DB_TRX_ID and DB_ROLL_PTR of a
// record whose history no transaction can see any more: a zero
// transaction id and a roll pointer with only its insert flag set
// [row_purge_reset_trx_id, ROLL_PTR_INSERT_FLAG_POS].
var ResetSysFields = [page.TrxRollLen]byte{6: 0x80}

// checkSys says whether sys can be written as a record's DB_TRX_ID and
// DB_ROLL_PTR in this index.
func (ix *Index) checkSys(sys []byte) error {
	if ix.kind != page.ClusteredLeaf {
		return fmt.Errorf("btree: index %q is not clustered: only clustered records have DB_TRX_ID and DB_ROLL_PTR", ix.o.Name)
	}
	if len(sys) != page.TrxRollLen {
		return fmt.Errorf("btree: index %q: DB_TRX_ID and DB_ROLL_PTR are %d bytes, not %d", ix.o.Name, page.TrxRollLen, len(sys))
	}
	return nil
}

// ResetSys is MariaDB 10.3+'s purge of an insert or an update of key's
// record [row_purge_reset_trx_id, MDEV-12288]: once no read view needs the
// record's history, purge finds the record and, if its DB_TRX_ID and
// DB_ROLL_PTR are still sys (no later write changed it: InnoDB compares
// the roll pointer alone, which differs for every write, so comparing
// both agrees), overwrites them with ResetSysFields. On a compressed leaf
// that is a write to the zip image's uncompressed trailer, with no entry
// in its modification log and no recompression
// [page_zip_write_trx_id_and_roll_ptr]; InnoDB's redo for it is not
// modelled. The leaf is fixed as any write
// fixes it (read and decompressed if it is not in the pool) and marked
// dirty, so its next flush writes it again, which for a transparently
// compressed table means another deflate. It reports whether it reset the
// record; a record deleted or rewritten since is left alone.
func (ix *Index) ResetSys(ctx context.Context, key, sys []byte) (bool, error) {
	if err := ix.checkSys(sys); err != nil {
		return false, err
	}
	g, _, err := ix.leaf(ctx, key, bufpool.Exclusive, cbNone, nil)
	if err != nil {
		return false, err
	}
	defer g.Release()
	p, z := page.IndexPage(g.Frame()), g.Zip()
	slot, found := p.Search(key, bytes.Compare)
	if !found || !bytes.Equal(p.Sys(slot), sys) {
		return false, nil
	}
	if err := p.SetSys(slot, ResetSysFields[:]); err != nil {
		return false, err
	}
	if z != nil {
		if err := z.WriteSys(p, slot); err != nil {
			return false, err
		}
	}
	ix.ctr.Stripe().Add(cSysResets, 1)
	return true, ix.markDirty(&g)
}
