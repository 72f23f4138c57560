#!/usr/bin/env python3
"""Times C zlib's deflate (Python's zlib, the system's libz) on B-tree leaf
pages taken from a MariaDB data directory's .ibd files, as T8's write-up
compares with czlib's speed (BENCHMARKS.md, T8): up to PER_FILE (env,
default 25) leaf pages
(FIL_PAGE_INDEX at level 0 with more than 10 records) from the first
eight linktable and four counttable partitions, each deflated at level 6
with compress2's parameters (windowBits 15, memLevel 8: MariaDB's
page_compressed) and page_zip_compress's (14, 9), the state built per
page as compress2 builds it; the best of five rounds. Writes the pages
to OUT for other codecs to time on the same bytes.

With --zipsim ZIPSIM (the zipsim binary) DATADIR is a zipsim prepare
directory instead, whose pages are not InnoDB's byte for byte: the leaves
are those `zipsim inspect --space-map` lists as INDEX at level 0.

Usage: leaf_deflate.py [--zipsim ZIPSIM] DATADIR OUT
  (DATADIR: mariadb_t8.sh's DIR/data/d after a u load, e.g. SIZES=1
  MODES=u DIR=/tmp/t8u mariadb_t8.sh ...; or zipsim prepare's directory)
"""
import glob
import os
import struct
import subprocess
import sys
import time
import zlib

PAGE = 16384
PER_FILE = int(os.environ.get("PER_FILE", "25"))
FIL_PAGE_TYPE, FIL_PAGE_INDEX = 24, 17855
PAGE_N_HEAP, PAGE_LEVEL = 38 + 4, 38 + 26


def leaves(path):
    data = open(path, "rb").read()
    for i in range(len(data) // PAGE):
        p = data[i * PAGE:(i + 1) * PAGE]
        if (struct.unpack(">H", p[FIL_PAGE_TYPE:FIL_PAGE_TYPE + 2])[0] == FIL_PAGE_INDEX
                and struct.unpack(">H", p[PAGE_LEVEL:PAGE_LEVEL + 2])[0] == 0
                and struct.unpack(">H", p[PAGE_N_HEAP:PAGE_N_HEAP + 2])[0] & 0x7FFF > 10):
            yield p


def zipsim_leaves(zipsim, path):
    """The pages zipsim's space map lists as INDEX at level 0 with more
    than 10 records: PAGE TYPE INDEX (k) LEVEL RECORDS ..."""
    data = open(path, "rb").read()
    listing = subprocess.run([zipsim, "inspect", "--space-map", path], capture_output=True, text=True, check=True).stdout
    for line in listing.splitlines():
        w = line.split()
        if len(w) >= 6 and w[0].isdigit() and w[1] == "INDEX" and w[4] == "0" and w[5].isdigit() and int(w[5]) > 10:
            i = int(w[0])
            yield data[i * PAGE:(i + 1) * PAGE]


def main():
    args = sys.argv[1:]
    zipsim = None
    if args[0] == "--zipsim":
        zipsim, args = args[1], args[2:]
    datadir, out = args
    sep = "#p#p" if zipsim else "#P#p"
    files = (sorted(glob.glob(os.path.join(datadir, f"linktable{sep}*.ibd")))[:8]
             + sorted(glob.glob(os.path.join(datadir, f"counttable{sep}*.ibd")))[:4])
    pages = []
    for f in files:
        for n, p in enumerate(zipsim_leaves(zipsim, f) if zipsim else leaves(f)):
            if n == PER_FILE:
                break
            pages.append(p)
    with open(out, "wb") as f:
        f.write(b"".join(pages))
    print(f"{len(pages)} leaf pages from {len(files)} files into {out}")
    for wbits, mem, name in [(15, 8, "compress2's parameters"), (14, 9, "page_zip_compress's")]:
        best, size = None, 0
        for _ in range(5):
            t, size = time.perf_counter(), 0
            for p in pages:
                c = zlib.compressobj(6, zlib.DEFLATED, wbits, mem)
                size += len(c.compress(p) + c.flush())
            d = (time.perf_counter() - t) / len(pages)
            best = d if best is None else min(best, d)
        print(f"zlib {zlib.ZLIB_RUNTIME_VERSION}, {name}: {best * 1e6:.1f} us a page, ratio {size / len(pages) / PAGE:.3f}")


if __name__ == "__main__":
    main()
