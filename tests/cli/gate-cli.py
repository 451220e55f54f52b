#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""CLI tests of entropy-gate against a notify receiver of our own.

usage: gate-cli.py fake ENTROPY_GATE_FAKEPOOL CONF_FILE [CASE...]
       gate-cli.py installed BUILD_DIR SBINDIR CONF_FILE

"fake" runs entropy-gate-fakepool (the scripted pool of tests/fake/pool-fake.c,
its root from $EG_TEST_ROOT) through each case (all when none are named),
with a temporary root holding its configuration (CONF_FILE inside it), its
kernel command line (proc/cmdline) and its /run. "installed" installs the
project into a temporary DESTDIR and runs the real entropy-gate found there
on this host, whose pool is initialized, in a private mount namespace with
a /run, configuration and kernel command line of the test's own (root
only). Exit 0 when every case passed, 1 otherwise, 77 when skipped.
"""
import array
import fcntl
import os
import re
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time


CONF_FILE = None


class Failed(Exception):
    pass


def check(cond, what, ctx=""):
    if not cond:
        raise Failed(what + ("\n" + ctx if ctx else ""))


class Run:
    """One entropy-gate process and everything it sent and printed."""

    def __init__(self, binary, args=(), env=None, abstract=False, pass_fds=(),
                 signal_after=None, barrier_delay=0.0, timeout=20, cmdline="quiet", conf=None,
                 run_unwritable=False, wrap=None):
        self.top = tempfile.mkdtemp(prefix="eg-gate-cli.")
        self.root = os.path.join(self.top, "root")
        self.run_dir = os.path.join(self.root, "run/entropy-gate")
        self.messages = []     # (seconds since exec, text, [fds])
        self.barrier_fd_ok = None
        os.makedirs(os.path.join(self.root, "proc"))
        with open(os.path.join(self.root, "proc/cmdline"), "w") as f:
            f.write(cmdline + "\n")
        if conf is not None:
            path = self.root + CONF_FILE
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(conf)
        if run_unwritable:
            # A file where the directory should be: the record cannot be written.
            with open(os.path.join(self.root, "run"), "w") as f:
                f.write("not a directory\n")
        else:
            os.makedirs(os.path.join(self.root, "run"))
        base = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "EG_TEST_ROOT": self.root,
        }
        for k in ("ASAN_OPTIONS", "UBSAN_OPTIONS"):
            if k in os.environ:
                base[k] = os.environ[k]
        base.update(env or {})

        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        if abstract:
            name = "eg-gate-cli-%d-%d" % (os.getpid(), id(self))
            self.sock.bind("\0" + name)
            addr = "@" + name
        else:
            addr = os.path.join(self.top, "notify")
            self.sock.bind(addr)
        if "NOTIFY_SOCKET" not in base:
            base["NOTIFY_SOCKET"] = addr
        elif base["NOTIFY_SOCKET"] is None:
            del base["NOTIFY_SOCKET"]
        self.sock.setblocking(False)

        self.err_path = os.path.join(self.top, "stderr")
        with open(self.err_path, "w") as err:
            if env and env.get("JOURNAL_STREAM") == "match":
                st = os.fstat(err.fileno())
                base["JOURNAL_STREAM"] = "%d:%d" % (st.st_dev, st.st_ino)
            t0 = time.monotonic()
            proc = subprocess.Popen((wrap or []) + [binary] + list(args), env=base, stdout=subprocess.PIPE,
                                    stderr=err, pass_fds=pass_fds)
            for fd in pass_fds:
                os.close(fd)
            signalled = False
            while True:
                now = time.monotonic() - t0
                if signal_after is not None and not signalled and now >= signal_after:
                    proc.send_signal(signal.SIGTERM)
                    self.signal_at = now
                    signalled = True
                self._receive(t0, barrier_delay)
                if proc.poll() is not None:
                    break
                check(now < timeout, "entropy-gate did not exit within %ss" % timeout)
                time.sleep(0.005)
            self.exit_at = time.monotonic() - t0
            self._receive(t0, barrier_delay)
            self.stdout = proc.stdout.read().decode()
            proc.stdout.close()
            self.rc = proc.returncode
        with open(self.err_path) as f:
            self.stderr = f.read()
        self.sock.close()

    def _receive(self, t0, barrier_delay):
        while True:
            try:
                data, anc, flags, _ = self.sock.recvmsg(4096, socket.CMSG_SPACE(4 * 4))
            except BlockingIOError:
                return
            fds = []
            for level, kind, payload in anc:
                if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                    a = array.array("i")
                    a.frombytes(payload[:len(payload) - len(payload) % a.itemsize])
                    fds.extend(a)
            text = data.decode()
            self.messages.append((time.monotonic() - t0, text, fds))
            if text == "BARRIER=1" and fds:
                # The write end of a pipe, as the protocol says.
                st = os.fstat(fds[0])
                self.barrier_fd_ok = stat.S_ISFIFO(st.st_mode) and \
                    fcntl.fcntl(fds[0], fcntl.F_GETFL) & os.O_ACCMODE == os.O_WRONLY
                if barrier_delay:
                    time.sleep(barrier_delay)
            for fd in fds:
                os.close(fd)

    def texts(self):
        return [m[1] for m in self.messages]

    def fields(self):
        """Every KEY=VALUE line of every message, in order."""
        out = []
        for _, text, _ in self.messages:
            for line in text.split("\n"):
                k, _, v = line.partition("=")
                out.append((k, v))
        return out

    def index(self, key, value=None):
        for i, (k, v) in enumerate(self.fields()):
            if k == key and (value is None or v == value):
                return i
        return -1

    def result(self):
        path = os.path.join(self.run_dir, "gate")
        check(os.path.exists(path), "no result file " + path, self.ctx())
        kv = {}
        with open(path) as f:
            for line in f:
                k, _, v = line.rstrip("\n").partition("=")
                kv[k] = v
        return kv

    def ctx(self):
        return "rc=%s\nmessages=%r\nstderr:\n%s" % (self.rc, self.messages, self.stderr)

    def cleanup(self):
        shutil.rmtree(self.top, ignore_errors=True)


def expect_barrier_last(r):
    t = r.texts()
    check(t and t[-1] == "BARRIER=1", "BARRIER=1 is not the last message", r.ctx())
    check(r.messages[-1][2], "BARRIER=1 came without an fd", r.ctx())
    check(r.barrier_fd_ok, "the barrier fd is not a pipe's write end", r.ctx())


def check_result(r, outcome, ready_at_start, waited_min=None, waited_max=None):
    kv = r.result()
    check(kv.get("OUTCOME") == outcome, "OUTCOME=%s, expected %s" % (kv.get("OUTCOME"), outcome))
    check(kv.get("READY_AT_START") == ready_at_start, "READY_AT_START=%s" % kv.get("READY_AT_START"))
    for k in ("START_BOOTTIME_USEC", "END_BOOTTIME_USEC", "WAITED_USEC"):
        check(re.fullmatch(r"[0-9]+", kv.get(k, "")), "%s=%r is not a number" % (k, kv.get(k)))
    start, end, waited = (int(kv[k]) for k in ("START_BOOTTIME_USEC", "END_BOOTTIME_USEC", "WAITED_USEC"))
    check(end - start == waited, "END - START != WAITED in %r" % kv)
    boottime = time.clock_gettime(time.CLOCK_BOOTTIME) * 1e6
    check(0 < start <= end <= boottime, "timestamps not on CLOCK_BOOTTIME: %r" % kv)
    if waited_min is not None:
        check(waited >= waited_min * 1e6, "waited %dus < %ss" % (waited, waited_min))
    if waited_max is not None:
        check(waited <= waited_max * 1e6, "waited %dus > %ss" % (waited, waited_max))
    keys = {"OUTCOME", "READY_AT_START", "START_BOOTTIME_USEC", "END_BOOTTIME_USEC", "WAITED_USEC"}
    if ready_at_start == "no":
        keys.add("ENTROPY_AVAIL")
    check(set(kv) <= keys, "unexpected keys in %r" % kv)
    return kv


def entropy_samples(kv):
    """ENTROPY_AVAIL=MSEC:BITS ... as a list of (msec, bits), checked."""
    text = kv.get("ENTROPY_AVAIL")
    check(text is not None, "no ENTROPY_AVAIL in %r" % kv)
    check(re.fullmatch(r"(0|[1-9][0-9]*):(0|[1-9][0-9]*)( (0|[1-9][0-9]*):(0|[1-9][0-9]*))*", text),
          "ENTROPY_AVAIL=%r is not MSEC:BITS ..." % text)
    samples = [tuple(int(x) for x in p.split(":")) for p in text.split()]
    check(len(samples) <= 32, "more than 32 samples: %r" % text)
    check(all(a[0] <= b[0] for a, b in zip(samples, samples[1:])), "times go back: %r" % text)
    check(samples[-1][0] * 1000 <= int(kv["WAITED_USEC"]) < (samples[-1][0] + 1) * 1000,
          "the last sample is not at the release (WAITED_USEC=%s): %r" % (kv["WAITED_USEC"], text))
    return samples


# ---- the cases, over the scripted pool ----

def case_not_ready_then_ready(gate):
    r = Run(gate, env={"FAKE_POOL_READY_AFTER_MS": "2500"})
    check(r.rc == 0, "exit status %s, expected 0" % r.rc, r.ctx())
    t = r.texts()
    check(t[0] == "STATUS=Waiting for the kernel random pool to be initialized", "first message %r" % t[0], r.ctx())
    refresh = [m for m in r.messages if re.fullmatch(r"STATUS=Waiting .*\(([12])s elapsed\)", m[1])]
    check(len(refresh) >= 2, "no elapsed-time refresh at 1s and 2s", r.ctx())
    # Times here are lower bounds only: a loaded machine delays, never hastens.
    for when, text, _ in refresh:
        n = int(re.search(r"\((\d)s", text).group(1))
        check(n - 0.05 <= when, "%r sent at %.3fs, early" % (text, when), r.ctx())
    ready = [m for m in r.messages if m[1].startswith("READY=1")]
    check(len(ready) == 1, "READY=1 sent %d times" % len(ready), r.ctx())
    check(ready[0][0] >= 2.45, "READY=1 before the pool was ready (%.3fs)" % ready[0][0], r.ctx())
    m = re.fullmatch(r"READY=1\nSTATUS=Kernel random pool initialized, waited (\d+\.\d{3})s", ready[0][1])
    check(m and float(m.group(1)) >= 2.5, "final message %r" % ready[0][1], r.ctx())
    check(r.index("READY", "1") < r.index("BARRIER", "1"), "READY=1 not before BARRIER=1", r.ctx())
    expect_barrier_last(r)
    kv = check_result(r, "ready", "no", 2.5)
    # The scripted pool's entropy_avail rises to 255 over the 2.5 s and is
    # 256 once ready: a sample at the start, at 1 s and 2 s, at the release.
    samples = entropy_samples(kv)
    check(len(samples) >= 4 and samples[0][0] < 500, "not a sample a second from the start: %r" % samples)
    check(samples[0][1] < 64 and samples[-1][1] == 256, "samples do not follow the pool: %r" % samples)
    check(all(a[1] <= b[1] for a, b in zip(samples, samples[1:])), "the rising count fell: %r" % samples)
    check("initialized, waited 2." in r.stderr, "no log line saying how long it waited", r.ctx())
    r.cleanup()


def case_ready_at_start(gate, abstract=False):
    r = Run(gate, env={"FAKE_POOL_READY_AFTER_MS": "0"}, abstract=abstract)
    check(r.rc == 0, "exit status %s" % r.rc, r.ctx())
    check(r.texts() == ["READY=1\nSTATUS=Kernel random pool already initialized at start", "BARRIER=1"],
          "messages %r" % r.texts(), r.ctx())
    expect_barrier_last(r)
    check_result(r, "ready", "yes", 0, 0)
    check(r.stderr == "", "it logged on the fast path: %r" % r.stderr)
    r.cleanup()


def case_ready_at_start_abstract(gate):
    case_ready_at_start(gate, abstract=True)


def case_barrier_waits(gate):
    # The gate exits only after the receiver has closed the barrier fd.
    r = Run(gate, env={"FAKE_POOL_READY_AFTER_MS": "0"}, barrier_delay=0.5)
    check(r.rc == 0, "exit status %s" % r.rc, r.ctx())
    check(r.exit_at >= r.messages[-1][0] + 0.45, "exited %.3fs, before the barrier fd was closed (%.3fs + 0.5s)"
          % (r.exit_at, r.messages[-1][0]), r.ctx())
    r.cleanup()


def case_timeout_fail(gate):
    r = Run(gate, ["--timeout=300ms"], env={"FAKE_POOL_READY_AFTER_MS": "never"})
    check(r.rc == 3, "exit status %s, expected 3" % r.rc, r.ctx())
    check(r.index("READY") < 0, "READY=1 sent on a failed timeout", r.ctx())
    check(any(re.fullmatch(r"STATUS=Timed out after \d+\.\d{3}s waiting for the kernel random pool", t)
              for t in r.texts()), "no timeout STATUS=", r.ctx())
    check(r.exit_at >= 0.3, "gave up after %.3fs, before the deadline" % r.exit_at, r.ctx())
    # The deadline ended it, not the next tick: the gate checks the deadline
    # before it would refresh STATUS=, so however late it ran, no refresh.
    check(not any("elapsed)" in t for t in r.texts()), "waited for a tick past the deadline", r.ctx())
    kv = check_result(r, "timeout-fail", "no", 0.3)
    samples = entropy_samples(kv)
    check(len(samples) == 2 and all(b == 0 for _, b in samples), "samples of a pool that never fills: %r" % samples)
    r.cleanup()


def case_entropy_avail_unreadable(gate):
    # A kernel that does not show entropy_avail: the wait is the same and the
    # record just has no samples.
    r = Run(gate, env={"FAKE_POOL_READY_AFTER_MS": "1200", "FAKE_POOL_ENTROPY_AVAIL": "error"})
    check(r.rc == 0, "exit status %s, expected 0" % r.rc, r.ctx())
    kv = check_result(r, "ready", "no", 1.2)
    check("ENTROPY_AVAIL" not in kv, "samples from an unreadable entropy_avail: %r" % kv)
    check("entropy_avail" not in r.stderr, "it logged about entropy_avail", r.ctx())
    r.cleanup()


def case_timeout_proceed(gate):
    r = Run(gate, ["--timeout=300ms", "--on-timeout=proceed"], env={"FAKE_POOL_READY_AFTER_MS": "never"})
    check(r.rc == 0, "exit status %s, expected 0" % r.rc, r.ctx())
    ready = [t for t in r.texts() if t.startswith("READY=1")]
    check(len(ready) == 1 and "STATUS=WARNING" in ready[0] and "NOT seeded" in ready[0],
          "READY=1 without a loud STATUS=: %r" % ready, r.ctx())
    check("randomness is NOT seeded" in r.stderr, "no log warning", r.ctx())
    expect_barrier_last(r)
    check(not any("elapsed)" in t for t in r.texts()), "waited for a tick past the deadline", r.ctx())
    check_result(r, "timeout-proceed", "no", 0.3)
    r.cleanup()


def case_sigterm(gate):
    r = Run(gate, env={"FAKE_POOL_READY_AFTER_MS": "never"}, signal_after=1.5)
    check(r.rc == 4, "exit status %s, expected 4" % r.rc, r.ctx())
    # Acted on at once: the signal (sent at 1.5s) is looked at before the
    # next refresh would be sent, so there is none for 2s, however late.
    check(not any("(2s elapsed)" in t for t in r.texts()), "went on waiting after SIGTERM", r.ctx())
    check(r.index("READY") < 0, "READY=1 after SIGTERM", r.ctx())
    check(any("Interrupted by SIGTERM" in t for t in r.texts()), "no STATUS= about the signal", r.ctx())
    check_result(r, "interrupted", "no", 1.4)
    r.cleanup()


def case_notify_socket_gone(gate):
    # READY=1 that cannot be sent is an error: under TimeoutStartSec=infinity
    # a lost READY=1 would hang the boot for ever instead of failing it.
    r = Run(gate, env={"FAKE_POOL_READY_AFTER_MS": "0", "NOTIFY_SOCKET": "/nonexistent/notify"})
    check(r.rc == 1, "exit status %s, expected 1" % r.rc, r.ctx())
    check("READY=1" in r.stderr, "the error does not say what failed", r.ctx())
    check(len(r.stderr.splitlines()) == 1, "one failure, logged more than once", r.ctx())
    check(r.result().get("OUTCOME") == "error", "OUTCOME is not error")
    r.cleanup()


def case_result_unwritable(gate):
    # The result file is for entropyctl; failing to write it must not fail the boot.
    r = Run(gate, env={"FAKE_POOL_READY_AFTER_MS": "0"}, run_unwritable=True)
    check(r.rc == 0, "exit status %s, expected 0" % r.rc, r.ctx())
    check(r.texts()[0].startswith("READY=1"), "no READY=1", r.ctx())
    check("Failed to write the result" in r.stderr, "no warning about the result file", r.ctx())
    r.cleanup()


def case_enosys(gate):
    r = Run(gate, env={"FAKE_POOL_ENOSYS": "1"})
    check(r.rc == 1, "exit status %s, expected 1" % r.rc, r.ctx())
    check("getrandom()" in r.stderr and "3.17" in r.stderr, "unclear error", r.ctx())
    check(r.index("READY") < 0, "READY=1 without getrandom()", r.ctx())
    kv = r.result()
    check(kv.get("OUTCOME") == "error", "OUTCOME=%s" % kv.get("OUTCOME"))
    r.cleanup()


def case_ready_fd(gate):
    for env in ({"FAKE_POOL_READY_AFTER_MS": "700"}, {"FAKE_POOL_READY_AFTER_MS": "0", "NOTIFY_SOCKET": None}):
        rfd, wfd = os.pipe()
        r = Run(gate, ["--ready-fd=%d" % wfd], env=env, pass_fds=(wfd,))
        check(r.rc == 0, "exit status %s" % r.rc, r.ctx())
        data = os.read(rfd, 16)
        check(data == b"\n", "--ready-fd got %r, expected a newline" % data, r.ctx())
        check(os.read(rfd, 16) == b"", "--ready-fd not closed", r.ctx())
        os.close(rfd)
        if "NOTIFY_SOCKET" in env:
            check(r.messages == [], "notified without NOTIFY_SOCKET", r.ctx())
        r.cleanup()
    # Not open: a usage error naming it.
    r = Run(gate, ["--ready-fd=57"], env={"FAKE_POOL_READY_AFTER_MS": "0"})
    check(r.rc == 2 and "--ready-fd=57" in r.stderr, "unopened --ready-fd accepted", r.ctx())
    r.cleanup()


def case_ready_fd_not_on_failure(gate):
    rfd, wfd = os.pipe()
    r = Run(gate, ["--ready-fd=%d" % wfd, "--timeout=200ms"], env={"FAKE_POOL_READY_AFTER_MS": "never"},
            pass_fds=(wfd,))
    check(r.rc == 3, "exit status %s" % r.rc, r.ctx())
    check(os.read(rfd, 16) == b"", "--ready-fd written on a failed timeout", r.ctx())
    os.close(rfd)
    r.cleanup()


def case_warn_after(gate):
    r = Run(gate, ["--warn-after=300ms"], env={"FAKE_POOL_READY_AFTER_MS": "2200"})
    check(r.rc == 0, "exit status %s" % r.rc, r.ctx())
    warnings = [l for l in r.stderr.splitlines() if "still not initialized" in l]
    check(len(warnings) == 1, "%d warnings, expected exactly one" % len(warnings), r.ctx())
    for word in ("virtio-rng", "random.trust_cpu", "entropy-seed.service", "5.4"):
        check(word in warnings[0], "the warning does not mention %s" % word, r.ctx())
    m = re.search(r"after (\d+\.\d{3})s", warnings[0])
    check(m and float(m.group(1)) >= 0.3, "warned before its time", r.ctx())
    # At its own deadline, not at a tick: its STATUS= comes before the first
    # refresh, however late the gate ran.
    t = r.texts()
    warned = [i for i, x in enumerate(t) if "no entropy source?" in x]
    ticks = [i for i, x in enumerate(t) if "elapsed)" in x and "no entropy source?" not in x]
    check(warned and (not ticks or warned[0] < ticks[0]), "warned at a tick, not at its deadline", r.ctx())
    r.cleanup()
    # The default is 10s: nothing within 1.5s.
    r = Run(gate, env={"FAKE_POOL_READY_AFTER_MS": "1500"})
    check("still not initialized" not in r.stderr, "warned before the default 10s", r.ctx())
    r.cleanup()


def case_journal_prefix(gate):
    r = Run(gate, ["--timeout=200ms", "--on-timeout=proceed"],
            env={"FAKE_POOL_READY_AFTER_MS": "never", "JOURNAL_STREAM": "match"})
    lines = r.stderr.splitlines()
    check(lines and all(re.match(r"<[0-7]>", l) for l in lines), "no <N> prefixes under the journal", r.ctx())
    check(any(l.startswith("<6>") for l in lines) and any(l.startswith("<4>") for l in lines),
          "expected <6> info and <4> warning lines", r.ctx())
    r.cleanup()
    # A JOURNAL_STREAM that names another file: plain text.
    r = Run(gate, ["--timeout=200ms", "--on-timeout=proceed"],
            env={"FAKE_POOL_READY_AFTER_MS": "never", "JOURNAL_STREAM": "1:1"})
    lines = r.stderr.splitlines()
    check(lines and all(l.startswith("entropy-gate: ") for l in lines), "prefixes without the journal", r.ctx())
    r.cleanup()


def case_quiet(gate):
    r = Run(gate, ["--quiet", "--timeout=200ms", "--on-timeout=proceed"], env={"FAKE_POOL_READY_AFTER_MS": "never"})
    check(r.rc == 0, "exit status %s" % r.rc, r.ctx())
    check("waiting" not in r.stderr and "NOT seeded" in r.stderr, "--quiet dropped the warning or kept info", r.ctx())
    r.cleanup()


def case_usage(gate):
    for args, named in ((["--timeout=5x"], "--timeout=5x"), (["--timeout=10 parsecs"], "--timeout=10 parsecs"),
                        (["--warn-after=-1"], "--warn-after=-1"), (["--on-timeout=maybe"], "--on-timeout=maybe"),
                        (["--ready-fd=abc"], "--ready-fd=abc"), (["--bogus"], "--bogus"),
                        (["--timeout"], "--timeout"), (["extra"], "extra"), (["-z"], "-z")):
        r = Run(gate, args, env={"FAKE_POOL_READY_AFTER_MS": "0"})
        check(r.rc == 2, "%s: exit status %s, expected 2" % (args, r.rc), r.ctx())
        check(named in r.stderr, "%s: the message does not name %r" % (args, named), r.ctx())
        check(r.messages == [], "%s: notified on a usage error" % args, r.ctx())
        r.cleanup()
    r = Run(gate, ["--help"])
    check(r.rc == 0 and "--timeout=DURATION" in r.stdout and "--on-timeout" in r.stdout, "--help", r.ctx())
    r.cleanup()
    r = Run(gate, ["--version"])
    check(r.rc == 0 and re.fullmatch(r"entropy-gate \d+\.\d+\.\d+\n", r.stdout), "--version: %r" % r.stdout)
    r.cleanup()


def case_kernel_cmdline(gate):
    cmdline = "root=/dev/vda entropy_gate.timeout=200ms entropy_gate.on_timeout=proceed quiet"
    r = Run(gate, env={"FAKE_POOL_READY_AFTER_MS": "never"}, cmdline=cmdline)
    check(r.rc == 0 and "NOT seeded" in r.stderr, "entropy_gate.* on the kernel command line ignored", r.ctx())
    r.cleanup()
    # Explicit options win over the kernel command line.
    r = Run(gate, ["--on-timeout=fail"], env={"FAKE_POOL_READY_AFTER_MS": "never"}, cmdline=cmdline)
    check(r.rc == 3, "explicit --on-timeout=fail lost to the kernel command line", r.ctx())
    r.cleanup()
    # A bad value there is a warning, not a usage error.
    r = Run(gate, env={"FAKE_POOL_READY_AFTER_MS": "0"}, cmdline="entropy_gate.timeout=soon")
    check(r.rc == 0 and "entropy_gate.timeout=soon" in r.stderr, "bad kernel command line value", r.ctx())
    r.cleanup()


def case_config_file(gate):
    conf = "[Gate]\nTimeout=200ms\nOnTimeout=proceed\n"
    env = {"FAKE_POOL_READY_AFTER_MS": "never"}
    r = Run(gate, env=env, conf=conf)
    check(r.rc == 0 and "NOT seeded" in r.stderr, "configuration file ignored", r.ctx())
    r.cleanup()
    # The kernel command line wins over the file.
    r = Run(gate, env=env, conf=conf, cmdline="entropy_gate.on_timeout=fail")
    check(r.rc == 3, "the file won over the kernel command line", r.ctx())
    r.cleanup()


def case_ready_fd_reader_gone(gate):
    # The reader closed its end: no death by SIGPIPE, but exit 1 saying why.
    rfd, wfd = os.pipe()
    os.close(rfd)
    r = Run(gate, ["--ready-fd=%d" % wfd], env={"FAKE_POOL_READY_AFTER_MS": "0"}, pass_fds=(wfd,))
    check(r.rc == 1, "exit status %s, expected 1 (not killed by SIGPIPE)" % r.rc, r.ctx())
    check("--ready-fd" in r.stderr and "Broken pipe" in r.stderr, "no message about --ready-fd", r.ctx())
    r.cleanup()


def case_ready_fd_full(gate):
    # A supervisor that never reads its pipe: bounded like every other
    # notification (5 s), exit 1 saying why, not a hang.
    rfd, wfd = os.pipe()
    os.set_blocking(wfd, False)
    try:
        while True:
            os.write(wfd, b"x" * 4096)
    except BlockingIOError:
        pass
    os.set_blocking(wfd, True)
    r = Run(gate, ["--ready-fd=%d" % wfd], env={"FAKE_POOL_READY_AFTER_MS": "0"}, pass_fds=(wfd,), timeout=12)
    os.close(rfd)
    check(r.rc == 1 and 4 < r.exit_at < 10, "exit status %s after %.1fs, expected 1 after ~5s" % (r.rc, r.exit_at),
          r.ctx())
    check("--ready-fd" in r.stderr and "not reading" in r.stderr, "no message about the full --ready-fd", r.ctx())
    r.cleanup()


def case_notify_socket_too_long(gate):
    # Longer than a socket address holds: said so, not "Invalid argument".
    r = Run(gate, env={"FAKE_POOL_READY_AFTER_MS": "0", "NOTIFY_SOCKET": "/" + "x" * 200})
    check(r.rc == 1 and "NOTIFY_SOCKET is too long" in r.stderr and "Invalid argument" not in r.stderr,
          "exit status %s, and the message" % r.rc, r.ctx())
    r.cleanup()


def case_environment_ignored(gate):
    # The variables earlier versions took paths from move nothing.
    top = tempfile.mkdtemp(prefix="eg-gate-env.")
    with open(os.path.join(top, "c.conf"), "w") as f:
        f.write("[Gate]\nTimeout=200ms\nOnTimeout=proceed\n")
    r = Run(gate, env={"FAKE_POOL_READY_AFTER_MS": "0", "ENTROPY_GATE_CONF": os.path.join(top, "c.conf"),
                       "ENTROPY_GATE_PROC_CMDLINE": "entropy_gate.timeout=soon",
                       "ENTROPY_GATE_RUN_DIR": os.path.join(top, "run")})
    check(r.rc == 0 and "soon" not in r.stderr, "followed the environment", r.ctx())
    check(not os.path.exists(os.path.join(top, "run")), "wrote where the environment said", r.ctx())
    check(r.result().get("OUTCOME") == "ready", "no record in the root's /run", r.ctx())
    r.cleanup()
    shutil.rmtree(top)


CASES = [(name[5:].replace("_", "-"), fn) for name, fn in sorted(globals().items()) if name.startswith("case_")]


def run_cases(gate, names):
    failed = 0
    for name, fn in CASES:
        if names and name not in names:
            continue
        try:
            fn(gate)
            print("ok: " + name)
        except Failed as e:
            print("FAIL: %s: %s" % (name, e))
            failed += 1
    unknown = set(names) - {n for n, _ in CASES}
    if unknown:
        print("FAIL: unknown cases: " + " ".join(sorted(unknown)))
        failed += 1
    return failed


def run_installed(build, sbindir):
    if os.geteuid() != 0:
        print("SKIP: the installed gate runs in a private mount namespace, which needs root")
        return 77
    top = tempfile.mkdtemp(prefix="eg-gate-installed.")
    try:
        destdir = os.path.join(top, "root")
        p = subprocess.run(["cmake", "--install", build], env=dict(os.environ, DESTDIR=destdir),
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        check(p.returncode == 0, "cmake --install failed", p.stdout.decode())
        gate = destdir + sbindir + "/entropy-gate"
        check(os.access(gate, os.X_OK), gate + " not installed")
        # The real binary reads the real paths: give it, in a private mount
        # namespace, a /run of its own and no configuration or kernel
        # command line of the host's. The host's pool has long been
        # initialized; the timeout only keeps a broken host from hanging.
        runfs = os.path.join(top, "runfs")
        os.makedirs(runfs)
        script = ('mount --bind "$1" /run && mount --bind /dev/null /proc/cmdline && '
                  'if [ -e "$2" ]; then mount --bind /dev/null "$2"; fi && '
                  'if [ -d "$2.d" ]; then mount -t tmpfs none "$2.d"; fi && shift 2 && exec "$@"')
        wrap = ["unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh", runfs, CONF_FILE]
        r = Run(gate, ["--timeout=30s"], wrap=wrap)
        r.run_dir = os.path.join(runfs, "entropy-gate")
        check(r.rc == 0, "exit status %s" % r.rc, r.ctx())
        f = r.fields()
        check(r.index("STATUS") >= 0, "no STATUS=", r.ctx())
        check(0 <= r.index("READY", "1") < r.index("BARRIER", "1"), "no READY=1 before BARRIER=1", r.ctx())
        expect_barrier_last(r)
        check_result(r, "ready", "yes")
        print("ok: installed %s: %r, exit 0" % (gate, [k + "=" + v for k, v in f]))
        r.cleanup()
        return 0
    except Failed as e:
        print("FAIL: installed: %s" % e)
        return 1
    finally:
        shutil.rmtree(top, ignore_errors=True)


def main():
    global CONF_FILE
    if len(sys.argv) >= 4 and sys.argv[1] == "fake":
        CONF_FILE = sys.argv[3]
        return 1 if run_cases(sys.argv[2], sys.argv[4:]) else 0
    if len(sys.argv) == 5 and sys.argv[1] == "installed":
        CONF_FILE = sys.argv[4]
        return run_installed(sys.argv[2], sys.argv[3])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
