"""Independent checks of the credentials `badgectl credentials issue` wrote (scripts/credentials-check).

Written apart from badgectl's Swift, from the specifications, with libraries from PyPI:
- the embedded `eddsa-jcs-2022` proof (W3C vc-di-eddsa, section 3.3): `rfc8785` for JCS, `hashlib`
  for SHA-256, `base58` for multibase, `pynacl` (libsodium) for Ed25519; first checked on the W3C
  test vector kept in the repository;
- the VC-JWT: openbadgeslib's `OB3Verifier.for_issuer_did(did).verify(token)` (its own did:key
  resolution, JOSE and Open Badges 3.0 checks);
- the card: openbadgeslib's `extract_token_from_svg` unbakes it (and `extract_token_from_png` a PNG
  card when there is one), then the proof check above.

Then every field of every credential is changed (one byte of a string, a number, a boolean) and
both verifiers must refuse each change. Usage: credentials-check.py OUTDIR VECTOR_DIR
"""
import copy
import glob
import hashlib
import json
import os
import sys

import base58
import nacl.exceptions
import nacl.signing
import rfc8785
from openbadgeslib.ob3 import OB3Verifier

CONTEXT = ["https://www.w3.org/ns/credentials/v2", "https://purl.imsglobal.org/spec/ob/v3p0/context-3.0.3.json"]


class Refused(Exception):
    pass


def did_key_public(method):
    """The Ed25519 key of did:key:z6Mk...#z6Mk... (multicodec 0xed 0x01)."""
    if not method.startswith("did:key:"):
        raise Refused("not a did:key: %r" % method)
    did, _, fragment = method.partition("#")
    multibase = did[len("did:key:"):]
    if fragment and fragment != multibase:
        raise Refused("fragment is not the key")
    if not multibase.startswith("z"):
        raise Refused("not base58btc")
    raw = base58.b58decode(multibase[1:])
    if len(raw) != 34 or raw[:2] != b"\xed\x01":
        raise Refused("not an Ed25519 multikey")
    return did, nacl.signing.VerifyKey(raw[2:])


def verify_data_integrity(document, check_issuer=True):
    """Section 3.3.2 of vc-di-eddsa (eddsa-jcs-2022), independently of badgectl."""
    try:
        return _verify_data_integrity(document, check_issuer)
    except (ValueError, KeyError, TypeError, AttributeError) as error:  # undecodable base58, a missing member
        raise Refused("malformed: %s" % error)


def _verify_data_integrity(document, check_issuer):
    if not isinstance(document, dict) or not isinstance(document.get("proof"), dict):
        raise Refused("no proof")
    proof = document["proof"]
    if proof.get("type") != "DataIntegrityProof" or proof.get("cryptosuite") != "eddsa-jcs-2022":
        raise Refused("not an eddsa-jcs-2022 DataIntegrityProof")
    if proof.get("proofPurpose") != "assertionMethod":
        raise Refused("proofPurpose")
    configuration = {k: v for k, v in proof.items() if k != "proofValue"}
    unsecured = {k: v for k, v in document.items() if k != "proof"}
    if "@context" in configuration and configuration["@context"] != unsecured.get("@context"):
        raise Refused("the proof's @context is not the document's")
    value = proof.get("proofValue")
    if not isinstance(value, str) or not value.startswith("z"):
        raise Refused("proofValue is not multibase base58btc")
    signature = base58.b58decode(value[1:])
    hash_data = hashlib.sha256(rfc8785.dumps(configuration)).digest() + hashlib.sha256(rfc8785.dumps(unsecured)).digest()
    did, key = did_key_public(proof.get("verificationMethod", ""))
    try:
        key.verify(hash_data, signature)
    except (nacl.exceptions.BadSignatureError, ValueError) as error:
        raise Refused("bad signature: %s" % error)
    if check_issuer:
        issuer = document.get("issuer")
        issuer = issuer.get("id") if isinstance(issuer, dict) else issuer
        if issuer != did:
            raise Refused("the key is not the issuer's")
        if document.get("@context") != CONTEXT:
            raise Refused("@context")
        if "OpenBadgeCredential" not in document.get("type", []):
            raise Refused("type")
    return did


