#!/usr/bin/env python3
"""Verify a Vouch token with an implementation independent of Vouch's own (PyJWT).

Used by the CLI tests to cross-check what `vouch token mint` and `vouch token mint-registration`
produce, and handy by hand:

    python3 scripts/verify_token.py layer --public-key public.pem TOKEN
    python3 scripts/verify_token.py sinch --application-secret SECRET TOKEN [--ignore-expiry]
    python3 scripts/verify_token.py access --issuer URL --audience AUD TOKEN

`access` checks a Vouch access token (PROTOCOL §8.16) as a generic JWT library would, knowing only
the issuer: the JWKS is found through `<issuer>/.well-known/openid-configuration` and fetched by
PyJWT's own client.

TOKEN may be `-` to read it from standard input. On success the claims are printed as one JSON
object (sorted keys) and the exit status is 0; a token that does not verify exits 1 with the reason
on stderr; usage errors exit 2.
"""

import argparse
import base64
import datetime
import hashlib
import hmac
import json
import sys

try:
    import jwt  # PyJWT
except ImportError:  # pragma: no cover - reported to the caller
    print("PyJWT is not installed (pip install pyjwt)", file=sys.stderr)
    sys.exit(3)

LAYER_CTY = "layer-eit;v=1"
SINCH_ISSUER_PREFIX = "//rtc.sinch.com/applications/"
SINCH_KID_PREFIX = "hkdfv1-"


class Invalid(Exception):
    pass


def read_token(argument):
    return sys.stdin.read().strip() if argument == "-" else argument


def verify_layer(token, public_pem):
    header = jwt.get_unverified_header(token)
    if header.get("alg") != "RS256":
        raise Invalid("alg must be RS256, not %r" % header.get("alg"))
    if header.get("typ") != "JWT":
        raise Invalid("typ must be JWT, not %r" % header.get("typ"))
    if header.get("cty") != LAYER_CTY:
        raise Invalid("cty must be %s, not %r" % (LAYER_CTY, header.get("cty")))
    if not isinstance(header.get("kid"), str):
        raise Invalid("kid missing")
    claims = jwt.decode(
        token,
        public_pem,
        algorithms=["RS256"],
        options={"verify_aud": False, "require": ["iss", "prn", "iat", "exp", "nce"]},
    )
    for name in ("iss", "prn", "nce"):
        if not isinstance(claims[name], str) or not claims[name]:
            raise Invalid("%s must be a non-empty string" % name)
    return claims


def sinch_signing_key(secret_base64, kid):
    if not kid.startswith(SINCH_KID_PREFIX):
        raise Invalid("kid must start with %s" % SINCH_KID_PREFIX)
    date = kid[len(SINCH_KID_PREFIX):]
    try:
        datetime.datetime.strptime(date, "%Y%m%d")
    except ValueError:
        raise Invalid("kid date %r is not YYYYMMDD" % date)
    padded = secret_base64.strip() + "=" * (-len(secret_base64.strip()) % 4)
    secret = base64.b64decode(padded, validate=True)
    return hmac.new(secret, date.encode("ascii"), hashlib.sha256).digest(), date


def verify_sinch(token, secret_base64, ignore_expiry):
    header = jwt.get_unverified_header(token)
    if header.get("alg") != "HS256":
        raise Invalid("alg must be HS256, not %r" % header.get("alg"))
    key, date = sinch_signing_key(secret_base64, header.get("kid", ""))
    claims = jwt.decode(
        token,
        key,
        algorithms=["HS256"],
        options={
            "verify_aud": False,
            "verify_exp": not ignore_expiry,
            "verify_iat": not ignore_expiry,
            "require": ["iss", "sub", "iat", "exp", "nonce"],
        },
    )
    issuer = claims["iss"]
    if not isinstance(issuer, str) or not issuer.startswith(SINCH_ISSUER_PREFIX):
        raise Invalid("iss must start with %s" % SINCH_ISSUER_PREFIX)
    prefix = issuer + "/users/"
    subject = claims["sub"]
    if not isinstance(subject, str) or not subject.startswith(prefix) or len(subject) == len(prefix):
        raise Invalid("sub must be iss + /users/<user id>")
    issued_day = datetime.datetime.fromtimestamp(claims["iat"], tz=datetime.timezone.utc).strftime("%Y%m%d")
    if issued_day != date:
        raise Invalid("kid date %s is not the UTC day of iat (%s)" % (date, issued_day))
    if claims["exp"] - claims["iat"] < 60:
        raise Invalid("exp - iat is under 60 seconds")
    return claims


def verify_access(token, issuer, audience):
    import urllib.request
    with urllib.request.urlopen(issuer + "/.well-known/openid-configuration", timeout=10) as response:
        discovery = json.load(response)
    if discovery.get("issuer") != issuer:
        raise Invalid("the discovery document names another issuer: %r" % discovery.get("issuer"))
    header = jwt.get_unverified_header(token)
    if header.get("typ") != "at+jwt":
        raise Invalid("typ is %r, not at+jwt" % header.get("typ"))
    key = jwt.PyJWKClient(discovery["jwks_uri"]).get_signing_key_from_jwt(token)
    return jwt.decode(token, key.key, algorithms=["ES256"], audience=audience, issuer=issuer,
                      options={"require": ["exp", "iat", "iss", "aud", "sub", "jti"]})


def main(argv=None):
    parser = argparse.ArgumentParser(description="Verify a Vouch token with PyJWT and print its claims as JSON.")
    sub = parser.add_subparsers(dest="profile", required=True)
    layer = sub.add_parser("layer", help="a Layer identity token (RS256)")
    layer.add_argument("--public-key", required=True, help="PEM file with the provider's public key")
    layer.add_argument("token")
    sinch = sub.add_parser("sinch", help="a Sinch registration token (HS256, daily derived key)")
    sinch.add_argument("--application-secret", required=True, help="the app's registration secret (base64)")
    sinch.add_argument("--ignore-expiry", action="store_true", help="do not check exp / iat against the clock")
    sinch.add_argument("token")
    access = sub.add_parser("access", help="a Vouch access token (ES256), its keys found from the issuer alone")
    access.add_argument("--issuer", required=True, help="Vouch's public URL")
    access.add_argument("--audience", required=True)
    access.add_argument("token")
    args = parser.parse_args(argv)

    token = read_token(args.token)
    try:
        if args.profile == "access":
            claims = verify_access(token, args.issuer, args.audience)
        elif args.profile == "layer":
            with open(args.public_key, "rb") as handle:
                claims = verify_layer(token, handle.read())
        else:
            claims = verify_sinch(token, args.application_secret, args.ignore_expiry)
    except (Invalid, jwt.PyJWTError, ValueError) as error:
        print("invalid token: %s" % error, file=sys.stderr)
        return 1
    print(json.dumps(claims, sort_keys=True, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
