package zipsim

import (
	"context"
	"fmt"

	"github.com/zipsim/zipsim/page"
	"github.com/zipsim/zipsim/storage"
)

// SpaceUsage is where a table's pages go, by component, summed over its
// partitions: what seed 001 compares between COMPACT, DYNAMIC and
// COMPRESSED (innodb_ruby's space-index and space-extents views give the
// same split).
type SpaceUsage struct {
	// PageBytes is what one page takes in the file: the zip size on a
	// compressed table, the page size otherwise (before any transparent
	// compression, which File shows).
	PageBytes int
	// Pages per component.
	ClusteredPages, SecondaryPages, BlobPages, FreePages int64
	// BlobValues counts the off-page values (one chain each).
	BlobValues int64
	// BlobData is what the chains hold: the off-page parts of the values,
	// as one compressed stream each on a compressed table.
	BlobData int64
	// BlobWaste is the chains' payload left empty, mostly the tail of each
	// chain's last page: no two values share a page.
	BlobWaste int64
	// File is the tablespaces' bytes as the file system sees them; with
	// transparent compression AllocatedBytes is below LogicalBytes.
	File storage.Usage
}

// ClusteredBytes is the clustered index's share of the file.
func (u SpaceUsage) ClusteredBytes() int64 { return u.ClusteredPages * int64(u.PageBytes) }

// SecondaryBytes is the secondary indexes' share.
func (u SpaceUsage) SecondaryBytes() int64 { return u.SecondaryPages * int64(u.PageBytes) }

// BlobBytes is the off-page chains' share.
func (u SpaceUsage) BlobBytes() int64 { return u.BlobPages * int64(u.PageBytes) }

// TotalBytes is every page handed out, free ones included: the data file
// without its header page.
func (u SpaceUsage) TotalBytes() int64 {
	return (u.ClusteredPages + u.SecondaryPages + u.BlobPages + u.FreePages) * int64(u.PageBytes)
}

// String prints the usage as one line per component.
func (u SpaceUsage) String() string {
	return fmt.Sprintf("clustered %d pages (%d B)\nsecondary %d pages (%d B)\noff-page  %d pages (%d B): %d values, %d B stored, %d B unused\nfree      %d pages\nfile      %d B logical, %d B allocated",
		u.ClusteredPages, u.ClusteredBytes(), u.SecondaryPages, u.SecondaryBytes(),
		u.BlobPages, u.BlobBytes(), u.BlobValues, u.BlobData, u.BlobWaste,
		u.FreePages, u.File.LogicalBytes, u.File.AllocatedBytes)
}

// Space walks the table and returns its usage by component. Off-page
// chains are followed page by page through the buffer pool, so it reads
// the whole table; it is exact while no write runs.
func (t *Table) Space(ctx context.Context) (SpaceUsage, error) {
	if err := t.live(); err != nil {
		return SpaceUsage{}, err
	}
	u := SpaceUsage{PageBytes: t.sch.pageSize}
	if t.sch.zipSize != 0 {
		u.PageBytes = t.sch.zipSize
	}
	w := getWork()
	defer putWork(w)
	for _, p := range t.parts {
		for j, ix := range p.indexes {
			n := int64(0)
			for _, c := range ix.Stats().PagesPerLevel {
				n += int64(c)
			}
			if j == 0 {
				u.ClusteredPages += n
			} else {
				u.SecondaryPages += n
			}
		}
		_, free := p.alloc.state()
		u.FreePages += int64(len(free))
		fu := p.ts.Usage()
		u.File.Pages += fu.Pages
		u.File.LogicalBytes += fu.LogicalBytes
		u.File.ApparentBytes += fu.ApparentBytes
		u.File.AllocatedBytes += fu.AllocatedBytes
		u.File.Holes += fu.Holes
		if t.sch.anyExt {
			if err := t.blobSpace(ctx, w, p, &u); err != nil {
				return u, fmt.Errorf("zipsim: %s: space: %w", t.name, err)
			}
		}
	}
	return u, nil
}

// blobSpace adds the chains of partition p to u.
func (t *Table) blobSpace(ctx context.Context, w *work, p *partition, u *SpaceUsage) error {
	bs := t.blobs(ctx, w, p)
	payload := page.BlobPayload(t.sch.pageSize)
	if t.sch.zipSize != 0 {
		payload = page.ZBlobPayload(t.sch.zipSize)
	}
	var err error
	scanErr := p.indexes[0].Scan(ctx, nil, nil, false, func(_, val []byte) bool {
		err = t.sch.visitExtern(val, func(_ int, _ []byte, ref page.ExternRef) error {
			pages, stored, err := page.BlobPages(bs, bs.format, ref)
			u.BlobValues++
			u.BlobPages += int64(len(pages))
			u.BlobData += int64(stored)
			u.BlobWaste += int64(len(pages)*payload - stored)
			return err
		})
		return err == nil
	})
	if err != nil {
		return err
	}
	return scanErr
}
