#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""entropy-gate's options at extreme lengths: a value, an option name or an
argument of hundreds of bytes, or of 100 KiB (what a unit's
ENTROPY_GATE_OPTS or an init script may pass on). Each is refused with exit
status 2 and a message said to its end: what was expected, never cut off
after the quoted value (the value itself may be shortened, with "...").

Usage: gate-long-options.py ENTROPY_GATE
"""
import subprocess
import sys

gate = sys.argv[1]
failures = 0

for n in (300, 100 * 1024):
    v = "x" * n
    for args, tail in (([f"--timeout={v}"], ": expected a duration such as 30s, 500ms, 2min or infinity"),
                       (["--timeout", v], ": expected a duration such as 30s, 500ms, 2min or infinity"),
                       ([f"--warn-after={v}"], ": expected a duration such as 10s, 500ms, 2min or infinity"),
                       ([f"--on-timeout={v}"], ": expected fail or proceed"),
                       ([f"--ready-fd={'9' * n}"], ": expected a file descriptor number"),
                       ([f"--{v}"], "'"),
                       ([v], "': entropy-gate takes options only")):
        p = subprocess.run([gate, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=30)
        lines = p.stderr.splitlines()
        what = f"{args[0][:20]}... ({n} bytes)"
        if p.returncode != 2:
            print(f"FAIL {what}: exit status {p.returncode}, expected 2")
            failures += 1
        elif not lines or not lines[0].endswith(tail) or len(lines[0]) > 512:
            print(f"FAIL {what}: the message was cut short or quoted all of the value: ...{lines[0][-100:] if lines else ''}")
            failures += 1
        else:
            print(f"ok   {what}")

sys.exit(1 if failures else 0)
