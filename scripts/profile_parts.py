#!/usr/bin/env python3
"""Splits a `bench.py --profile` recording of one measurement into the parts of a request (the
event loops, RSA, the SQLite writer, SQLite reads, the token rules, Vouch's handling, Hummingbird's
task and the rest: `PARTS` below), in microseconds per request.

    python3 scripts/profile_parts.py DIR/vouch-durable-sign-in 421.1

reads DIR/vouch-durable-sign-in.perf.data and .pids, keeps the server's samples, and gives each
sample to the first part whose pattern is found anywhere on its stack, in the order below (so a
sample is counted once: a SQLite read under a route counts as a read). The second argument is the
measurement's server CPU per request from bench.py's table, which the shares are scaled to.
"""
import collections
import re
import subprocess
import sys

PARTS = [
    ("event-loop threads: socket I/O, HTTP codec, our channel handlers", r"SelectableEventLoop"),
    ("RSA verify and SHA-256 (BoringSSL)", r"CCryptoBoringSSL|BoringSSLRSA"),
    ("SQLite writer and checkpointer", r"VouchStoreSQLite0C6Worker|Checkpointer|GroupGathering"),
    ("SQLite reads", r"InlineReaders|SQLiteStore|sqlite3"),
    ("token parse and policy rules", r"VouchTokens"),
    ("Vouch's request handling", r"VouchServer|VouchProtocol"),
    ("Hummingbird's request task", r"Hummingbird"),
]
REST = "the rest: Swift runtime, scheduling, kernel"


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    base, cpu_per_request = sys.argv[1], float(sys.argv[2])
    with open(base + ".pids") as handle:
        pids = handle.read().strip()
    script = subprocess.run(["perf", "script", "-i", base + ".perf.data", "--pid", pids, "-F", "ip,sym"],
                            capture_output=True, text=True, check=True).stdout
    counts = collections.Counter()
    samples = 0
    for block in script.split("\n\n"):
        stack = block.strip()
        if not stack:
            continue
        samples += 1
        for name, pattern in PARTS:
            if re.search(pattern, stack):
                counts[name] += 1
                break
        else:
            counts[REST] += 1
    if samples == 0:
        sys.exit(f"no samples of pids {pids} in {base}.perf.data")
    for name in [name for name, _ in PARTS] + [REST]:
        print(f"{counts[name] / samples * cpu_per_request:8.1f} µs  {name}")
    print(f"{cpu_per_request:8.1f} µs  total ({samples} samples)")


if __name__ == "__main__":
    main()
