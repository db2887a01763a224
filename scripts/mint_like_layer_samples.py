#!/usr/bin/env python3
"""Mint a Layer identity token with PyJWT, the way Layer's published sample backends did.

An implementation independent of Vouch's own minter: the server tests use it to prove that tokens
from existing backends sign in unchanged. Layer's Python sample (and its Node and Java ones) wrote
`"typ": "JWS"` and bare UUIDs for `iss` and `kid`; later guides wrote `JWT` and `layer:///` ids.

    python3 scripts/mint_like_layer_samples.py --private-key key.pem --kid KID --iss ISS \
        --prn USER --nonce NONCE --iat SECONDS [--ttl SECONDS] [--typ JWS]

Prints the token. Exits 3 when PyJWT is missing, 2 on usage errors.
"""

import argparse
import sys

try:
    import jwt  # PyJWT
except ImportError:  # pragma: no cover - reported to the caller
    print("PyJWT is not installed (pip install pyjwt cryptography)", file=sys.stderr)
    sys.exit(3)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--private-key", required=True, help="PEM file of the provider's RSA private key")
    parser.add_argument("--kid", required=True)
    parser.add_argument("--iss", required=True)
    parser.add_argument("--prn", required=True)
    parser.add_argument("--nonce", required=True)
    parser.add_argument("--iat", type=int, required=True)
    parser.add_argument("--ttl", type=int, default=600)
    parser.add_argument("--typ", default="JWS")
    arguments = parser.parse_args()

    with open(arguments.private_key, "rb") as handle:
        private_key = handle.read()
    # The claim set and header of the sample backends (`identity_token` in layer-python samples).
    claims = {
        "iss": arguments.iss,
        "prn": arguments.prn,
        "iat": arguments.iat,
        "exp": arguments.iat + arguments.ttl,
        "nce": arguments.nonce,
    }
    headers = {"typ": arguments.typ, "cty": "layer-eit;v=1", "kid": arguments.kid}
    print(jwt.encode(claims, private_key, algorithm="RS256", headers=headers))


if __name__ == "__main__":
    main()
