#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The tree tools' messages quote what an image holds: a key name of its
configuration, its Directory=, a file's name. On stderr (a terminal) none of
it may reach the terminal as something it acts on: C0, DEL, C1 as UTF-8
(U+009B is CSI, U+009D OSC) or as a raw byte, a bidirectional override, or a
byte that is not UTF-8 at all. entropyctl's own reports escape all of them (term-output); the
messages every binary logs must too.

Usage: log-output.py ENTROPYCTL ENTROPY_SEED CONF_FILE
"""
import os
import subprocess
import sys
import tempfile

ctl, seed, conf_file = sys.argv[1], sys.argv[2], sys.argv[3]
CSI_UTF8, OSC_UTF8, CSI_RAW = b"\xc2\x9b", b"\xc2\x9d", b"\x9b"
# Shown backwards from here on, or as another line: one name passes for another.
BIDI = {0x61c, 0x200e, 0x200f, *range(0x2028, 0x202f), *range(0x2066, 0x206a)}
failures = 0


def active(data):
    """What a terminal may act on in @data, or None."""
    for line in data.split(b"\n"):
        for i, c in enumerate(line):
            if c < 0x20 or c == 0x7f:
                return f"C0 0x{c:02x} at {i}"
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as e:
            return f"not UTF-8 at {e.start}"
        for i, ch in enumerate(text):
            if 0x80 <= ord(ch) <= 0x9f:
                return f"C1 U+{ord(ch):04X} at {i}"
            if ord(ch) in BIDI:
                return f"bidirectional control U+{ord(ch):04X} at {i}"
    return None


def attempt(label, args):
    global failures
    p = subprocess.run(args, capture_output=True, timeout=60)
    what = active(p.stderr)
    if what:
        failures += 1
        print(f"FAIL: {label}: {what} in {p.stderr!r}")
    elif not p.stderr:
        failures += 1
        print(f"FAIL: {label}: nothing said (exit {p.returncode})")


with tempfile.TemporaryDirectory() as tmp:
    img = os.path.join(tmp, "img")
    conf = os.path.join(img, conf_file.lstrip("/"))
    os.makedirs(os.path.dirname(conf), exist_ok=True)
    os.makedirs(os.path.join(img, "etc"), exist_ok=True)
    with open(os.path.join(img, "etc/machine-id"), "w") as f:
        f.write("0123456789abcdef0123456789abcdef\n")

    # An unknown key: its name is quoted back.
    with open(conf, "wb") as f:
        f.write(b"[Seed]\n" + CSI_UTF8 + b"2J" + OSC_UTF8 + b"0;owned" + CSI_RAW + b"31m=1\n")
    attempt("check-image, a key named with C1 controls", [ctl, "check-image", img])
    attempt("provision, a key named with C1 controls", [seed, "provision", "--root=" + img])

    with open(conf, "wb") as f:
        f.write(b"[Seed]\nDees\xe2\x80\xae=1\n")
    attempt("check-image, a key named with a right-to-left override", [ctl, "check-image", img])

    # A seed directory that is not there: its name is quoted back.
    with open(conf, "wb") as f:
        f.write(b"[Seed]\nDirectory=/" + CSI_UTF8 + b"2J" + CSI_RAW + b"31m\xff\n")
    attempt("provision, Directory= with C1 controls and a byte that is not UTF-8",
            [seed, "provision", "--root=" + img])

if failures:
    print(f"log-output: {failures} failure(s)")
    sys.exit(1)
print("log-output: ok")
