#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The generator never makes an ordering cycle with a distribution's units,
whatever the file system layout: every unit that would close one is refused.

For each distribution root (this system's own, or a Debian tree built with
debootstrap) and each layout of /etc/fstab (the root file system alone; a
separate /var, grown at boot, and a separate /var/lib; /var on LUKS; /var
on NFS and /var/lib on iSCSI, where the seed helper waits for the
network), the
distribution's own systemd-fstab-generator (and cryptsetup generator)
writes the mount (and cryptsetup) units, and the distribution's
own systemd-analyze verify decides, over every service, socket, timer and
path unit the distribution ships, which of them close an ordering cycle
through entropy-ready.target when gated (Wants= + After=, the generator's
drop-in). They are found by group testing: everything is gated at once in
one start transaction; each cycle systemd reports through
entropy-ready.target names gated units that close one on their own (the
path from entropy-ready.target to them uses no other gate, or it would have
met the target first); those lose their drop-in and the next round runs,
until no cycle is left. Each unit found is then confirmed alone.

The generator, given every one of those names and the layout's fstab,
must refuse each unit found on that layout and on every local one, accept
the ordinary services (ssh, cron, nginx, ...; on NFS not the network's),
and its drop-ins, all at once, must leave the transaction without a cycle.

Group testing trusts the units systemd names in a cycle; systemd 252
sometimes names the path it searched from instead, without the gate that
closes the cycle. Then the rest are found by halves (a cycle the gates
make passes entropy-ready.target once, so one gate closes it). EG_DEBUG=1
prints each round's cycles.

usage: generator-cycles.py GENERATOR CONF_FILE UNITS_BUILD_DIR NAME=ROOT [--make-root SCRIPT]

ROOT "/" is this system. Another ROOT is entered with chroot; when it does
not exist and --make-root is given, SCRIPT NAME ROOT builds it
(debootstrap; skip when that is not possible here). KEEP=1 keeps the work
directory.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

GATE = "[Unit]\nWants=entropy-ready.target\nAfter=entropy-ready.target\n"
OURS = ("entropy-seed.service", "entropy-gate.service", "entropy-ready.target")
LAYOUTS = {   # name: (fstab, crypttab)
    "root-only": ("/dev/vda1 / ext4 errors=remount-ro 0 1\n", None),
    "separate-var": ("/dev/vda1 / ext4 errors=remount-ro 0 1\n"
                     "/dev/vda2 /var ext4 defaults,x-systemd.growfs 0 2\n"
                     "/dev/vda3 /var/lib ext4 defaults 0 2\n"
                     "/dev/vda4 none swap sw 0 0\n", None),
    # /var on LUKS: systemd-cryptsetup-generator's units come before it.
    "encrypted-var": ("/dev/vda1 / ext4 errors=remount-ro 0 1\n"
                      "/dev/mapper/var /var ext4 defaults 0 2\n",
                      "var /dev/vda2 none luks\n"),
    # /var on NFS: the seed helper waits for the network (the remote mount
    # is after network-online.target), so what brings the network up is
    # before the gate.
    "nfs-var": ("/dev/vda1 / ext4 errors=remount-ro 0 1\n"
                "srv:/export/var /var nfs defaults 0 0\n", None),
    # /var/lib on a network block device (iSCSI): local type, _netdev.
    "netdev-var-lib": ("/dev/vda1 / ext4 errors=remount-ro 0 1\n"
                       "/dev/sdb1 /var/lib ext4 defaults,_netdev 0 2\n", None),
}
# Layouts whose seed directory is on a network file system, and the units
# the generator must refuse there (each one the tree has).
NETWORK_LAYOUTS = ("nfs-var", "netdev-var-lib")
NETWORK = ("systemd-networkd.service", "systemd-networkd.socket", "systemd-networkd-wait-online.service",
           "systemd-resolved.service", "NetworkManager.service", "networking.service",
           "wpa_supplicant.service", "ifupdown-pre.service")
# Units that make a cycle with a network /var on their own, without any
# gate: Debian 12's systemd-resolved.service is before network.target and
# after systemd-tmpfiles-setup.service, which is after /var/log's mounts;
# NetworkManager and wpa_supplicant keep their default dependencies, so they
# are after sysinit.target and so after the same mounts (such a system can
# only mount /var from the network in the initrd). The probe masks them
# there (nothing could tell what a gate adds, and the distribution enables
# them: sysinit.target wants systemd-resolved); the generator must refuse
# them (NETWORK).
CYCLE_WITHOUT_GATE = ("systemd-resolved.service", "NetworkManager.service", "NetworkManager-wait-online.service",
                      "wpa_supplicant.service", "wpa_supplicant@eg-test.service",
                      "wpa_supplicant-nl80211@eg-test.service", "wpa_supplicant-wired@eg-test.service")
# Services an image builder gates; each one the tree has must be accepted.
ORDINARY = ("ssh.service", "sshd.service", "cron.service", "nginx.service", "chrony.service",
            "dbus.service", "systemd-logind.service", "getty@tty1.service",
            "systemd-timesyncd.service", "systemd-resolved.service", "systemd-networkd.service",
            "e2scrub_all.service", "fstrim.service", "apt-daily.service", "logrotate.service")
UNIT_RE = re.compile(r"([A-Za-z0-9:_.\\@-]+\.(?:service|socket|target|device|mount|automount|swap|timer|path|slice|scope))/[a-z-]+")


def fail(msg):
    print(f"FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def skip(msg):
    print(f"SKIP: {msg}")
    sys.exit(77)


class Dist:
    def __init__(self, name, root, work):
        self.name, self.root = name, root
        # The work directory, as seen inside the root and from here.
        self.inner = "/" + os.path.relpath(work, root) if root != "/" else work
        self.work = work

    def run(self, argv, env=None):
        if self.root != "/":
            argv = ["chroot", self.root] + argv
        e = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8", "SYSTEMD_LOG_COLOR": "0"}
        e.update(env or {})
        return subprocess.run(argv, env=e, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, errors="replace")

    def host(self, inner):
        return self.work + inner[len(self.inner):]

    def unit_dirs(self):
        """The distribution's unit directories, inside the root, each once."""
        seen, dirs = set(), []
        for d in ("/etc/systemd/system", "/usr/lib/systemd/system", "/lib/systemd/system"):
            p = os.path.join(self.root, d.lstrip("/"))
            if not os.path.isdir(p):
                continue
            st = os.stat(p)
            if (st.st_dev, st.st_ino) in seen:
                continue
            seen.add((st.st_dev, st.st_ino))
            dirs.append(d)
        return dirs

    def unit_is(self, name):
        """The unit @name is, an alias (a symbolic link) followed."""
        for d in self.unit_dirs():
            p = os.path.join(self.root, d.lstrip("/"), name)
            if os.path.islink(p):
                return os.path.basename(os.readlink(p))
            if os.path.exists(p):
                return name
        return name

    def tool(self, *names):
        for n in names:
            if os.path.exists(os.path.join(self.root, n.lstrip("/"))):
                return n
        return None


# Units that belong to another boot than the normal one: the initrd's, and
# those that stop the machine (they require shutdown.target and its kin and
# conflict with everything else). In one transaction with the normal boot
# they would make systemd drop jobs to resolve conflicts, at random.
OTHER_BOOT = re.compile(
    r"^(Condition|Assert)PathExists=(/usr/lib|/etc)/initrd-release\s*$"
    r"|^(Requires|BindsTo|Wants)=.*\b(shutdown|sleep|final|umount|halt|poweroff|reboot|kexec|exit|soft-reboot"
    r"|rescue|emergency)\.target\b", re.M)
OTHER_BOOT_NAMES = ("rescue.service", "emergency.service")


def other_boot(path):
    try:
        with open(path, errors="replace") as f:
            text = f.read()
    except OSError:
        return False
    return OTHER_BOOT.search(text) is not None


def candidates(dist):
    """Every service, socket, timer and path unit the distribution ships
    (templates with an instance), leaving out those of another boot
    (OTHER_BOOT), which never share a transaction with the seed helper."""
    names = set()
    for d in dist.unit_dirs():
        if d.startswith("/etc/"):
            continue    # enablement and local units, not the distribution's
        hd = os.path.join(dist.root, d.lstrip("/"))
        for n in os.listdir(hd):
            p = os.path.join(hd, n)
            if not re.search(r"\.(service|socket|timer|path)$", n) or n.startswith("entropy-"):
                continue
            if os.path.islink(p) and os.readlink(p) == "/dev/null":
                continue
            if os.path.isdir(p) or n in OTHER_BOOT_NAMES or other_boot(p):
                continue
            names.add(re.sub(r"@\.", "@eg-test.", n))
    return sorted(names)


def cycles(output):
    """The cycles systemd-analyze reports, each as the set of units in it.
    systemd 252 writes one line per step ("Found ordering cycle on A/start",
    "Found dependency on B/start", ...); later versions one line ("Found
    ordering cycle: A/start after B/start ..."). Both are read."""
    found, cur = [], None
    for line in output.splitlines():
        if "Found ordering cycle" in line:
            cur = set()
            found.append(cur)
            cur.update(UNIT_RE.findall(line.split("Found ordering cycle", 1)[1]))
        elif "Found dependency on" in line and cur is not None:
            cur.update(UNIT_RE.findall(line.split("Found dependency on", 1)[1]))
        elif "to break ordering cycle" in line:
            cur = None
    return found


class Probe:
    def __init__(self, dist, ours, fstab_out, masked=()):
        self.dist, self.ours, self.fstab_out = dist, ours, fstab_out
        self.dir = dist.inner + "/probe"
        shutil.rmtree(dist.host(self.dir), ignore_errors=True)
        os.makedirs(dist.host(self.dir))
        for u in masked:
            os.symlink("/dev/null", dist.host(self.dir) + "/" + u)

    def verify(self, gate_dir, wanted, debug=False):
        with open(self.dist.host(self.dir) + "/eg-probe.target", "w") as f:
            f.write("[Unit]\nDescription=probe\nWants=entropy-seed.service entropy-ready.target "
                    + " ".join(wanted) + "\n")
        path = ":".join([self.dir, gate_dir, self.ours, self.fstab_out] + self.dist.unit_dirs())
        r = self.dist.run(["systemd-analyze", "verify", "--man=no", self.dir + "/eg-probe.target"],
                          {"SYSTEMD_UNIT_PATH": path, "SYSTEMD_LOG_LEVEL": "debug" if debug else "info"})
        return r.stdout


def write_gates(dist, inner, units):
    d = dist.host(inner)
    shutil.rmtree(d, ignore_errors=True)
    for u in units:
        os.makedirs(f"{d}/{u}.d")
        with open(f"{d}/{u}.d/50-entropy-gate.conf", "w") as f:
            f.write(GATE)


def find_cycling(dist, probe, names, layout):
    """Group testing, as the module's comment says."""
    out = probe.verify(dist.inner + "/none", names, debug=True)
    if cycles(out):
        fail(f"{dist.name}/{layout}: a cycle without any drop-in, the probe cannot tell: "
             + "\n".join(l for l in out.splitlines() if "cycle" in l or "dependency on" in l))
    # A start job dropped to resolve a conflict would hide what it orders.
    dropped = re.findall(r"Fixing conflicting jobs .* by deleting job (\S+/start)", out)
    if dropped:
        fail(f"{dist.name}/{layout}: units of another boot in the transaction, jobs dropped: {dropped}")
    gates = dist.inner + "/gates"

    def bisect(group):
        """The units of @group that close a cycle, by halves: a cycle the
        gates make passes entropy-ready.target once, so one gate closes it,
        and a group without a cycle has no such unit."""
        nonlocal rounds
        rounds += 1
        write_gates(dist, gates, group)
        if not any(c & set(OURS) for c in cycles(probe.verify(gates, names))):
            return set()
        if len(group) == 1:
            return set(group)
        return bisect(group[:len(group) // 2]) | bisect(group[len(group) // 2:])

    left, found, rounds = set(names), set(), 0
    while True:
        rounds += 1
        write_gates(dist, gates, sorted(left))
        out = probe.verify(gates, names)
        ours = [c for c in cycles(out) if c & set(OURS)]
        if os.environ.get("EG_DEBUG"):
            print(f"round {rounds}: {ours}\n" + "\n".join(l for l in out.splitlines() if "cycle" in l or "dependency on" in l))
        if not ours:
            break
        new = set().union(*ours) & left
        if not new:
            # systemd 252 sometimes reports the path it searched from
            # rather than the cycle itself, naming no gate: find the rest
            # by halves.
            new = bisect(sorted(left))
            if not new:
                fail(f"{dist.name}/{layout}: a cycle through our units that no gate closes: {ours}")
        found |= new
        left -= new
    # Each alone, in the same transaction with nothing else gated.
    for u in sorted(found):
        write_gates(dist, gates, [u])
        # (Named as systemd knows it: an alias such as kmod.service is
        # reported by the name of the unit it is.)
        if not any(c & set(OURS) for c in cycles(probe.verify(gates, names))):
            fail(f"{dist.name}/{layout}: {u} closed a cycle among others but not alone")
    return found, rounds


def main():
    args = sys.argv[1:]
    make_root = None
    if "--make-root" in args:
        i = args.index("--make-root")
        make_root = args[i + 1]
        del args[i:i + 2]
    if len(args) != 4 or "=" not in args[3]:
        fail(__doc__.split("usage: ")[1].split("\n")[0])
    gen, conf_file, units_dir, spec = args
    name, root = spec.split("=", 1)

    if root != "/" and not os.path.isdir(os.path.join(root, "usr/lib/systemd/system")):
        if not make_root:
            skip(f"no {name} tree at {root}")
        if os.geteuid() != 0 or not shutil.which("debootstrap"):
            skip(f"no {name} tree at {root}, and building one needs root and debootstrap")
        r = subprocess.run([make_root, name, root])
        if r.returncode != 0:
            skip(f"could not build a {name} tree at {root} ({make_root} exited {r.returncode}): "
                 "no mirror reachable?")
    for u in OURS:
        if not os.path.isfile(os.path.join(units_dir, u)):
            fail(f"no {units_dir}/{u}: build the project first")

    base = os.path.join(root, "tmp") if root != "/" else None
    work = tempfile.mkdtemp(prefix="eg-cycles-", dir=base)
    try:
        dist = Dist(name, root, work)
        if not dist.tool("/usr/bin/systemd-analyze", "/bin/systemd-analyze"):
            skip(f"{name}: no systemd-analyze in {root}")
        fstab_gen = dist.tool("/usr/lib/systemd/system-generators/systemd-fstab-generator",
                              "/lib/systemd/system-generators/systemd-fstab-generator")
        if not fstab_gen:
            skip(f"{name}: no systemd-fstab-generator in {root}")
        version = dist.run(["systemd-analyze", "--version"]).stdout.split("\n")[0]

        os.makedirs(work + "/ours")
        for u in OURS:
            shutil.copy(os.path.join(units_dir, u), work + "/ours/")
        names = candidates(dist)
        if len(names) < 50:
            fail(f"{name}: only {len(names)} units found in {dist.unit_dirs()}: the test proves little")
        print(f"{name}: {version}, {len(names)} units")

        # The generator over every name, once per layout: it reads the
        # layout's /etc/fstab, as at boot.
        groot = work + "/genroot"
        os.makedirs(groot + os.path.dirname(conf_file))
        os.makedirs(groot + "/proc")
        os.makedirs(groot + "/etc", exist_ok=True)
        open(groot + "/proc/cmdline", "w").close()
        with open(groot + conf_file, "w") as f:
            f.write("[Gate]\nUnits=" + " ".join(names) + "\n")

        def generate(layout, fstab):
            with open(groot + "/etc/fstab", "w") as f:
                f.write(fstab)
            out = work + "/normal-" + layout
            os.makedirs(out)
            r = subprocess.run([gen, out], stderr=subprocess.PIPE, text=True,
                               env=dict(os.environ, SYSTEMD_LOG_TARGET="console", EG_TEST_ROOT=groot))
            if r.returncode != 0:
                fail(f"{name}/{layout}: generator exited {r.returncode}: {r.stderr}")
            # Every name is valid and they are fewer than the limit, so what
            # is not gated was refused (the messages stop naming them after 32).
            gated = {d[:-2] for d in os.listdir(out)}
            if "Invalid unit name" in r.stderr or not gated <= set(names):
                fail(f"{name}/{layout}: the generator did not take the names as given: {r.stderr}")
            return out, gated

        # An fstab the generator cannot read (a directory, longer than it
        # reads) is said and taken as naming no network mount; the
        # generator still succeeds.
        nfs = LAYOUTS["nfs-var"][0]
        for what, make in (("a directory", lambda p: os.mkdir(p)),
                           ("too long", lambda p: open(p, "w").write(nfs + "#" * (256 * 1024) + "\n"))):
            fstab = groot + "/etc/fstab"
            make(fstab)
            out = work + "/normal-unreadable"
            shutil.rmtree(out, ignore_errors=True)
            os.makedirs(out)
            r = subprocess.run([gen, out], stderr=subprocess.PIPE, text=True,
                               env=dict(os.environ, SYSTEMD_LOG_TARGET="console", EG_TEST_ROOT=groot))
            if r.returncode != 0 or "/etc/fstab" not in r.stderr or "network file system" in r.stderr:
                fail(f"{name}: with an fstab that is {what}, the generator exited {r.returncode}: {r.stderr}")
            if os.path.isdir(fstab):
                os.rmdir(fstab)
            else:
                os.unlink(fstab)

        local_cycling, results = set(), {}
        crypt_gen = dist.tool("/usr/lib/systemd/system-generators/systemd-cryptsetup-generator",
                              "/lib/systemd/system-generators/systemd-cryptsetup-generator")
        for layout, (fstab, crypttab) in LAYOUTS.items():
            if crypttab and not crypt_gen:
                print(f"{name}/{layout}: skipped, no systemd-cryptsetup-generator")
                continue
            with open(work + "/fstab", "w") as f:
                f.write(fstab)
            with open(work + "/crypttab", "w") as f:
                f.write(crypttab or "")
            fs_out = dist.inner + "/fstab-" + layout
            os.makedirs(dist.host(fs_out))
            env = {"SYSTEMD_FSTAB": dist.inner + "/fstab", "SYSTEMD_CRYPTTAB": dist.inner + "/crypttab",
                   "SYSTEMD_PROC_CMDLINE": "root=/dev/vda1 ro", "SYSTEMD_IN_INITRD": "0",
                   "SYSTEMD_LOG_TARGET": "console"}
            for g in [fstab_gen] + ([crypt_gen] if crypttab else []):
                r = dist.run([g, fs_out, fs_out, fs_out], env)
                if r.returncode != 0:
                    fail(f"{name}: {g} failed: {r.stdout}")
            masked = CYCLE_WITHOUT_GATE if layout in NETWORK_LAYOUTS else ()
            probe = Probe(dist, dist.inner + "/ours", fs_out, masked)
            probed = [n for n in names if dist.unit_is(n) not in masked]
            cycling, rounds = find_cycling(dist, probe, probed, layout)
            print(f"{name}/{layout}: {len(cycling)} units close a cycle ({rounds} rounds): "
                  + " ".join(sorted(cycling)))
            if layout not in NETWORK_LAYOUTS:
                local_cycling |= cycling

            # The generator's own drop-ins for this layout, all at once: no cycle.
            normal, gated = generate(layout, fstab)
            gen_dir = dist.inner + "/gen-normal"
            shutil.rmtree(dist.host(gen_dir), ignore_errors=True)
            shutil.copytree(normal, dist.host(gen_dir))
            bad = [c for c in cycles(probe.verify(gen_dir, probed)) if c & set(OURS)]
            if bad:
                fail(f"{name}/{layout}: the generator's drop-ins close a cycle: {bad}")
            results[layout] = (cycling, gated)

        if not local_cycling:
            fail(f"{name}: no unit closes a cycle on any layout: the probe proves nothing")
        for layout, (cycling, gated) in results.items():
            refused = set(names) - gated
            # The generator does not tell local layouts apart: it refuses
            # what closes a cycle on any of them, and on a network file
            # system the network besides.
            missed = sorted((local_cycling | cycling) - refused)
            if missed:
                fail(f"{name}/{layout}: the generator gates units that close an ordering cycle: {' '.join(missed)}")
            network = layout in NETWORK_LAYOUTS
            if network:
                if not cycling - local_cycling:
                    fail(f"{name}/{layout}: nothing closes a cycle here that does not on a local layout: "
                         "the probe proves nothing")
                kept = sorted(u for u in NETWORK if u in names and u in gated)
                if kept:
                    fail(f"{name}/{layout}: the generator gates the network: {' '.join(kept)}")
            wrongly = sorted(u for u in ORDINARY if u in names and u not in gated
                             and not (network and u in NETWORK))
            if wrongly:
                fail(f"{name}/{layout}: the generator refuses ordinary services: {' '.join(wrongly)}")
            print(f"{name}/{layout}: generator: {len(gated)} gated, {len(refused)} refused, "
                  f"of which {len(refused - cycling)} close no cycle here: "
                  + " ".join(sorted(refused - cycling)))
        print(f"generator-cycles {name}: ok")
    finally:
        if not os.environ.get("KEEP"):
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"kept {work}")


if __name__ == "__main__":
    main()
