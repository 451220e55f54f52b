#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""entropy-gate against a service manager that never reads its notification
socket: the receiver's queue is full before the gate starts. Every send of
the gate (STATUS= while waiting, READY=1, BARRIER=1) must give up in bounded
time, and the gate must end: READY=1 that cannot be delivered is an error
(exit 1, said so), never a hang. Then a receiver that is slow but reads:
the gate waits for room and succeeds.

usage: notify-full-receiver.py ENTROPY_GATE_FAKEPOOL
"""
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time

BOUND = 5.0          # NOTIFY_SEND_TIMEOUT_DEFAULT, and the barrier's
SLACK = 4.0


def fill(path):
    """Fill the queue of the socket at @path as a receiver that never reads
    lets it fill; returns the sockets that hold the datagrams."""
    held = []
    for _ in range(100000):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        held.append(s)
        sent = 0
        try:
            while True:
                s.sendto(b"x", socket.MSG_DONTWAIT, path)
                sent += 1
        except BlockingIOError:
            pass
        if sent == 0:
            return held
    raise SystemExit("FAIL: the receiver's queue never filled")


def run(gate, env_extra, drain_after=None):
    top = tempfile.mkdtemp(prefix="eg-hostile-notify.")
    root = os.path.join(top, "root")
    os.makedirs(os.path.join(root, "proc"))
    os.makedirs(os.path.join(root, "run/entropy-gate"))
    with open(os.path.join(root, "proc/cmdline"), "w") as f:
        f.write("quiet\n")
    path = os.path.join(top, "notify")
    rx = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    rx.bind(path)
    held = fill(path)
    got = []

    def drain():
        time.sleep(drain_after)
        rx.settimeout(0.2)
        while True:
            try:
                got.append(rx.recv(4096))
            except (socket.timeout, OSError):
                if proc.poll() is not None:
                    return

    env = dict(os.environ, NOTIFY_SOCKET=path, EG_TEST_ROOT=root, **env_extra)
    t0 = time.monotonic()
    proc = subprocess.Popen([gate], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if drain_after is not None:
        threading.Thread(target=drain, daemon=True).start()
    try:
        out, err = proc.communicate(timeout=4 * BOUND + 10)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        return None, time.monotonic() - t0, err, got
    finally:
        for s in held:
            s.close()
    return proc.returncode, time.monotonic() - t0, err, got


def main():
    gate = sys.argv[1]
    failed = False

    def check(cond, what, ctx=""):
        nonlocal failed
        print(("ok: " if cond else "FAIL: ") + what)
        if not cond:
            failed = True
            if ctx:
                print("    " + ctx.replace("\n", "\n    "))

    # Ready at start: READY=1 finds no room.
    rc, took, err, _ = run(gate, {"FAKE_POOL_READY_AFTER_MS": "0"})
    check(rc is not None, f"ready at start, queue full: the gate ends ({took:.1f}s)", err)
    check(rc == 1, f"ready at start, queue full: exit 1, not success (exit {rc})", err)
    check(took < 2 * BOUND + SLACK, f"ready at start, queue full: bounded ({took:.1f}s)")
    check("READY=1" in err and "not reading" in err, "ready at start, queue full: says why", err)

    # Cold pool: STATUS= lines while waiting are dropped, never waited for,
    # so the wait still notices the pool at once; READY=1 then gives up.
    rc, took, err, _ = run(gate, {"FAKE_POOL_READY_AFTER_MS": "2500"})
    check(rc == 1, f"cold pool, queue full: exit 1 (exit {rc})", err)
    check(rc is not None and took < 2.5 + 2 * BOUND + SLACK, f"cold pool, queue full: bounded ({took:.1f}s)")

    # A slow receiver that does read: the gate waits for room and succeeds.
    rc, took, err, got = run(gate, {"FAKE_POOL_READY_AFTER_MS": "0"}, drain_after=1.5)
    check(rc == 0, f"slow receiver: exit 0 (exit {rc})", err)
    check(any(m.startswith(b"READY=1") for m in got), "slow receiver: READY=1 arrived")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
