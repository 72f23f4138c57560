package page

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// Region is a named byte range [Start, End) of a page image, for dumps in
// the manner of innodb_ruby's page views.
type Region struct {
	Name       string
	Start, End int
	Note       string // what the bytes hold: counts, lengths, links
}

// Regions splits a stored page image of a tablespace with pageSize pages
// and zipSize blocks (0 when uncompressed) into named regions: an index
// page, a zip image (decompressed with env's codec into a scratch page to
// find its modification log), a BLOB or ZBLOB page. Images that do not
// parse are an error naming the page, never a panic.
func Regions(b []byte, pageSize, zipSize int, env Env) ([]Region, error) {
	if len(b) < FilHeaderSize {
		return nil, fmt.Errorf("page: image of %d bytes is shorter than the FIL header", len(b))
	}
	f := Fil(b)
	fil := Region{"FIL header", 0, FilHeaderSize, fmt.Sprintf("page %d, type %v, prev %s, next %s, space %d",
		f.PageNo(), f.Type(), link(f.Prev()), link(f.Next()), f.SpaceID())}
	switch t := f.Type(); {
	case t == TypeIndex && zipSize == 0:
		if err := CheckPageSize(len(b)); err != nil || len(b) != pageSize {
			return nil, fmt.Errorf("page: index page image of %d bytes in a space of %d-byte pages", len(b), pageSize)
		}
		return indexRegions(IndexPage(b), fil)
	case t == TypeIndex:
		if len(b) != zipSize {
			return nil, fmt.Errorf("page: zip image of %d bytes in a space of %d-byte blocks", len(b), zipSize)
		}
		return zipRegions(b, pageSize, fil, env)
	case t == TypeBlob:
		part, next, err := ParseBlobPage(b)
		if err != nil {
			return nil, err
		}
		end := blobData + len(part)
		return []Region{fil,
			{"BLOB header", blobPartLen, blobData, fmt.Sprintf("part of %d bytes, next page %s", len(part), link(next))},
			{"BLOB data", blobData, end, ""},
			{"unused", end, len(b) - FilTrailerSize, ""},
			{"FIL trailer", len(b) - FilTrailerSize, len(b), ""}}, nil
	case t == TypeZBlob || t == TypeZBlob2:
		chunk, _, err := ParseZBlobPage(b, t == TypeZBlob)
		if err != nil {
			return nil, err
		}
		end := FilHeaderSize + len(chunk)
		return []Region{fil,
			{"compressed stream piece", FilHeaderSize, end, fmt.Sprintf("%d bytes", len(chunk))},
			{"unused", end, len(b), ""}}, nil
	default:
		return []Region{fil, {"body", FilHeaderSize, len(b), ""}}, nil
	}
}

// link formats a page link.
func link(n uint32) string {
	if n == FilNull {
		return "none"
	}
	return fmt.Sprint(n)
}

func indexRegions(p IndexPage, fil Region) ([]Region, error) {
	if errs := p.Check(bytes.Compare); len(errs) > 0 {
		return nil, &CorruptError{PageNo: p.PageNo(), Reason: errs[0].Error()}
	}
	dir := p.dirStart()
	return []Region{fil,
		{"index header", PageHeader, PageData, fmt.Sprintf("index %d, level %d, %d records, heap %d, garbage %d bytes", p.IndexID(), p.Level(), p.NRecs(), p.NHeap(), p.Garbage())},
		{"infimum and supremum", PageData, HeapStart, ""},
		{"record heap", HeapStart, p.HeapTop(), fmt.Sprintf("%d bytes of live records", p.DataSize())},
		{"free space", p.HeapTop(), dir, ""},
		{"page directory", dir, len(p) - FilTrailerSize, fmt.Sprintf("%d slots of 2 bytes", p.NRecs())},
		{"FIL trailer", len(p) - FilTrailerSize, len(p), ""}}, nil
}

func zipRegions(b []byte, pageSize int, fil Region, env Env) ([]Region, error) {
	z, err := NewZip(b)
	if err != nil {
		return nil, err
	}
	if err := CheckZipSize(pageSize, len(b)); err != nil {
		return nil, err
	}
	scratch := make([]byte, pageSize)
	if err := z.Decompress(scratch, Env{Codec: env.Codec}); err != nil {
		return nil, err
	}
	p := IndexPage(scratch)
	k := z.kind()
	dense := len(b) - z.nDense()*dirSlotSize
	cols := dense - z.nDense()*k.TrailerLen()
	blobs := cols - z.nBlobs*ExternRefSize
	streamLen := int(binary.BigEndian.Uint16(b[zipStreamLen:]))
	colNote := map[Kind]string{ClusteredLeaf: "DB_TRX_ID and DB_ROLL_PTR", NodePage: "child page numbers", SecondaryLeaf: "none"}[k]
	return []Region{fil,
		{"index header", PageHeader, PageData, fmt.Sprintf("index %d, level %d, %d records, heap %d", p.IndexID(), p.Level(), p.NRecs(), p.NHeap())},
		{"stream length", zipStreamLen, zipStream, fmt.Sprintf("%d bytes", streamLen)},
		{"compressed records", zipStream, z.mStart, fmt.Sprintf("%d records in heap order, headers and uncompressed fields left out", z.nDense())},
		{"modification log", z.mStart, z.mEnd + 1, fmt.Sprintf("%d bytes and the ending 0", z.mEnd-z.mStart)},
		{"free space", z.mEnd + 1, blobs, ""},
		{"BLOB pointers", blobs, cols, fmt.Sprintf("%d references of 20 bytes", z.nBlobs)},
		{"uncompressed columns", cols, dense, fmt.Sprintf("%s, %d bytes per record", colNote, k.TrailerLen())},
		{"dense directory", dense, len(b), fmt.Sprintf("%d slots of 2 bytes", z.nDense())}}, nil
}
