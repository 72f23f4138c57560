#!/usr/bin/env python3
"""Splits a zipsim CPU profile by part, per operation, as perf_split.py
splits mariadbd's samples.

Usage: pprof_split.py BINARY PROFILE OPS [PROFILE OPS ...]

PROFILE is a profile `zipsim reproduce --cpuprofile DIR` or `zipsim run
--cpuprofile FILE` wrote with BINARY; OPS is the operations in its
window (T8: its QPS times its 8 s). From `go tool pprof -top -cum` it
prints, in microseconds an operation: all samples; czlib's deflate (the
port's Writer.compress); inflate (Codec.Decompress and DecompressLimit);
zip-page decompression (page.Zip.decompress, its inflate included); the
modelled server layer (sim.serverRounds); syscalls; Go's scheduler
(runtime.mcall); and everything but deflate and inflate. pprof's
samples cover a little less than the process's CPU (92-96% in T8), so
the parts are the profile's, not the process's.
"""
import re
import subprocess
import sys

PARTS = {
    "deflate": ["github.com/zipsim/zipsim/compress/internal/czlib.(*Writer).compress"],
    "inflate": ["github.com/zipsim/zipsim/compress.(*Codec).DecompressLimit",
                "github.com/zipsim/zipsim/compress.(*Codec).Decompress"],
    "zip decompress": ["github.com/zipsim/zipsim/page.(*Zip).decompress"],
    "server layer": ["github.com/zipsim/zipsim/sim.serverRounds"],
    "syscalls": ["syscall.Syscall6", "syscall.Syscall", "syscall.RawSyscall6"],
    "scheduler": ["runtime.mcall"],
}
LINE = re.compile(r"\s*[\d.]+(?:m?s)?\s+[\d.]+%\s+[\d.]+%\s+([\d.]+)(m?s)\s+[\d.]+%\s+(.*)$")


def seconds(value, unit):
    return float(value) / (1000 if unit == "ms" else 1)


def cumulative(binary, profile):
    out = subprocess.run(["go", "tool", "pprof", "-top", "-cum", "-nodecount=100000", binary, profile],
                         capture_output=True, text=True, check=True).stdout
    total = re.search(r"Total samples = ([\d.]+)(m?s)", out)
    if not total:
        sys.exit(f"{profile}: no samples")
    cum = {}
    for line in out.splitlines():
        m = LINE.match(line)
        if m:
            cum[m.group(3).replace(" (inline)", "")] = seconds(m.group(1), m.group(2))
    return seconds(total.group(1), total.group(2)), cum


def main():
    args = sys.argv[1:]
    if len(args) < 3 or len(args) % 2 == 0:
        sys.exit(__doc__)
    binary = args[0]
    for profile, ops in zip(args[1::2], args[2::2]):
        total, cum = cumulative(binary, profile)

        def us(s):
            return s / float(ops) * 1e6

        parts = {name: sum(cum.get(f, 0.0) for f in funcs) for name, funcs in PARTS.items()}
        rest = total - parts["deflate"] - parts["inflate"]
        print(f"{profile}: {float(ops):.0f} operations, all {us(total):.0f} µs an operation | "
              + ", ".join(f"{name} {us(v):.0f}" for name, v in parts.items())
              + f" | everything but deflate and inflate {us(rest):.0f}")


if __name__ == "__main__":
    main()
