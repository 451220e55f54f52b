#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""CLI tests of entropy-seed, run as entropy-seed-fakepool (the scripted pool
of tests/fake/pool-fake.c) with --root= a temporary tree holding its seed
directory, machine-id, configuration (CONF_FILE inside it), kernel command
line, boot id and /run: never the host's pool, seed, machine-id or /run. A
"boot" is a boot id in ROOT/proc/sys/kernel/random/boot_id and an empty
ROOT/run.

usage: seed-cli.py ENTROPY_SEED_FAKEPOOL SEED_INSPECT CONF_FILE

Every case prints its name; the first failed check stops the run with exit 1.
Needs root (the crediting rules want root-owned seeds): exits 77 otherwise.
"""
import fcntl
import os
import re
import struct
import resource
import shutil
import stat
import subprocess
import sys
import tempfile
import time

SEED_BIN, INSPECT, CONF_FILE = sys.argv[1], sys.argv[2], sys.argv[3]
MACHINE_ID = "4c6f6e6720736565642074657374000a"
OTHER_ID = "0123456789abcdef0123456789abcdef"
LEGACY = ["var/lib/systemd/random-seed", "var/lib/seedrng/seed.credit",
          "var/lib/seedrng/seed.no-credit", "etc/seedrng/seed.credit",
          "etc/seedrng/seed.no-credit", "etc/urandom.seed"]
# Reported by check-image, not mixed by load (entropy-seed(8), FILES).
LEGACY_NOT_MIXED = ["var/lib/urandom/random-seed"]

failures = 0


class Failed(Exception):
    pass


def check(cond, what, ctx=""):
    if not cond:
        raise Failed(what + ("\n" + ctx if ctx else ""))


class Env:
    """One fake system: root, seed dir, run dir, pool log and state."""

    def __init__(self, ready=True, deep=0):
        self.tmp = tempfile.mkdtemp(prefix="eg-seed-cli.")
        os.chmod(self.tmp, 0o755)
        # deep: the tree that far down, 200 bytes a level, as a build
        # directory with a long name puts it.
        self.top = os.path.join(self.tmp, *(["d" * 200] * deep))
        os.makedirs(self.top, mode=0o755, exist_ok=True)
        self.root = os.path.join(self.top, "root")
        self.seeds_rel = "/var/lib/entropy-gate"
        self.run = os.path.join(self.root, "run/entropy-gate")
        self.log = os.path.join(self.top, "pool.log")
        self.state = os.path.join(self.top, "pool.state")
        self.conf = self.root + CONF_FILE
        os.makedirs(os.path.join(self.root, "etc"))
        os.makedirs(os.path.join(self.root, "var/lib"))
        os.makedirs(os.path.join(self.root, "proc/sys/kernel/random"))
        self.set_cmdline("quiet")
        self.new_boot()
        self.set_machine_id(MACHINE_ID)
        self.env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "FAKE_POOL_LOG": self.log,
            "FAKE_POOL_STATE": self.state,
        }
        self.set_ready(ready)

    def new_boot(self):
        """A reboot: a new boot id and an empty /run."""
        shutil.rmtree(os.path.join(self.root, "run"), ignore_errors=True)
        os.makedirs(os.path.join(self.root, "run/systemd"))
        b = os.urandom(16).hex()
        with open(os.path.join(self.root, "proc/sys/kernel/random/boot_id"), "w") as f:
            f.write(f"{b[:8]}-{b[8:12]}-{b[12:16]}-{b[16:20]}-{b[20:]}\n")

    def set_cmdline(self, text):
        with open(os.path.join(self.root, "proc/cmdline"), "w") as f:
            f.write(text + "\n")

    def write_conf(self, text):
        os.makedirs(os.path.dirname(self.conf), exist_ok=True)
        with open(self.conf, "w") as f:
            f.write(text)

    @property
    def seeds(self):
        return self.root + self.seeds_rel

    def set_ready(self, ready):
        """ready: the fake kernel's CRNG is initialized (state file), else never on its own."""
        if ready:
            with open(self.state, "w") as f:
                f.write("ready\n")
            self.env.pop("FAKE_POOL_READY_AFTER_MS", None)
        else:
            if os.path.exists(self.state):
                os.unlink(self.state)
            self.env["FAKE_POOL_READY_AFTER_MS"] = "never"

    def set_machine_id(self, text):
        with open(os.path.join(self.root, "etc/machine-id"), "w") as f:
            f.write(text + "\n")
        self.machine_id = text

    @property
    def seed(self):
        return os.path.join(self.seeds, "seed")

    def run_seed(self, *args, env=None, timeout=20, expect=0):
        e = dict(self.env)
        e.update(env or {})
        t0 = time.monotonic()
        seed_dir = [] if "--credential-only" in args else ["--seed-dir=" + self.seeds_rel]
        p = subprocess.Popen([SEED_BIN, *args, "--root=" + self.root, *seed_dir], env=e,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            out, err = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            p.communicate()
            raise Failed(f"entropy-seed {' '.join(args)} did not finish within {timeout}s: it blocked")
        self.elapsed = time.monotonic() - t0
        self.out = out + err
        if expect is not None:
            check(p.returncode == expect,
                  f"entropy-seed {' '.join(args)}: exit {p.returncode}, expected {expect}", self.out)
        return p.returncode

    def log_lines(self):
        if not os.path.exists(self.log):
            return []
        with open(self.log) as f:
            return [line.split() for line in f]

    def credited(self):
        return [w[2] for w in self.log_lines() if w[0] == "credit"]

    def mixed(self):
        return [w[2] for w in self.log_lines() if w[0] == "mix"]

    def inspect(self, path=None):
        p = subprocess.run([INSPECT, path or self.seed, self.machine_id if self.machine_id != "uninitialized" else ""],
                           stdout=subprocess.PIPE, text=True)
        d = dict(line.split("=", 1) for line in p.stdout.splitlines())
        d["ok"] = p.returncode == 0
        return d

    def runstate(self):
        with open(os.path.join(self.run, "seed")) as f:
            return dict(line.rstrip("\n").split("=", 1) for line in f)

    def files_bytes(self):
        """Every byte of every file in the seed directory (the old seed must be in none)."""
        data = b""
        for name in os.listdir(self.seeds):
            p = os.path.join(self.seeds, name)
            if os.path.isfile(p) and not os.path.islink(p):
                with open(p, "rb") as f:
                    data += f.read(1 << 20)
        return data

    def make_seed(self, creditable=True, expect_creditable=None):
        """A valid seed, written by entropy-seed save itself (bound to the current
        machine-id) at the end of a boot, the pool ready when @creditable; the
        machine then reboots. The seed's flag is checked against
        @expect_creditable (default: @creditable)."""
        ready = "FAKE_POOL_READY_AFTER_MS" not in self.env
        self.set_ready(creditable)
        self.run_seed("save")
        self.set_ready(ready)
        self.new_boot()
        d = self.inspect()
        want = creditable if expect_creditable is None else expect_creditable
        check(d["ok"] and d["CREDITABLE"] == ("yes" if want else "no"), "save wrote an unexpected seed", str(d))
        return d["SEED"]

    def set_vmgen(self, guid=None, vmclock=None, mem=True):
        """The VM generation the fake reader finds (tests/fake/vm-generation-fake.c):
        QEMU's VMGENID SSDT and a sparse stand-in for /dev/mem holding @guid at
        VGIA + 40, or a vmclock structure with counter @vmclock, or nothing."""
        for k in ("FAKE_VMGEN_TABLES", "FAKE_VMGEN_MEM", "FAKE_VMGEN_VMCLOCK"):
            self.env.pop(k, None)
        shutil.rmtree(os.path.join(self.top, "vmgen"), ignore_errors=True)
        d = os.path.join(self.top, "vmgen")
        os.makedirs(os.path.join(d, "tables"))
        if guid is not None:
            vgia = 0x7ffdf000 & 0xfffff
            aml = b"\x08VGIA\x0c" + struct.pack("<I", vgia) + b"\x10\x20\\_SB_[\x82VGEN"
            hdr = b"SSDT" + struct.pack("<I", 36 + len(aml)) + b"\x01\x00BOCHS VMGENID\x00" + bytes(12)
            with open(os.path.join(d, "tables/SSDT1"), "wb") as f:
                f.write(hdr + aml)
            self.env["FAKE_VMGEN_TABLES"] = os.path.join(d, "tables")
            if mem:
                with open(os.path.join(d, "mem"), "wb") as f:
                    f.truncate(vgia + 4096)
                    f.seek(vgia + 40)
                    f.write(guid)
                self.env["FAKE_VMGEN_MEM"] = os.path.join(d, "mem")
        if vmclock is not None:
            b = bytearray(4096)
            struct.pack_into("<IIHBBIQQ", b, 0, 0x4b4c4356, 4096, 1, 1, 0, 2, 0, 1 << 8)
            struct.pack_into("<Q", b, 104, vmclock)
            with open(os.path.join(d, "vmclock0"), "wb") as f:
                f.write(b)
            self.env["FAKE_VMGEN_VMCLOCK"] = os.path.join(d, "vmclock0")

    def cleanup(self):
        shutil.rmtree(self.tmp, ignore_errors=True)


CASES = []


def binary_credential(n):
    # n random bytes that are their own canonical form: the first byte is
    # never text, the last never a NUL, CR or LF (a terminator, which the
    # credential loses: 31 bytes are not credited, 63 are 504 bits).
    x = bytearray(os.urandom(n))
    x[0] = 0x01
    x[-1] |= 0x80
    return bytes(x)


def case(fn):
    CASES.append(fn)
    return fn


def expect_no_credit(e, seed_hex, message):
    check(seed_hex not in e.credited(), "the seed was credited", e.out)
    check(re.search(message, e.out), f"no message matching {message!r}", e.out)


# --- VM generation (docs/design.md, "VM generation") ---------------------------

GUID_A = bytes(range(1, 17))
GUID_B = bytes(range(101, 117))
NO_GENERATION = "0" * 64


@case
def vm_generation_same_credits(e):
    e.set_vmgen(GUID_A)
    old = e.make_seed()
    check(e.inspect()["GENERATION"] != NO_GENERATION, "save did not bind the seed to the VM generation", e.out)
    check("bound to this VM generation (vmgenid)" in e.out, "save does not say it bound the seed", e.out)
    e.run_seed("load")
    check(old in e.credited(), "a seed of this same VM generation was not credited", e.out)
    rs = e.runstate()
    check(rs.get("VM_GENERATION") == "vmgenid" and rs.get("SEED_GENERATION") == "same", "record", str(rs))
    check(e.inspect()["GENERATION"] != NO_GENERATION, "the replacement is not bound to the generation")


@case
def vm_generation_changed_mixes(e):
    e.set_vmgen(GUID_A)
    old = e.make_seed()
    e.set_vmgen(GUID_B)                       # a restored snapshot, or a clone
    e.run_seed("load")
    expect_no_credit(e, old, r"not crediting: VM generation changed since this seed was saved: restored snapshot "
                     r"or clone")
    check(old in e.mixed(), "the seed of another generation was not even mixed", e.out)
    rs = e.runstate()
    check(rs.get("SEED_GENERATION") == "changed" and rs.get("ACTION") == "not-credited", "record", str(rs))
    # Back in generation A, that seed is gone: it was replaced, never credited twice.
    e.new_boot()
    e.set_vmgen(GUID_A)
    e.run_seed("load")
    check(old not in e.credited(), "the old seed came back", e.out)


@case
def vm_generation_unreadable_now_mixes(e):
    e.set_vmgen(GUID_A)
    old = e.make_seed()
    e.set_vmgen(None)                          # the copy boots where there is no device
    e.run_seed("load")
    expect_no_credit(e, old, r"not crediting: seed was saved in a VM generation, but none can be read now")
    rs = e.runstate()
    check(rs.get("VM_GENERATION") == "none" and rs.get("SEED_GENERATION") == "unverifiable", "record", str(rs))
    # The device is there but /dev/mem cannot be read: the same, and said.
    e.new_boot()
    e.set_vmgen(GUID_A)
    old = e.make_seed()
    e.set_vmgen(GUID_A, mem=False)
    e.run_seed("load")
    expect_no_credit(e, old, r"seed was saved in a VM generation, but none can be read now")
    check("Cannot read the VM generation" in e.out, "an unreadable generation is not reported", e.out)
    check(e.runstate().get("VM_GENERATION") == "unreadable", "record", str(e.runstate()))


@case
def vm_generation_absent_from_seed_keeps_old_rules(e):
    e.set_vmgen(None)
    old = e.make_seed()
    check(e.inspect()["GENERATION"] == NO_GENERATION, "a seed was bound to a generation that does not exist")
    check(os.path.getsize(e.seed) == 52 + 32 + int(e.inspect()["SEED_SIZE"]), "not a version 1 file")
    e.set_vmgen(GUID_A)
    e.run_seed("load")
    check(old in e.credited(), "a seed saved without a generation was not credited", e.out)
    check(e.runstate().get("SEED_GENERATION") == "unbound", "record", str(e.runstate()))


@case
def vm_generation_vmclock_preferred(e):
    e.set_vmgen(GUID_A, vmclock=7)
    old = e.make_seed()
    check("bound to this VM generation (vmclock)" in e.out, "vmclock not preferred", e.out)
    e.set_vmgen(GUID_A, vmclock=8)             # the counter moved: restored
    e.run_seed("load")
    expect_no_credit(e, old, r"VM generation changed since this seed was saved")
    check(e.runstate().get("VM_GENERATION") == "vmclock", "record", str(e.runstate()))


# --- rotation ----------------------------------------------------------------

@case
def cycle_rotates_and_credits_each_seed_once(e):
    e.run_seed("load")                        # first boot of this directory: no seed
    check("No seed file" in e.out and "not crediting: no seed file" in e.out, "first load", e.out)
    check(e.credited() == [], "something was credited without a seed")
    check(e.inspect()["CREDITABLE"] == "yes", "fresh seed from an initialized pool is creditable")
    seen = []
    for _ in range(3):
        e.run_seed("save")
        e.new_boot()
        old = e.inspect()["SEED"]
        check(old not in seen, "save did not produce a new seed")
        seen.append(old)
        e.run_seed("load")
        check(f"credited {len(old) * 4} bits from {e.seed}" in e.out, "load did not credit", e.out)
        new = e.inspect()
        check(new["ok"] and new["SEED"] != old, "load did not rotate the seed")
        check(bytes.fromhex(old) not in e.files_bytes(), "the old seed's bytes are still in the directory")
        seen.append(new["SEED"])
        rs = e.runstate()
        check(rs["ACTION"] == "credited" and rs["BITS"] == str(len(old) * 4) and rs["REPLACEMENT_CREDITABLE"] == "yes",
              "runstate after a credit", str(rs))
    credited = e.credited()
    check(len(credited) == 3 and len(set(credited)) == 3, "each seed credited exactly once", str(credited))
    # A second load without a save in between credits the replacement, never the same bytes again.
    e.new_boot()
    e.run_seed("load")
    e.new_boot()
    e.run_seed("load")
    credited = e.credited()
    check(len(credited) == len(set(credited)), "a seed was credited twice", "\n".join(credited))


@case
def save_never_blocks_and_marks_creditability(e):
    e.set_ready(False)
    old = e.make_seed(creditable=True)
    e.run_seed("save", timeout=5)
    d = e.inspect()
    check(d["CREDITABLE"] == "no" and d["SEED"] != old, "save with an uninitialized pool", str(d))
    check("not creditable" in e.out, "save does not say why the seed is not creditable", e.out)
    e.set_ready(True)
    e.run_seed("save")
    check(e.inspect()["CREDITABLE"] == "yes", "save with an initialized pool is creditable")
    check(e.credited() == [], "save credited something")


@case
def replacement_of_good_seed_creditable_even_if_pool_not_ready(e):
    old = e.make_seed()
    e.set_ready(False)
    e.run_seed("load")
    check(old in e.credited(), "good seed not credited", e.out)
    check(e.inspect()["CREDITABLE"] == "yes", "replacement of a seed that passed rules 2-6 must be creditable")


@case
def clone_replacement_never_creditable_when_pool_not_ready(e):
    old = e.make_seed()
    e.set_machine_id(OTHER_ID)                 # the image was cloned
    e.set_ready(False)
    e.env.pop("FAKE_POOL_STATE")               # and nothing will initialize the fake kernel
    e.run_seed("load")
    expect_no_credit(e, old, r"not crediting: seed is bound to another machine")
    d = e.inspect()
    check(d["CREDITABLE"] == "no", "a clone's replacement was marked creditable", str(d))
    check(d["BOUND"] == "yes", "replacement is bound to the new machine-id", str(d))
    check(e.runstate()["REPLACEMENT_CREDITABLE"] == "no", "runstate REPLACEMENT_CREDITABLE")
    e.new_boot()
    e.run_seed("load")                         # the next boot of the clone
    check(e.credited() == [], "the clone's replacement was credited on the next boot", e.out)


@case
def clone_replacement_creditable_when_pool_ready(e):
    old = e.make_seed()
    e.set_machine_id(OTHER_ID)
    e.set_ready(True)
    e.run_seed("load")
    expect_no_credit(e, old, r"bound to another machine")
    check(e.inspect()["CREDITABLE"] == "yes", "fresh bytes from an initialized pool make the replacement creditable")


# --- bad inputs: clear message, documented exit status, no credit -----------

def bad_input(e, prepare, message, expect=0, replaced=True, timeout=20):
    good = e.make_seed()
    prepare(e, good)
    rusage0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    e.run_seed("load", expect=expect, timeout=timeout)
    check(e.elapsed < 5, f"load took {e.elapsed:.1f}s")
    check(e.credited() == [], "something was credited", e.out)
    check(re.search(message, e.out), f"no message matching {message!r}", e.out)
    rs = e.runstate()
    check(rs["ACTION"] == ("error" if expect else "not-credited") and rs["BITS"] == "0", "runstate", str(rs))
    if replaced:
        d = e.inspect()
        check(d["ok"] and d["SEED"] != good, "a bad seed must be replaced by a valid new one", str(d))
    return rusage0


@case
def symlinked_seed(e):
    def prep(e, good):
        target = os.path.join(e.top, "elsewhere")
        os.rename(e.seed, target)
        os.symlink(target, e.seed)
        e.target = target
        with open(target, "rb") as f:
            e.target_bytes = f.read()
    bad_input(e, prep, r"not crediting: the seed is a symbolic link")
    check(not os.path.islink(e.seed), "the symlink was not replaced")
    with open(e.target, "rb") as f:
        check(f.read() == e.target_bytes, "the symlink's target was modified")


@case
def fifo_seed(e):
    def prep(e, good):
        os.unlink(e.seed)
        os.mkfifo(e.seed, 0o600)
    bad_input(e, prep, r"not crediting: the seed is a FIFO", timeout=10)


@case
def directory_seed(e):
    def prep(e, good):
        os.unlink(e.seed)
        os.mkdir(e.seed, 0o700)
    bad_input(e, prep, r"not crediting: the seed is a directory", expect=1, replaced=False)
    check(re.search(r"Failed to write the replacement seed.*Is a directory", e.out), "write failure message", e.out)


@case
def huge_sparse_seed(e):
    def prep(e, good):
        with open(e.seed, "r+b") as f:
            f.truncate(1 << 30)
    r0 = bad_input(e, prep, r"not crediting: the seed file is larger than 628 bytes")
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    check(r1.ru_maxrss < 64 * 1024, f"peak RSS {r1.ru_maxrss} KiB: the 1 GiB file was read")


@case
def empty_seed(e):
    def prep(e, good):
        open(e.seed, "w").close()
    bad_input(e, prep, r"not crediting: the seed file is empty")


@case
def truncated_seed(e):
    def prep(e, good):
        with open(e.seed, "r+b") as f:
            f.truncate(100)
    bad_input(e, prep, r"not crediting: seed file does not parse")


@case
def flipped_checksum_byte(e):
    def prep(e, good):
        with open(e.seed, "r+b") as f:
            f.seek(-1, os.SEEK_END)
            b = f.read(1)
            f.seek(-1, os.SEEK_END)
            f.write(bytes([b[0] ^ 0x01]))
    bad_input(e, prep, r"not crediting: seed file does not parse: .*checksum")


@case
def flipped_seed_byte(e):
    def prep(e, good):
        with open(e.seed, "r+b") as f:
            f.seek(60)
            b = f.read(1)
            f.seek(60)
            f.write(bytes([b[0] ^ 0x80]))
    bad_input(e, prep, r"not crediting: seed file does not parse")


@case
def wrong_owner(e):
    bad_input(e, lambda e, g: os.chown(e.seed, 65534, 65534), r"not crediting: seed file is owned by UID 65534")


@case
def mode_0644(e):
    bad_input(e, lambda e, g: os.chmod(e.seed, 0o644), r"not crediting: seed file is mode 0644")


@case
def group_writable_dir(e):
    bad_input(e, lambda e, g: os.chmod(e.seeds, 0o770), r"not crediting: seed directory is mode 0770, must be 0700")


@case
def world_writable_dir(e):
    bad_input(e, lambda e, g: os.chmod(e.seeds, 0o707), r"not crediting: seed directory is mode 0707, must be 0700")


@case
def dir_owned_by_other(e):
    bad_input(e, lambda e, g: os.chown(e.seeds, 65534, 65534), r"not crediting: seed directory is owned by UID 65534")


@case
def uncreditable_flag(e):
    def prep(e, good):
        e.make_seed(creditable=False)
    bad_input(e, prep, r"not crediting: seed was written before the CRNG was initialized")


@case
def machine_id_changed(e):
    bad_input(e, lambda e, g: e.set_machine_id(OTHER_ID), r"not crediting: seed is bound to another machine")


@case
def machine_id_missing(e):
    bad_input(e, lambda e, g: os.unlink(os.path.join(e.root, "etc/machine-id")),
              r"not crediting: no machine-id to bind the seed to")


@case
def machine_id_uninitialized(e):
    # The seed is bound to the id the image had; first boot says "uninitialized".
    bad_input(e, lambda e, g: e.set_machine_id("uninitialized"), r"not crediting: .*(first boot|bound)")
    e.set_machine_id(MACHINE_ID)


@case
def first_boot_flag(e):
    def prep(e, good):
        open(os.path.join(e.root, "run/systemd/first-boot"), "w").close()
    bad_input(e, prep, r"not crediting: first boot \(/run/systemd/first-boot exists\)")


@case
def read_only_directory(e):
    # Root writes through any mode bits, so the directory is made read-only
    # with a read-only bind mount in a private mount namespace: the
    # replacement cannot be written, so the old seed must not be credited.
    if not shutil.which("unshare"):
        raise Skip("unshare(1) missing")
    good = e.make_seed()
    with open(e.seed, "rb") as f:
        before = f.read()
    script = ('mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" || exit 99; shift; exec "$@"')
    p = subprocess.run(["unshare", "-m", "sh", "-c", script, "sh", e.seeds, SEED_BIN, "load", "--root=" + e.root,
                        "--seed-dir=" + e.seeds_rel],
                       env=e.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=20)
    if p.returncode == 99:
        raise Skip("cannot make a read-only bind mount here: " + p.stdout.strip())
    e.out = p.stdout
    check(p.returncode == 1, f"exit {p.returncode}, expected 1", e.out)
    check(e.credited() == [], "credited although the replacement could not be written", e.out)
    check(re.search(r"Failed to write the replacement seed .*Read-only file system", e.out), "message", e.out)
    check(re.search(r"not crediting: replacement seed could not be written durably", e.out), "reason", e.out)
    check(good in e.mixed(), "the old seed was not even mixed")
    with open(e.seed, "rb") as f:
        check(f.read() == before, "the old seed changed")
    check(e.runstate()["ACTION"] == "error", "runstate ACTION=error")


@case
def seed_directory_unusable(e):
    # The seed directory's parent is missing (/var not mounted): an error;
    # the credential and the machine-id are still handed to the pool, mixed:
    # a credential is credited only where it can be remembered.
    data = binary_credential(32)
    write_credential(os.path.join(e.root, "run/credentials/@system/entropy-gate.seed"), data)
    e.seeds_rel = "/no/such"
    e.run_seed("load", expect=1)
    check(re.search(r"not crediting: cannot open and lock the seed directory .*/no/such: No such file", e.out),
          "message", e.out)
    check(e.credited() == [] and data.hex() in e.mixed(), "the credential must be mixed, not credited", e.out)
    check(re.search(r"Not crediting credential .*: the seed directory, which remembers it, cannot be used", e.out),
          "credential message", e.out)
    rs = e.runstate()
    check(rs["ACTION"] == "error" and rs["CREDENTIAL"] == "mixed", "runstate", str(rs))
    e.run_seed("save", expect=1)
    check(not os.path.exists(os.path.join(e.root, "no")), "only the last component may be created")


@case
def no_permission_to_credit(e):
    # Root without CAP_SYS_ADMIN (or not root): RNDADDENTROPY fails with EPERM.
    good = e.make_seed()
    e.run_seed("load", env={"FAKE_POOL_ADD_ERRNO": "1"}, expect=1)
    check(e.credited() == [], "credited despite EPERM")
    check(re.search(r"not crediting: crediting failed: Operation not permitted \(needs root with CAP_SYS_ADMIN\)", e.out),
          "message", e.out)
    d = e.inspect()
    check(d["ok"] and d["SEED"] != good, "the seed must still be rotated", str(d))
    check(e.runstate()["ACTION"] == "error", "runstate ACTION=error")


# --- configuration ------------------------------------------------------------

@case
def no_credit_option(e):
    good = e.make_seed()
    e.run_seed("load", "--no-credit")
    expect_no_credit(e, good, r"not crediting: crediting disabled \(--no-credit\)")
    check(good in e.mixed(), "with --no-credit the seed is still mixed")
    check(e.inspect()["CREDITABLE"] == "yes", "replacement of a good seed stays creditable")


@case
def no_credit_kernel_cmdline(e):
    good = e.make_seed()
    e.set_cmdline("ro entropy_gate.credit=0")
    e.run_seed("load")
    expect_no_credit(e, good, r"not crediting: crediting disabled \(entropy_gate.credit=0")


@case
def no_credit_config_file(e):
    good = e.make_seed()
    e.write_conf("[Seed]\nCredit=no\n")
    e.run_seed("load")
    expect_no_credit(e, good, r"not crediting: crediting disabled")
    # The kernel command line wins over the file.
    e.make_seed()
    e.set_cmdline("entropy_gate.credit=1")
    e.run_seed("load")
    check(len(e.credited()) == 1, "entropy_gate.credit=1 must override Credit=no", e.out)


# --- credentials and legacy seeds ----------------------------------------------

def write_credential(path, data, mode=0o400):
    # As systemd hands them over: root's, read-only, in a directory of root's.
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if os.path.exists(path):
        os.unlink(path)
    with open(path, "wb") as f:
        f.write(data)
    os.chmod(path, mode)


@case
def credential_system_credited(e):
    data = binary_credential(64)
    write_credential(os.path.join(e.root, "run/credentials/@system/entropy-gate.seed"), data)
    e.run_seed("load")
    check(data.hex() in e.credited(), "a 64-byte credential must be credited", e.out)
    rs = e.runstate()
    check(rs["CREDENTIAL"] == "credited" and rs["CREDENTIAL_BITS"] == "512", "runstate", str(rs))


@case
def credential_directory_credited(e):
    # Taken inside --root, as every other path.
    data = binary_credential(32)
    write_credential(os.path.join(e.root, "creds/entropy-gate.seed"), data)
    e.run_seed("load", env={"CREDENTIALS_DIRECTORY": "/creds"})
    check(data.hex() in e.credited(), "a 32-byte credential from $CREDENTIALS_DIRECTORY must be credited", e.out)


@case
def credential_directory_is_authoritative(e):
    # Under systemd, LoadCredential= decides: with $CREDENTIALS_DIRECTORY set,
    # /run/credentials/@system is not read behind its back.
    data = binary_credential(64)
    write_credential(os.path.join(e.root, "run/credentials/@system/entropy-gate.seed"), data)
    os.makedirs(os.path.join(e.root, "creds"))
    e.run_seed("load", env={"CREDENTIALS_DIRECTORY": "/creds"})
    check(data.hex() not in e.credited() and data.hex() not in e.mixed(), "the system credential was read", e.out)
    check(e.runstate()["CREDENTIAL"] == "none", "runstate CREDENTIAL=none")


@case
def credential_short_mixed(e):
    data = binary_credential(31)
    write_credential(os.path.join(e.root, "run/credentials/@system/entropy-gate.seed"), data)
    e.run_seed("load")
    check(data.hex() not in e.credited(), "a 31-byte credential was credited")
    check(data.hex() in e.mixed(), "a short credential must be mixed")
    check(e.runstate()["CREDENTIAL"] == "mixed", "runstate CREDENTIAL=mixed")


@case
def credential_not_credited_with_no_credit(e):
    data = binary_credential(64)
    write_credential(os.path.join(e.root, "run/credentials/@system/entropy-gate.seed"), data)
    e.run_seed("load", "--no-credit")
    check(e.credited() == [] and data.hex() in e.mixed(), "--no-credit applies to the credential too")


@case
def legacy_seeds_mixed_and_untouched(e):
    before = {}
    for rel in LEGACY + LEGACY_NOT_MIXED:
        p = os.path.join(e.root, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        data = os.urandom(512 if "seedrng" in rel else 256)
        with open(p, "wb") as f:
            f.write(data)
        os.chmod(p, 0o600)
        st = os.stat(p)
        before[p] = (data, st.st_mtime_ns, st.st_mode, st.st_ino)
    e.run_seed("load")
    for p, (data, mtime, mode, ino) in before.items():
        with open(p, "rb") as f:
            check(f.read() == data, f"{p} was modified")
        st = os.stat(p)
        check((st.st_mtime_ns, st.st_mode, st.st_ino) == (mtime, mode, ino), f"{p} was touched")
        mixed = not any(p.endswith("/" + rel) for rel in LEGACY_NOT_MIXED)
        check((data.hex() in e.mixed()) == mixed, f"{p} was {'not ' if mixed else ''}mixed")
        check(data.hex() not in e.credited(), f"{p} was credited")
    check(e.runstate()["LEGACY_MIXED"] == str(len(LEGACY)), "runstate LEGACY_MIXED", str(e.runstate()))
    mid = (MACHINE_ID + "\n").encode().hex()
    check(mid in e.mixed(), "the machine-id was not mixed")


@case
def legacy_seeds_fifo_huge_symlink_skipped(e):
    os.makedirs(os.path.join(e.root, "var/lib/systemd"))
    os.mkfifo(os.path.join(e.root, "etc/urandom.seed"))
    with open(os.path.join(e.root, "var/lib/systemd/random-seed"), "wb") as f:
        f.truncate(1 << 30)
    os.makedirs(os.path.join(e.root, "var/lib/seedrng"))
    os.symlink("/dev/zero", os.path.join(e.root, "var/lib/seedrng/seed.credit"))
    e.run_seed("load", timeout=10)
    check(e.elapsed < 5, f"load took {e.elapsed:.1f}s")
    for pattern in (r"Ignoring legacy seed .*/etc/urandom.seed: not a regular file",
                    r"Ignoring legacy seed .*/random-seed: larger than 4096 bytes",
                    r"Ignoring legacy seed .*/seed.credit: a symbolic link, not followed"):
        check(re.search(pattern, e.out), f"no message matching {pattern!r}", e.out)
    check(e.runstate()["LEGACY_MIXED"] == "0", "runstate LEGACY_MIXED", str(e.runstate()))


# --- never twice: credentials and once per boot ------------------------------

CRED = "run/credentials/@system/entropy-gate.seed"


@case
def credential_replayed_credited_once(e):
    # A hypervisor or cloned VM definition that hands over the same
    # credential at every boot: credited on the first, mixed after.
    data = binary_credential(32)
    for boot in range(3):
        write_credential(os.path.join(e.root, CRED), data)
        e.run_seed("load")
        rs = e.runstate()
        if boot == 0:
            check(rs["CREDENTIAL"] == "credited" and rs["CREDENTIAL_BITS"] == "256", "first boot", str(rs))
        else:
            check(rs["CREDENTIAL"] == "mixed", f"boot {boot}: runstate", str(rs))
            check(re.search(r"Not crediting credential .*: credited on an earlier boot", e.out), "message", e.out)
        e.new_boot()
    check(e.credited().count(data.hex()) == 1, "the credential was credited more than once", "\n".join(e.credited()))
    check(e.mixed().count(data.hex()) == 2, "the replays were not mixed")
    st = os.stat(os.path.join(e.seeds, "credentials"))
    check(stat.S_IMODE(st.st_mode) == 0o600 and st.st_uid == 0, "the memory of credentials is root's, 0600")


@case
def credential_hex_decoded_at_real_density(e):
    # 16 random bytes as hex text: 128 bits, whatever its 33 bytes suggest.
    short = os.urandom(16)
    write_credential(os.path.join(e.root, CRED), (short.hex() + "\n").encode())
    e.run_seed("load")
    check(e.credited() == [], "128 bits of hex were credited", e.out)
    check(re.search(r"Not crediting credential .*: 128 bits after decoding hex, less than 256", e.out), "message", e.out)
    check((short.hex() + "\n").encode().hex() in e.mixed(), "the short credential was not mixed")
    # 32 bytes as hex: the decoded bytes are what is credited, 256 bits.
    e.new_boot()
    full = os.urandom(32)
    write_credential(os.path.join(e.root, CRED), (full.hex().upper() + "\n").encode())
    e.run_seed("load")
    check(full.hex() in e.credited(), "the decoded credential was not credited as 256 bits", e.out)
    check(e.runstate()["CREDENTIAL_BITS"] == "256", "runstate CREDENTIAL_BITS", str(e.runstate()))


@case
def credential_from_kernel_cmdline_mixed(e):
    # systemd imports systemd.set_credential= from the kernel command line
    # into the same directory: readable by every user, so never credited.
    data = binary_credential(32)
    for param in (f"systemd.set_credential_binary=entropy-gate.seed:{__import__('base64').b64encode(data).decode()}",
                  "systemd.set_credential=entropy-gate.seed:whatever",
                  "quiet -- systemd.set_credential=entropy-gate.seed:x"):
        write_credential(os.path.join(e.root, CRED), data)
        e.set_cmdline("ro " + param)
        e.run_seed("load")
        check(data.hex() not in e.credited() and data.hex() in e.mixed(), f"credited with {param}", e.out)
        check(re.search(r"Not crediting credential .*kernel command line", e.out), "message", e.out)
        e.new_boot()
    # Another credential's name there does not count.
    e.set_cmdline("systemd.set_credential=other.seed:x")
    write_credential(os.path.join(e.root, CRED), data)
    e.run_seed("load")
    check(data.hex() in e.credited(), "another credential on the command line stopped ours", e.out)


@case
def credential_text_mixed(e):
    text = b"correct horse battery staple, twice over: correct horse battery staple\n"
    write_credential(os.path.join(e.root, CRED), text)
    e.run_seed("load")
    check(e.credited() == [] and text.hex() in e.mixed(), "text of unknown density was credited", e.out)
    check(re.search(r"Not crediting credential .*: it is text", e.out), "message", e.out)


@case
def second_load_in_one_boot_mixes_only(e):
    good = e.make_seed()
    e.run_seed("load")
    check(e.credited() == [good], "the first load did not credit", e.out)
    with open(os.path.join(e.run, "seed"), "rb") as f:
        record = f.read()
    replacement = e.inspect()["SEED"]
    # A unit restart or a package upgrade: load again in the same boot.
    e.run_seed("load")
    check(e.credited() == [good], "a second load in one boot credited", e.out)
    check(re.search(r"not crediting: the seed directory .* was already loaded in this boot", e.out), "message", e.out)
    check(replacement in e.mixed(), "the replacement was not even mixed")
    with open(os.path.join(e.run, "seed"), "rb") as f:
        check(f.read() == record, "the second load overwrote the boot's record")
    # A restart runs save, then load: still the same boot, still no credit.
    e.run_seed("save")
    e.run_seed("load")
    check(e.credited() == [good], "save + load in one boot credited", e.out)
    # The next boot credits again.
    e.new_boot()
    e.run_seed("load")
    check(len(e.credited()) == 2, "the next boot did not credit", e.out)


@case
def boot_id_unreadable(e):
    bad_input(e, lambda e, g: os.unlink(os.path.join(e.root, "proc/sys/kernel/random/boot_id")),
              r"not crediting: cannot read this boot's id")


@case
def no_credit_is_the_reason_whatever_else_is_doubtful(e):
    # Turned off is what the admin asked for: that is the answer given,
    # not a doubt about this boot that would not have mattered.
    good = e.make_seed()
    os.unlink(os.path.join(e.root, "proc/sys/kernel/random/boot_id"))
    e.run_seed("load", "--no-credit")
    expect_no_credit(e, good, r"not crediting: crediting disabled \(--no-credit\)")


@case
def lock_held_by_another_process(e):
    # Anyone holding the directory's lock must not hang the boot.
    good = e.make_seed()
    fd = os.open(e.seeds, os.O_RDONLY | os.O_DIRECTORY)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        e.run_seed("load", expect=1, timeout=15)
        check(2.5 < e.elapsed < 6, f"load waited {e.elapsed:.1f}s for the lock, expected about 3s")
        check(re.search(r"not crediting: cannot open and lock the seed directory .*another process has held its lock",
                        e.out), "message", e.out)
        check(e.credited() == [] and good in e.mixed() or good not in e.credited(), "credited without the lock")
        e.run_seed("save", expect=1, timeout=15)
        check(e.elapsed < 6, f"save waited {e.elapsed:.1f}s")
    finally:
        os.close(fd)
    e.run_seed("load")
    check(e.credited() == [good], "the lock outlived its holder", e.out)


@case
def seed_directory_0755(e):
    bad_input(e, lambda e, g: os.chmod(e.seeds, 0o755), r"not crediting: seed directory is mode 0755, must be 0700")


@case
def credential_only_mixes_without_opt_in(e):
    # The initrd: no seed directory, so nothing can remember the credential.
    data = binary_credential(32)
    write_credential(os.path.join(e.root, CRED), data)
    e.run_seed("load", "--credential-only")
    check(e.credited() == [] and data.hex() in e.mixed(), "credited without a memory", e.out)
    check(re.search(r"Not crediting credential .*no seed directory to remember it in .*CreditCredentialWithoutMemory= is off",
                    e.out), "message", e.out)
    check(not os.path.exists(e.seeds), "--credential-only touched the seed directory")
    check(e.runstate()["ACTION"] == "not-credited", "runstate", str(e.runstate()))


@case
def credential_in_initrd_then_remembered(e):
    # With the opt-in the initrd credits the credential; the load after
    # the switch to the real root, in the same boot, remembers it and does
    # not credit it again; a later boot that replays it only mixes it.
    good = e.make_seed()
    data = binary_credential(32)
    write_credential(os.path.join(e.root, CRED), data)
    e.write_conf("[Seed]\nCreditCredentialWithoutMemory=yes\n")
    e.run_seed("load", "--credential-only")
    check(e.credited() == [data.hex()], "the initrd did not credit the credential", e.out)
    check("not remembered" in e.out, "the initrd's credit does not say it is not remembered", e.out)
    rs = e.runstate()
    check(rs["CREDENTIAL"] == "credited" and len(rs.get("CREDENTIAL_HASH", "")) == 64 and not rs.get("BOOT_ID"),
          "the initrd's record", str(rs))
    e.write_conf("")
    e.run_seed("load")                         # the real root, same boot, same /run
    check(e.credited() == [data.hex(), good], "the real root credited the credential again, or not the seed", e.out)
    check(re.search(r"Not crediting credential .*credited earlier in this boot", e.out), "message", e.out)
    rs = e.runstate()
    check(rs["CREDENTIAL"] == "credited" and rs["ACTION"] == "credited", "the real root's record", str(rs))
    e.new_boot()
    write_credential(os.path.join(e.root, CRED), data)
    e.run_seed("load")
    check(e.credited().count(data.hex()) == 1, "a replay on the next boot was credited", e.out)
    check(re.search(r"credited on an earlier boot", e.out), "replay message", e.out)


# --- machine-id -----------------------------------------------------------------

@case
def machine_id_symlink_followed(e):
    good = e.make_seed()
    real = os.path.join(e.root, "etc/machine-id.real")
    os.rename(os.path.join(e.root, "etc/machine-id"), real)
    os.symlink("/etc/machine-id.real", os.path.join(e.root, "etc/machine-id"))
    e.run_seed("load")
    check(e.credited() == [good], "a symlinked machine-id was not followed", e.out)


@case
def machine_id_changed_behind_symlink_with_opt_in(e):
    # The opt-in for systems without a machine-id must not let a seed
    # across a changed one, however the id is reached.
    e.write_conf("[Seed]\nCreditWithoutMachineId=yes\n")
    good = e.make_seed()
    with open(os.path.join(e.root, "etc/machine-id.new"), "w") as f:
        f.write(OTHER_ID + "\n")
    os.unlink(os.path.join(e.root, "etc/machine-id"))
    os.symlink("machine-id.new", os.path.join(e.root, "etc/machine-id"))
    e.run_seed("load")
    expect_no_credit(e, good, r"not crediting: seed is bound to another machine")


@case
def machine_id_invalid_never_absent(e):
    e.write_conf("[Seed]\nCreditWithoutMachineId=yes\n")
    mid = os.path.join(e.root, "etc/machine-id")
    for junk in ("not-a-machine-id", MACHINE_ID[:-1], ""):
        os.unlink(mid)
        e.machine_id = ""
        good = e.make_seed()                   # an unbound seed, creditable where there is no id
        check(e.inspect()["BOUND"] == "yes", "a seed with no machine-id is unbound")
        with open(mid, "w") as f:
            f.write(junk + "\n")
        e.run_seed("load")
        check(good not in e.credited(), f"credited with machine-id {junk!r}", e.out)
        check(re.search(r"not crediting: /etc/machine-id is not a valid machine-id", e.out), "message", e.out)
        check(e.inspect()["CREDITABLE"] == "no", "the replacement under an invalid id is creditable")


@case
def machine_id_all_zero_is_no_id(e):
    # systemd's "no ID", which it replaces at boot; an init system that
    # keeps it (OpenWrt's, a hand-written one) has the same "ID" on every
    # machine made from the image: a seed bound to it is shared by them all.
    zero = "0" * 32
    e.set_machine_id(zero)
    saved = e.make_seed(expect_creditable=False)    # the pool ready: only the ID makes it not creditable
    e.run_seed("load")
    check(saved not in e.credited(), "credited a seed saved under an all-zero machine-id", e.out)
    check("not crediting: seed was written before the CRNG was initialized, or under no valid machine-id" in e.out,
          "message", e.out)
    # A seed bound to no ID, where that is allowed, is not credited under zeros either.
    e.write_conf("[Seed]\nCreditWithoutMachineId=yes\n")
    os.unlink(os.path.join(e.root, "etc/machine-id"))
    e.machine_id = ""
    good = e.make_seed()
    e.set_machine_id(zero)
    e.run_seed("load")
    check(good not in e.credited(), "credited an unbound seed under an all-zero machine-id", e.out)
    check(re.search(r"not crediting: /etc/machine-id is not a valid machine-id \(32 hex digits, not all zero\)",
                    e.out), "message under zeros", e.out)
    e.write_conf("")
    e.run_seed("provision", f"--machine-id={zero}", expect=2)
    check("expected 32 hex digits, not all zero" in e.out, "provision --machine-id of zeros", e.out)
    e.set_machine_id(MACHINE_ID)


@case
def first_boot_named(e):
    # The reason is the first boot, not the binding of the image's seed.
    bad_input(e, lambda e, g: e.set_machine_id("uninitialized"),
              r"not crediting: first boot \(/etc/machine-id is uninitialized\)")
    e.set_machine_id(MACHINE_ID)


# --- switches fail closed ---------------------------------------------------------

@case
def config_too_large_fails_closed(e):
    e.write_conf("[Seed]\nCredit=no\n" + "#" * 70000 + "\n")
    bad_input(e, lambda e, g: None, r"not crediting: crediting disabled \(.*cannot be read: larger than 64 KiB")


@case
def config_with_nul_fails_closed(e):
    e.write_conf("[Seed]\nCredit=no\n\0\n")
    bad_input(e, lambda e, g: None, r"not crediting: crediting disabled \(.*cannot be read: contains a NUL byte")


@case
def config_unparsable_fails_closed(e):
    e.write_conf("[Seed]\nCredit = nope\n")
    bad_input(e, lambda e, g: None, r"not crediting: crediting disabled")


@case
def kernel_cmdline_quoted(e):
    e.set_cmdline('ro "entropy_gate.credit=0" quiet')
    bad_input(e, lambda e, g: None, r"not crediting: crediting disabled \(entropy_gate.credit=0 on the kernel command line")


@case
def environment_moves_nothing(e):
    # The installed binaries take no path from the environment: a service
    # manager's environment is not a trust boundary.
    good = e.make_seed()
    other = os.path.join(e.top, "other")
    os.makedirs(os.path.join(other, "etc"))
    with open(os.path.join(other, "etc/machine-id"), "w") as f:
        f.write(OTHER_ID + "\n")
    e.run_seed("load", env={"ENTROPY_GATE_ROOT": other, "ENTROPY_GATE_PROC_CMDLINE": "entropy_gate.credit=0",
                            "ENTROPY_GATE_CONF": "/nonexistent", "ENTROPY_GATE_RUN_DIR": other})
    check(e.credited() == [good], "the environment changed what was credited", e.out)
    check(os.listdir(other) == ["etc"], "wrote where the environment said")


# --- provision ---------------------------------------------------------------------

@case
def provision_first_boot_credited(e):
    # An image per device: its seed, bound to the device's machine-id, is
    # credited on its very first boot.
    shutil.rmtree(e.seeds, ignore_errors=True)
    os.unlink(os.path.join(e.root, "etc/machine-id"))
    e.run_seed("provision", f"--machine-id={OTHER_ID.upper()}")
    with open(os.path.join(e.root, "etc/machine-id")) as f:
        check(f.read() == OTHER_ID + "\n", "provision did not write the machine-id")
    e.machine_id = OTHER_ID
    d = e.inspect()
    check(d["ok"] and d["CREDITABLE"] == "yes" and d["BOUND"] == "yes", "provisioned seed", str(d))
    st, dst = os.stat(e.seed), os.stat(e.seeds)
    check(stat.S_IMODE(st.st_mode) == 0o600 and st.st_uid == 0, "seed mode/owner")
    check(stat.S_IMODE(dst.st_mode) == 0o700 and dst.st_uid == 0, "seed directory mode/owner")
    check(e.credited() == [], "provision credited something")
    e.new_boot()
    e.run_seed("load")
    check(e.credited() == [d["SEED"]], "the first boot did not credit the provisioned seed", e.out)


@case
def provision_refuses_without_real_machine_id(e):
    for content in ("uninitialized", "", None):
        mid = os.path.join(e.root, "etc/machine-id")
        if os.path.exists(mid):
            os.unlink(mid)
        if content is not None:
            with open(mid, "w") as f:
                f.write(content + "\n")
        e.run_seed("provision", expect=1)
        check(re.search(r"machine-id is (uninitialized|empty|absent).*--machine-id", e.out), "message", e.out)
    # A bad value is a usage error (2), named, like every other option's.
    e.run_seed("provision", "--machine-id=xyz", expect=2)
    check("Invalid --machine-id=xyz: expected 32 hex digits" in e.out, "bad --machine-id", e.out)
    check(not os.path.exists(e.seed), "a seed was written anyway")


@case
def provision_refuses_uninitialized_pool(e):
    e.set_ready(False)
    e.env.pop("FAKE_POOL_STATE")
    e.run_seed("provision", expect=1)
    check("not creditable" in e.out, "message", e.out)
    check(not os.path.exists(e.seed), "a seed was written although the pool is not initialized", e.out)


# --- usage --------------------------------------------------------------------

@case
def usage_and_exit_codes(e):
    def run(args, code, pattern, root=True):
        p = subprocess.run([SEED_BIN, *args] + (["--root=" + e.root] if root else []), env=e.env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        check(p.returncode == code, f"entropy-seed {' '.join(args)}: exit {p.returncode}, expected {code}", p.stdout)
        check(re.search(pattern, p.stdout), f"entropy-seed {' '.join(args)}: no {pattern!r}", p.stdout)
    run([], 2, r"Missing verb")
    run(["frobnicate"], 2, r"Unknown verb")
    run(["load", "save"], 2, r"Unexpected argument 'save'")
    run(["load", "extra"], 2, r"Unexpected argument 'extra'")
    run(["--bogus", "load"], 2, r"^entropy-seed: Unknown option '--bogus' \(see --help\)")
    run(["-x", "load"], 2, r"^entropy-seed: Unknown option '-x'")
    run(["load", "--seed-dir"], 2, r"^entropy-seed: Option '--seed-dir' needs a value", root=False)
    run(["--machine-id=0123", "provision"], 2, r"Invalid --machine-id=0123: expected 32 hex digits")
    run(["--seed-dir=", "load"], 2, r"needs a directory")
    run(["--seed-dir=relative", "load"], 2, r"needs a directory")
    run(["--seed-dir=/", "load"], 2, r"needs a directory of its own \(not /\)")
    run(["--seed-dir=//", "save"], 2, r"needs a directory of its own \(not /\)")
    run(["provision"], 2, r"needs --root", root=False)
    run(["--machine-id=" + MACHINE_ID, "load"], 2, r"for provision only")
    run(["--credential-only", "save"], 2, r"for load only")
    run(["--help"], 0, r"--seed-dir=DIR")
    run(["--version"], 0, r"^entropy-seed \d")
    check(not os.path.exists(e.seeds), "usage errors must not touch anything")


class Skip(Exception):
    pass


def main():
    if os.geteuid() != 0:
        print("SKIP: seed-cli needs root: crediting needs root-owned seeds and directories "
              "(the tests use temporary directories and a fake pool only)")
        return 77
    failed, skipped = [], []
    for fn in CASES:
        e = Env()
        try:
            fn(e)
            print(f"ok   {fn.__name__}")
        except Skip as s:
            print(f"skip {fn.__name__}: {s}")
            skipped.append(fn.__name__)
        except Failed as f:
            print(f"FAIL {fn.__name__}: {f}")
            failed.append(fn.__name__)
        finally:
            e.cleanup()
    print(f"{len(CASES) - len(failed) - len(skipped)} passed, {len(failed)} failed, {len(skipped)} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
