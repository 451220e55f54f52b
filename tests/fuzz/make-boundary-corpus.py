#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Write the corpora of the credential and record fuzz targets
(tests/fuzz/corpus/credential/, tests/fuzz/corpus/records/): inputs of every
kind at, just below and just above each buffer boundary of the code under
test (a credential's 32-byte minimum and 4096-byte maximum; the record
fields' 33, 65, 512 and PATH_MAX + 8 bytes; the ledger's 64-hex ids and its
256 entries). Deterministic, so the committed corpora can be regenerated."""
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def pattern(n, seed):
    return bytes(((i * 131 + seed * 29 + 7) * 2654435761 >> 13) & 0xFF for i in range(n))


def write(dirname, name, data):
    d = os.path.join(HERE, "corpus", dirname)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def credentials():
    for n in (0, 1, 2, 31, 32, 33, 63, 64, 65, 2047, 2048, 2049, 4095, 4096):
        b = pattern(n, n)
        write("credential", f"binary-{n}", b)
        write("credential", f"binary-{n}-nl", b + b"\n")
        h = b.hex()[:n]
        write("credential", f"hex-{n}", h.encode())
        write("credential", f"hex-{n}-crlf", (h.upper() + "\r\n").encode())
        write("credential", f"text-{n}", (b"passphrase " * (n // 11 + 1))[:n])
        write("credential", f"utf16-{n}", ("\ufeff" + "x" * (n // 2)).encode("utf-16-le")[:n])
        write("credential", f"utf8-{n}", ("ä" * n).encode()[:n])
    write("credential", "utf8-cut", "aaaé".encode()[:-1])
    write("credential", "utf16-surrogates", "\ufeff".encode("utf-16-be") + b"\xd8\x3d\xde\x00\xd8\x3d")
    write("credential", "utf32-bom", "\ufeffabc".encode("utf-32-le"))
    write("credential", "only-terminators", b"\0\r\n\0\n")
    write("credential", "memory-old", b"\x89EGCRED\n" + pattern(64, 1))
    write("credential", "memory-old-cut", b"\x89EGCRED\n" + pattern(63, 2))
    write("credential", "memory-new-cut", b"\x89EGBLM1\n" + pattern(100, 3))


def records():
    bid = "0123456789abcdef0123456789abcdef"
    for n in (32, 33, 64, 65, 511, 512, 513, 4103, 4104, 4105):
        v = "a" * n
        write("records", f"seed-{n}", (f"BOOT_ID={v}\nACTION=credited\nBITS={n}\nSEED_PATH=/{v}\n"
                                       f"REASON={v}\nCREDENTIAL_HASH={v}\n").encode())
        write("records", f"escapes-{n}", ("SEED_PATH=" + "\\x0a" * (n // 4) + "\\x0\n").encode())
    write("records", "seed-escapes", b"SEED_PATH=/a\\x09b\\x5cc\\xffd\\x00e\\x\nREASON=\\\\\n")
    write("records", "gate", b"OUTCOME=ready\nREADY_AT_START=no\nSTART_BOOTTIME_USEC=18446744073709551615\n"
                             b"WAITED_USEC=99999999999999999999\n")
    ledger = f"BOOT_ID={bid}\nDIRECTORY=803:12d687\nSEED={'ab' * 32}\nCREDENTIAL={'cd' * 32}\nNEXT={'ef' * 32}\n"
    write("records", "ledger", ledger.encode())
    write("records", "ledger-cut", ledger[:-1].encode())
    write("records", "ledger-long-id", f"BOOT_ID={bid}\nSEED={'a' * 65}\n".encode())
    write("records", "ledger-dev-17", f"BOOT_ID={bid}\nDIRECTORY={'f' * 17}:1\n".encode())
    full = f"BOOT_ID={bid}\n" + "".join(f"DIRECTORY=1:{i:x}\n" for i in range(256))
    write("records", "ledger-256", full.encode())
    write("records", "ledger-257", (full + "DIRECTORY=2:0\n").encode())


if __name__ == "__main__":
    credentials()
    records()
