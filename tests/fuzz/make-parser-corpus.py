#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Write the boundary inputs of the configuration and kernel command line
corpora (tests/fuzz/corpus/{config,cmdline}/): sizes at and around
every buffer the parsers and loaders use, each ending in a setting, so that
a read one byte short or one byte long changes what is found:

  config   CONFIG_FILE_MAX (65536) for the loader's bounded read; the line
           buffer's first sizes (128, 256); conf_warn()'s 512-byte message
  cmdline  config.c's 2048 + 2 byte buffer for /proc/cmdline (2048 bytes of
           text), CMDLINE_MAX (65536) for the heap read

Deterministic: run from anywhere to regenerate the committed files."""
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def write(corpus, name, data):
    d = os.path.join(HERE, "corpus", corpus)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def padded(size, tail, fill=b"#"):
    """@size bytes: comment lines of @fill, then @tail at the very end."""
    body = bytearray()
    while len(body) < size - len(tail):
        line = fill * min(99, size - len(tail) - len(body) - 1) + b"\n"
        body += line
    data = bytes(body[: size - len(tail)]) + tail
    assert len(data) == size, (len(data), size)
    return data


def main():
    # config: the loader's cap, one each side.
    for size in (65535, 65536, 65537):
        write("config", f"bound-file-{size}", padded(size, b"\n[Seed]\nCredit=no"))
    # config: one logical line whose length crosses the line buffer's
    # first sizes, continued and not.
    for n in (127, 128, 129, 255, 256, 257):
        value = b"u" * (n - len(b"Units="))
        write("config", f"bound-line-{n}", b"[Gate]\n" + b"Units=" + value + b"\n")
        half = value[: len(value) // 2]
        write("config", f"bound-continued-{n}",
              b"[Gate]\nUnits=" + half + b"\\\n" + value[len(half):] + b"\nTimeout=1s")
    # config: keys and values around the 512-byte warning message.
    for n in (480, 511, 512, 513, 1024):
        write("config", f"bound-warning-{n}", b"[Gate]\n" + b"K" * n + b"=" + b"v" * n + b"\n")
    # config: a byte order mark, and one cut short.
    write("config", "bom", b"\xef\xbb\xbf[Gate]\nTimeout=2s\n")
    write("config", "bom-cut", b"\xef\xbb")
    write("config", "cr-only", b"[Gate]\rTimeout=2s\r[Seed]\rCredit=no")
    write("config", "backslashes", b"[Gate]\nUnits=a\\\\\\\nb\\\\\nTimeout=\\")

    # cmdline: the boot path's buffer (2048 bytes of text) and the heap's
    # (65536), one each side and at each; the switch last.
    for size in (2046, 2047, 2048, 2049, 2050, 65535, 65536, 65537):
        tail = b" entropy_gate.credit=0"
        write("cmdline", f"bound-{size}", b"a" * (size - len(tail)) + tail)
    # cmdline: a quote opened at the last byte of each bound.
    for size in (2048, 65536):
        write("cmdline", f"bound-quote-{size}", b"x" * (size - 21) + b'entropy_gate.initrd="')
    write("cmdline", "nbsp", b"quiet\xa0entropy_gate.credit=0\xa0entropy_gate.initrd=0")
    write("cmdline", "utf8-a0", b"lang=\xc3\xa0entropy_gate.credit=0")
    write("cmdline", "quoted", b'foo="x entropy_gate.initrd=0" "entropy_gate.timeout=5s" bar')
    write("cmdline", "dashes", b"entropy_gate.units=a.service -- entropy_gate.credit=0")
    write("cmdline", "empty", b"")


if __name__ == "__main__":
    main()
