#!/usr/bin/env python3
"""Where a measurement's CPU went, by kind of thread and by module, per request.

    perf record -k CLOCK_MONOTONIC -e cpu-clock -g -o H.data \\
        .build-release/release/vouch-benchmark handler --rounds 1
    python3 scripts/perf_by_module.py H.data START END REQUESTS [--hz 4000]

START,END is the window `vouch-benchmark handler` prints for one measurement (its "monotonic"
pair) and REQUESTS how many requests it made in it; perf's default sampling rate is 4 000 Hz, one
sample a quarter of a millisecond of CPU. Each sample counts once, for the function it landed in,
classed by the library or the Swift module that function belongs to: a profile in which no single
function stands out (docs/PERFORMANCE.md, "Where a sign-in's time goes") still shows which layer
the time is in.
"""

import argparse
import collections
import re
import subprocess

FRAME = re.compile(r"^\s+[0-9a-f]+\s+(.*?)\s+\((.*)\)\s*$")
SWIFT_MODULES = ["VouchStoreSQLite", "VouchStorePostgres", "VouchStore", "VouchServer", "VouchTokens", "VouchProtocol",
                 "Hummingbird", "NIO", "Prometheus", "Metrics", "Crypto", "vouch_benchmark"]


def thread_kind(comm):
    if "overcommit" in comm:
        return "writer"
    if "default-qos" in comm:
        return "pool"
    if comm.startswith("NIO-"):
        return "event loop"
    return comm


def module(symbol, dso):
    if "kernel" in dso:
        return "kernel"
    for library, name in (("libswiftCore", "Swift runtime"), ("libswift_Concurrency", "Swift concurrency"),
                          ("libc.so", "C library"), ("ld-linux", "C library"), ("libdispatch", "libdispatch"),
                          ("Foundation", "Foundation")):
        if library in dso:
            return name
    if "CCryptoBoringSSL" in symbol or symbol.startswith("bn_"):
        return "BoringSSL"
    if symbol.startswith("$s"):
        for name in SWIFT_MODULES:
            if name in symbol[:60]:
                return name
        return "Swift (generic, specialised)"
    if "sqlite" in symbol or symbol in ("walChecksumBytes", "balance", "pcache1Fetch", "getPageNormal"):
        return "SQLite"
    return "other (" + dso.rsplit("/", 1)[-1] + ")"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("data")
    parser.add_argument("start")
    parser.add_argument("end")
    parser.add_argument("requests", type=int)
    parser.add_argument("--hz", type=float, default=4000.0)
    arguments = parser.parse_args()
    output = subprocess.run(["perf", "script", "-i", arguments.data, "--time", f"{arguments.start},{arguments.end}",
                             "-F", "comm,ip,sym,dso"], capture_output=True, text=True, check=True).stdout
    counts = collections.Counter()
    comm, leaf_seen = None, True
    for line in output.splitlines():
        if not line.strip():
            continue
        frame = FRAME.match(line)
        if frame is None:
            comm, leaf_seen = line.strip(), False
        elif not leaf_seen:
            leaf_seen = True
            counts[(thread_kind(comm), module(frame.group(1), frame.group(2)))] += 1
    per_sample = 1e6 / arguments.hz / arguments.requests
    for (kind, name), count in counts.most_common(25):
        print(f"{kind:10} {name:30} {count * per_sample:7.2f} µs a request")
    print(f"{'all':10} {'':30} {sum(counts.values()) * per_sample:7.2f} µs a request")


if __name__ == "__main__":
    main()
