#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Fault injection over every system call of "entropy-seed load" and "save".

usage: seed-faults.py ENTROPY_SEED_FAKEPOOL SEED_INSPECT

For each verb, one clean run under strace lists every system call occurrence
(NAME, Nth). Then, on one seed directory that lives through the whole
sequence, each occurrence is made to fail with EIO, and separately the
process is killed with SIGKILL when it enters that call (strace --inject).
After every run:
  - the directory holds a seed that parses (the old one or a complete new
    one: never a torn, truncated or missing file), and nothing but the seed
    and the temporary file of the atomic write;
  - across the whole sequence (FAKE_POOL_LOG accumulates), no seed was ever
    credited twice: a run killed after crediting must have made the
    replacement durable first, or the next run would credit the same bytes;
  - every system credential that was credited is in the seed directory's
    list of credited credentials (remembered before it was credited, or a
    replay of it on the next boot would be credited again).
Every run is a boot of its own (a new boot id, an empty /run) and every load
sees a fresh credential, so that each run goes the whole way.
It prints how many injection points it tried. The pool is the fake one:
nothing reaches the host's kernel pool, seed or machine-id.
"""
import collections
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

SEED_BIN, INSPECT = sys.argv[1], sys.argv[2]
CALL = re.compile(r"^(?:\d+\s+)?([a-z_][a-z0-9_]*)\(")


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def main():
    strace = shutil.which("strace")
    if not strace:
        print("SKIP: strace not found, cannot inject faults")
        return 77
    if os.geteuid() != 0:
        print("SKIP: seed-faults needs root: only root-owned seeds are credited, and crediting is what is checked")
        return 77

    top = tempfile.mkdtemp(prefix="eg-seed-faults.")
    try:
        return run(strace, top)
    finally:
        shutil.rmtree(top, ignore_errors=True)


def new_boot(root, with_credential):
    """A reboot: a new boot id, an empty /run, and a fresh credential."""
    shutil.rmtree(os.path.join(root, "run"), ignore_errors=True)
    os.makedirs(os.path.join(root, "run/credentials/@system"))
    with open(os.path.join(root, "proc/sys/kernel/random/boot_id"), "w") as f:
        b = os.urandom(16).hex()
        f.write(f"{b[:8]}-{b[8:12]}-{b[12:16]}-{b[16:20]}-{b[20:]}\n")
    if with_credential:
        path = os.path.join(root, "run/credentials/@system/entropy-gate.seed")
        # Binary whatever the rest: a control byte first, and no NUL, CR
        # or LF last, which canonicalizing drops (31 bytes are too few to
        # credit: the final check would fail about once in 40 runs).
        x = bytearray(os.urandom(32))
        x[0] = 0x01
        x[-1] |= 0x80
        with open(path, "wb") as f:
            f.write(x)
        os.chmod(path, 0o400)


CREDENTIAL_KEY = b"entropy-gate credential v1"


def run(strace, top):
    root, log = os.path.join(top, "root"), os.path.join(top, "pool.log")
    seeds = os.path.join(root, "seeds")
    state = os.path.join(top, "pool.state")
    os.makedirs(os.path.join(root, "etc"))
    os.makedirs(os.path.join(root, "proc/sys/kernel/random"))
    with open(os.path.join(root, "proc/cmdline"), "w") as f:
        f.write("quiet\n")
    with open(os.path.join(root, "etc/machine-id"), "w") as f:
        f.write("6661756c7420696e6a656374696f6e21\n")
    with open(state, "w") as f:
        f.write("ready\n")
    # A legacy seed, so that its read is in the trace too; it must survive
    # every injection byte for byte.
    legacy = os.path.join(root, "etc/urandom.seed")
    legacy_bytes = os.urandom(512)
    with open(legacy, "wb") as f:
        f.write(legacy_bytes)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "FAKE_POOL_LOG": log,
        "FAKE_POOL_STATE": state,
    }
    seed = os.path.join(seeds, "seed")
    cmd = lambda verb: [SEED_BIN, verb, "--root=" + root, "--seed-dir=/seeds"]

    def remembered():
        """The memory of credited credentials: a Bloom filter of 512 Ki
        bits, 8 bits an entry, chosen by the keyed hash (seed-store.c)."""
        path = os.path.join(seeds, "credentials")
        bits = bytes(64 * 1024)
        if os.path.exists(path):
            with open(path, "rb") as f:
                data = f.read()
            if data[:8] != b"\x89EGBLM1\n" or len(data) != 8 + len(bits):
                fail("the memory of credited credentials does not parse")
            bits = data[8:]

        def has(h):
            for i in range(8):
                b = int.from_bytes(h[4 * i:4 * i + 4], "little") % (len(bits) * 8)
                if not bits[b // 8] & (1 << (b % 8)):
                    return False
            return True
        return has

    def inspect():
        p = subprocess.run([INSPECT, seed], stdout=subprocess.PIPE, text=True)
        return p.returncode, p.stdout

    def credited():
        if not os.path.exists(log):
            return []
        with open(log) as f:
            return [line.split()[2] for line in f if line.startswith("credit ")]

    def check_state(what):
        rc, out = inspect()
        if rc != 0:
            fail(f"{what}: the seed does not parse (torn or missing): {out.strip()}")
        with open(legacy, "rb") as f:
            if f.read() != legacy_bytes:
                fail(f"{what}: the legacy seed {legacy} was modified")
        extra = set(os.listdir(seeds)) - {"seed", ".#seed.new", "credentials", ".#credentials.new"}
        if extra:
            fail(f"{what}: unexpected files in the seed directory: {sorted(extra)}")
        c = credited()
        dup = [h for h, n in collections.Counter(c).items() if n > 1]
        if dup:
            fail(f"{what}: a seed was credited twice: {dup[0]}")
        known = remembered()
        for h in c:
            data = bytes.fromhex(h)
            if len(data) == 32 and not known(hashlib.blake2s(data, key=CREDENTIAL_KEY).digest()) and \
                    data in credentials:
                fail(f"{what}: credential {h} was credited but is not remembered")
        return out

    credentials = set()

    def boot(verb):
        new_boot(root, verb == "load")
        if verb == "load":
            with open(os.path.join(root, "run/credentials/@system/entropy-gate.seed"), "rb") as f:
                credentials.add(f.read())

    # A valid, creditable seed to start from.
    boot("save")
    subprocess.run(cmd("save"), env=env, check=True, stderr=subprocess.DEVNULL)
    check_state("initial save")

    tried = 0
    t0 = time.monotonic()
    # save takes another path when the pool is not initialized (it reads the
    # old seed to chain with); the fake kernel says so with a state file
    # that is not "ready" and no readiness timer. The last sequence leaves a
    # creditable seed for the final check.
    not_ready = dict(env, FAKE_POOL_STATE=os.path.join(top, "pool.cold"), FAKE_POOL_READY_AFTER_MS="never")
    for verb, env_run, label in (("load", env, "load"), ("save", not_ready, "save (pool not initialized)"),
                                 ("save", env, "save")):
        trace = os.path.join(top, "trace")
        boot(verb)
        subprocess.run([strace, "-f", "-qq", "-o", trace, *cmd(verb)], env=env_run, check=True,
                       stderr=subprocess.DEVNULL)
        out = check_state(f"traced {label}")
        if verb == "save" and ("CREDITABLE=yes" in out) != (env_run is env):
            fail(f"{label}: the seed's creditable flag does not match the pool's state: {out}")
        occurrences = collections.Counter()
        points = []
        with open(trace) as f:
            for line in f:
                m = CALL.match(line)
                if m:
                    occurrences[m.group(1)] += 1
                    points.append((m.group(1), occurrences[m.group(1)]))
        if len(points) < 20:
            fail(f"only {len(points)} system calls traced for {label}: the trace is not what it should be")
        print(f"{label}: {len(points)} system call occurrences of {len(occurrences)} kinds")

        outcomes = collections.Counter()
        for name, n in points:
            for fault in ("error=EIO", "signal=SIGKILL"):
                what = f"{label} with {name}#{n} {fault}"
                boot(verb)
                try:
                    p = subprocess.run([strace, "-f", "-qq", "-o", "/dev/null",
                                        f"--inject={name}:{fault}:when={n}", *cmd(verb)],
                                       env=env_run, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                       text=True, timeout=20)
                except subprocess.TimeoutExpired:
                    fail(f"{what}: did not finish within 20s")
                tried += 1
                outcomes[p.returncode] += 1
                if os.environ.get("SEED_FAULTS_VERBOSE"):
                    print(f"  {what}: exit {p.returncode}")
                check_state(what)
        print(f"{label}: exit statuses under injection: {dict(sorted(outcomes.items()))}")

    # The sequence ends with clean runs: the survivor is still usable, and
    # still credited at most once.
    before = len(credited())
    for verb in ("load", "save", "load"):
        boot(verb)
        subprocess.run(cmd(verb), env=env, check=True, stderr=subprocess.DEVNULL)
        check_state(f"final {verb}")
    if len(credited()) != before + 4:
        fail("after the injections, load no longer credits a good seed and a new credential exactly once each")

    print(f"{tried} injection points tried ({tried // 2} system call occurrences x EIO and SIGKILL), "
          f"{len(credited())} seeds and credentials credited, none twice, every credential remembered, "
          f"in {time.monotonic() - t0:.0f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
