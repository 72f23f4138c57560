package page

import (
	"errors"
	"fmt"
)

// Record layout constants, InnoDB's names in brackets.
const (
	// RecHeaderSize is the fixed record header [REC_N_NEW_EXTRA_BYTES]: info
	// bits and n_owned (1 byte), heap_no and status (2), next record (2).
	RecHeaderSize = 5
	// TrxRollLen is DB_TRX_ID + DB_ROLL_PTR [DATA_TRX_ID_LEN + DATA_ROLL_PTR_LEN].
	TrxRollLen = 13
	// NodePtrSize is the child page number in a node pointer [REC_NODE_PTR_SIZE].
	NodePtrSize = 4
	// ExternRefSize is a BLOB reference [BTR_EXTERN_FIELD_REF_SIZE].
	ExternRefSize = 20
	// MaxRecDataLen bounds a record's data; lengths are 15-bit like InnoDB's.
	MaxRecDataLen = 0x7fff
	// MaxExtern bounds the external references of one record.
	MaxExtern = 255
)

// Record status values, stored in the low 3 bits of the heap_no field
// [REC_STATUS_*].
const (
	statusOrdinary = 0
	statusNodePtr  = 1
	statusInfimum  = 2
	statusSupremum = 3
)

// Info bits, stored in the high nibble of the first header byte.
const (
	infoDeleted = 0x20 // REC_INFO_DELETED_FLAG: delete-marked, still in the directory
	infoMinRec  = 0x10 // REC_INFO_MIN_REC_FLAG: reserved, zipsim does not use it
)

// Record is the content of an index record as callers see it. What a field
// means depends on the page:
//
//   - clustered leaf: Key, then Sys (DB_TRX_ID, DB_ROLL_PTR), then Value,
//     whose last 20×NExt bytes are references to off-page columns;
//   - secondary leaf: Key, then Value (usually empty: InnoDB's secondary
//     records are all key);
//   - node page: Key (a key prefix), then Child, the child page number.
type Record struct {
	Key   []byte
	Value []byte
	// Sys is DB_TRX_ID+DB_ROLL_PTR on clustered leaves, 13 bytes. nil means
	// zeros for Insert and "keep the stored bytes" for updates.
	Sys   []byte
	NExt  int    // clustered leaves: BLOB references at the end of Value
	Child uint32 // node pages
	// DeleteMarked is the record's delete mark (REC_INFO_DELETED_FLAG): set
	// by a DELETE, cleared when the row is reinserted, removed by purge.
	DeleteMarked bool
}

// Kind says which trailer fields a page's records carry. It follows from the
// page's level and its index being clustered.
type Kind uint8

// Page kinds.
const (
	ClusteredLeaf Kind = iota // records carry DB_TRX_ID, DB_ROLL_PTR and BLOB references
	SecondaryLeaf             // records are key (and optional value) only
	NodePage                  // records are key prefix + child page number
)

// String names the kind.
func (k Kind) String() string {
	switch k {
	case ClusteredLeaf:
		return "clustered leaf"
	case SecondaryLeaf:
		return "secondary leaf"
	case NodePage:
		return "node"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// TrailerLen is the number of uncompressed bytes a zip image keeps per record
// besides its directory slot [page_zip_get_trailer_len without the slot]:
// 13 on clustered leaves, 4 on node pages, 0 on secondary leaves.
func (k Kind) TrailerLen() int {
	switch k {
	case ClusteredLeaf:
		return TrxRollLen
	case NodePage:
		return NodePtrSize
	}
	return 0
}

// ErrRecord reports a Record that does not suit the page it is meant for.
var ErrRecord = errors.New("page: invalid record")

// varLen returns how many bytes a length takes in the extra bytes: 1 below
// 128, else 2, as InnoDB's variable-length field lengths.
func varLen(v int) int {
	if v < 128 {
		return 1
	}
	return 2
}

// extraLen is the size of a record's extra bytes before its 5-byte header:
// the data length, then (leaves) the key length, then (clustered leaves) the
// number of external references. InnoDB derives the same information from
// the index definition and the variable-length field lengths.
func extraLen(k Kind, dataLen, keyLen int) int {
	n := varLen(dataLen)
	if k != NodePage {
		n += varLen(keyLen)
	}
	if k == ClusteredLeaf {
		n++
	}
	return n
}

// dataLenOf returns the data length of r on a page of kind k.
func dataLenOf(k Kind, r *Record) int {
	switch k {
	case ClusteredLeaf:
		return len(r.Key) + TrxRollLen + len(r.Value)
	case SecondaryLeaf:
		return len(r.Key) + len(r.Value)
	}
	return len(r.Key) + NodePtrSize
}

// RecordSize returns the bytes a record takes on a page of kind k: extra
// bytes, header and data [rec_offs_size]. This is the length InnoDB passes to
// page_zip_available and compares with free space.
func RecordSize(k Kind, keyLen, valueLen int) int {
	var d int
	switch k {
	case ClusteredLeaf:
		d = keyLen + TrxRollLen + valueLen
	case SecondaryLeaf:
		d = keyLen + valueLen
	default:
		d = keyLen + NodePtrSize
	}
	return extraLen(k, d, keyLen) + RecHeaderSize + d
}

// checkRecord validates r for a page of kind k and returns its data length.
func checkRecord(k Kind, r *Record) (int, error) {
	d := dataLenOf(k, r)
	if d > MaxRecDataLen {
		return 0, fmt.Errorf("%w: data of %d bytes exceeds %d", ErrRecord, d, MaxRecDataLen)
	}
	switch k {
	case ClusteredLeaf:
		if r.Sys != nil && len(r.Sys) != TrxRollLen {
			return 0, fmt.Errorf("%w: Sys must be %d bytes (DB_TRX_ID+DB_ROLL_PTR), got %d", ErrRecord, TrxRollLen, len(r.Sys))
		}
		if r.NExt < 0 || r.NExt > MaxExtern || r.NExt*ExternRefSize > len(r.Value) {
			return 0, fmt.Errorf("%w: %d external references do not fit a %d-byte value (at most %d, 20 bytes each)", ErrRecord, r.NExt, len(r.Value), MaxExtern)
		}
	case SecondaryLeaf:
		if r.NExt != 0 || r.Sys != nil {
			return 0, fmt.Errorf("%w: secondary index records have no Sys or external references", ErrRecord)
		}
	case NodePage:
		if r.NExt != 0 || r.Sys != nil || r.Value != nil {
			return 0, fmt.Errorf("%w: node pointers hold only a key and a child page number", ErrRecord)
		}
	}
	return d, nil
}

// putVarBack stores v ending just below pos and returns the new low position.
// A two-byte length puts its flagged high byte nearer the header, so it is
// read first when scanning backwards, as InnoDB's.
func putVarBack(b []byte, pos, v int) int {
	if v < 128 {
		b[pos-1] = byte(v)
		return pos - 1
	}
	b[pos-1] = byte(0x80 | v>>8)
	b[pos-2] = byte(v)
	return pos - 2
}

// getVarBack reads a length ending just below pos, never reading below lo.
func getVarBack(b []byte, pos, lo int) (v, npos int, ok bool) {
	if pos-1 < lo {
		return 0, pos, false
	}
	c := int(b[pos-1])
	if c < 128 {
		return c, pos - 1, true
	}
	if pos-2 < lo {
		return 0, pos, false
	}
	return (c&0x7f)<<8 | int(b[pos-2]), pos - 2, true
}
