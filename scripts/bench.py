#!/usr/bin/env python3
"""The benchmark of docs/PERFORMANCE.md, run by scripts/bench.sh after it has built the binaries.

Prints, in one run on one machine: the floors (openssl speed rsa2048; a bare Hummingbird app under
the same wrk load as Vouch), in-process token verification against the raw primitives, and over
real HTTP on 127.0.0.1 against `vouch serve` (SQLite, synchronous=FULL): POST /nonces, durable
sign-ins and GET /users/me at 64 connections, each as requests/s, server CPU per request (from
/proc/<pid>/stat), p50/p99 latency, and as ratios to the bare app and to one RSA verify.

    python3 scripts/bench.py --bin DIR [--seconds 10] [--signins 40000] [--connections 64] [--smoke]
"""

import argparse
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
TICKS = os.sysconf("SC_CLK_TCK")


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


def cpu_seconds(pid):
    """utime + stime of a process, in seconds."""
    with open(f"/proc/{pid}/stat") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def wrk(url, seconds, connections, script=None, headers=(), env=None):
    threads = min(connections, os.cpu_count() or 2)
    command = ["wrk", "-t", str(threads), "-c", str(connections), "-d", f"{seconds}s", "--latency", "--timeout", "10s"]
    if script:
        command += ["-s", script]
    for header in headers:
        command += ["-H", header]
    run_env = dict(os.environ, THREADS=str(threads), **(env or {}))
    output = subprocess.run(command + [url], capture_output=True, text=True, env=run_env, check=True).stdout
    result = {"output": output}
    result["requests"] = int(re.search(r"(\d+) requests in", output).group(1))
    result["rps"] = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    result["non2xx"] = int(non2xx.group(1)) if non2xx else 0
    errors = re.search(r"Socket errors: (.*)", output)
    result["socket_errors"] = errors.group(1) if errors else ""
    for percentile in ("50", "99"):
        match = re.search(rf"\s{percentile}%\s+([\d.]+)(us|ms|s)", output)
        value = float(match.group(1)) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[match.group(2)]
        result[f"p{percentile}_ms"] = value
    signins = re.search(r"signins created=(\d+) refused=(\d+) exhausted=(\d+)", output)
    if signins:
        result["created"], result["refused"], result["exhausted"] = map(int, signins.groups())
    return result


def measure(name, pid, url, seconds, connections, **kwargs):
    before = cpu_seconds(pid)
    result = wrk(url, seconds, connections, **kwargs)
    result["cpu"] = cpu_seconds(pid) - before
    result["name"] = name
    served = result.get("created", result["requests"] - result["non2xx"])
    result["served"] = served
    result["cpu_us"] = result["cpu"] / max(served, 1) * 1e6
    result["served_rps"] = served / seconds
    return result


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
    parser.add_argument("--smoke", action="store_true", help="tiny counts: proves the benchmark runs, measures nothing")
    arguments = parser.parse_args()
    if arguments.smoke:
        arguments.seconds, arguments.signins, arguments.connections = 1, 300, 8
    vouch = os.path.join(arguments.bin, "vouch")
    bench = os.path.join(arguments.bin, "vouch-benchmark")
    seconds, connections = arguments.seconds, arguments.connections

    print("== machine")
    print(subprocess.run(["uname", "-srm"], capture_output=True, text=True).stdout.strip())
    with open("/proc/cpuinfo") as handle:
        model = next((line.split(":", 1)[1].strip() for line in handle if line.startswith("model name")), "?")
    print(f"{os.cpu_count()} cores, {model}")

    print("== floor: openssl speed rsa2048 (one core)")
    rsa_per_second = openssl_rsa_verify_per_second(1 if arguments.smoke else 3)
    rsa_us = 1e6 / rsa_per_second

    print("== in process: whole tokens against the primitives (one task)")
    subprocess.run([bench, "tokens", "0.2" if arguments.smoke else "3"], check=True)

    results = []
    scratch = tempfile.mkdtemp(prefix="vouch-bench-")
    processes = []
    try:
        print(f"== floor: bare Hummingbird app, wrk -c {connections} for {seconds} s")
        port = free_port()
        bare = subprocess.Popen([bench, "bare", "--port", str(port)], stdout=subprocess.DEVNULL)
        processes.append(bare)
        base = f"http://127.0.0.1:{port}"
        deadline = time.time() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.time() > deadline:
                    sys.exit("the bare app did not start")
                time.sleep(0.1)
        floor = measure("bare app POST /nonces", bare.pid, base + "/nonces", seconds, connections,
                        script=os.path.join(HERE, "bench", "post_nonces.lua"))
        results.append(floor)
        bare.send_signal(signal.SIGTERM)
        bare.wait(timeout=30)

        print(f"== vouch serve ({os.path.basename(os.path.normpath(arguments.bin))} build, SQLite, synchronous=FULL), "
              f"wrk -c {connections} for {seconds} s each")
        data = os.path.join(scratch, "data")
        os.mkdir(data, 0o700)
        port = free_port()
        admin = "benchmark-admin-token-0123456789"
        server = subprocess.Popen([vouch, "serve", "--port", str(port), "--data-dir", data, "--rate-limit", "0",
                                   "--log-level", "error"], env=dict(os.environ, VOUCH_ADMIN_TOKEN=admin),
                                  stdout=subprocess.DEVNULL)
        processes.append(server)
        base = f"http://127.0.0.1:{port}"
        wait_for(base + "/health", server)
        results.append(measure("vouch POST /nonces", server.pid, base + "/nonces", seconds, connections,
                               script=os.path.join(HERE, "bench", "post_nonces.lua")))
        prepared = os.path.join(scratch, "prepared")
        started = time.time()
        subprocess.run([bench, "prepare", "--server", base, "--admin-token", admin, "--count", str(arguments.signins),
                        "--out", prepared], check=True)
        print(f"(minted in {time.time() - started:.0f} s, before the clock)")
        signins = measure("vouch durable sign-in", server.pid, base + "/sessions", seconds, connections,
                          script=os.path.join(HERE, "bench", "signins.lua"),
                          env={"SIGNINS": os.path.join(prepared, "signins.jsonl")})
        results.append(signins)
        with open(os.path.join(prepared, "session.txt")) as handle:
            session = handle.read().strip()
        results.append(measure("vouch GET /users/me", server.pid, base + "/users/me", seconds, connections,
                               headers=[f"Authorization: Bearer {session}"]))
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
        shutil.rmtree(scratch, ignore_errors=True)

    print("== results")
    print(f"{'what':26} {'served/s':>9} {'CPU µs/req':>10} {'p50 ms':>7} {'p99 ms':>7} "
          f"{'× bare CPU':>10} {'× bare rate':>11} {'× RSA verify':>12}")
    for result in results:
        print(f"{result['name']:26} {result['served_rps']:9.0f} {result['cpu_us']:10.1f} {result['p50_ms']:7.2f} "
              f"{result['p99_ms']:7.2f} {result['cpu_us'] / floor['cpu_us']:10.2f} "
              f"{result['served_rps'] / floor['served_rps']:11.3f} {result['cpu_us'] / rsa_us:12.2f}")
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
    print(f"one RSA-2048 verify (openssl) = {rsa_us:.1f} µs")


if __name__ == "__main__":
    main()
