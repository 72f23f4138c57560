#!/usr/bin/env python3
"""Regenerate testdata/golden.txt for package czlib.

Run from compress/internal/czlib:  python3 testdata/gen.py

It needs a Python whose zlib module runs C zlib 1.2.13 (zlib.ZLIB_RUNTIME_VERSION).
For every input, level, windowBits and memLevel it writes one line

    name level windowBits memLevel length sha256(stream)

where stream is zlib.compressobj(level, DEFLATED, windowBits, memLevel)
.compress(data) + .flush(), i.e. exactly what a single deflate(Z_FINISH)
produces. The inputs are regenerated in Go by inputs_test.go; the generators
below mirror it line for line (xorshift64 13/7/17), so keep them in step.
"""
import hashlib
import os
import sys
import zlib

M64 = (1 << 64) - 1


class XorShift:
    def __init__(self, seed):
        self.s = seed

    def next(self):
        x = self.s
        x ^= (x << 13) & M64
        x ^= x >> 7
        x ^= (x << 17) & M64
        self.s = x
        return x

    def intn(self, n):
        return self.next() % n

    def byte(self):
        return self.next() >> 56


def digit_groups(r, b, groups):
    for g in range(groups):
        if g > 0:
            b.append(ord('-'))
        for _ in range(11):
            b.append(ord('0') + r.next() % 10)


def sysbench_row(r, b, id_):
    for _ in range(5):
        b.append(r.byte())
    k = r.next() >> 40
    b += id_.to_bytes(4, 'big')
    b += k.to_bytes(4, 'big')
    digit_groups(r, b, 10)
    b.append(ord(' '))
    digit_groups(r, b, 5)
    b.append(ord(' '))


def sysbench_rows(seed, rows):
    r = XorShift(seed)
    b = bytearray()
    for i in range(rows):
        sysbench_row(r, b, 1000 + i)
    return bytes(b)


WORDS = [
    "the", "of", "and", "to", "in", "a", "is", "that", "for", "it",
    "as", "was", "with", "be", "by", "on", "not", "he", "this", "are",
    "or", "his", "from", "at", "which", "but", "have", "an", "had", "they",
    "you", "were", "their", "one", "all", "we", "can", "her", "has", "there",
    "been", "if", "more", "when", "will", "would", "who", "so", "no", "page",
    "compression", "database", "storage", "engine", "buffer", "index", "record", "transaction",
]


def english_text(r, b, n):
    while len(b) < n:
        cnt = 5 + r.intn(11)
        for i in range(cnt):
            w = WORDS[r.intn(len(WORDS))]
            if i == 0:
                b += w[0].upper().encode() + w[1:].encode()
            else:
                b += b' ' + w.encode()
        if r.intn(4) == 0:
            b += b'.\n'
        else:
            b += b'. '
    del b[n:]


def mixed(seed, n):
    r = XorShift(seed)
    b = bytearray()
    id_ = 1
    while len(b) < n:
        kind = r.intn(5)
        if kind == 0:
            m = 100 + r.intn(4000)
            for _ in range(m):
                b.append(r.byte())
        elif kind == 1:
            english_text(r, b, len(b) + 200 + r.intn(6000))
        elif kind == 2:
            m = 1 + r.intn(40)
            for _ in range(m):
                sysbench_row(r, b, id_)
                id_ += 1
        elif kind == 3:
            b += bytes(r.intn(3000))
        elif kind == 4:
            if len(b) == 0:
                continue
            dist = 1 + r.intn(min(len(b), 70000))
            m = 3 + r.intn(2000)
            for _ in range(m):
                b.append(b[len(b) - dist])
    return bytes(b[:n])


def random_bytes(seed, n):
    r = XorShift(seed)
    return bytes(r.byte() for _ in range(n))


def golden_input(name):
    if name == "empty":
        return b""
    if name == "one":
        return b"x"
    if name == "short":
        return b"Hello, hello, hello! InnoDB compresses its pages with zlib, hello.\n"
    if name == "rows1":
        return sysbench_rows(1, 68)
    if name == "rows2":
        return sysbench_rows(2, 68)
    if name == "repeat":
        return (b"the quick brown fox " * 1000)[:20000]
    if name == "zeros":
        return bytes(16384)
    if name == "random":
        return random_bytes(3, 20000)
    if name == "text":
        b = bytearray()
        english_text(XorShift(4), b, 24000)
        return bytes(b)
    if name == "mixed":
        return mixed(5, 300000)
    raise ValueError(name)


NAMES = ["empty", "one", "short", "rows1", "rows2", "repeat", "zeros", "random", "text", "mixed"]
LEVELS = [1, 2, 3, 4, 6, 9]
WBITS = [9, 14, 15]
MEMLEVELS = [1, 8, 9]


def stream(data, level, wbits, memlevel):
    c = zlib.compressobj(level, zlib.DEFLATED, wbits, memlevel)
    return c.compress(data) + c.flush()


def main():
    if zlib.ZLIB_RUNTIME_VERSION != "1.2.13":
        sys.exit("need C zlib 1.2.13, this Python runs %s" % zlib.ZLIB_RUNTIME_VERSION)
    if len(sys.argv) > 1 and sys.argv[1] == "-dump":
        # Debugging aid: python3 testdata/gen.py -dump NAME LEVEL WBITS MEM > out.z
        name, level, wbits, mem = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
        sys.stdout.buffer.write(stream(golden_input(name), level, wbits, mem))
        return
    lines = []
    for name in NAMES:
        data = golden_input(name)
        for level in LEVELS:
            for wbits in WBITS:
                for mem in MEMLEVELS:
                    out = stream(data, level, wbits, mem)
                    lines.append("%s %d %d %d %d %s" % (
                        name, level, wbits, mem, len(out), hashlib.sha256(out).hexdigest()))
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden.txt")
    with open(path, "w") as f:
        f.write("# name level windowBits memLevel length sha256 -- generated by gen.py from zlib %s\n"
                % zlib.ZLIB_RUNTIME_VERSION)
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
