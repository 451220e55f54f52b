#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Write the seed-file fuzzing corpus (tests/fuzz/corpus/seed-file/): a few
valid files encoded independently of the C code, from the layout documented
in src/shared/seed-file.h, and the broken ones a parser must refuse. Run from
anywhere; deterministic, so the committed corpus can be regenerated."""
import hashlib
import os
import struct

MAGIC = b"\x89EGSEED\n"
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "seed-file")


def seed_file(seed, creditable=True, machine_id=None, version=1, flags=None, length=None):
    if machine_id:
        binding = hashlib.blake2s(machine_id.encode(), key=b"entropy-gate machine binding v1").digest()
    else:
        binding = bytes(32)
    if flags is None:
        flags = 1 if creditable else 0
    body = MAGIC + struct.pack("<II", version, flags) + binding + struct.pack("<I", len(seed) if length is None else length) + seed
    return body + hashlib.blake2s(body).digest()


def main():
    os.makedirs(OUT, exist_ok=True)
    seed32 = bytes((i * 37 + 11) & 0xFF for i in range(32))
    seed64 = bytes((i * 101 + 7) & 0xFF for i in range(64))
    seed512 = bytes((i * 13 + 5) & 0xFF for i in range(512))
    mid = "4c3f1a2b5d6e7f8091a2b3c4d5e6f708"
    valid = seed_file(seed32, machine_id=mid)
    files = {
        "valid-32-creditable-bound": valid,
        "valid-64-uncreditable-unbound": seed_file(seed64, creditable=False),
        "valid-512-creditable-bound": seed_file(seed512, machine_id=mid),
        "empty": b"",
        "magic-only": MAGIC,
        "truncated-header": valid[:30],
        "truncated-seed": valid[:70],
        "truncated-checksum": valid[:-1],
        "trailing-byte": valid + b"\0",
        "bad-checksum": valid[:-1] + bytes([valid[-1] ^ 1]),
        "bad-magic": b"\x89EGSEEd\n" + valid[8:],
        "version-2": seed_file(seed32, version=2),
        "unknown-flag": seed_file(seed32, flags=3),
        "length-31": seed_file(seed32[:31]),
        "length-513": seed_file(seed512 + b"x"),
        "length-lies": seed_file(seed64, length=32),
    }
    for name, data in files.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)
    print(f"{len(files)} files in {OUT}")


if __name__ == "__main__":
    main()
