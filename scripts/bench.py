#!/usr/bin/env python3
"""The benchmark of docs/PERFORMANCE.md, run by scripts/bench.sh after it has built the binaries.

Prints, in one run on one machine: the floors (openssl speed rsa2048; a bare Hummingbird app under
the same wrk load as Vouch, answering POST /nonces, and in every round its sign-in floor: the body
read and one RS256 verify, on that round's tokens), in-process token verification against the raw primitives, the
sign-in's durable write alone (`vouch-benchmark store`: createSession on a real SQLite file), Vouch's
sign-in handler against the bare app's through their routers (`vouch-benchmark handler`), and over
real HTTP on 127.0.0.1 against `vouch serve` (SQLite, synchronous=FULL): POST /nonces, durable
sign-ins and GET /users/me at 64 connections, each as requests/s, server CPU per request (from
/proc/<pid>/stat), p50/p99 latency, and as ratios to the bare app (measured first and last in
every round; the ratios are to the mean of the two) and to one RSA verify.

    python3 scripts/bench.py --bin DIR [--seconds 10] [--signins 40000] [--connections 64] [--smoke]
                             [--rounds 3] [--pairs 8 [--pair-seconds 2]]
                             [--database postgres://…] [--instances 2] [--cutoff-race postgres://…]

With --pairs N the durable sign-in is also measured in N short runs, each between two runs of the
bare app as long, every ratio to the bare runs seconds away (with --rounds 0, only that); each
pair's run has ~24 000 tokens a second of its own, more than this machine signs in, and a warning
says when a faster machine ran out of them.

With --database the servers run on that database instead of SQLite (the database's own CPU is
reported as well), and with --instances N that many `vouch serve` processes share it, each driven
by its own wrk with connections/N connections.

With --cutoff-race URL it also runs the long cutoff race (`vouch-benchmark cutoff-race`) on that
throwaway PostgreSQL database: two instances, one clock 2 s ahead, sign-ins racing cutoffs of
every scope; it fails on any stale accept or false refusal (the test suite runs a short one).

With --live-sockets N (instead of the usual run) it opens N idle authenticated sockets of the live
channel on one `vouch serve` (SQLite) and reports the server's resident memory per socket, its CPU
while they idle, and a cutoff of their app: how fast every socket hears it and the peak rate of
identity-token requests its spread leaves. With --live-reach URL it also runs the live channel
across two instances on that throwaway PostgreSQL database (`vouch-benchmark live-reach`).
"""

import argparse
import collections
import contextlib
import json
import os
import platform
import resource
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

import wal_pages
from perf_by_module import thread_kind as short_thread_kind

HERE = os.path.dirname(os.path.abspath(__file__))
TICKS = os.sysconf("SC_CLK_TCK")
# The rows looked up by name (the bare app's two runs, the two sign-ins), named once: measured under
# these names and looked up by them.
BARE = "bare app POST /nonces"
BARE_AGAIN = "bare app POST /nonces, again"
FLOOR_SIGN_IN = "bare RS256 sign-in floor"
VOUCH_SIGN_IN = "vouch durable sign-in"
VOUCH_SIGN_IN_SUBSCRIBED = "vouch sign-in, 1 webhook"


def start_bare(bench, options, processes):
    """Starts `vouch-benchmark bare` on a free port with `options`; returns it and its base URL."""
    port = free_port()
    bare = subprocess.Popen([bench, "bare", "--port", str(port)] + options, stdout=subprocess.DEVNULL)
    processes.append(bare)
    deadline = time.time() + 30
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return bare, f"http://127.0.0.1:{port}"
        except OSError:
            if bare.poll() is not None or time.time() > deadline:
                sys.exit("the bare app did not start")
            time.sleep(0.1)


def measure_sign_in_floor(bench, prepared, seconds, connections, processes):
    """The bare app's sign-in floor (BareApp.swift: the body read, one RS256 verify, no rules, no
    store) on this round's tokens, under the same load as Vouch's sign-ins. It keeps no record of
    a token, so wrk cycles through them rather than running out. A process of its own, started
    with this round's key and stopped after, so that the nonce floor's process is left as it was."""
    floor, base = start_bare(bench, ["--public-key", os.path.join(prepared, "public-key.pem")], processes)
    try:
        return measure(FLOOR_SIGN_IN, [floor.pid],
                       [(base + "/sessions", {"SIGNINS": os.path.join(prepared, "signins.jsonl"), "CYCLE": "1"})],
                       seconds, connections, script=os.path.join(HERE, "bench", "signins.lua"))
    finally:
        floor.send_signal(signal.SIGTERM)
        floor.wait(timeout=30)


def measure_pairs(bench, bare, bare_base, pids, base, admin, scratch, pairs, seconds, connections, tokens_per_second):
    """The durable sign-in measured `pairs` times for `seconds`, each run between two runs of the
    bare app as long (bare, sign-in, bare, sign-in, ..., bare): every sign-in's ratio is to the
    mean of the bare runs on either side of it, seconds away, where a round's are a minute apart.
    Each sign-in run has tokens of its own (a token signs in once), minted before the first."""
    prepared = os.path.join(scratch, "prepared-pairs")
    started = time.time()
    subprocess.run([bench, "prepare", "--server", base, "--admin-token", admin,
                    "--count", str(pairs * seconds * tokens_per_second), "--out", prepared], check=True)
    print(f"(minted in {time.time() - started:.0f} s, before the clock)")
    with open(os.path.join(prepared, "signins.jsonl")) as handle:
        tokens = handle.readlines()
    share = len(tokens) // pairs
    paths = [os.path.join(prepared, f"pair-{index}.jsonl") for index in range(pairs)]
    for index, path in enumerate(paths):
        with open(path, "w") as handle:
            handle.writelines(tokens[index * share:(index + 1) * share])
    settle_disk()
    lua_nonces, lua_signins = os.path.join(HERE, "bench", "post_nonces.lua"), os.path.join(HERE, "bench", "signins.lua")
    bares = [measure(BARE, [bare.pid], [bare_base + "/nonces"], seconds, connections, script=lua_nonces)]
    sign_ins = []
    for path in paths:
        sign_ins.append(measure(VOUCH_SIGN_IN, pids, [(base + "/sessions", {"SIGNINS": path})], seconds, connections,
                                script=lua_signins))
        bares.append(measure(BARE, [bare.pid], [bare_base + "/nonces"], seconds, connections, script=lua_nonces))
    return bares, sign_ins


