#!/usr/bin/env python3
"""Exact counts a request, by kind of thread: what time cannot show on this host.

    python3 scripts/count_per_request.py .build-release/release [--signins 3000] [--keep DIR]

Runs `vouch-benchmark handler --signins N --rounds 1` (Vouch's handler and the bare app's, in one
process, no sockets) under `perf record -k CLOCK_MONOTONIC` with

- uprobes on the allocator and on the Swift runtime's reference counting, object and task-frame
  allocation, executor switches, dynamic exclusivity checks (`swift_beginAccess`, a thread-local
  look-up each) and hash seeding (one seed per hashed dictionary or set look-up),
  created with `perf probe` when missing (root, and the libraries the binary loads), and
- the kernel's `raw_syscalls:sys_enter` and `sched:sched_switch` tracepoints,

then counts each event in each measurement's window (the "monotonic" pair the benchmark prints)
and prints it per request, split into Swift's concurrency pool and the SQLite writer's queues.
The benchmark runs twice: once with the uprobes, for the counts a request's code decides, and once
with the tracepoints alone, since a probe that traps on every retain slows the run so much that
the writer's groups shrink, and with them what a sign-in's share of a commit's system calls and
context switches is.

A change below a microsecond moves a total that swings by several from run to run (see
docs/PERFORMANCE.md): these counts do not swing, so a change shows here as what it removed. They
are not time: a probe traps on every call, so the run takes tens of seconds and its own CPU
figures are meaningless.
"""

import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile

from perf_by_module import thread_kind  # the threads named as the profiles name them

# (event name perf gives the probe, library it lives in, symbol, label in the table)
UPROBES = [
    ("probe_libc:malloc", "libc.so", "malloc", "malloc"),
    ("probe_libswiftCore:swift_allocObject", "libswiftCore.so", "swift_allocObject", "swift_allocObject"),
    ("probe_libswiftCore:swift_retain", "libswiftCore.so", "swift_retain", "swift_retain"),
    ("probe_libswiftCore:swift_release", "libswiftCore.so", "swift_release", "swift_release"),
    ("probe_libswiftCore:swift_beginAccess", "libswiftCore.so", "swift_beginAccess",
     "swift_beginAccess (exclusivity checks)"),
    ("probe_libswiftCore:hseed", "libswiftCore.so", "hseed=$ss6HasherV5_seedABSi_tcfC", "Hasher seeds (look-ups by hash)"),
    ("probe_libswift_Concurrency:swift_task_alloc", "libswift_Concurrency.so", "swift_task_alloc", "swift_task_alloc (async frames)"),
    ("probe_libswift_Concurrency:swift_task_switch", "libswift_Concurrency.so", "swift_task_switch", "swift_task_switch"),
]
TRACEPOINTS = [
    ("raw_syscalls:sys_enter", "system calls"),
    ("sched:sched_switch", "context switches"),
]
WINDOW = re.compile(r"^round 1\s+(.+?)\s+[\d.]+ µs CPU a request\s+\(monotonic ([\d.]+),([\d.]+)\)")
REQUESTS_PER_SIGN_IN = {"bare POST /nonces": 4, "vouch POST /nonces": 4}  # the benchmark's four nonces a token


def library_paths(binary):
    """The shared libraries `binary` loads, by file name."""
    output = subprocess.run(["ldd", binary], capture_output=True, text=True, check=True).stdout
    paths = {}
    for line in output.splitlines():
        match = re.search(r"(\S+\.so[.\d]*) => (\S+)", line)
        if match:
            paths[match.group(1)] = match.group(2)
    return paths


def ensure_probes(binary):
    existing = subprocess.run(["perf", "probe", "-l"], capture_output=True, text=True).stdout
    libraries = library_paths(binary)
    for event, library, symbol, _ in UPROBES:
        if event in existing:
            continue
        path = next((p for name, p in libraries.items() if name.startswith(library)), None)
        if path is None:
            sys.exit(f"count_per_request: {binary} does not load {library}")
        result = subprocess.run(["perf", "probe", "-q", "-x", path, symbol], capture_output=True, text=True)
        if result.returncode != 0:
            sys.exit(f"count_per_request: perf probe -x {path} {symbol} failed: {result.stderr.strip()}")


def count(data, start, end):
    """Events in the window, by (event, kind of thread)."""
    script = subprocess.run(["perf", "script", "-i", data, "--time", f"{start},{end}", "-F", "comm,event"],
                            capture_output=True, text=True, check=True).stdout
    counts = collections.Counter()
    for line in script.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        # The table prints the pool and the writer; other threads (the benchmark's main one, NIO's,
        # idle here) are counted and left out.
        counts[(parts[-1].rstrip(":"), thread_kind(parts[0]))] += 1
    return counts


def record(binary, signins, events, directory, label):
    """One run of the handler benchmark recording `events`: per measurement, (name, counts a request)."""
    data = os.path.join(directory, f"{label}.perf.data")
    command = ["perf", "record", "-q", "-k", "CLOCK_MONOTONIC", "-o", data]
    for event in events:
        command += ["-e", event]
    command += [binary, "handler", "--signins", str(signins), "--rounds", "1"]
    run = subprocess.run(command, capture_output=True, text=True)
    with open(os.path.join(directory, f"{label}.txt"), "w") as handle:
        handle.write(run.stdout + run.stderr)
    if run.returncode != 0:
        sys.exit(f"count_per_request: the benchmark failed:\n{run.stdout}{run.stderr}")
    windows = [(m.group(1), m.group(2), m.group(3)) for m in map(WINDOW.match, run.stdout.splitlines()) if m]
    if not windows:
        sys.exit(f"count_per_request: no measurement windows in the benchmark's output:\n{run.stdout}")
    columns = []
    for name, start, end in windows:
        requests = signins * REQUESTS_PER_SIGN_IN.get(name, 1)
        columns.append((name, {key: value / requests for key, value in count(data, start, end).items()}))
    return columns


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bin", help="directory holding vouch-benchmark (a release build)")
    parser.add_argument("--signins", type=int, default=3000)
    parser.add_argument("--keep", help="keep perf.data and the benchmark's output in this directory")
    arguments = parser.parse_args()
    if shutil.which("perf") is None:
        sys.exit("count_per_request: perf is missing (apt-get install linux-perf)")
    binary = os.path.join(arguments.bin, "vouch-benchmark")
    ensure_probes(binary)

    directory = arguments.keep or tempfile.mkdtemp(prefix="vouch-counts-")
    os.makedirs(directory, exist_ok=True)
    probed = record(binary, arguments.signins, [event for event, *_ in UPROBES], directory, "uprobes")
    traced = record(binary, arguments.signins, [event for event, _ in TRACEPOINTS], directory, "tracepoints")
    names = [name for name, _ in probed]
    if names != [name for name, _ in traced]:
        sys.exit(f"count_per_request: the two runs measured different things: {names}")

    labels = [(event, label, probed) for event, _, _, label in UPROBES] + [(event, label, traced) for event, label in TRACEPOINTS]
    print(f"events a request, {arguments.signins} sign-ins (in process: `vouch-benchmark handler`, no sockets)")
    print(f"{'':44}" + "".join(f"{name:>21}" for name in names))
    for event, label, columns in labels:
        for kind in ("pool", "writer"):
            values = [counts.get((event, kind), 0.0) for _, counts in columns]
            if kind == "writer" and not any(values):
                continue
            print(f"{label + ' (' + kind + ')':44}" + "".join(f"{value:21.2f}" for value in values))
    if not arguments.keep:
        shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    main()
