"""The status list `badgectl credentials revoke` wrote, checked independently (scripts/credentials-check):
its eddsa-jcs-2022 proof (rfc8785 + pynacl, as credentials-check.py), then its encodedList decoded with
Python's own base64 and gzip (W3C Bitstring Status List: multibase base64url of GZIP, bit 0 the most
significant bit of the first byte), and each credential's bit compared with the list of credentials
revoke said it revoked. Usage: credentials-check-status.py OUTDIR REVOKED_LIST_FILE
"""
import base64
import glob
import gzip
import importlib.util
import json
import os
import sys

spec = importlib.util.spec_from_file_location("check", os.path.join(os.path.dirname(__file__), "credentials-check.py"))
check = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check)


def main(out, revoked_file):
    status = json.load(open(os.path.join(out, "status-list.json")))
    did = check.verify_data_integrity(status, check_issuer=False)
    if status.get("issuer") != did or "BitstringStatusListCredential" not in status.get("type", []):
        raise SystemExit("credentials-check: the status list is not a BitstringStatusListCredential of its signer")
    encoded = status["credentialSubject"]["encodedList"]
    if not encoded.startswith("u"):
        raise SystemExit("credentials-check: encodedList is not multibase base64url")
    bits = gzip.decompress(base64.urlsafe_b64decode(encoded[1:] + "=" * (-len(encoded[1:]) % 4)))
    if len(bits) * 8 < 131072:
        raise SystemExit("credentials-check: the list holds %d bits" % (len(bits) * 8))
    expected = {os.path.basename(line.split()[1].rstrip(":")) for line in open(revoked_file) if line.startswith("revoked ")}
    marked = set()
    for path in sorted(glob.glob(os.path.join(out, "*.json"))):
        credential = json.load(open(path))
        entry = credential.get("credentialStatus")
        if entry is None:
            continue
        check.verify_data_integrity(credential)
        if entry["statusListCredential"] != status["id"] or entry["statusPurpose"] != "revocation":
            raise SystemExit("credentials-check: %s names another list" % path)
        index = int(entry["statusListIndex"])
        if bits[index // 8] & (0x80 >> (index % 8)):
            marked.add(os.path.basename(path))
    if not expected or marked != expected:
        raise SystemExit("credentials-check: revoke named %s, the list marks %s" % (sorted(expected), sorted(marked)))
    print("credentials-check: the status list verified (rfc8785 + pynacl) and decoded (gzip): it marks exactly the %d "
          "credentials revoke named" % len(marked))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
