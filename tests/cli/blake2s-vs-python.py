#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Compare our BLAKE2s (through tests/tools/blake2s-tool) with Python's
hashlib.blake2s on random inputs, keys, digest lengths and update splits.

Usage: blake2s-vs-python.py PATH-TO-blake2s-tool [CASES]
The random seed is printed; set BLAKE2S_TEST_SEED to replay a run."""
import hashlib
import os
import random
import subprocess
import sys


def main():
    tool = sys.argv[1]
    n_cases = int(sys.argv[2]) if len(sys.argv) > 2 else 500
    seed = int(os.environ.get("BLAKE2S_TEST_SEED", random.SystemRandom().randrange(2**32)))
    print(f"seed {seed} (BLAKE2S_TEST_SEED={seed} replays this run)")
    rng = random.Random(seed)

    cases = []
    # Fixed edges first: empty input, block boundaries, the extreme lengths.
    for datalen in (0, 1, 63, 64, 65, 127, 128, 129):
        for keylen in (0, 1, 32):
            for outlen in (1, 16, 32):
                cases.append((outlen, rng.randbytes(keylen), rng.randbytes(datalen)))
    while len(cases) < n_cases:
        datalen = rng.choice((rng.randrange(0, 200), rng.randrange(0, 3000)))
        cases.append((rng.randrange(1, 33), rng.randbytes(rng.randrange(0, 33)), rng.randbytes(datalen)))
    # Out of range parameters: both sides must refuse.
    cases += [(0, b"", b"abc"), (33, b"", b"abc"), (32, bytes(33), b"abc")]

    lines, expected = [], []
    for outlen, key, data in cases:
        s1 = rng.randrange(0, len(data) + 1)
        s2 = rng.randrange(s1, len(data) + 1)
        lines.append(f"{outlen} {key.hex() or '-'} {data.hex() or '-'} {s1} {s2}\n")
        try:
            expected.append(hashlib.blake2s(data, digest_size=outlen, key=key).hexdigest())
        except ValueError:
            expected.append("error")

    out = subprocess.run([tool], input="".join(lines), capture_output=True, text=True, check=True).stdout.split("\n")
    got = out[:-1] if out and out[-1] == "" else out
    if len(got) != len(expected):
        print(f"FAIL: {len(got)} digests for {len(expected)} cases")
        return 1
    bad = [i for i, (g, e) in enumerate(zip(got, expected)) if g != e]
    for i in bad[:10]:
        print(f"FAIL case {i}: {lines[i].strip()[:120]}...\n  ours   {got[i]}\n  python {expected[i]}")
    errors = sum(1 for e in expected if e == "error")
    print(f"{len(expected)} cases ({errors} invalid parameter sets), {len(bad)} mismatches")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
