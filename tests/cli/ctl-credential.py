#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""entropyctl credential: every format's exact shape, a fresh seed of the
size asked for at every run; what each format hands the guest, given to
entropy-seed load (with the scripted pool) as the system credential, is
credited once at exactly the bits asked for; the refusal while the pool is
not initialized (the scripted pool, and the real binary with getrandom()
failing EAGAIN under strace); --output=FILE; raw bytes never on a terminal;
usage errors.

Usage: ctl-credential.py ENTROPYCTL ENTROPYCTL_FAKE_POOL ENTROPY_SEED_FAKE_POOL
"""
import json
import os
import pty
import re
import shutil
import stat
import subprocess
import sys
import tempfile

ctl, ctl_fake, seed_fake = sys.argv[1:4]
failures = 0
ENV = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C"}


def fail(msg):
    global failures
    failures += 1
    print("FAIL:", msg)


def check(cond, msg):
    if cond:
        print("ok:", msg)
    else:
        fail(msg)


def run(argv, env=None, binary=ctl):
    return subprocess.run([binary, *argv], env=dict(ENV, **(env or {})), capture_output=True, timeout=60)


HEX = "[0-9a-f]"
SHAPES = {   # format: (regex of the whole output, with {hex} for the seed)
    "qemu-smbios": r"-smbios type=11,value=io\.systemd\.credential:entropy-gate\.seed=({hex})\n",
    "qemu-fw-cfg": r"-fw_cfg name=opt/io\.systemd\.credentials/entropy-gate\.seed,string=({hex})\n",
    "vmspawn": r"--set-credential=entropy-gate\.seed:({hex})\n",
    "libvirt": (r"<os>\n  <smbios mode='sysinfo'/>\n</os>\n<sysinfo type='smbios'>\n  <oemStrings>\n"
                r"    <entry>io\.systemd\.credential:entropy-gate\.seed=({hex})</entry>\n"
                r"  </oemStrings>\n</sysinfo>\n"),
    "virt-install": r"--sysinfo type=smbios,oemStrings\.entry0=io\.systemd\.credential:entropy-gate\.seed=({hex})\n",
    "mkosi": r"Credentials=entropy-gate\.seed=({hex})\n",
    "hex": r"({hex})\n",
}


def credential(fmt, bits):
    """Run entropyctl credential; returns (the bytes the guest's credential
    file holds, the seed) or None."""
    argv = ["credential"] + ([f"--format={fmt}"] if fmt else []) + ([f"--bits={bits}"] if bits else [])
    p = run(argv)
    bits = bits or 512
    if p.returncode != 0:
        fail(f"{argv}: exit {p.returncode}: {p.stderr!r}")
        return None
    if fmt == "raw":
        check(len(p.stdout) == bits // 8, f"{argv}: {bits // 8} bytes ({len(p.stdout)})")
        return p.stdout, p.stdout
    m = re.fullmatch(SHAPES[fmt or "qemu-smbios"].format(hex=f"{HEX}{{{bits // 4}}}"), p.stdout.decode())
    check(m is not None, f"{argv}: the tool's syntax with {bits // 4} hex digits: {p.stdout[:120]!r}")
    if not m:
        return None
    # What reaches the guest's /run/credentials/@system/: the value as text
    # (SMBIOS io.systemd.credential:, fw_cfg string=, vmspawn and mkosi pass
    # the text on).
    return m.group(1).encode(), bytes.fromhex(m.group(1))


# ---- shapes, sizes, freshness
for fmt in [None, *SHAPES, "raw"]:
    for bits in (None, 256, 4096):
        credential(fmt, bits)
a, b = credential("hex", None), credential("hex", None)
check(a and b and a[1] != b[1], "two runs, two seeds")
p = run(["credential", "--format=help"])
check(p.returncode == 0 and sorted(p.stdout.decode().split()) == sorted([*SHAPES, "raw"]),
      f"--format=help: every format that prints, one a line: {p.stdout!r}")

# ---- round trip: entropy-seed credits what each format hands over, at the bits asked for
if os.geteuid() != 0:
    print("SKIP: round trip: entropy-seed credits a credential only as root's file (rule 6); not root")
else:
    top = tempfile.mkdtemp(prefix="eg-ctl-credential.")
    try:
        for fmt in [*SHAPES, "raw"]:
            for bits in (256, 512, 4096):
                got = credential(fmt, bits)
                if not got:
                    continue
                data, seed = got
                root = os.path.join(top, f"{fmt}-{bits}")
                for d in ("etc", "var/lib", "proc/sys/kernel/random", "run/systemd", "run/credentials/@system"):
                    os.makedirs(os.path.join(root, d))
                with open(os.path.join(root, "etc/machine-id"), "w") as f:
                    f.write("0123456789abcdef0123456789abcdef\n")
                with open(os.path.join(root, "proc/cmdline"), "w") as f:
                    f.write("quiet\n")
                with open(os.path.join(root, "proc/sys/kernel/random/boot_id"), "w") as f:
                    f.write("01234567-89ab-cdef-0123-456789abcdef\n")
                cred = os.path.join(root, "run/credentials/@system/entropy-gate.seed")
                with open(cred, "wb") as f:
                    f.write(data)
                os.chmod(cred, 0o600)
                log, state = os.path.join(root, "pool.log"), os.path.join(root, "pool.state")
                env = {"FAKE_POOL_LOG": log, "FAKE_POOL_STATE": state}
                for boot in (1, 2):
                    p = run(["load", f"--root={root}", "--seed-dir=/var/lib/entropy-gate"], env, seed_fake)
                    with open(os.path.join(root, "run/entropy-gate/seed")) as f:
                        rec = dict(line.rstrip("\n").split("=", 1) for line in f if "=" in line)
                    with open(log) as f:
                        credited = [line.split() for line in f if line.startswith("credit ")]
                    if boot == 1:
                        check(p.returncode == 0 and rec.get("CREDENTIAL") == "credited" and
                              rec.get("CREDENTIAL_BITS") == str(bits) and ["credit", str(bits), seed.hex()] in credited,
                              f"{fmt} {bits}: entropy-seed credited the credential at {bits} bits "
                              f"(CREDENTIAL={rec.get('CREDENTIAL')} CREDENTIAL_BITS={rec.get('CREDENTIAL_BITS')})")
                    else:
                        check(rec.get("CREDENTIAL") == "mixed" and
                              sum(c[2] == seed.hex() for c in credited) == 1,
                              f"{fmt} {bits}: handed over again at the next boot, only mixed "
                              f"(CREDENTIAL={rec.get('CREDENTIAL')})")
                    shutil.rmtree(os.path.join(root, "run/entropy-gate"))
                    with open(os.path.join(root, "proc/sys/kernel/random/boot_id"), "w") as f:
                        f.write("11234567-89ab-cdef-0123-456789abcdef\n")
    finally:
        shutil.rmtree(top)

# ---- a pool that is not initialized: nothing at all
for fmt in ("qemu-smbios", "raw", "hex"):
    p = run(["credential", f"--format={fmt}"], {"FAKE_POOL_READY_AFTER_MS": "never"}, ctl_fake)
    check(p.returncode == 1 and p.stdout == b"" and b"entropyctl: This host's random pool is not initialized" in p.stderr,
          f"{fmt}, the pool not initialized: exit 1, nothing printed ({p.returncode}: {p.stderr!r})")
p = run(["credential"], {"FAKE_POOL_READY_AFTER_MS": "0"}, ctl_fake)
check(p.returncode == 0, f"the scripted pool initialized: a credential ({p.returncode}: {p.stderr!r})")
p = run(["credential"], {"FAKE_POOL_ENOSYS": "1"}, ctl_fake)
check(p.returncode == 1 and p.stdout == b"", f"no getrandom(): exit 1, nothing printed ({p.returncode}: {p.stderr!r})")
with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "seed")
    p = run(["credential", "--format=raw", f"--output={out}"], {"FAKE_POOL_READY_AFTER_MS": "never"}, ctl_fake)
    check(p.returncode == 1 and not os.path.exists(out), "the pool not initialized: no --output= file")
strace = shutil.which("strace")
if strace:
    # The real binary: getrandom() failing EAGAIN is a pool not initialized.
    p = subprocess.run([strace, "-f", "-o", "/dev/null", "-e", "inject=getrandom:error=EAGAIN", ctl, "credential"],
                       env=ENV, capture_output=True, timeout=60)
    check(p.returncode == 1 and p.stdout == b"" and b"not initialized" in p.stderr,
          f"the real binary, getrandom() EAGAIN: exit 1, nothing printed ({p.returncode}: {p.stderr!r})")
else:
    print("SKIP: strace not found: the real binary's refusal is not checked here")

# ---- --output=FILE
with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "seed")
    p = run(["credential", "--format=raw", "--bits=1024", f"--output={out}"])
    st = os.lstat(out) if os.path.exists(out) else None
    check(p.returncode == 0 and p.stdout == b"" and st and stat.S_ISREG(st.st_mode) and
          stat.S_IMODE(st.st_mode) == 0o600 and st.st_size == 128,
          f"--output=FILE: a new file, mode 0600, 128 bytes ({p.returncode}, {st})")
    before = open(out, "rb").read()
    p = run(["credential", "--format=raw", f"--output={out}"])
    check(p.returncode == 1 and b"exists" in p.stderr and open(out, "rb").read() == before,
          f"--output= an existing file: refused, left alone ({p.returncode}: {p.stderr!r})")
    target = os.path.join(tmp, "target")
    open(target, "w").close()
    os.symlink(target, os.path.join(tmp, "link"))
    p = run(["credential", f"--output={os.path.join(tmp, 'link')}"])
    check(p.returncode == 1 and os.path.getsize(target) == 0, f"--output= a symlink: not followed ({p.stderr!r})")
    p = run(["credential", "--format=libvirt", f"--output={os.path.join(tmp, 'x.xml')}"])
    check(p.returncode == 0 and re.fullmatch(SHAPES["libvirt"].format(hex=f"{HEX}{{128}}"),
                                             open(os.path.join(tmp, "x.xml")).read()) is not None,
          "--output= with a text format: the same text")
    p = run(["credential", f"--output={os.path.join(tmp, 'no/such/dir')}"])
    check(p.returncode == 1, f"--output= in a missing directory: exit 1 ({p.stderr!r})")

# ---- --json=: the same text in an object that names it; a file too
seen = set()
for fmt, shape in SHAPES.items():
    p = run(["credential", f"--format={fmt}", "--bits=256", "--json=short"])
    try:
        doc = json.loads(p.stdout)
    except ValueError:
        doc = {}
    text = doc.get("credential", "")
    m = re.fullmatch(shape.format(hex=f"{HEX}{{64}}"), text + "\n")
    check(p.returncode == 0 and p.stdout.count(b"\n") == 1 and m is not None and
          {k: v for k, v in doc.items() if k != "credential"} ==
          {"schema_version": 1, "name": "entropy-gate.seed", "format": fmt, "bits": 256},
          f"--json=short --format={fmt}: one line, the text without its newline ({p.returncode}, {p.stdout!r})")
    if m:
        seen.add(m.group(1))
check(len(seen) == len(SHAPES), "--json: a new seed every run")
with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "seed.json")
    p = run(["credential", "--format=hex", "--json", f"--output={out}"])
    st = os.lstat(out) if os.path.exists(out) else None
    doc = json.load(open(out)) if st else {}
    check(p.returncode == 0 and p.stdout == b"" and st and stat.S_IMODE(st.st_mode) == 0o600 and
          re.fullmatch(f"{HEX}{{128}}", doc.get("credential", "")) is not None and doc.get("bits") == 512,
          f"--json --output=FILE: the object in a new file, mode 0600 ({p.returncode}, {st}, {doc})")

# ---- raw bytes never on a terminal
pid, fd = pty.fork()
if pid == 0:
    os.execve(ctl, [ctl, "credential", "--format=raw"], ENV)
out = b""
while True:
    try:
        data = os.read(fd, 4096)
    except OSError:
        break
    if not data:
        break
    out += data
_, status = os.waitpid(pid, 0)
check(os.waitstatus_to_exitcode(status) == 2 and b"terminal" in out and len(out) < 300,
      f"raw on a terminal: refused, exit 2 ({os.waitstatus_to_exitcode(status)}: {out!r})")

# ---- usage errors: exit 2, a message, nothing on standard output
for argv, want in ((["credential", "--bits=255"], b"out of range"), (["credential", "--bits=4104"], b"out of range"),
                   (["credential", "--bits=128"], b"out of range"), (["credential", "--bits=260"], b"out of range"),
                   (["credential", "--bits=x"], b"number of bits"), (["credential", "--bits=-512"], b"number of bits"),
                   (["credential", "--bits="], b"number of bits"), (["credential", "--format=nope"], b"Unknown --format="),
                   (["credential", "--format="], b"Unknown --format="),
                   (["credential", "--format=cloud-init"], b"entropy-seed.service"),
                   (["credential", "extra"], b"Usage: entropyctl credential"),
                   (["credential", "--json", "--format=raw"], b"--format=hex with --json"),
                   (["credential", "--fix"], b"does not take --fix"),
                   (["status", "--format=hex"], b"does not take --format="),
                   (["status", "--bits=512"], b"does not take --bits=")):
    p = run(argv)
    check(p.returncode == 2 and p.stdout == b"" and p.stderr.startswith(b"entropyctl: ") and want in p.stderr,
          f"{argv}: exit 2 ({p.returncode}: {p.stderr!r})")

print(f"{'FAILED' if failures else 'passed'}: {failures} failure(s)")
sys.exit(1 if failures else 0)
