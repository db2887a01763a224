#!/usr/bin/env python3
"""What the rate limiter's table of clients costs when it is full and always turning over.

    python3 scripts/rate_limit_flood.py --bin .build-release/release [--seconds 10] [--pairs 2] [--smoke]

`POST /nonces` at 64 connections from a new client address every request (X-Forwarded-For from
127.0.0.1, which the server is told to trust), against `vouch serve` with its limiter off and on,
alternating: the server's CPU a request (utime + stime), its resident memory before and after,
and wrk's latency. Every address is new, so no request may be refused, limiter or not: a run in
which one was fails (this is what the `--smoke` run in CI holds). Started by
scripts/rate-limit-flood.sh; the server, wrk and the /proc readings are bench.py's.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

from bench import HERE, cpu_seconds, free_port, parse_wrk, resident_mb, start_wrk, wait_for

SCRIPT = os.path.join(HERE, "bench", "new-address-each-request.lua")


def flood(vouch, rate_limit, seconds, connections):
    data = tempfile.mkdtemp(prefix="vouch-flood-")
    server = None
    try:
        port = free_port()
        server = subprocess.Popen([vouch, "serve", "--port", str(port), "--data-dir", data,
                                   "--rate-limit", str(rate_limit), "--trusted-proxy", "127.0.0.1",
                                   "--log-level", "error"], stdout=subprocess.DEVNULL)
        base = f"http://127.0.0.1:{port}"
        wait_for(base + "/health", server)
        cpu_before, rss_before = cpu_seconds(server.pid), resident_mb(server.pid)
        wrk = start_wrk(base + "/", seconds, connections, script=SCRIPT)
        result = parse_wrk(wrk.communicate()[0])
        cpu_after, rss_after = cpu_seconds(server.pid), resident_mb(server.pid)
    finally:
        if server is not None:
            server.terminate()
            server.wait()
        shutil.rmtree(data, ignore_errors=True)
    slowest = result["output"].split("Latency", 1)[1].split()[2]
    print(f"--rate-limit {rate_limit}: {result['requests']} requests, "
          f"{(cpu_after - cpu_before) * 1e6 / max(1, result['requests']):.1f} µs CPU a request, "
          f"p50 {result['p50_ms']:.2f} ms, p99 {result['p99_ms']:.2f} ms, slowest {slowest}, "
          f"resident {rss_before:.0f} -> {rss_after:.0f} MB", flush=True)
    if result["requests"] == 0 or result["non2xx"] or result["socket_errors"]:
        sys.exit(f"rate_limit_flood.py: requests were refused or failed:\n{result['output']}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin", required=True, help="directory holding the vouch executable")
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--pairs", type=int, default=2)
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--smoke", action="store_true", help="one second each, one pair: proves it runs")
    arguments = parser.parse_args()
    seconds, pairs = (1, 1) if arguments.smoke else (arguments.seconds, arguments.pairs)
    vouch = os.path.join(arguments.bin, "vouch")
    for _ in range(pairs):
        for rate_limit in (0, 50):
            flood(vouch, rate_limit, seconds, arguments.connections)


if __name__ == "__main__":
    main()
