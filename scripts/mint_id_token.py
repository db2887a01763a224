#!/usr/bin/env python3
"""Mint an OpenID Connect ID token with PyJWT, shaped as Firebase, Auth0 or Clerk publish theirs.

An implementation independent of Vouch's: the server tests use it to prove that a federated
provider's own ID tokens sign users in (PROTOCOL §8.18). The claims follow each provider's
documentation of its tokens:

- firebase: Firebase Authentication ID tokens (iss https://securetoken.google.com/<project>,
  aud <project>, sub = user_id = the uid, auth_time, firebase.sign_in_provider, an hour's life).
- auth0: Auth0 ID tokens (iss https://<tenant>/, aud the client id, sub provider|id, nickname,
  name, picture, updated_at, sid, nonce; the tenant's ID token lifetime set to an hour or less).
- clerk: a Clerk JWT template (iss https://clerk.<domain>, aud set in the template, azp the
  origin, sid, nbf, jti, a minute's life by default).

    python3 scripts/mint_id_token.py --shape firebase --private-key key.pem --kid KID \
        --issuer ISS --audience AUD --subject USER --iat SECONDS [--ttl SECONDS]

Prints the token. Exits 3 when PyJWT is missing, 2 on usage errors.
"""

import argparse
import sys
import uuid

try:
    import jwt  # PyJWT
except ImportError:  # pragma: no cover - reported to the caller
    print("PyJWT is not installed (pip install pyjwt cryptography)", file=sys.stderr)
    sys.exit(3)


def claims_for(shape, issuer, audience, subject, iat, ttl):
    if shape == "firebase":
        return {
            "iss": issuer, "aud": audience, "auth_time": iat - 30, "user_id": subject, "sub": subject,
            "iat": iat, "exp": iat + ttl, "email": subject + "@example.com", "email_verified": True,
            "name": "Ada Lovelace", "picture": "https://lh3.googleusercontent.com/a/photo.jpg",
            "firebase": {"identities": {"email": [subject + "@example.com"]}, "sign_in_provider": "password"},
        }
    if shape == "auth0":
        return {
            "iss": issuer, "aud": audience, "sub": subject, "iat": iat, "exp": iat + ttl,
            "nickname": "ada", "name": "Ada Lovelace", "picture": "https://s.gravatar.com/avatar/0.png",
            "updated_at": "2026-11-29T10:00:00.000Z", "sid": "Ao9f3Yk0", "nonce": "n-0S6_WzA2Mj",
        }
    if shape == "clerk":
        return {
            "iss": issuer, "aud": audience, "azp": "https://app.example.com", "sub": subject, "sid": "sess_2b3c",
            "iat": iat, "nbf": iat - 10, "exp": iat + ttl, "jti": uuid.uuid4().hex,
            "given_name": "Ada", "family_name": "Lovelace",
        }
    raise ValueError(shape)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shape", required=True, choices=["firebase", "auth0", "clerk"])
    parser.add_argument("--private-key", required=True, help="PEM file of the provider's private key")
    parser.add_argument("--algorithm", default="RS256", choices=["RS256", "ES256"])
    parser.add_argument("--kid", required=True)
    parser.add_argument("--issuer", required=True)
    parser.add_argument("--audience", required=True)
    parser.add_argument("--subject", required=True)
    parser.add_argument("--iat", required=True, type=int)
    parser.add_argument("--ttl", type=int, default=3600)
    args = parser.parse_args()
    with open(args.private_key, "rb") as handle:
        key = handle.read()
    claims = claims_for(args.shape, args.issuer, args.audience, args.subject, args.iat, args.ttl)
    print(jwt.encode(claims, key, algorithm=args.algorithm, headers={"kid": args.kid, "typ": "JWT"}))


if __name__ == "__main__":
    main()