def verify_jwt(token, did):
    try:
        return OB3Verifier.for_issuer_did(did).verify(token)
    except Exception as error:  # openbadgeslib raises its own error types
        raise Refused("openbadgeslib: %s" % error)


def leaves(value, path=()):
    """Every scalar of a JSON value with its path."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from leaves(item, path + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from leaves(item, path + (index,))
    else:
        yield path, value


def flipped(value):
    """The value with one byte changed: a string's middle byte (its low bit), a number + 1, a boolean negated."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 1
    if isinstance(value, str):
        data = bytearray(value.encode())
        if not data:
            return "x"
        middle = len(data) // 2
        while middle < len(data) and data[middle] >= 0x80:  # an ASCII byte, so the text stays UTF-8
            middle += 1
        if middle == len(data):
            return value + "x"
        data[middle] ^= 0x01
        return data.decode()
    return "x"  # null


def changed(document, path, value):
    copy_ = copy.deepcopy(document)
    target = copy_
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return copy_


def b64url(data):
    import base64
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64url_decode(text):
    import base64
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def main(out, vectors):
    # The verifier itself, on the W3C test vector: accepts it, refuses a change.
    vector = json.load(open(os.path.join(vectors, "signedJCS.json")))
    verify_data_integrity(vector, check_issuer=False)
    try:
        verify_data_integrity(changed(vector, ("name",), "Alumni Credentia1"), check_issuer=False)
        raise SystemExit("credentials-check: the Python verifier accepts a changed W3C vector")
    except Refused:
        pass
    print("credentials-check: the Python eddsa-jcs-2022 verifier accepts the W3C test vector and refuses it changed")

    files = sorted(glob.glob(os.path.join(out, "*.json")))
    if not files:
        raise SystemExit("credentials-check: no credentials in %s" % out)
    failures = []
    tampered = 0
    pngs = 0
    for path in files:
        base = path[: -len(".json")]
        name = os.path.basename(base)
        document = json.load(open(path))
        token = open(base + ".jwt").read().strip()
        try:
            did = verify_data_integrity(document)
            verify_jwt(token, did)
            baked = OB3Verifier.extract_token_from_svg(open(base + ".svg", "rb").read())
            if json.loads(baked) != document:
                raise Refused("the card's credential is not the JSON file's")
            verify_data_integrity(json.loads(baked))
            if os.path.exists(base + ".png"):
                baked = OB3Verifier.extract_token_from_png(open(base + ".png", "rb").read())
                if json.loads(baked) != document:
                    raise Refused("the PNG's credential is not the JSON file's")
                verify_data_integrity(json.loads(baked))
                pngs += 1
        except Refused as error:
            failures.append("%s: refused: %s" % (name, error))
            continue
        # Every field of the JSON credential, one at a time.
        for leaf, value in leaves(document):
            try:
                verify_data_integrity(changed(document, leaf, flipped(value)))
                failures.append("%s: the proof check accepts %s changed" % (name, "/".join(map(str, leaf))))
            except Refused:
                tampered += 1
        # Every field of the JWT's payload, one at a time, the header and signature kept.
        header, payload, signature = token.split(".")
        claims = json.loads(b64url_decode(payload))
        for leaf, value in leaves(claims):
            forged = b64url(json.dumps(changed(claims, leaf, flipped(value)), separators=(",", ":")).encode())
            try:
                verify_jwt(".".join([header, forged, signature]), did)
                failures.append("%s: openbadgeslib accepts the JWT with %s changed" % (name, "/".join(map(str, leaf))))
            except Refused:
                tampered += 1
        # And a byte of the token itself (the middle of the payload).
        middle = len(header) + 1 + len(payload) // 2
        replacement = "A" if token[middle] != "A" else "B"
        try:
            verify_jwt(token[:middle] + replacement + token[middle + 1:], did)
            failures.append("%s: openbadgeslib accepts the JWT with a byte of its payload changed" % name)
        except Refused:
            tampered += 1
    for failure in failures:
        print("credentials-check: " + failure, file=sys.stderr)
    if failures:
        raise SystemExit("credentials-check: %d failures" % len(failures))
    print("credentials-check: %d credentials: every JSON proof (rfc8785 + pynacl), JWT (openbadgeslib) and card "
          "verified%s; all %d changed copies refused" % (len(files), " (%d PNG cards too)" % pngs if pngs else "", tampered))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