def print_pairs(paired, seconds):
    """Each pair's figures and ratio, their median, and all pairs pooled."""
    bares, sign_ins = paired
    print(f"== durable sign-in between two runs of the bare app, {len(sign_ins)} pairs of {seconds} s "
          f"(CPU µs a request; the ratio to the mean of the two bare runs)")
    print(f"{'pair':>4} {'bare before':>11} {'sign-in':>8} {'bare after':>10} {'× bare':>7} {'sign-ins/s':>10}")
    ratios = []
    for index, sign_in in enumerate(sign_ins):
        before, after = bares[index]["cpu_us"], bares[index + 1]["cpu_us"]
        ratio = sign_in["cpu_us"] / statistics.mean([before, after])
        ratios.append(ratio)
        print(f"{index + 1:4} {before:11.1f} {sign_in['cpu_us']:8.1f} {after:10.1f} {ratio:7.2f} {sign_in['served_rps']:10.0f}")
    pooled_sign_in = sum(r["cpu_us"] * r["served"] for r in sign_ins) / max(1, sum(r["served"] for r in sign_ins))
    pooled_bare = sum(r["cpu_us"] * r["served"] for r in bares) / max(1, sum(r["served"] for r in bares))
    print(f"median of the pairs: {statistics.median(ratios):.2f} × bare; all pairs pooled: "
          f"{pooled_sign_in:.1f} µs against {pooled_bare:.1f}, {pooled_sign_in / pooled_bare:.2f} ×")
    for result in sign_ins:
        if result.get("refused") or result.get("exhausted"):
            print(f"warning: a paired sign-in run: {result.get('refused', 0)} refused, "
                  f"{result.get('exhausted', 0)} /health requests after its tokens ran out")


def settle_disk():
    """Writes the harness's own dirty pages (the token files: hundreds of megabytes a round) to disk
    before anything is measured, so that the kernel's writeback of them does not queue in front of
    the server's syncs during a measurement."""
    os.sync()


