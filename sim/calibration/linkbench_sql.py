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

With --requests it writes LinkBench's request phase instead (T6): for
each requester a file of reads only, to warm the pool, and a file of the
operation mix (research/targets.md §2.4: the mix, Zipf-distributed ids
over shuffled orders, id2 drawn as LinkBench's ID2Chooser and zipsim's
id2Range draw it, addlink and deletelink as transactions that change
counttable when they add or hide a link), and prints the statements an operation sends on
average, so that a server's statement rate converts to operations.

Usage: linkbench_sql.py MAXID1 LOADERS OUTDIR
       linkbench_sql.py --requests MAXID1 REQUESTERS OPS OUTDIR
"""
import bisect
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


def degrees(rnd, n):
    """The loaded degree of each id1 (index id1-1) and the id1 of each
    degree rank (0 the largest)."""
    ranks = list(range(n))
    rnd.shuffle(ranks)
    by_rank = [0] * n
    for i, r in enumerate(ranks):
        by_rank[r] = i + 1
    return [min(quantile(1 - r / n), DEG_CAP) for r in ranks], by_rank


def load(maxid1, loaders, out):
    n = maxid1 - 1
    rnd = random.Random(7)
    degree, _ = degrees(rnd, n)
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


class Zipf:
    """Ranks 0..n-1 with P(k) proportional to 1/(k+1)^shape, mapped to ids
    through a shuffled order so that hot ids are scattered."""

    def __init__(self, rnd, n, shape):
        acc, self.cum = 0.0, []
        for k in range(n):
            acc += 1 / (k + 1) ** shape
            self.cum.append(acc)
        self.ids = list(range(1, n + 1))
        rnd.shuffle(self.ids)

    def rank(self, rnd):
        return bisect.bisect_left(self.cum, rnd.random() * self.cum[-1])

    def id(self, rnd):
        return self.ids[self.rank(rnd)]


READS = [("getlinklist", 50.71), ("getnode", 12.93), ("countlink", 4.89), ("getlink", 0.53)]
WRITES = [("addlink", 8.99), ("updatelink", 8.01), ("updatenode", 7.37), ("deletelink", 2.99),
          ("addnode", 2.57), ("deletenode", 1.01)]
LINK_COLS = "id1,id2,link_type,visibility,data,time,version"


def requests(maxid1, requesters, ops, out):
    """Writes warmR.sql (LinkBench's reads only) and mixR.sql (its mix)
    for each requester R, ops operations each, and prints the mean number
    of statements an operation of the mix sends."""
    n = maxid1 - 1
    rnd = random.Random(7)
    degree, by_rank = degrees(rnd, n)
    link_data = Motif(rnd, 32, 100, 0.225)
    node_data = Motif(rnd, 50, 220, 0.63)
    link_read, link_write = Zipf(rnd, n, 0.8), Zipf(rnd, n, 0.741)
    node_read, node_update = Zipf(rnd, n, 0.625), Zipf(rnd, n, 0.606)
    now = LOAD_END_MS

    def read_id1(rng):
        return link_read.id(rng) if rng.random() < 0.995 else by_rank[link_read.rank(rng)]

    def write_id1(rng):
        return link_write.id(rng) if rng.random() < 0.95 else by_rank[link_write.rank(rng)]

    def id2_range(loaded, p):
        # LinkBench's ID2Chooser.calcID2Range, as zipsim's id2Range: the
        # offsets to draw from so that a link exists with probability p.
        return max(1, math.ceil(loaded / p))

    def loaded(id1, t):
        d = degree[id1 - 1]
        return (d + 1) // 2 if t == 0 else d // 2

    def op_sql(rng, op, r, seq):
        t = rng.randrange(2)
        typ = LINK_TYPE0 + t
        if op == "getlinklist":
            id1 = read_id1(rng)
            return [f"SELECT {LINK_COLS} FROM linktable FORCE INDEX (id1_type) WHERE id1={id1} AND link_type={typ} "
                    f"AND visibility=1 ORDER BY time DESC LIMIT 10000;"]
        if op == "getnode":
            return [f"SELECT id,type,version,time,data FROM nodetable WHERE id={node_read.id(rng)};"]
        if op == "countlink":
            return [f"SELECT count FROM counttable WHERE id={read_id1(rng)} AND link_type={typ};"]
        if op == "getlink":
            id1 = read_id1(rng)
            k = 1
            while k < 128 and rng.random() > 0.382:
                k += 1
            span = id2_range(loaded(id1, t), 0.5)
            id2s = ",".join(str(id1 + rng.randrange(span)) for _ in range(k))
            return [f"SELECT {LINK_COLS} FROM linktable WHERE link_type={typ} AND id1={id1} AND id2 IN ({id2s});"]
        if op in ("addlink", "updatelink"):
            id1 = write_id1(rng)
            id2 = id1 + rng.randrange(id2_range(loaded(id1, t), 0.05 if op == "addlink" else 0.9))
            data = sql_str(link_data.fill(lognormal(rng, 8, 255)))
            # counttable changes only when the link is new (ROW_COUNT 1).
            return ["BEGIN;",
                    f"INSERT INTO linktable ({LINK_COLS}) VALUES ({id1},{id2},{typ},1,{data},{now},0) "
                    f"ON DUPLICATE KEY UPDATE visibility=1, data=VALUES(data), time=VALUES(time), version=version+1;",
                    "SET @n = ROW_COUNT();",
                    f"INSERT INTO counttable (id,link_type,count,time,version) SELECT {id1},{typ},1,{now},0 FROM DUAL WHERE @n = 1 "
                    f"ON DUPLICATE KEY UPDATE count=count+1, time=VALUES(time), version=version+1;",
                    "COMMIT;"]
        if op == "deletelink":
            id1 = write_id1(rng)
            id2 = id1 + rng.randrange(id2_range(loaded(id1, t), 0.9))
            where = f"link_type={typ} AND id1={id1} AND id2={id2}"
            return ["BEGIN;", f"SELECT visibility FROM linktable WHERE {where} FOR UPDATE;",
                    f"UPDATE linktable SET visibility=0, time={now} WHERE {where} AND visibility=1;",
                    "SET @n = ROW_COUNT();",
                    f"UPDATE counttable SET count=IF(count>0, count-1, 0), version=version+1 WHERE id={id1} AND link_type={typ} AND @n = 1;",
                    "COMMIT;"]
        if op == "addnode":
            data = sql_str(node_data.fill(min(lognormal(rng, 128, 1 << 20), 65535)))
            return [f"INSERT INTO nodetable (id,type,version,time,data) VALUES ({n + 1 + r * 10_000_000 + seq},{NODE_TYPE},0,{now // 1000},{data});"]
        if op == "updatenode":
            data = sql_str(node_data.fill(min(lognormal(rng, 128, 1 << 20), 65535)))
            return [f"UPDATE nodetable SET version=version+1, time={now // 1000}, data={data} WHERE id={node_update.id(rng)};"]
        if op == "deletenode":
            return [f"DELETE FROM nodetable WHERE id={1 + rng.randrange(n)};"]
        raise ValueError(op)

    def pick(rng, table):
        x = rng.random() * sum(w for _, w in table)
        for name, w in table:
            x -= w
            if x < 0:
                return name
        return table[-1][0]

    statements = 0
    for r in range(requesters):
        rng = random.Random(1000 + r)
        with open(os.path.join(out, f"warm{r}.sql"), "w", encoding="latin-1") as f:
            for i in range(ops):
                f.write("\n".join(op_sql(rng, pick(rng, READS), r, i)) + "\n")
        with open(os.path.join(out, f"mix{r}.sql"), "w", encoding="latin-1") as f:
            for i in range(ops):
                sql = op_sql(rng, pick(rng, READS + WRITES), r, i)
                statements += len(sql)
                f.write("\n".join(sql) + "\n")
    print(f"{statements / (requesters * ops):.4f}")


if __name__ == "__main__":
    if sys.argv[1] == "--requests":
        requests(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5])
    else:
        load(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3])
