#!/usr/bin/env python3
"""Prints how full the compressed leaves of a MariaDB or zipsim data
directory are, by index: leaves and rows (walking each index's leaf chain,
so that freed pages left in the file do not count), the records per leaf
at the 5th..95th percentiles and by 20-record bucket, and, from each
leaf's zip image, the compressed stream, the uncompressed trailer, the
room its modification log has beside them and the log bytes used since
the page was last compressed (BENCHMARKS.md, T8, "zipsim's old-style arm
compressed B-tree pages 4–5 times less often"). The trailer counts the
dense directory and DB_TRX_ID+DB_ROLL_PTR, not BLOB pointers: tables with
off-page columns read too little trailer and too much log.

A MariaDB ROW_FORMAT=COMPRESSED file's indexes have their roots on pages 3
(PRIMARY), 4, ...; zipsim's on pages 1, 2, ... (--zipsim). Only
KEY_BLOCK_SIZE=8 files are read (ZIP, env, default 8192).

Usage: leaf_fill.py [--zipsim] DATADIR GLOB...
  e.g. leaf_fill.py /tmp/t8old/data/d 'counttable#*.ibd' 'linktable#*.ibd'
       (after SIZES=1 MODES=old DIR=/tmp/t8old mariadb_t8.sh 400000 65M 1 /dev/null)
       leaf_fill.py --zipsim /tmp/zp 'counttable#*.ibd'
       (after zipsim prepare --workload linkbench --row-format compressed --kbs 8 ... /tmp/zp)
"""
import collections
import glob
import os
import statistics
import struct
import sys
import zlib

ZIP = int(os.environ.get("ZIP", "8192"))
FIL_PREV, FIL_NEXT, FIL_TYPE = 8, 12, 24
PH = 38  # the index page header
FIL_PAGE_INDEX, FIL_NULL = 17855, 0xFFFFFFFF
TRX_ROLL, DIR_SLOT = 13, 2


def u16(p, o):
    return struct.unpack(">H", p[o:o + 2])[0]


def u32(p, o):
    return struct.unpack(">I", p[o:o + 4])[0]


def index_id(p):
    return struct.unpack(">Q", p[PH + 28:PH + 36])[0]


def main():
    args = sys.argv[1:]
    zipsim = bool(args) and args[0] == "--zipsim"
    if zipsim:
        args = args[1:]
    if len(args) < 2:
        sys.exit(__doc__)
    # zipsim's FIL header fields sit 4 bytes later (its checksum is 8
    # bytes) and its stream follows a 2-byte length (page/doc.go).
    shift = 4 if zipsim else 0
    stream_at = PH + 56 + (2 if zipsim else 0)
    first_root = 1 if zipsim else 3
    stats = collections.defaultdict(list)
    for pat in args[1:]:
        for path in sorted(glob.glob(os.path.join(args[0], pat))):
            data = open(path, "rb").read()
            table = os.path.basename(path).split("#")[0].split(".")[0]
            pages = {}
            for i in range(len(data) // ZIP):
                p = data[i * ZIP:(i + 1) * ZIP]
                if u16(p, FIL_TYPE + shift) == FIL_PAGE_INDEX:
                    pages[i] = p
            names, k = {}, first_root
            while k in pages and index_id(pages[k]) not in names:
                names[index_id(pages[k])] = "PRIMARY" if k == first_root else f"secondary{k - first_root}"
                k += 1
            for iid, name in names.items():
                leaves = {i: p for i, p in pages.items() if u16(p, PH + 26) == 0 and index_id(p) == iid}
                # A freed leaf may still point into the chain: follow a
                # link only when the next page points back.
                chain = []
                for start in (i for i, p in leaves.items() if u32(p, FIL_PREV + shift) == FIL_NULL):
                    walk, i = [leaves[start]], start
                    while (n := u32(leaves[i], FIL_NEXT + shift)) in leaves and u32(leaves[n], FIL_PREV + shift) == i:
                        walk.append(leaves[n])
                        i = n
                    chain = max(chain, walk, key=len)
                for p in chain:
                    if (r := leaf(p, name == "PRIMARY", stream_at, zipsim)) is not None:
                        stats[f"{table}.{name}"].append(r)
    for key, rows in sorted(stats.items()):
        recs = sorted(r[0] for r in rows)
        n = len(recs)
        pct = " ".join(str(recs[int(n * f)]) for f in (0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95))
        mean = [statistics.mean(c) for c in zip(*rows)]
        print(f"{key}: {n} leaves, {sum(recs)} rows; records a leaf at 5/10/25/50/75/90/95%: {pct}")
        print(f"  by 20 records: {sorted(collections.Counter(r // 20 * 20 for r in recs).items())}")
        print(f"  mean bytes: stream {mean[1]:.0f}, trailer {mean[2]:.0f}, log room {mean[3]:.0f}, log used {mean[4]:.0f}")


def leaf(p, clustered, stream_at, zipsim):
    """records, stream bytes, trailer bytes, log room, log used; None for a
    page whose stream does not end where it should"""
    n_recs = u16(p, PH + 16)
    n_dense = (u16(p, PH + 4) & 0x7FFF) - 2
    if zipsim:
        end = stream_at + u16(p, stream_at - 2)
    else:
        d = zlib.decompressobj()
        try:
            d.decompress(p[stream_at:])
        except zlib.error:
            return None
        if not d.eof:
            return None
        end = len(p) - len(d.unused_data)
    trailer = n_dense * (DIR_SLOT + (TRX_ROLL if clustered else 0))
    log_end = len(p) - trailer
    while log_end > end and p[log_end - 1] == 0:
        log_end -= 1
    return (n_recs, end - stream_at, trailer, len(p) - trailer - 1 - end, max(log_end - end, 0))


if __name__ == "__main__":
    main()