def admin_call(base, token, method, path, body=None):
    """One admin API call; its JSON answer ({} for none)."""
    request = urllib.request.Request(base + path, method=method, data=None if body is None else json.dumps(body).encode(),
                                     headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        text = answer.read()
    return json.loads(text) if text else {}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(url, process, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if process.poll() is not None:
            sys.exit(f"{process.args[0]} exited with {process.returncode} before answering")
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except Exception:
            time.sleep(0.1)
    sys.exit(f"{url} did not answer within {timeout} s")


def stat_times(path):
    """(name, user seconds, system seconds) from a /proc stat file, a process's or a thread's."""
    with open(path) as handle:
        head, tail = handle.read().rsplit(")", 1)
    fields = tail.split()
    return head.split("(", 1)[1], int(fields[11]) / TICKS, int(fields[12]) / TICKS


def cpu_seconds(pid):
    """utime + stime of a process, in seconds."""
    _, user, system = stat_times(f"/proc/{pid}/stat")
    return user + system


def thread_times(pid):
    """Per thread of a process: (name, user seconds, system seconds, context switches), by tid."""
    threads = {}
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return threads
    for tid in tids:
        try:
            name, user, system = stat_times(f"/proc/{pid}/task/{tid}/stat")
            with open(f"/proc/{pid}/task/{tid}/status") as handle:
                switches = sum(int(line.split()[1]) for line in handle
                               if line.startswith(("voluntary_ctxt_switches:", "nonvoluntary_ctxt_switches:")))
        except (OSError, ValueError, IndexError):
            continue
        threads[tid] = (name, user, system, switches)
    return threads


THREAD_LABELS = {"event loop": "event loops", "writer": "dispatch queues (SQLite writer, checkpointer)",
                 "pool": "Swift concurrency pool"}


def thread_kind(name):
    """Which part of the server a thread is, by the name its runtime gives it (as the profiles
    class it, spelt out for these tables)."""
    return THREAD_LABELS.get(short_thread_kind(name), "other")


def cpu_by_thread_kind(before, after, served):
    """µs of user and system CPU, and context switches, per served request, by kind of thread. A
    thread started in between counts from zero; one that ended in between is missing (libdispatch
    ends idle threads after a few seconds, not under load)."""
    kinds = {}
    for tid, (name, user, system, switches) in after.items():
        _, user0, system0, switches0 = before.get(tid, (name, 0.0, 0.0, 0))
        entry = kinds.setdefault(thread_kind(name), [0.0, 0.0, 0])
        entry[0] += (user - user0) / max(served, 1) * 1e6
        entry[1] += (system - system0) / max(served, 1) * 1e6
        entry[2] += switches - switches0
    return {kind: (user, system, switches / max(served, 1)) for kind, (user, system, switches) in kinds.items()}


def disk_bytes(pid):
    """Bytes a process caused to be written to storage (`write_bytes` of /proc/<pid>/io)."""
    try:
        with open(f"/proc/{pid}/io") as handle:
            for line in handle:
                if line.startswith("write_bytes:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def start_wrk(url, seconds, connections, script=None, headers=(), env=None):
    threads = max(1, min(connections, os.cpu_count() or 2))
    command = ["wrk", "-t", str(threads), "-c", str(connections), "-d", f"{seconds}s", "--latency", "--timeout", "10s"]
    if script:
        command += ["-s", script]
    for header in headers:
        command += ["-H", header]
    run_env = dict(os.environ, THREADS=str(threads), **(env or {}))
    return subprocess.Popen(command + [url], stdout=subprocess.PIPE, text=True, env=run_env)


def parse_wrk(output):
    result = {"output": output}
    result["requests"] = int(re.search(r"(\d+) requests in", output).group(1))
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    result["non2xx"] = int(non2xx.group(1)) if non2xx else 0
    errors = re.search(r"Socket errors: (.*)", output)
    result["socket_errors"] = errors.group(1) if errors else ""
    for percentile in ("50", "99"):
        match = re.search(rf"\s{percentile}%\s+([\d.]+)(us|ms|s)", output)
        result[f"p{percentile}_ms"] = float(match.group(1)) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[match.group(2)]
    signins = re.search(r"signins created=(\d+) refused=(\d+) exhausted=(\d+)", output)
    if signins:
        result["created"], result["refused"], result["exhausted"] = map(int, signins.groups())
    return result


def database_cpu_seconds():
    """CPU seconds of every PostgreSQL process on the machine (the benchmark's cluster is the only
    one), by pid, so that a backend that exits during a run does not count against it."""
    seconds = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/comm") as handle:
                if handle.read().strip() == "postgres":
                    seconds[int(entry)] = cpu_seconds(int(entry))
        except OSError:
            continue
    return seconds


def database_cpu_since(before):
    return sum(value - before.get(pid, 0.0) for pid, value in database_cpu_seconds().items())


# With --profile or --syscalls: what perf records during each HTTP measurement, and where.
Recording = collections.namedtuple("Recording", ["kind", "directory"])  # kind: "profile" or "syscalls"
RECORDING = None
# x86-64 numbers of the system calls a server makes under load; others print as their number.
SYSCALL_NAMES = {0: "read", 1: "write", 3: "close", 7: "poll", 8: "lseek", 16: "ioctl", 17: "pread64", 18: "pwrite64",
                 19: "readv", 20: "writev", 24: "sched_yield", 35: "nanosleep", 44: "sendto", 45: "recvfrom",
                 46: "sendmsg", 47: "recvmsg", 72: "fcntl", 74: "fsync", 75: "fdatasync", 202: "futex",
                 228: "clock_gettime", 230: "clock_nanosleep", 232: "epoll_wait", 233: "epoll_ctl", 281: "epoll_pwait",
                 288: "accept4", 318: "getrandom", 441: "epoll_pwait2"}
TRACE_LINE = re.compile(r"^\s*(.*?)\s+(\d+)\s+(raw_syscalls:sys_enter|sched:sched_switch):\s*(.*)$")


def recording_path(directory, name, suffix):
    slug = "".join(c if c.isalnum() else "-" for c in name.lower()).strip("-")
    return os.path.join(directory, f"{slug}.{suffix}")


def start_profile(name, pids):
    """With --profile: `perf record -e cpu-clock -g` of the whole machine for one measurement, and
    the server's pids beside it (`<name>.pids`) for `perf report --pid`. With --syscalls: the same
    for the `raw_syscalls:sys_enter` and `sched:sched_switch` tracepoints, counted afterwards by
    `syscall_counts`.

    Not `perf record -p`: that follows the threads a process has when perf starts, and libdispatch
    starts and ends worker threads as its queues fill and drain. The SQLite writer's queue runs on
    such a thread, started again for each measurement after the previous one idled out, and a
    `-p` profile of a durable sign-in held none of the writer's CPU (a sixth of the server's, the
    WAL frames and the commit's fsync among it)."""
    if RECORDING is None:
        return None
    with open(recording_path(RECORDING.directory, name, "pids"), "w") as handle:
        handle.write(",".join(str(pid) for pid in pids) + "\n")
    events = {"profile": ["-e", "cpu-clock", "-g"],
              "syscalls": ["-e", "raw_syscalls:sys_enter", "-e", "sched:sched_switch"]}[RECORDING.kind]
    output = recording_path(RECORDING.directory, name, "perf.data")
    return subprocess.Popen(["perf", "record", "-q"] + events + ["-a", "-o", output],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def stop_profile(recorder):
    if recorder is not None:
        recorder.send_signal(signal.SIGINT)
        recorder.wait(timeout=60)


def syscall_counts(name, pids, served):
    """With --syscalls: the server's system calls a request by kind of thread and call, and its
    threads' context switches a request, split into preempted (still runnable) and put to sleep.
    Exact counts, where CPU time moves by a tenth from run to run."""
    script = subprocess.run(["perf", "script", "-i", recording_path(RECORDING.directory, name, "perf.data"),
                             "-F", "comm,pid,event,trace"], capture_output=True, text=True).stdout
    wanted = {str(pid) for pid in pids}
    counts = collections.Counter()
    for line in script.splitlines():
        match = TRACE_LINE.match(line)
        if not match or match.group(2) not in wanted:
            continue
        comm, _, event, trace = match.groups()
        kind = thread_kind(comm)
        if event == "raw_syscalls:sys_enter":
            number = re.search(r"NR (\d+)", trace)
            if number:
                names = SYSCALL_NAMES if platform.machine() == "x86_64" else {}
                counts[(kind, names.get(int(number.group(1)), f"syscall {number.group(1)}"))] += 1
        else:
            state = re.search(r"prev_state=(\S+)", trace)
            if state:
                counts[(kind, "preempted" if state.group(1).startswith("R") else "went to sleep")] += 1
    return {key: value / max(served, 1) for key, value in counts.items()}


def measure(name, pids, targets, seconds, connections, with_database=False, wal_sample=None, **kwargs):
    """Runs one wrk per target at once, a target being a URL or a (URL, environment) pair, with the
    connections split between them; server CPU is summed over `pids`. With `wal_sample` (a
    (WAL file, copy) pair), the WAL is copied halfway through: what the commits under this load
    write (`wal_pages.py`)."""
    targets = [target if isinstance(target, tuple) else (target, None) for target in targets]
    sampler = None
    if wal_sample is not None:
        sampler = threading.Timer(seconds / 2, lambda: shutil.copyfile(*wal_sample) if os.path.exists(wal_sample[0]) else None)
        sampler.start()
    recorder = start_profile(name, pids)
    threads_before = {pid: thread_times(pid) for pid in pids}
    before = sum(cpu_seconds(pid) for pid in pids)
    disk_before = sum(disk_bytes(pid) for pid in pids)
    database_before = database_cpu_seconds() if with_database else {}
    share = max(1, connections // len(targets))
    runs = [start_wrk(url, seconds, share, env=env, **kwargs) for url, env in targets]
    parts = []
    for run in runs:
        output, _ = run.communicate()
        if run.returncode != 0:
            sys.exit(f"wrk failed for {name}")
        parts.append(parse_wrk(output))
    stop_profile(recorder)
    if sampler is not None:
        sampler.join()
    result = {"name": name}
    for key in ("requests", "non2xx"):
        result[key] = sum(part[key] for part in parts)
    result["socket_errors"] = "; ".join(part["socket_errors"] for part in parts if part["socket_errors"])
    result["p50_ms"] = max(part["p50_ms"] for part in parts)
    result["p99_ms"] = max(part["p99_ms"] for part in parts)
    if all("created" in part for part in parts):
        for key in ("created", "refused", "exhausted"):
            result[key] = sum(part[key] for part in parts)
    served = result.get("created", result["requests"] - result["non2xx"])
    result["served"] = served
    result["cpu_us"] = (sum(cpu_seconds(pid) for pid in pids) - before) / max(served, 1) * 1e6
    result["threads"] = {}
    for pid in pids:
        for kind, (user, system, switches) in cpu_by_thread_kind(threads_before[pid], thread_times(pid), served).items():
            total = result["threads"].setdefault(kind, [0.0, 0.0, 0.0])
            total[0] += user
            total[1] += system
            total[2] += switches
    result["disk_kib"] = (sum(disk_bytes(pid) for pid in pids) - disk_before) / max(served, 1) / 1024
    result["db_cpu_us"] = database_cpu_since(database_before) / max(served, 1) * 1e6 if with_database else None
    result["served_rps"] = served / seconds
    if RECORDING is not None and RECORDING.kind == "syscalls":
        result["syscalls"] = syscall_counts(name, pids, served)
    return result


def wal_report(wal_path, database_path):
    """One line: the WAL frames a commit wrote during the sign-ins, and the B-trees they belong to."""
    if not os.path.exists(wal_path):
        return "no WAL copied"
    with open(wal_path, "rb") as handle:
        commits, _ = wal_pages.commits_in(handle.read())
    if not commits:
        return "no committed frames in the copy"
    try:
        by_tree = wal_pages.frames_by_tree(commits, database_path)
    except Exception as error:  # sqlite3 without dbstat, say: the figure is a diagnosis, not a result
        return f"{len(commits)} commits copied, pages not named ({error})"
    frames = sum(len(commit) for commit in commits) / len(commits)
    parts = ", ".join(f"{name} {count / len(commits):.1f}" for name, count in by_tree.most_common(5))
    return f"{frames:.1f} WAL frames a commit over {len(commits)} commits ({parts})"


def resident_mb(pid):
    """Resident set size of a process, from /proc/<pid>/status (VmRSS, in kB)."""
    with open(f"/proc/{pid}/status") as handle:
        for line in handle:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


BENCH_ADMIN_TOKEN = "benchmark-admin-token-0123456789"


@contextlib.contextmanager
def scratch_server(vouch, prefix, options=(), preexec_fn=None):
    """One vouch serve on a fresh data directory (SQLite, no rate limit), once it answers /health:
    yields (process, base URL); stopped with SIGTERM afterwards and its directory removed."""
    scratch = tempfile.mkdtemp(prefix=prefix)
    server = None
    try:
        data = os.path.join(scratch, "data")
        os.mkdir(data, 0o700)
        port = free_port()
        server = subprocess.Popen([vouch, "serve", "--port", str(port), "--data-dir", data, "--rate-limit", "0",
                                   "--log-level", "error"] + list(options),
                                  env=dict(os.environ, VOUCH_ADMIN_TOKEN=BENCH_ADMIN_TOKEN), stdout=subprocess.DEVNULL,
                                  preexec_fn=preexec_fn)
        base = f"http://127.0.0.1:{port}"
        wait_for(base + "/health", server)
        yield server, base, scratch
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
    finally:
        if server is not None and server.poll() is None:
            server.kill()
        shutil.rmtree(scratch, ignore_errors=True)


def memory_run(arguments, vouch, bench):
    """--memory: the server's resident memory across a million nonces and 200 000 sessions that
    are created and then expire (issue 10's target: at most 50 MB of growth)."""
    nonces_target, sessions_target = (20000, 2000) if arguments.smoke else (1_000_000, arguments.memory_sessions)
    ttl = 30
    admin = BENCH_ADMIN_TOKEN
    with scratch_server(vouch, "vouch-bench-memory-") as (server, base, scratch):
        stages = [("started", resident_mb(server.pid))]
        warm = measure("warm-up", [server.pid], [base + "/nonces"], 2, arguments.connections,
                       script=os.path.join(HERE, "bench", "post_nonces.lua"))
        stages.append((f"after {warm['served']} nonces (warm-up)", resident_mb(server.pid)))
        issued = warm["served"]
        while issued < nonces_target:
            issued += measure("nonces", [server.pid], [base + "/nonces"], 10 if not arguments.smoke else 1,
                              arguments.connections, script=os.path.join(HERE, "bench", "post_nonces.lua"))["served"]
        stages.append((f"after {issued} nonces", resident_mb(server.pid)))
        prepared = os.path.join(scratch, "prepared")
        subprocess.run([bench, "prepare", "--server", base, "--admin-token", admin, "--count", str(sessions_target),
                        "--out", prepared, "--session-ttl", str(ttl)], check=True)
        stages.append((f"after minting {sessions_target} tokens (their nonces issued)", resident_mb(server.pid)))
        # One run long enough for every token at 1 500 sign-ins a second; threads that run out send
        # GET /health until the end, and the count says how many sessions there really were.
        result = measure("sign-ins", [server.pid], [(base + "/sessions", {"SIGNINS": os.path.join(prepared, "signins.jsonl")})],
                         max(2 if arguments.smoke else 10, sessions_target // 1500), arguments.connections,
                         script=os.path.join(HERE, "bench", "signins.lua"))
        created = result.get("created", 0)
        stages.append((f"after {created} sessions created", resident_mb(server.pid)))
        time.sleep(ttl + 2)
        with open(os.path.join(prepared, "session.txt")) as handle:
            session = handle.read().strip()
        measure("expired sessions asked", [server.pid], [base + "/users/me"], 2, arguments.connections,
                headers=[f"Authorization: Bearer {session}"])
        stages.append((f"after every session expired ({ttl} s) and was asked for", resident_mb(server.pid)))
    print("== resident memory of vouch serve (VmRSS)")
    baseline = stages[1][1]
    for name, megabytes in stages:
        print(f"{name:64} {megabytes:8.1f} MB  {megabytes - baseline:+8.1f} MB against the warm-up")
    print(f"growth after the warm-up: {stages[-1][1] - baseline:+.1f} MB (target <= 50 MB)")


def raise_descriptor_limit():
    """Lets a process hold as many sockets as the hard limit allows (each live socket is one)."""
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def live_sockets_run(arguments, vouch, bench):
    """--live-sockets N: idle sockets of the live channel on one vouch serve, then a cutoff."""
    sockets = 200 if arguments.smoke else arguments.live_sockets
    idle = 2 if arguments.smoke else arguments.live_idle_seconds
    with scratch_server(vouch, "vouch-bench-live-", arguments.serve_option,
                        preexec_fn=raise_descriptor_limit) as (server, base, _):
        print(f"== live channel: {sockets} idle sockets on one vouch serve (SQLite), then a cutoff of their app")
        subprocess.run([bench, "live-sockets", "--server", base, "--admin-token", BENCH_ADMIN_TOKEN,
                        "--pid", str(server.pid), "--sockets", str(sockets), "--idle-seconds", str(idle)], check=True,
                       preexec_fn=raise_descriptor_limit)


def openssl_rsa_verify_per_second(seconds):
    output = subprocess.run(["openssl", "speed", "-seconds", str(seconds), "rsa2048"],
                            capture_output=True, text=True, check=True).stdout
    lines = output.strip().splitlines()[-2:]
    print("\n".join(lines))
    return float(lines[-1].split()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True, help="directory holding vouch and vouch-benchmark")
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--signins", type=int, default=40000, help="tokens minted before the sign-in run")
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=1,
                        help="measure the bare app and every Vouch route this many times, alternating, and print the "
                             "median of each figure as well (the machine's noise moves single runs by a tenth or more)")
    parser.add_argument("--pairs", type=int, default=0,
                        help="after the rounds (or alone, with --rounds 0): this many durable sign-in runs of "
                             "--pair-seconds, each between two runs of the bare app as long, its ratio to their mean; "
                             "prints every pair and their median (SQLite only). A round's bare runs are a minute "
                             "apart and the host's phases often shorter; a pair's are seconds apart")
    parser.add_argument("--pair-seconds", type=int, default=2)
    parser.add_argument("--smoke", action="store_true", help="tiny counts: proves the benchmark runs, measures nothing")
    parser.add_argument("--database", help="run the servers on this database URL (PostgreSQL) instead of SQLite")
    parser.add_argument("--instances", type=int, default=1, help="vouch serve processes sharing --database")
    parser.add_argument("--cutoff-race", metavar="URL",
                        help="also the long cutoff race (vouch-benchmark cutoff-race): two instances in one process on "
                             "this PostgreSQL database, one clock 2 s ahead, sign-ins racing cutoffs of every scope; "
                             "fails on a stale accept or a false refusal. It migrates and fills the database: give a "
                             "throwaway one")
    parser.add_argument("--live-sockets", type=int, metavar="N",
                        help="instead of the usual run: N idle live-channel sockets on one vouch serve, then a cutoff")
    parser.add_argument("--live-idle-seconds", type=int, default=60)
    parser.add_argument("--live-reach", metavar="URL",
                        help="also the live channel across two instances on this throwaway PostgreSQL database")
    parser.add_argument("--memory", action="store_true",
                        help="instead of the usual run: resident memory across 1 million nonces and --memory-sessions "
                             "sessions created and expired")
    parser.add_argument("--memory-sessions", type=int, default=200_000)
    parser.add_argument("--serve-option", action="append", default=[], metavar="OPTION",
                        help="passed to every vouch serve (repeat for several), e.g. --serve-option=--group-commit-wait=0")
    parser.add_argument("--http-only", action="store_true",
                        help="skip the in-process token measurements (for comparing server changes quickly)")
    parser.add_argument("--profile", metavar="DIR",
                        help="record each HTTP measurement with perf (-e cpu-clock -g, the whole machine) into "
                             "DIR/<measurement>.perf.data, the server's pids in DIR/<measurement>.pids: "
                             "perf report -i X.perf.data --pid $(cat X.pids); the CPU figures then include "
                             "perf's own overhead")
    parser.add_argument("--syscalls", metavar="DIR",
                        help="record each HTTP measurement's system calls and context switches with perf (the "
                             "raw_syscalls:sys_enter and sched:sched_switch tracepoints, the whole machine) into "
                             "DIR, and print the server's, a request, by kind of thread and call (exact counts; the CPU "
                             "figures then include perf's overhead; not with --profile)")
    arguments = parser.parse_args()
    if arguments.profile and arguments.syscalls:
        sys.exit("bench.py: --profile and --syscalls each record with perf; give one")
    missing = [tool for tool in ["wrk", "openssl"] + (["perf"] if arguments.profile or arguments.syscalls else [])
               if shutil.which(tool) is None]
    if missing and not (arguments.memory or arguments.live_sockets):
        sys.exit(f"bench.py: {', '.join(missing)} missing (apt-get install {' '.join('linux-perf' if t == 'perf' else t for t in missing)})")
    global RECORDING
    for kind, directory in (("profile", arguments.profile), ("syscalls", arguments.syscalls)):
        if directory:
            os.makedirs(directory, exist_ok=True)
            RECORDING = Recording(kind, os.path.abspath(directory))
    if arguments.pairs and arguments.database:
        sys.exit("bench.py: --pairs measures the SQLite server; leave out --database")
    if arguments.rounds < 1 and not arguments.pairs:
        sys.exit("bench.py: --rounds 0 only with --pairs")
    if arguments.smoke:
        arguments.seconds, arguments.signins, arguments.connections = 1, 300, 8
        arguments.pair_seconds = 1
    vouch = os.path.join(arguments.bin, "vouch")
    bench = os.path.join(arguments.bin, "vouch-benchmark")
    seconds, connections = arguments.seconds, arguments.connections
    if arguments.memory:
        memory_run(arguments, vouch, bench)
        return
    if arguments.live_sockets:
        live_sockets_run(arguments, vouch, bench)
        return

    print("== machine")
    print(subprocess.run(["uname", "-srm"], capture_output=True, text=True).stdout.strip())
    with open("/proc/cpuinfo") as handle:
        model = next((line.split(":", 1)[1].strip() for line in handle if line.startswith("model name")), "?")
    print(f"{os.cpu_count()} cores, {model}")

    print("== floor: openssl speed rsa2048 (one core)")
    rsa_per_second = openssl_rsa_verify_per_second(1 if arguments.smoke else 3)
    rsa_us = 1e6 / rsa_per_second

    if not arguments.http_only:
        print("== in process: whole tokens against the primitives (one task)")
        subprocess.run([bench, "tokens", "0.2" if arguments.smoke else "3"], check=True)
        if not arguments.database:
            print("== in process: the sign-in's durable write alone (SQLite, synchronous=FULL, 64 tasks)")
            subprocess.run([bench, "store", "--sessions", "2000" if arguments.smoke else "100000",
                            "--users", "100" if arguments.smoke else "5000"], check=True)
            print("== in process: Vouch's sign-in handler against the bare app's, through their routers (no HTTP)")
            subprocess.run([bench, "handler", "--signins", "200" if arguments.smoke else "20000",
                            "--rounds", "1" if arguments.smoke else "3"], check=True)

    if arguments.cutoff_race:
        print("== cutoff race: two instances on one PostgreSQL database, the second's clock 2 s ahead")
        subprocess.run([bench, "cutoff-race", "--database", arguments.cutoff_race]
                       + (["--rounds", "4", "--per-phase", "8"] if arguments.smoke else []), check=True)

    if arguments.live_reach:
        print("== live channel across two instances on one PostgreSQL database (listeners terminated midway)")
        subprocess.run([bench, "live-reach", "--database", arguments.live_reach]
                       + (["--endings", "10", "--while-away", "4"] if arguments.smoke else []), check=True)

    rounds = max(0, arguments.rounds)
    all_rounds = []
    offline_us = []
    paired = None
    wal_samples = []
    wal_reports = []
    scratch = tempfile.mkdtemp(prefix="vouch-bench-")
    processes = []
    try:
        print(f"== floor: bare Hummingbird app, wrk -c {connections} for {seconds} s")
        bare, bare_base = start_bare(bench, [], processes)

        storage = "PostgreSQL" if arguments.database else "SQLite, synchronous=FULL"
        print(f"== {arguments.instances} × vouch serve ({os.path.basename(os.path.normpath(arguments.bin))} build, "
              f"{storage}), wrk -c {connections} for {seconds} s each" + (f", {rounds} rounds" if rounds > 1 else ""))
        admin = "benchmark-admin-token-0123456789"
        servers, bases = [], []
        for index in range(arguments.instances):
            data = os.path.join(scratch, f"data-{index}")
            os.mkdir(data, 0o700)
            port = free_port()
            command = [vouch, "serve", "--port", str(port), "--data-dir", data, "--rate-limit", "0", "--log-level", "error",
                       "--allow-loopback-outbound"]
            command += arguments.serve_option
            if arguments.database:
                command += ["--database", arguments.database, "--database-pool-size", "20"]
            server = subprocess.Popen(command, env=dict(os.environ, VOUCH_ADMIN_TOKEN=admin), stdout=subprocess.DEVNULL)
            processes.append(server)
            servers.append(server)
            bases.append(f"http://127.0.0.1:{port}")
        for server, base in zip(servers, bases):
            wait_for(base + "/health", server)
        pids = [server.pid for server in servers]
        with_database = bool(arguments.database)
        for round_index in range(rounds):
            # Each round its own tokens, minted just before it: a server nonce lives ten minutes,
            # so tokens minted for every round at once could expire before the last rounds ran.
            prepared = os.path.join(scratch, f"prepared-{round_index}")
            started = time.time()
            subprocess.run([bench, "prepare", "--server", bases[0], "--admin-token", admin,
                            "--count", str(arguments.signins), "--out", prepared], check=True)
            print(f"(minted in {time.time() - started:.0f} s, before the clock)")
            with open(os.path.join(prepared, "signins.jsonl")) as handle:
                tokens = handle.readlines()
            # Two thirds of the tokens for the sign-in as it is, a third for the sign-in with a
            # subscriber, which serves about half as many a second.
            chunk, subscribed_chunk = tokens[:len(tokens) * 2 // 3], tokens[len(tokens) * 2 // 3:]
            app_id = json.loads(tokens[0])["app_id"].rsplit("/", 1)[-1]
            with open(os.path.join(prepared, "session.txt")) as handle:
                session = handle.read().strip()
            # Each instance's wrk its own share of the round's tokens.
            shares = []
            for index in range(len(bases)):
                path = os.path.join(prepared, f"signins-{round_index}-{index}.jsonl")
                with open(path, "w") as handle:
                    handle.writelines(chunk[index::len(bases)])
                shares.append(path)
            settle_disk()
            results = [measure(BARE, [bare.pid], [bare_base + "/nonces"], seconds, connections,
                               script=os.path.join(HERE, "bench", "post_nonces.lua"))]
            results.append(measure_sign_in_floor(bench, prepared, seconds, connections, processes))
            results.append(measure("vouch POST /nonces", pids, [b + "/nonces" for b in bases], seconds, connections,
                                   with_database, script=os.path.join(HERE, "bench", "post_nonces.lua")))
            wal_copy = None if arguments.database else os.path.join(scratch, f"sign-in-{round_index}.sqlite-wal")
            results.append(measure(VOUCH_SIGN_IN, pids,
                                   [(base + "/sessions", {"SIGNINS": path}) for base, path in zip(bases, shares)],
                                   seconds, connections, with_database, script=os.path.join(HERE, "bench", "signins.lua"),
                                   wal_sample=None if wal_copy is None else (os.path.join(scratch, "data-0", "vouch.sqlite-wal"), wal_copy)))
            if wal_copy is not None:
                wal_samples.append(wal_copy)
            results.append(measure("vouch GET /users/me", pids, [b + "/users/me" for b in bases], seconds, connections,
                                   with_database, headers=[f"Authorization: Bearer {session}"]))
            # PROTOCOL §8.16: minting an access token, and a service's introspection of a session
            # token and of an access token (the same token each time, as a service asking about
            # one user's requests would).
            with open(os.path.join(prepared, "access-token.txt")) as handle:
                access_token = handle.read().strip()
            with open(os.path.join(prepared, "service-credential.txt")) as handle:
                credential = handle.read().strip()
            results.append(measure("vouch POST access-token", pids, [b + "/sessions/access-token" for b in bases], seconds,
                                   connections, with_database, script=os.path.join(HERE, "bench", "post_empty.lua"),
                                   headers=[f"Authorization: Bearer {session}"]))
            offline = subprocess.run([bench, "verify-offline", "--server", bases[0], "--token",
                                      os.path.join(prepared, "access-token.txt"), "--seconds", "1" if arguments.smoke else "3"],
                                     check=True, capture_output=True, text=True).stdout
            offline_us.append(float(re.search(r"= ([0-9.]+) µs CPU", offline).group(1)))
            for kind, token in (("session", session), ("access", access_token)):
                results.append(measure(f"vouch POST /introspect {kind}", pids,
                                       [(b + "/introspect", {"FORM": f"token={token}"}) for b in bases], seconds,
                                       connections, with_database, script=os.path.join(HERE, "bench", "post_form.lua"),
                                       headers=[f"Authorization: Bearer {credential}"]))
            # PROTOCOL §8.17: the same sign-in with one webhook subscribed to session.created (the
            # bare app answers its deliveries): the event written with the session and its delivery,
            # all in the server's CPU.
            hook = admin_call(bases[0], admin, "POST", f"/admin/apps/{app_id}/webhooks",
                              {"url": bare_base + "/nonces", "events": ["session.created"]})
            subscribed_shares = []
            for index in range(len(bases)):
                path = os.path.join(prepared, f"signins-subscribed-{round_index}-{index}.jsonl")
                with open(path, "w") as handle:
                    handle.writelines(subscribed_chunk[index::len(bases)])
                subscribed_shares.append(path)
            results.append(measure(VOUCH_SIGN_IN_SUBSCRIBED, pids,
                                   [(base + "/sessions", {"SIGNINS": path}) for base, path in zip(bases, subscribed_shares)],
                                   seconds, connections, with_database, script=os.path.join(HERE, "bench", "signins.lua")))
            admin_call(bases[0], admin, "DELETE", f"/admin/apps/{app_id}/webhooks/{hook['id']}")
            # The bare app once more at the round's end: every ratio is to the mean of the two, so
            # that the host's drift over the round weighs on the floor as on the routes between.
            results.append(measure(BARE_AGAIN, [bare.pid], [bare_base + "/nonces"], seconds, connections,
                                   script=os.path.join(HERE, "bench", "post_nonces.lua")))
            all_rounds.append(results)
        if arguments.pairs:
            paired = measure_pairs(bench, bare, bare_base, pids, bases[0], admin, scratch, arguments.pairs,
                                   arguments.pair_seconds, connections, 300 if arguments.smoke else 24_000)
        bare.send_signal(signal.SIGTERM)
        bare.wait(timeout=30)
        for server in servers:
            server.send_signal(signal.SIGTERM)
        for server in servers:
            server.wait(timeout=30)
        for sample in wal_samples:
            wal_reports.append(wal_report(sample, os.path.join(scratch, "data-0", "vouch.sqlite")))
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
        shutil.rmtree(scratch, ignore_errors=True)

    for round_index, results in enumerate(all_rounds):
        print_results(f"== results" + (f", round {round_index + 1} of {rounds}" if rounds > 1 else ""), results, rsa_us)
    if rounds > 1:
        print_medians(all_rounds, rsa_us)
    if paired is not None:
        print_pairs(paired, arguments.pair_seconds)
    for round_index, report in enumerate(wal_reports):
        print(f"== sign-in commits halfway through" + (f" round {round_index + 1}" if len(wal_reports) > 1 else "") + f": {report}")
    for round_index, (results, verify_us) in enumerate(zip(all_rounds, offline_us)):
        me = next(result for result in results if result["name"] == "vouch GET /users/me")
        print(f"a service's offline verification (VouchResourceServer, cache hit) = {verify_us:.2f} µs CPU, "
              f"{verify_us / me['cpu_us']:.3f} × the server's CPU for one GET /users/me"
              + (f" (round {round_index + 1})" if len(offline_us) > 1 else ""))
    print(f"one RSA-2048 verify (openssl) = {rsa_us:.1f} µs")


HEADER = (f"{'what':26} {'served/s':>9} {'CPU µs/req':>10} {'db µs/req':>9} {'p50 ms':>7} {'p99 ms':>7} "
          f"{'× bare CPU':>10} {'× bare rate':>11} {'× RSA verify':>12} {'disk KiB/req':>12}")


def bare_reference(results):
    """The round's bare request: the mean of the bare app measured first and last in the round.

    The host's speed drifts within a round, by as much as a third for the bare app alone; the
    mean of the two ends weighs the drift on the floor as it weighs on the routes measured between
    them, where the first alone would not.
    """
    bares = [result for result in results if result["name"] in (BARE, BARE_AGAIN)]
    return {"cpu_us": statistics.mean(result["cpu_us"] for result in bares),
            "served_rps": statistics.mean(result["served_rps"] for result in bares)}


def print_results(title, results, rsa_us):
    """One round's table, every figure against that round's bare app (the mean of its two runs)."""
    floor = bare_reference(results)
    print(title)
    print(HEADER)
    for result in results:
        database = f"{result['db_cpu_us']:9.1f}" if result.get("db_cpu_us") is not None else f"{'-':>9}"
        print(f"{result['name']:26} {result['served_rps']:9.0f} {result['cpu_us']:10.1f} {database} {result['p50_ms']:7.2f} "
              f"{result['p99_ms']:7.2f} {result['cpu_us'] / floor['cpu_us']:10.2f} "
              f"{result['served_rps'] / floor['served_rps']:11.3f} {result['cpu_us'] / rsa_us:12.2f} "
              f"{result.get('disk_kib', 0):12.2f}")
    beyond = beyond_sign_in_floor(results)
    if beyond is not None:
        print(f"vouch durable sign-in beyond the bare sign-in floor: {beyond * floor['cpu_us']:.1f} µs a sign-in "
              f"({beyond:.2f} × bare): Vouch's rules, its store and the durable write")
    print("where the server's CPU went, µs a request (user + system; context switches a request), by thread:")
    for result in results:
        if result.get("threads"):
            parts = "; ".join(f"{kind} {user:.1f} + {system:.1f} ({switches:.2f})"
                              for kind, (user, system, switches) in sorted(result["threads"].items()))
            print(f"  {result['name']}: {parts}")
    if any(result.get("syscalls") for result in results):
        print("system calls and context switches a request, by thread (over 0.01):")
        for result in results:
            by_kind = collections.defaultdict(list)
            for (kind, call), count in sorted(result.get("syscalls", {}).items(), key=lambda item: -item[1]):
                if count >= 0.01:
                    by_kind[kind].append(f"{call} {count:.2f}")
            parts = "; ".join(f"{kind}: {', '.join(calls)}" for kind, calls in sorted(by_kind.items()))
            print(f"  {result['name']}: {parts}")
    for result in results:
        problems = []
        if result.get("refused"):
            problems.append(f"{result['refused']} sign-ins refused")
        if result.get("exhausted"):
            problems.append(f"tokens ran out ({result['exhausted']} /health requests instead): raise --signins")
        if "created" not in result and result["non2xx"]:
            problems.append(f"{result['non2xx']} non-2xx answers")
        if result["socket_errors"]:
            problems.append(f"socket errors: {result['socket_errors']}")
        if problems:
            print(f"warning: {result['name']}: " + "; ".join(problems))


def beyond_sign_in_floor(results):
    """What Vouch's sign-in costs beyond the bare app's sign-in floor, in units of the bare request
    (None when the round has no floor)."""
    rows = {result["name"]: result for result in results}
    floor, vouch = rows.get(FLOOR_SIGN_IN), rows.get(VOUCH_SIGN_IN)
    if floor is None or vouch is None:
        return None
    return (vouch["cpu_us"] - floor["cpu_us"]) / bare_reference(results)["cpu_us"]


def print_medians(all_rounds, rsa_us):
    """The median of each figure over the rounds; ratios are taken within each round first."""
    print(f"== median of {len(all_rounds)} rounds (ratios within each round to its bare app, the mean of its two runs)")
    print(HEADER)
    for row in range(len(all_rounds[0])):
        samples = [results[row] for results in all_rounds]
        floors = [bare_reference(results) for results in all_rounds]

        def median(values):
            return statistics.median(values)
        database = [s["db_cpu_us"] for s in samples if s.get("db_cpu_us") is not None]
        database_text = f"{median(database):9.1f}" if database else f"{'-':>9}"
        print(f"{samples[0]['name']:26} {median([s['served_rps'] for s in samples]):9.0f} "
              f"{median([s['cpu_us'] for s in samples]):10.1f} {database_text} "
              f"{median([s['p50_ms'] for s in samples]):7.2f} {median([s['p99_ms'] for s in samples]):7.2f} "
              f"{median([s['cpu_us'] / f['cpu_us'] for s, f in zip(samples, floors)]):10.2f} "
              f"{median([s['served_rps'] / f['served_rps'] for s, f in zip(samples, floors)]):11.3f} "
              f"{median([s['cpu_us'] for s in samples]) / rsa_us:12.2f} "
              f"{median([s.get('disk_kib', 0) for s in samples]):12.2f}")
    beyond = [value for value in (beyond_sign_in_floor(results) for results in all_rounds) if value is not None]
    if beyond:
        print(f"vouch durable sign-in beyond the bare sign-in floor: {statistics.median(beyond):.2f} × bare in the median")


if __name__ == "__main__":
    main()
