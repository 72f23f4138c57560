#!/usr/bin/env python3
"""Splits one process's samples in a perf recording by part.

Usage: perf_split.py DATA PID [OPS]

DATA is a `perf record -a --call-graph dwarf` recording (mariadb_t8.sh's
PERF=PREFIX writes PREFIX.MODE.REPEAT.data, one per mode and repeat). A sample of PID counts as zlib's
deflate when any frame of its call chain is deflate's entry points
(deflate, deflateInit2_, deflateReset, deflateEnd, compress2, ...) and as
its inflate when one is inflate's: zlib's internal functions (deflate_slow,
longest_match, inflate_fast) are unnamed in Debian's stripped libz, but
the exported function that called them is on the chain. adler32 is counted
under whichever of the two called it. Otherwise a sample whose innermost
frame is in the kernel counts as kernel, and the rest as rest. Prints the
process's samples and the CPU seconds they stand for (cpu-clock's periods,
in nanoseconds), and each part's share and seconds, and with OPS, the
operations in the window, its microseconds an operation.
"""
import re
import subprocess
import sys

DEFLATE = re.compile(r"^(deflate\w*|compress2?|_tr_\w+)$")
INFLATE = re.compile(r"^(inflate\w*|uncompress2?)$")
PARTS = ["deflate", "inflate", "kernel", "rest"]


def classify(frames):
    """frames: (symbol, dso) pairs, innermost first."""
    for sym, dso in frames:
        if "libz.so" not in dso:
            continue
        if DEFLATE.match(sym):
            return "deflate"
        if INFLATE.match(sym):
            return "inflate"
    if frames and frames[0][1] == "[kernel.kallsyms]":
        return "kernel"
    return "rest"


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    data, pid = sys.argv[1], sys.argv[2]
    ops = int(sys.argv[3]) if len(sys.argv) == 4 else 0
    script = subprocess.Popen(["perf", "script", "-i", data, "-F", "pid,period,ip,sym,dso"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    samples = dict.fromkeys(PARTS, 0)
    ns = dict.fromkeys(PARTS, 0)
    frames, mine, period = [], False, 0

    def flush():
        if mine:
            part = classify(frames)
            samples[part] += 1
            ns[part] += period

    for line in script.stdout:
        if not line.strip():
            continue
        if not line.startswith("\t"):  # a sample's header (its pid, right-aligned); frames start with a tab
            flush()
            head = line.split()
            frames, mine, period = [], head[0] == pid, int(head[1])
            continue
        if mine:
            m = re.match(r"\s*[0-9a-f]+ (.*) \((.*)\)\s*$", line)
            if m:
                sym = m.group(1).split("+")[0]
                frames.append((sym, m.group(2)))
    flush()
    if script.wait() != 0:
        sys.exit("perf script failed on " + data)
    total = sum(ns.values())

    def per_op(n):
        return f"  {n / 1e3 / ops:6.1f} µs an operation" if ops else ""

    print(f"samples {sum(samples.values())}, {total / 1e9:.2f} CPU s{per_op(total)}")
    for p in PARTS:
        share = ns[p] / total if total else 0
        print(f"  {p:8s} {samples[p]:7d} samples  {share:6.1%}  {ns[p] / 1e9:.2f} s{per_op(ns[p])}")


if __name__ == "__main__":
    main()
