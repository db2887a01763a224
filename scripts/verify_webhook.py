#!/usr/bin/env python3
"""Check a Vouch webhook delivery's signature (PROTOCOL §8.17), as a receiver would.

    python3 scripts/verify_webhook.py --secret SECRET --header 't=…,v1=…' [--now UNIX] < BODY

Exits 0 when the signature holds, 1 when it does not. `verify` below is what a receiver
copies: the standard library only.
"""

import argparse
import hashlib
import hmac
import sys
import time


def verify(secret: str, header: str, body: bytes, now: float, tolerance: int = 300) -> bool:
    parts = [p.split("=", 1) for p in header.split(",") if "=" in p]
    timestamps = [v for k, v in parts if k.strip() == "t"]
    if len(timestamps) != 1 or not timestamps[0].isdigit() or abs(now - int(timestamps[0])) > tolerance:
        return False
    signed = timestamps[0].encode() + b"." + body
    expected = hmac.new(secret.encode(), signed, hashlib.sha256).hexdigest()
    return any(hmac.compare_digest(expected, v) for k, v in parts if k.strip() == "v1")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--secret", required=True)
    parser.add_argument("--header", required=True)
    parser.add_argument("--now", type=float, default=None, help="the receiver's clock, unix seconds (default: now)")
    arguments = parser.parse_args()
    body = sys.stdin.buffer.read()
    now = time.time() if arguments.now is None else arguments.now
    return 0 if verify(arguments.secret, arguments.header, body, now) else 1


if __name__ == "__main__":
    sys.exit(main())
