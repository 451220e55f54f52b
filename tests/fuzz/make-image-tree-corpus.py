#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Writes tests/fuzz/corpus/image-tree/: the attacks of issue 18 in the input
language of fuzz-image-tree.c (see the comment at its top)."""
import os
import sys

NAMES = ["etc", "var", "lib", "systemd", "seedrng", "entropy-gate", "boot", "efi", "loader", "dbus",
         "urandom", "srv", "eg", "machine-id", "random-seed", "seed", "credentials", "credential.secret",
         "urandom.seed", "seed.credit", "seed.no-credit", "aws", "x", "..", "."]
CANARY = ["etc/machine-id", "etc/urandom.seed", "etc/seedrng/seed.credit", "var/lib/systemd/random-seed",
          "var/lib/systemd/credential.secret", "var/lib/entropy-gate/seed", "var/lib/entropy-gate/credentials",
          "var/lib/seedrng/seed.credit", "var/lib/dbus/machine-id", "boot/efi/loader/random-seed",
          "efi/loader/random-seed", "aws/credentials", "aws/seed", "srv/eg/seed"]


def path(p):
    parts = p.split("/")
    return bytes([len(parts) - 1] + [NAMES.index(x) for x in parts])


def mkdir(p):
    return bytes([0]) + path(p)


def file(p, data=b"shared", machine_id=False):
    return bytes([1]) + path(p) + (bytes([0xff]) if machine_id else bytes([len(data)]) + data)


def symlink(p, kind, k, target):
    return bytes([2]) + path(p) + bytes([kind, k]) + path(target)


def hardlink_canary(p, target):
    return bytes([3]) + path(p) + bytes([CANARY.index(target)])


def hardlink(p, target):
    return bytes([4]) + path(p) + path(target)


def directory(canary, ups, p):
    return bytes([5, 1 if canary else 0, ups]) + path(p)


def flags(cross=False, force=False, empty=False):
    return bytes([6, (1 if cross else 0) | (2 if force else 0) | (4 if empty else 0)])


every = b"".join(file(p) for p in ("var/lib/entropy-gate/seed", "var/lib/systemd/random-seed",
                                   "var/lib/seedrng/seed.credit", "etc/urandom.seed", "boot/efi/loader/random-seed",
                                   "var/lib/systemd/credential.secret")) + \
    file("etc/machine-id", machine_id=True) + file("var/lib/dbus/machine-id", machine_id=True)
corpus = {
    "directory-climbs-to-aws": directory(True, 7, "aws") + every,
    "directory-climbs-plain": directory(False, 3, "etc") + every,
    "etc-to-canary": symlink("etc", 0, 0, "etc") + every,
    "var-lib-climbs-to-canary": mkdir("var") + symlink("var/lib", 1, 7, "var/lib") + every,
    "seedrng-to-canary": mkdir("var/lib") + symlink("var/lib/seedrng", 0, 0, "var/lib/seedrng") + every,
    "seed-to-canary": mkdir("var/lib/entropy-gate") + symlink("var/lib/entropy-gate/seed", 0, 0,
                                                              "var/lib/entropy-gate/seed"),
    "dbus-machine-id-to-canary": mkdir("var/lib/dbus") + symlink("var/lib/dbus/machine-id", 0, 0,
                                                                 "var/lib/dbus/machine-id"),
    "hard-links-from-canary": b"".join(hardlink_canary(p, p) for p in (
        "etc/machine-id", "var/lib/systemd/random-seed", "var/lib/dbus/machine-id", "var/lib/entropy-gate/seed",
        "var/lib/entropy-gate/credentials", "var/lib/seedrng/seed.credit", "etc/urandom.seed")) + flags(empty=True),
    "hard-links-inside": every + hardlink("etc/seedrng/seed.credit", "etc/urandom.seed") + flags(cross=True),
    "relative-links": mkdir("var/lib") + symlink("var/lib/seedrng", 2, 0, "../../../../../../aws") + every,
    "everything": directory(True, 7, "aws") + symlink("boot", 0, 0, "boot") + mkdir("var") +
    symlink("var/lib", 1, 7, "var/lib") + hardlink_canary("etc/machine-id", "etc/machine-id") + every +
    flags(cross=True, force=True),
}
out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                        "corpus", "image-tree")
os.makedirs(out, exist_ok=True)
for name, data in corpus.items():
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)
