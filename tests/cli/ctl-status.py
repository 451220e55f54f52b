#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""entropyctl status: --json validated against man/entropyctl-status.schema.json
(with the small validator of ctl_schema.py), on the host with the real pool
and on constructed state with the fake pool: each seed-file verdict, the
runstate results, the trust options, the time of "crng init done" from the
kernel log, our units' states, the other entropy daemons, -q, exit codes.

Usage: ctl-status.py ENTROPYCTL ENTROPYCTL_FAKE_POOL SCHEMA CONF_FILE
       ctl-status.py --validate STATUS_JSON_FILE SCHEMA

ENTROPYCTL_FAKE_POOL takes its root from $EG_TEST_ROOT (a test seam linked
into it alone); CONF_FILE is the build's configured entropy-gate.conf.
"""
import hashlib
import json
import os
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ctl_schema import validate  # noqa: E402

failures = 0


def fail(msg):
    global failures
    failures += 1
    print("FAIL:", msg)


if len(sys.argv) == 4 and sys.argv[1] == "--validate":
    # For output captured elsewhere (the VM tier): ctl-status.py --validate FILE SCHEMA
    schema = json.load(open(sys.argv[3]))
    errors = validate(json.load(open(sys.argv[2])), schema)
    for err in errors:
        print("FAIL: schema:", err)
    print("valid" if not errors else "INVALID")
    sys.exit(1 if errors else 0)

ctl, ctl_fake, schema_path, conf_file = sys.argv[1:5]
schema = json.load(open(schema_path))

# The validator itself must be able to fail.
for bad in ({}, {"schema_version": 2}, []):
    if not validate(bad, schema):
        fail(f"validator accepted {bad!r}")


def run(binary, *args, env=None):
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run([binary, "status", *args], env=e, capture_output=True, text=True, errors="replace",
                          timeout=60)


def status_json(binary, env=None, expect_rc=None):
    p = run(binary, "--json", env=env)
    if expect_rc is not None and p.returncode != expect_rc:
        fail(f"exit {p.returncode}, expected {expect_rc}: {p.stderr}")
    try:
        doc = json.loads(p.stdout)
    except ValueError as e:
        fail(f"not JSON ({e}): {p.stdout!r}")
        return None
    for err in validate(doc, schema):
        fail(f"schema: {err}")
    return doc


# 1. The host, real pool: valid JSON matching the schema; exit 0 iff initialized.
doc = status_json(ctl)
if doc is not None:
    rc = run(ctl, "--json").returncode
    if rc != (0 if doc["crng"]["initialized"] else 3):
        fail(f"host: exit {rc} with initialized={doc['crng']['initialized']}")
    print("host status:", json.dumps(doc["crng"]), doc["kernel"]["release"], json.dumps(doc["hw_random"]))
human = run(ctl)
for label in ("CRNG:", "Kernel:", "Trust:", "hw_random:", "Seed file:", "Seed load:", "Gate:"):
    if label not in human.stdout:
        fail(f"host human output lacks {label!r}: {human.stdout}")

# 2. Constructed state, fake pool.
BINDING_KEY = b"entropy-gate machine binding v1"
MACHINE_ID = "0123456789abcdef0123456789abcdef"


def seed_file(seed, creditable=True, machine_id=MACHINE_ID, corrupt=False):
    """The seed file format of src/shared/seed-file.h, written independently."""
    binding = (hashlib.blake2s(machine_id.strip().encode(), key=BINDING_KEY).digest()
               if machine_id else bytes(32))
    body = b"\x89EGSEED\n" + struct.pack("<II", 1, 1 if creditable else 0) + binding + struct.pack("<I", len(seed)) + seed
    data = body + hashlib.blake2s(body).digest()
    if corrupt:
        data = data[:-1] + bytes([data[-1] ^ 1])
    return data


with tempfile.TemporaryDirectory() as tmp:
    root = os.path.join(tmp, "root")
    seeddir, rundir = os.path.join(root, "seeds"), os.path.join(root, "run/entropy-gate")
    os.makedirs(os.path.join(root, "etc"))
    os.makedirs(os.path.join(root, "proc"))
    os.makedirs(seeddir)
    os.makedirs(rundir)
    with open(os.path.join(root, "etc/machine-id"), "w") as f:
        f.write(MACHINE_ID + "\n")
    with open(os.path.join(root, "proc/cmdline"), "w") as f:
        f.write("ro random.trust_cpu=off quiet\n")
    conf = root + conf_file
    os.makedirs(os.path.dirname(conf), exist_ok=True)
    with open(conf, "w") as f:
        f.write("[Seed]\nDirectory=/seeds\n")
    env = {
        "EG_TEST_ROOT": root,
        "FAKE_POOL_READY_AFTER_MS": "0",
    }
    seed_path = os.path.join(seeddir, "seed")

    # No seed, no runstate, pool ready.
    d = status_json(ctl_fake, env, expect_rc=0)
    if d:
        if d["crng"]["initialized"] is not True:
            fail(f"fake pool ready but {d['crng']}")
        if d["kernel"]["trust_cpu"] != "off" or d["kernel"]["trust_bootloader"] is not None:
            fail(f"trust options: {d['kernel']}")
        if d["seed"]["present"] or d["seed"]["path"] != seed_path:
            fail(f"no seed expected: {d['seed']}")
        if d["this_boot"]["seed_helper"] is not None or d["this_boot"]["gate"] is not None:
            fail(f"no runstate expected: {d['this_boot']}")

    # Pool never ready: exit 3.
    d = status_json(ctl_fake, dict(env, FAKE_POOL_READY_AFTER_MS="never"), expect_rc=3)
    if d and d["crng"]["initialized"] is not False:
        fail(f"fake pool not ready but {d['crng']}")
    if "NOT initialized" not in run(ctl_fake, env=dict(env, FAKE_POOL_READY_AFTER_MS="never")).stdout:
        fail("human output does not say NOT initialized")
    # No getrandom: unknown, exit 1.
    d = status_json(ctl_fake, dict(env, FAKE_POOL_ENOSYS="1"), expect_rc=1)
    if d and d["crng"]["initialized"] is not None:
        fail(f"ENOSYS but {d['crng']}")

    # Each seed verdict: (file bytes, expected fields).
    cases = [
        (seed_file(bytes(range(64))), dict(valid=True, seed_bits=512, creditable=True, binding="this-machine")),
        (seed_file(bytes(32), creditable=False), dict(valid=True, seed_bits=256, creditable=False, binding="this-machine")),
        (seed_file(bytes(32), machine_id="ffffffffffffffffffffffffffffffff"), dict(valid=True, binding="other-machine")),
        (seed_file(bytes(32), machine_id=""), dict(valid=True, binding="unbound")),
        (seed_file(bytes(32), corrupt=True), dict(valid=False, seed_bits=None, binding=None)),
        (b"not a seed", dict(valid=False)),
        (b"x" * 5000, dict(valid=False)),
    ]
    for i, (data, expect) in enumerate(cases):
        with open(seed_path, "wb") as f:
            f.write(data)
        os.chmod(seed_path, 0o600)
        before = open(seed_path, "rb").read()
        mtime = os.stat(seed_path).st_mtime_ns
        d = status_json(ctl_fake, env, expect_rc=0)
        if not d:
            continue
        s = d["seed"]
        if not s["present"] or s["size"] != len(data):
            fail(f"case {i}: present/size wrong: {s}")
        for k, v in expect.items():
            if s[k] != v:
                fail(f"case {i}: seed.{k} = {s[k]!r}, expected {v!r} ({s})")
        if (s["valid"] is False) != (s["problem"] is not None):
            fail(f"case {i}: problem and valid disagree: {s}")
        if open(seed_path, "rb").read() != before or os.stat(seed_path).st_mtime_ns != mtime:
            fail(f"case {i}: status modified the seed file")
        if not (0 <= s["age_usec"] < 600 * 10**6):
            fail(f"case {i}: age {s['age_usec']}")
    human = run(ctl_fake, env=env).stdout
    if "Seed file:" not in human or "does not parse" not in human and "too large" not in human:
        fail(f"human output for a bad seed: {human}")

    # A symlink in place of the seed: reported, not followed.
    os.unlink(seed_path)
    target = os.path.join(tmp, "elsewhere")
    with open(target, "wb") as f:
        f.write(seed_file(bytes(32)))
    os.symlink(target, seed_path)
    d = status_json(ctl_fake, env, expect_rc=0)
    if d and (d["seed"]["valid"] is not None or "symlink" not in (d["seed"]["problem"] or "")):
        fail(f"symlinked seed: {d['seed']}")
    os.unlink(seed_path)

    # Runstate: what the seed helper and the gate recorded.
    with open(os.path.join(rundir, "seed"), "w") as f:
        f.write("ACTION=credited\nBITS=512\nSEED_PATH=/var/lib/entropy-gate/seed\nREASON=\nCREDENTIAL=none\n"
                "CREDENTIAL_BITS=0\nLEGACY_MIXED=1\nREPLACEMENT_CREDITABLE=yes\nBOOTTIME_USEC=812345\n")
    with open(os.path.join(rundir, "gate"), "w") as f:
        f.write("OUTCOME=ready\nREADY_AT_START=no\nSTART_BOOTTIME_USEC=900000\nEND_BOOTTIME_USEC=1900000\n"
                "WAITED_USEC=1000000\n")
    d = status_json(ctl_fake, env, expect_rc=0)
    if d:
        sh, g = d["this_boot"]["seed_helper"], d["this_boot"]["gate"]
        want_sh = dict(action="credited", bits=512, reason="", seed_path="/var/lib/entropy-gate/seed",
                       credential="none", credential_bits=0, legacy_mixed=1, replacement_creditable=True,
                       vm_generation=None, seed_generation=None, boottime_usec=812345)
        want_g = dict(outcome="ready", ready_at_start=False, start_boottime_usec=900000,
                      end_boottime_usec=1900000, waited_usec=1000000)
        if sh != want_sh:
            fail(f"seed_helper {sh} != {want_sh}")
        if g != want_g:
            fail(f"gate {g} != {want_g}")
    # A record of a load that found the seed saved in another VM generation.
    with open(os.path.join(rundir, "seed"), "w") as f:
        f.write("ACTION=not-credited\nBITS=0\nSEED_PATH=/var/lib/entropy-gate/seed\nREASON=VM generation changed "
                "since this seed was saved: restored snapshot or clone\nCREDENTIAL=none\nVM_GENERATION=vmgenid\n"
                "SEED_GENERATION=changed\nBOOTTIME_USEC=812345\n")
    d = status_json(ctl_fake, env, expect_rc=0)
    if d:
        sh = d["this_boot"]["seed_helper"]
        if sh["vm_generation"] != "vmgenid" or sh["seed_generation"] != "changed":
            fail(f"VM generation in seed_helper: {sh}")
    human = run(ctl_fake, env=env).stdout
    for want in ("not credited: VM generation changed since this seed was saved: restored snapshot or clone",
                 "VM generation: VM Generation ID; changed since this seed was saved"):
        if want not in human:
            fail(f"human output lacks {want!r}: {human}")
    with open(os.path.join(rundir, "seed"), "w") as f:
        f.write("ACTION=credited\nBITS=512\nSEED_PATH=/var/lib/entropy-gate/seed\nREASON=\nCREDENTIAL=none\n"
                "CREDENTIAL_BITS=0\nLEGACY_MIXED=1\nREPLACEMENT_CREDITABLE=yes\nBOOTTIME_USEC=812345\n")
    human = run(ctl_fake, env=env).stdout
    print(human)
    for want in ("loaded, credited 512 bits", "ready after waiting 1.000s", "random.trust_cpu=off", "kernel default"):
        if want not in human:
            fail(f"human output lacks {want!r}")

    # Strings with quotes, backslashes, control bytes and invalid UTF-8 stay
    # valid JSON, losslessly: valid UTF-8 as a string, the rest as its bytes.
    raw = b'a "quoted" \\ reason \x01\x7f \xff\xc3( caf\xc3\xa9'
    with open(os.path.join(rundir, "seed"), "wb") as f:
        # (A backslash in a record value is written as \x5c, runstate.h.)
        f.write(b'ACTION=not-credited\nREASON=' + raw.replace(b'\\', b'\\x5c') + b'\nBITS=x\n')
    d = status_json(ctl_fake, env, expect_rc=0)
    if d:
        sh = d["this_boot"]["seed_helper"]
        if sh["reason"] != list(raw) or sh["bits"] is not None:
            fail(f"escaping: {sh}")
    with open(os.path.join(rundir, "seed"), "wb") as f:
        f.write(b'ACTION=not-credited\nREASON=a "quoted" \\x5c reason \x01\x7f\xc2\x9b caf\xc3\xa9\nBITS=x\n')
    d = status_json(ctl_fake, env, expect_rc=0)
    if d:
        sh = d["this_boot"]["seed_helper"]
        if sh["reason"] != 'a "quoted" \\ reason \x01\x7f\x9b caf\u00e9':
            fail(f"escaping: {sh}")

    # When the CRNG was initialized: this root has no journal, so the kernel
    # log (/dev/kmsg, here a file in the root) says, and only the kernel's
    # own record counts, not one a program wrote (facility LOG_USER).
    os.makedirs(os.path.join(root, "dev"))
    kmsg = os.path.join(root, "dev/kmsg")
    with open(kmsg, "w") as f:
        f.write("6,1,0,-;Linux version 6.1.0\n SUBSYSTEM=cpu\n13,2,50000,-;random: crng init done\n"
                "5,3,812345,-;random: crng init done\n6,4,900000,-;Run /sbin/init as init process\n")
    d = status_json(ctl_fake, env, expect_rc=0)
    if d and (d["crng"]["init_monotonic_usec"] != 812345 or d["crng"]["init_source"] != "kernel-log"):
        fail(f"crng init from the kernel log: {d['crng']}")
    human = run(ctl_fake, env=env).stdout
    if "initialized since 0.812s after boot (from the kernel log)" not in human:
        fail(f"human output lacks the kernel log's time: {human}")
    with open(kmsg, "w") as f:
        f.write("13,2,50000,-;random: crng init done\n")
    d = status_json(ctl_fake, env, expect_rc=0)
    if d and (d["crng"]["init_monotonic_usec"] is not None or d["crng"]["init_source"] is not None):
        fail(f"a record written by a program was taken for the kernel's: {d['crng']}")
    if "since: unknown" not in run(ctl_fake, env=env).stdout:
        fail("no time, but the human output does not say unknown")
    os.unlink(kmsg)

    # Provenance: how the pool most likely became ready, from constructed
    # records, kernel log, /proc, /sys and /boot (all inside the root).
    def put(rel, data, mode="w"):
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if os.path.lexists(path):
            os.unlink(path)
        with open(path, mode) as f:
            f.write(data)

    def records(seed, gate):
        put("run/entropy-gate/seed", seed)
        put("run/entropy-gate/gate", gate)

    COLD_SEED = "ACTION=not-credited\nBITS=0\nREASON=no seed file\nCREDENTIAL=none\nBOOTTIME_USEC=2400000\n"
    COLD_GATE = ("OUTCOME=ready\nREADY_AT_START=no\nSTART_BOOTTIME_USEC=2450000\nEND_BOOTTIME_USEC=3410000\n"
                 "WAITED_USEC=960000\nENTROPY_AVAIL=0:23 960:256\n")
    KMSG_COLD = ("6,1,0,-;Linux version 6.1.0\n6,2,1200000,-;Run /init as init process\n"
                 "5,3,3410000,-;random: crng init done\n")
    put("proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu vme de pse tsc msr\n")
    put("dev/kmsg", KMSG_COLD)
    records(COLD_SEED, COLD_GATE)

    def provenance(expect_verdict, expect_text=None):
        d = status_json(ctl_fake, env, expect_rc=0)
        if not d:
            return None
        p = d["provenance"]
        if p["verdict"] != expect_verdict:
            fail(f"provenance verdict {p['verdict']!r}, expected {expect_verdict!r}: {p}")
        if expect_text and not str(p["text"]).startswith(expect_text):
            fail(f"provenance text {p['text']!r} does not start with {expect_text!r}")
        return p

    # (a) A cold boot: nothing credited, no hardware RNG, the CPU RNG not trusted (none here).
    p = provenance("jitter", "most likely ready by the kernel's jitter generator after 0.960s of waiting: "
                   "nothing credited, no hardware RNG, no CPU RNG")
    if p:
        f = p["facts"]
        want = dict(crng_init_monotonic_usec=3410000, userspace_monotonic_usec=1200000, load_recorded=True,
                    seed_credited_bits=0, seed_mixed=False, credential="none", trust_cpu=False,
                    trust_cpu_origin="command-line", cpu_rdrand=False, cpu_rdseed=False, bootloader_seed=None,
                    hwrng_current=None, hwrng_available=[], hwrng_quality=None, vm_generation_device=None,
                    other_daemon=None, gate_ready_at_start=False, gate_waited_usec=960000,
                    gate_entropy_avail=[dict(msec=0, bits=23), dict(msec=960, bits=256)])
        for k, v in want.items():
            if f[k] != v:
                fail(f"provenance.facts.{k} = {f[k]!r}, expected {v!r}")
        if p["advice"] is not None:
            fail(f"advice for a wait under a second: {p['advice']!r}")
    human = run(ctl_fake, env=env).stdout
    for want in ("   Provenance: most likely ready by the kernel's jitter generator after 0.960s of waiting",
                 "crng init done: 3.410s after boot", "credited: nothing (load at 2.400s)",
                 "trust: random.trust_cpu=off (command line)", "CPU RNG: rdrand no, rdseed no",
                 "hardware RNG: none", "gate wait: 0.960s",
                 "entropy_avail: 23 bits when the wait began, 256 at its end 0.960s later (2 samples)"):
        if want not in human:
            fail(f"human provenance lacks {want!r}: {human}")
    # A long wait: what would shorten it.
    records(COLD_SEED, COLD_GATE.replace("WAITED_USEC=960000", "WAITED_USEC=2500000"))
    p = provenance("jitter", "most likely ready by the kernel's jitter generator after 2.500s of waiting")
    if p and "virtio-rng" not in (p["advice"] or "") or p and "seed credential" not in (p["advice"] or ""):
        fail(f"no advice for a long wait: {p}")
    if "to shorten the wait: " not in run(ctl_fake, env=env).stdout:
        fail("human output lacks the advice")
    # Samples that do not parse (a hostile or torn record) show none.
    records(COLD_SEED, COLD_GATE.replace("0:23 960:256", "0:23 960:256 5:1"))
    p = provenance("jitter")
    if p and p["facts"]["gate_entropy_avail"] is not None:
        fail(f"samples going back in time were shown: {p['facts']}")
    if "entropy_avail:" in run(ctl_fake, env=env).stdout:
        fail("human output shows samples that do not parse")
    records(COLD_SEED, COLD_GATE)

    # (b) The saved seed credited, the pool ready right after.
    records("ACTION=credited\nBITS=512\nREASON=\nCREDENTIAL=none\nBOOTTIME_USEC=812000\n",
            "OUTCOME=ready\nREADY_AT_START=yes\nSTART_BOOTTIME_USEC=900000\nEND_BOOTTIME_USEC=900100\nWAITED_USEC=0\n")
    put("dev/kmsg", "6,2,400000,-;Run /init as init process\n5,3,812400,-;random: crng init done\n")
    p = provenance("seed", "most likely ready by the saved seed entropy-seed credited (512 bits) 0.812s after boot")
    if p and p["facts"]["seed_credited_bits"] != 512:
        fail(f"seed bits: {p['facts']}")
    if p and p["facts"]["gate_entropy_avail"] is not None:
        fail(f"samples from a gate that did not wait: {p['facts']}")
    # (c) The credential credited (before the seed, which was only mixed).
    records("ACTION=not-credited\nBITS=0\nREASON=first boot (/etc/machine-id is uninitialized)\n"
            "CREDENTIAL=credited\nCREDENTIAL_BITS=256\nBOOTTIME_USEC=812000\n",
            "OUTCOME=ready\nREADY_AT_START=yes\nSTART_BOOTTIME_USEC=900000\nEND_BOOTTIME_USEC=900100\nWAITED_USEC=0\n")
    p = provenance("credential", "most likely ready by the seed credential entropy-seed credited (256 bits)")
    if p and ("seed-mixed" not in p["reasons"] or p["facts"]["credential_credited_bits"] != 256):
        fail(f"credential: {p}")
    # A credit after the pool was ready is not the cause.
    put("dev/kmsg", "6,2,400000,-;Run /init as init process\n5,3,500000,-;random: crng init done\n")
    p = provenance("jitter")
    if p and "credit-after-init" not in p["reasons"]:
        fail(f"a late credit: {p}")

    # (d) virtio-rng, the kernel crediting it; a cold boot otherwise.
    records(COLD_SEED, COLD_GATE)
    put("dev/kmsg", KMSG_COLD)
    put("sys/devices/virtual/misc/hw_random/rng_current", "virtio_rng.0\n")
    put("sys/devices/virtual/misc/hw_random/rng_available", "virtio_rng.0 none\n")
    put("sys/devices/virtual/misc/hw_random/rng_quality", "1000\n")
    os.makedirs(os.path.join(root, "sys/class/misc"), exist_ok=True)
    os.symlink("../../devices/virtual/misc/hw_random", os.path.join(root, "sys/class/misc/hw_random"))
    p = provenance("hwrng", "most likely ready by the hardware RNG virtio_rng.0 (quality 1000) 3.410s after boot")
    if p and (p["facts"]["hwrng_available"] != ["virtio_rng.0"] or p["facts"]["hwrng_quality"] != 1000):
        fail(f"hwrng facts: {p['facts']}")
    put("sys/devices/virtual/misc/hw_random/rng_quality", "0\n")
    p = provenance("jitter")
    if p and "hwrng-quality-zero" not in p["reasons"]:
        fail(f"quality 0: {p}")
    # A name that is hostile text: escaped for the terminal, valid JSON, bounded.
    put("sys/devices/virtual/misc/hw_random/rng_current", b"\x1b[31mevil\x07\xff" + b"A" * 5000, "wb")
    put("sys/devices/virtual/misc/hw_random/rng_quality", "1000\n")
    p = provenance("hwrng")
    if p and len(p["facts"]["hwrng_current"]) >= 64:
        fail(f"a long name not cut: {p['facts']['hwrng_current']!r}")
    put("sys/devices/virtual/misc/hw_random/rng_current", b"\x1b[31mevil\x07\xff" + b"A" * 30 + b"\n", "wb")
    p = provenance("hwrng")
    if p and not isinstance(p["facts"]["hwrng_current"], list):
        fail(f"invalid UTF-8 not as bytes: {p['facts']['hwrng_current']!r}")
    human = run(ctl_fake, env=env).stdout
    if "\x1b" in human or "\x07" in human or "\\x1b[31mevil" not in human:
        fail(f"hostile hw_random name reached the terminal unescaped: {human!r}")
    # A symlink as the file itself: not followed.
    os.unlink(os.path.join(root, "sys/devices/virtual/misc/hw_random/rng_current"))
    os.symlink("/etc/machine-id", os.path.join(root, "sys/devices/virtual/misc/hw_random/rng_current"))
    p = provenance("jitter")
    if p and p["facts"]["hwrng_current"] is not None:
        fail(f"followed a symlink: {p['facts']}")
    import shutil
    shutil.rmtree(os.path.join(root, "sys"))

    # The kernel's built-in default, from /boot/config-RELEASE, where the command line says nothing;
    # a trusted CPU RNG makes the pool ready before user space.
    put("proc/cmdline", "ro quiet\n")
    put("proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu rdrand rdseed\n")
    put("dev/kmsg", "5,3,128000,-;random: crng init done\n6,2,1200000,-;Run /init as init process\n")
    records(COLD_SEED, "OUTCOME=ready\nREADY_AT_START=yes\nSTART_BOOTTIME_USEC=2450000\nEND_BOOTTIME_USEC=2450100\n"
            "WAITED_USEC=0\n")
    p = provenance("unknown", "ready 0.128s after boot, by what the facts cannot tell")
    if p and (p["facts"]["trust_cpu"] is not None or "cpu-trust-unknown" not in p["reasons"]):
        fail(f"no parameter, no config: {p}")
    put("boot/config-" + os.uname().release, "CONFIG_RANDOM_TRUST_CPU=y\n# CONFIG_RANDOM_TRUST_BOOTLOADER is not set\n")
    p = provenance("cpu", "most likely ready by the CPU's RNG instructions (trusted by the kernel) 0.128s after boot")
    if p and (p["facts"]["trust_cpu_origin"] != "kernel-config" or p["facts"]["trust_bootloader"] is not False):
        fail(f"kernel config: {p['facts']}")
    if "random.trust_cpu=on (kernel config default)" not in run(ctl_fake, env=env).stdout:
        fail("human output lacks the kernel config default")
    # A value the kernel would not parse: it keeps an earlier one, unknown here, not the default.
    put("proc/cmdline", "ro random.trust_cpu=maybe\n")
    p = provenance("unknown")
    if p and (p["facts"]["trust_cpu"] is not None or p["facts"]["trust_bootloader"] is not False):
        fail(f"an unparsable trust_cpu: {p['facts']}")
    put("proc/cmdline", "ro quiet\n")
    # A boot loader seed (EFI RNG table), trusted.
    put("proc/cmdline", "ro random.trust_bootloader=on random.trust_cpu=off\n")
    put("dev/kmsg", "6,0,0,-;efi: EFI v2.7 by EDK II\n6,1,0,-;efi: ACPI=0x7fb7e000 SMBIOS=0x7f9a6000 RNG=0x7f96c018 \n"
        "5,3,60000,-;random: crng init done\n6,2,1200000,-;Run /init as init process\n")
    p = provenance("bootloader", "most likely ready by the boot loader's seed (trusted by the kernel)")
    if p and p["facts"]["bootloader_seed"] is not True:
        fail(f"efi RNG: {p['facts']}")
    # A VM generation device: only whether there is one.
    os.makedirs(os.path.join(root, "sys/bus/acpi/devices/QEMUVGID:00"))
    p = provenance("bootloader")
    if p and (p["facts"]["vm_generation_device"] is not True or p["facts"]["vm_generation_device_name"] != "QEMUVGID:00"):
        fail(f"VM generation device: {p['facts']}")
    shutil.rmtree(os.path.join(root, "sys"))
    shutil.rmtree(os.path.join(root, "boot"))
    os.unlink(os.path.join(root, "dev/kmsg"))
    put("proc/cmdline", "ro random.trust_cpu=off quiet\n")

    # Our units: their states come from systemd; without it, unknown (null).
    d = status_json(ctl_fake, env, expect_rc=0)
    if d:
        names = [u["unit"] for u in d["units"]]
        if names != ["entropy-seed.service", "entropy-gate.service", "entropy-ready.target"]:
            fail(f"units: {names}")
        reachable = d["service_manager"]["reachable"]
        for u in d["units"]:
            if (u["load_state"] is None) == reachable:
                fail(f"unit state {u} with service_manager {d['service_manager']}")
        if not reachable and not d["service_manager"]["error"]:
            fail(f"systemd not reachable, but no reason given: {d['service_manager']}")
        print("service manager:", json.dumps(d["service_manager"]))
    human = run(ctl_fake, env=env).stdout
    if "Units: entropy-seed.service: " not in human or "entropy-ready.target: " not in human:
        fail(f"human output lacks the units: {human}")
    if d and not d["service_manager"]["reachable"] and "entropy-gate.service: unknown" not in human:
        fail(f"without systemd the units' states are not unknown: {human}")

    # Other entropy daemons, from the processes in the root's /proc.
    if d and (d["other_daemons"] != [] if not d["service_manager"]["reachable"] else False):
        fail(f"daemons in an empty /proc: {d['other_daemons']}")
    procs = {"4242": ("haveged\n", None), "4243": ("jitterentropy-r\n", b"/usr/sbin/jitterentropy-rngd\0-v\0"),
             "4244": ("jitterentropy-r\n", b"/opt/jitterentropy-rngx\0"), "17": ("urngd\n", None),
             "1": ("init\n", None)}
    for pid, (comm, cmdline) in procs.items():
        os.makedirs(os.path.join(root, "proc", pid))
        with open(os.path.join(root, "proc", pid, "comm"), "w") as f:
            f.write(comm)
        if cmdline:
            with open(os.path.join(root, "proc", pid, "cmdline"), "wb") as f:
                f.write(cmdline)
        # Each runs as root; only root credits the pool.
        with open(os.path.join(root, "proc", pid, "status"), "w") as f:
            f.write(f"Name:\t{comm}Umask:\t0022\nUid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\n")
    # A haveged another user runs: not one.
    os.makedirs(os.path.join(root, "proc", "5000"))
    with open(os.path.join(root, "proc", "5000", "comm"), "w") as f:
        f.write("haveged\n")
    with open(os.path.join(root, "proc", "5000", "status"), "w") as f:
        f.write("Name:\thaveged\nUmask:\t0022\nUid:\t1000\t1000\t1000\t1000\n")
    d = status_json(ctl_fake, env, expect_rc=0)
    if d:
        found = {x["name"]: x["pids"] for x in d["other_daemons"] if x["pids"]}
        if found != {"haveged": [4242], "jitterentropy-rngd": [4243], "urngd": [17]}:
            fail(f"daemon processes: {d['other_daemons']}")
        if d["processes_scanned"] is not True:
            fail("processes_scanned is not true")
    human = run(ctl_fake, env=env).stdout
    print(human)
    for want in ("Other daemons: ", "haveged: pid 4242", "jitterentropy-rngd: pid 4243", "urngd: pid 17"):
        if want not in human:
            fail(f"human output lacks {want!r}")

    # A record that is there but cannot be read (larger than any record, or
    # not a file), or that does not say what happened, is not "did not
    # run": the load or the gate ran, and what it did is unknown.
    records("BITS=0\n" + "X" * 40000 + "\n", COLD_GATE)
    os.unlink(os.path.join(rundir, "gate"))
    os.mkdir(os.path.join(rundir, "gate"))
    human = run(ctl_fake, env=env).stdout
    for want in (f"Seed load: unknown: {rundir}/seed cannot be read: ",
                 f"Gate: unknown: {rundir}/gate cannot be read: "):
        if want not in human:
            fail(f"unreadable records: human output lacks {want!r}: {human}")
    os.rmdir(os.path.join(rundir, "gate"))
    records("BITS=0\n", "WAITED_USEC=5\n")
    human = run(ctl_fake, env=env).stdout
    for want in (f"Seed load: unknown: {rundir}/seed does not say what happened",
                 f"Gate: unknown: {rundir}/gate does not say what happened"):
        if want not in human:
            fail(f"records without ACTION=/OUTCOME=: human output lacks {want!r}: {human}")
    if "did not run this boot" in human:
        fail(f"records there said to be missing: {human}")
    records(COLD_SEED, COLD_GATE)

    # -q: nothing on standard output, the same exit status.
    for pool, rc in (("0", 0), ("never", 3)):
        p = subprocess.run([ctl_fake, "-q", "status"], capture_output=True, text=True,
                           env=dict(os.environ, **dict(env, FAKE_POOL_READY_AFTER_MS=pool)))
        if p.returncode != rc or p.stdout:
            fail(f"status -q with the pool {pool}: exit {p.returncode}, output {p.stdout!r}")

    # Usage errors.
    p = subprocess.run([ctl_fake, "status", "extra"], capture_output=True, env=dict(os.environ, **env))
    if p.returncode != 2:
        fail(f"status with an argument: exit {p.returncode}")
    p = subprocess.run([ctl_fake, "status", "--fix"], capture_output=True, env=dict(os.environ, **env))
    if p.returncode != 2:
        fail(f"status --fix: exit {p.returncode}")

if failures:
    print(f"{failures} failure(s)")
    sys.exit(1)
print("ctl-status: ok")
