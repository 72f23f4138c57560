#!/usr/bin/env python3
"""Writes LinkBench's load as SQL for mariadb_t7.sh, in zipsim's shape
(sim/linkbench.go, research/targets.md §2.4): the same degree table, id2 =
id1 + j, link data of lognormal length (median 8 B) and node data (median
128 B) drawn from repeating motifs, random times in a 2^32 ms window.

Link loader i of L gets every L-th chunk of 2,048 id1, the chunks taken
from the highest id down as LinkBench hands them out; it sends its links
in multi-row INSERTs of 1,024 rows and its count rows in batches of 1,024,
each statement its own transaction. The node loader inserts ids 1..n-1 in
batches of 1,024. The rows are zipsim's distributions, not its exact
values (the random streams differ).

The files are latin-1, as LinkBench's tables are: send them with
--default-character-set=latin1.

Usage: linkbench_sql.py MAXID1 LOADERS OUTDIR
"""
import math
import os
import random
import sys

CDF = [0.45, 0.77, 0.88080, 0.91884, 0.93822, 0.95, 0.96172, 0.96946, 0.97488,
       0.97886, 0.98189, 0.98425, 0.98613, 0.98767, 0.98894, 0.99]
ALPHA, DEG_MAX, DEG_CAP = 0.9116, 962_000, 10_000
CHUNK, BATCH = 2048, 1024
LINK_TYPE0, NODE_TYPE, LOAD_END_MS = 123456789, 2048, 1_400_000_000_000


def quantile(u):
    if u <= CDF[-1]:
        for k, f in enumerate(CDF):
            if u <= f:
                return k
    s = 1 - u
    if s <= 0:
        return DEG_MAX
    k = (len(CDF) - 1) * math.pow((1 - CDF[-1]) / s, 1 / ALPHA)
    return min(math.ceil(k - 1e-9), DEG_MAX)


class Motif:
    """Bytes from [lo, hi]: 128-byte pieces, each fresh with probability
    uniqueness, else copied from a shared 512-byte motif."""

    def __init__(self, rnd, lo, hi, uniqueness):
        self.rnd, self.lo, self.hi, self.u = rnd, lo, hi, uniqueness
        self.motif = bytes(rnd.randint(lo, hi) for _ in range(512))

    def fill(self, n):
        out = bytearray()
        while len(out) < n:
            m = min(128, n - len(out))
            if self.rnd.random() < self.u:
                out += bytes(self.rnd.randint(self.lo, self.hi) for _ in range(m))
            else:
                o = self.rnd.randrange(0, 512 - m + 1)
                out += self.motif[o:o + m]
        return out


def lognormal(rnd, median, cap):
    return max(0, min(cap, round(median * math.exp(rnd.gauss(0, 1)))))


def sql_str(b):
    s = b.decode("latin-1").replace("\\", "\\\\").replace("'", "\\'")
    return "'" + s + "'"


def main():
    maxid1, loaders, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    n = maxid1 - 1
    rnd = random.Random(7)
    ranks = list(range(n))
    rnd.shuffle(ranks)
    degree = [min(quantile(1 - r / n), DEG_CAP) for r in ranks]  # degree[id1-1]
    link_data = Motif(rnd, 32, 100, 0.225)
    node_data = Motif(rnd, 50, 220, 0.63)
    chunks = list(range((n + CHUNK - 1) // CHUNK))[::-1]
    files = [open(os.path.join(out, f"loader{i}.sql"), "w", encoding="latin-1") for i in range(loaders)]
    rows = 0
    for ci, c in enumerate(chunks):
        f = files[ci % loaders]
        links, counts = [], []

        def flush_links():
            if links:
                f.write("INSERT INTO linktable (id1,id2,link_type,visibility,data,time,version) VALUES "
                        + ",".join(links) + " ON DUPLICATE KEY UPDATE visibility=VALUES(visibility);\n")
                links.clear()

        def flush_counts():
            if counts:
                f.write("INSERT INTO counttable (id,link_type,count,time,version) VALUES "
                        + ",".join(counts) + " ON DUPLICATE KEY UPDATE count=count+VALUES(count);\n")
                counts.clear()

        for id1 in range(1 + c * CHUNK, min(1 + (c + 1) * CHUNK, n + 1)):
            d = degree[id1 - 1]
            for t in range(2):
                nl = (d + 1) // 2 if t == 0 else d // 2
                if nl == 0:
                    continue
                newest = 0
                for j in range(nl):
                    data = link_data.fill(lognormal(rnd, 8, 255))
                    tm = LOAD_END_MS - (1 << 32) + rnd.randrange(1 << 32)
                    newest = max(newest, tm)
                    links.append(f"({id1},{id1 + j},{LINK_TYPE0 + t},1,{sql_str(data)},{tm},0)")
                    rows += 1
                    if len(links) == BATCH:
                        flush_links()
                counts.append(f"({id1},{LINK_TYPE0 + t},{nl},{newest},0)")
                rows += 1
                if len(counts) == BATCH:
                    flush_counts()
        flush_links()
        flush_counts()
    for f in files:
        f.close()
    with open(os.path.join(out, "node.sql"), "w", encoding="latin-1") as f:
        for lo in range(1, n + 1, BATCH):
            vals = []
            for i in range(lo, min(lo + BATCH, n + 1)):
                data = node_data.fill(min(lognormal(rnd, 128, 1 << 20), 65535))
                vals.append(f"({i},{NODE_TYPE},0,{rnd.randrange(1 << 31)},{sql_str(data)})")
            f.write("INSERT INTO nodetable (id,type,version,time,data) VALUES " + ",".join(vals) + ";\n")
            rows += len(vals)
    print(rows)


if __name__ == "__main__":
    main()
