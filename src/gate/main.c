// SPDX-License-Identifier: LGPL-2.1-or-later
/* entropy-gate: hold the boot until the kernel's random pool is initialized,
 * and tell the service manager when it is. See entropy-gate(8). */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/utsname.h>

#include "config.h"
#include "entropy-samples.h"
#include "gate.h"
#include "io-util.h"
#include "log.h"
#include "macro.h"
#include "multicall.h"
#include "notify.h"
#include "paths.h"
#include "pool.h"
#include "proc-cmdline.h"
#include "runstate.h"

#define STATUS_WAITING "STATUS=Waiting for the kernel random pool to be initialized"

typedef struct Gate {
        const Config *config;
        bool notify_failed;          /* logged once, not at every tick */
        EntropySamples entropy_avail; /* at the start of the wait and each tick */
} Gate;

static void help(void) {
        printf("%s [OPTIONS...]\n\n"
               "Wait until the kernel random pool (CRNG) is initialized, then report\n"
               "readiness to the service manager.\n\n"
               "  -h --help                  Show this help\n"
               "     --version               Show the version\n"
               "     --timeout=DURATION      Give up after DURATION (default: infinity)\n"
               "     --on-timeout=fail|proceed\n"
               "                             On timeout, exit 3 (fail, the default) or\n"
               "                             report readiness anyway, unseeded (proceed)\n"
               "     --warn-after=DURATION   Log a warning with remedies after DURATION\n"
               "                             (default: 10s)\n"
               "     --ready-fd=N            Also write a newline to fd N when ready\n"
               "  -q --quiet                 Log only warnings and errors\n"
               "     --initrd-enabled        Only answer: exit 0 if the gate is to wait in the\n"
               "                             initrd, 5 if entropy_gate.initrd= turns it off\n\n"
               "Durations: 10, 10s, 500ms, 2min, 1h, infinity.\n"
               "Exit status: 0 ready, 1 error, 2 usage, 3 timed out, 4 interrupted,\n"
               "5 disabled in the initrd (--initrd-enabled only).\n"
               "See the entropy-gate(8) manual page for details.\n",
               program_invocation_short_name);
}

/* What went wrong in words: a $NOTIFY_SOCKET too long for a socket address
 * is no "File name too long" of some file. */
static const char *notify_error(int r) {
        static char buf[96];

        if (r != -ENAMETOOLONG)
                return strerror(-r);
        snprintf(buf, sizeof(buf), "$NOTIFY_SOCKET is too long for a socket address (at most %d bytes)",
                 NOTIFY_SOCKET_MAX);
        return buf;
}

/* STATUS= lines. While waiting (@timeout 0) a line that finds the
 * receiver's queue full is dropped, not waited for: the next one replaces
 * it, and the wait must go on noticing the pool. A final one waits, but
 * never for ever (notify.h). */
static void notify(Gate *g, const char *message, usec_t timeout) {
        int r = notify_send_timeout(message, timeout);

        if (r == -EAGAIN)
                return;
        if (r < 0 && !g->notify_failed) {
                g->notify_failed = true;
                log_warning_errno(r, "Failed to notify the service manager: %s", notify_error(r));
        }
}

/* One read of a /proc file a second: how fast the pool is filling, for
 * entropyctl. Nothing is decided by it; a kernel that does not show it
 * leaves no sample. */
static void sample_entropy(Gate *g, usec_t elapsed, bool last) {
        int bits = pool_entropy_avail();

        if (bits < 0)
                return;
        if (last)
                entropy_samples_add_last(&g->entropy_avail, elapsed, (unsigned) bits);
        else
                entropy_samples_add(&g->entropy_avail, elapsed, (unsigned) bits);
}

static void on_event(GateEvent event, usec_t elapsed, void *userdata) {
        Gate *g = userdata;
        char buf[256];

        switch (event) {
        case GATE_EVENT_WAITING:
                sample_entropy(g, elapsed, false);
                log_info("Kernel random pool not initialized yet, waiting.");
                notify(g, STATUS_WAITING, 0);
                break;

        case GATE_EVENT_TICK:
                sample_entropy(g, elapsed, false);
                /* Ticks come at whole seconds; rounding hides timer slack. */
                snprintf(buf, sizeof(buf), STATUS_WAITING " (%llus elapsed)",
                         (unsigned long long) ((elapsed + USEC_PER_SEC / 2) / USEC_PER_SEC));
                notify(g, buf, 0);
                break;

        case GATE_EVENT_WARN: {
                struct utsname u;

                if (uname(&u) < 0)
                        snprintf(u.release, sizeof(u.release), "unknown");
                log_warning("The kernel random pool is still not initialized after %s. "
                            "This machine seems to have no entropy source the kernel trusts. "
                            "Remedies: give a virtual machine a virtio-rng device "
                            "(e.g. qemu -device virtio-rng-pci); boot with random.trust_cpu=on "
                            "if the CPU's RDRAND/RDSEED is acceptable; enable entropy-seed.service "
                            "to credit the seed saved at the previous shutdown. Kernels before 5.4 "
                            "have no jitter entropy generator (running %s).",
                            FORMAT_DURATION(elapsed), u.release);
                snprintf(buf, sizeof(buf), STATUS_WAITING " (%s elapsed; no entropy source? see the journal)",
                         FORMAT_DURATION(elapsed));
                notify(g, buf, 0);
                break;
        }
        }
}

/* Settings, lowest precedence first: defaults, configuration files, the
 * kernel command line, then the explicit options. */
static int load_config(Config *c, const GateArgs *args) {
        int r;

        r = config_load(c, log_config_warning, NULL);
        if (r < 0)
                return log_error_errno(r, "Failed to load the configuration: %m");
        gate_args_apply(args, c);
        return 0;
}

static RecordOutcome record_outcome(const GateResult *res, const Config *c) {
        switch (res->outcome) {
        case GATE_OUTCOME_READY:
                return RECORD_OUTCOME_READY;
        case GATE_OUTCOME_TIMEOUT:
                return c->on_timeout == ON_TIMEOUT_PROCEED ? RECORD_OUTCOME_TIMEOUT_PROCEED : RECORD_OUTCOME_TIMEOUT_FAIL;
        case GATE_OUTCOME_INTERRUPTED:
                return RECORD_OUTCOME_INTERRUPTED;
        }
        return RECORD_OUTCOME_ERROR;
}

/* For entropyctl (runstate.h). Written after READY=1, so that the boot does
 * not wait for it. */
static void write_result(RecordOutcome outcome, const GateResult *res, const EntropySamples *samples) {
        GateRecord rec = {
                .outcome = outcome,
                .ready_at_start = res->ready_at_start,
                .start_usec = res->start,
                .end_usec = res->end,
                .waited_usec = res->waited,
        };
        char buf[256 + ENTROPY_SAMPLES_TEXT_MAX];
        int r;

        if (samples)
                (void) entropy_samples_format(samples, rec.entropy_avail, sizeof(rec.entropy_avail));
        r = gate_record_format(&rec, buf, sizeof(buf));
        if (r >= 0)
                r = runstate_write(RUNSTATE_GATE, buf);
        if (r < 0)
                log_warning_errno(r, "Failed to write the result to %s/%s, ignoring: %m", runstate_dir(), RUNSTATE_GATE);
}

static void barrier(const Gate *g) {
        int r;

        if (g->notify_failed)
                return; /* already reported; a barrier would only fail again */
        r = notify_barrier(NOTIFY_BARRIER_TIMEOUT_DEFAULT);

        if (r < 0)
                log_warning_errno(r, "The service manager did not confirm our notifications: %s", notify_error(r));
}

/* READY=1 (with its final STATUS=) and the --ready-fd newline. Failing to
 * send READY=1 is an error: a Type=notify unit with TimeoutStartSec=infinity
 * would otherwise hang the boot for ever instead of failing. */
static int report_ready(Gate *g, const GateArgs *args, const char *message) {
        int r;

        r = notify_send(message);
        if (r < 0) {
                g->notify_failed = true;
                if (r == -ETIMEDOUT)
                        return log_error_errno(r, "Failed to send READY=1 to the service manager: "
                                               "no room in its queue for %s, it is not reading.",
                                               FORMAT_DURATION(NOTIFY_SEND_TIMEOUT_DEFAULT));
                return log_error_errno(r, "Failed to send READY=1 to the service manager: %s", notify_error(r));
        }
        if (args->ready_fd >= 0) {
                r = notify_ready_fd(args->ready_fd);
                if (r == -ETIMEDOUT)
                        return log_error_errno(r, "Failed to write to --ready-fd=%i: no room in it for %s, "
                                               "the supervisor is not reading it.", args->ready_fd,
                                               FORMAT_DURATION(NOTIFY_SEND_TIMEOUT_DEFAULT));
                if (r < 0)
                        return log_error_errno(r, "Failed to write to --ready-fd=%i: %m", args->ready_fd);
        }
        return 0;
}

static const char *signal_name(int sig) {
        /* Only these two end the wait; sigabbrev_np() is glibc-only. */
        return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal";
}

/* The common case at boot: the pool was initialized before the gate
 * started (a credited seed, a CPU or boot loader the kernel trusts). The
 * configuration only says how to wait, so READY=1 goes out first, before
 * the heap is set up and three files are looked up, and the configuration
 * is read after it only to report what is wrong in it. */
static int run_ready_at_start(const GateArgs *args, const GateResult *res) {
        Config config;
        Gate g = { .config = &config };
        int r, ret;

        r = report_ready(&g, args, "READY=1\nSTATUS=Kernel random pool already initialized at start");
        ret = r < 0 ? GATE_EXIT_ERROR : GATE_EXIT_READY;
        r = config_load(&config, log_config_warning, NULL);
        if (r < 0)
                log_warning_errno(r, "Failed to load the configuration, ignoring: %m");
        config_done(&config);
        write_result(ret == GATE_EXIT_ERROR ? RECORD_OUTCOME_ERROR : RECORD_OUTCOME_READY, res, NULL);
        barrier(&g);
        return ret;
}

static int run(const GateArgs *args) {
        Config config;
        Gate g = { .config = &config };
        GateResult res = {};
        char buf[256];
        int r, ret;

        r = gate_check_ready(&res);
        if (r > 0)
                return run_ready_at_start(args, &res);

        /* Not ready (or the pool cannot be asked): the configuration says
         * how long to wait. */
        if (load_config(&config, args) < 0) {
                config_done(&config);
                return GATE_EXIT_ERROR;
        }
        if (r == 0)
                r = gate_wait_since(res.start, config.timeout, config.warn_after, on_event, &g, &res);
        if (r < 0) {
                if (r == -ENOSYS)
                        log_error("The kernel has no getrandom() system call (Linux < 3.17): "
                                  "cannot tell whether its random pool is initialized.");
                else
                        log_error_errno(r, "Failed to wait for the kernel random pool: %m");
                snprintf(buf, sizeof(buf), "STATUS=Failed to wait for the kernel random pool: %s", strerror(-r));
                notify(&g, buf, NOTIFY_SEND_TIMEOUT_DEFAULT);
                res.start = res.end = now_usec(CLOCK_BOOTTIME);
                write_result(RECORD_OUTCOME_ERROR, &res, NULL);
                barrier(&g);
                config_done(&config);
                return GATE_EXIT_ERROR;
        }

        switch (res.outcome) {
        case GATE_OUTCOME_READY:
                if (res.ready_at_start)
                        /* The fast path: a constant message, no formatting. */
                        r = report_ready(&g, args, "READY=1\nSTATUS=Kernel random pool already initialized at start");
                else {
                        /* Release the boot first, then tell people. */
                        snprintf(buf, sizeof(buf), "READY=1\nSTATUS=Kernel random pool initialized, waited %s",
                                 FORMAT_DURATION(res.waited));
                        r = report_ready(&g, args, buf);
                        if (r >= 0)
                                log_info("Kernel random pool initialized, waited %s.", FORMAT_DURATION(res.waited));
                }
                ret = r < 0 ? GATE_EXIT_ERROR : GATE_EXIT_READY;
                break;

        case GATE_OUTCOME_TIMEOUT:
                if (config.on_timeout == ON_TIMEOUT_PROCEED) {
                        snprintf(buf, sizeof(buf),
                                 "READY=1\nSTATUS=WARNING: proceeding after %s, randomness is NOT seeded",
                                 FORMAT_DURATION(res.waited));
                        r = report_ready(&g, args, buf);
                        log_warning("Kernel random pool still not initialized after %s: proceeding as configured, "
                                    "randomness is NOT seeded. Keys generated now may be predictable.",
                                    FORMAT_DURATION(res.waited));
                        ret = r < 0 ? GATE_EXIT_ERROR : GATE_EXIT_READY;
                } else {
                        log_error("Kernel random pool still not initialized after %s, giving up.",
                                  FORMAT_DURATION(res.waited));
                        snprintf(buf, sizeof(buf), "STATUS=Timed out after %s waiting for the kernel random pool",
                                 FORMAT_DURATION(res.waited));
                        notify(&g, buf, NOTIFY_SEND_TIMEOUT_DEFAULT);
                        ret = GATE_EXIT_TIMEOUT;
                }
                break;

        case GATE_OUTCOME_INTERRUPTED:
        default:
                log_notice("Interrupted by %s after %s, the kernel random pool is not initialized.",
                           signal_name(res.signal), FORMAT_DURATION(res.waited));
                snprintf(buf, sizeof(buf), "STATUS=Interrupted by %s while waiting for the kernel random pool",
                         signal_name(res.signal));
                notify(&g, buf, NOTIFY_SEND_TIMEOUT_DEFAULT);
                ret = GATE_EXIT_INTERRUPTED;
                break;
        }

        /* The pool at the release (or the timeout, or the signal): read
         * after READY=1, which must not wait for it. */
        if (!res.ready_at_start)
                sample_entropy(&g, res.waited, true);
        write_result(ret == GATE_EXIT_ERROR ? RECORD_OUTCOME_ERROR : record_outcome(&res, &config), &res,
                     &g.entropy_avail);
        /* Last: systemd must have taken in our messages before we exit. */
        barrier(&g);
        config_done(&config);
        return ret;
}

/* --initrd-enabled: the initrd's scripts and units ask this rather than
 * split /proc/cmdline themselves, which the shell does differently from
 * the kernel (quotes, 0xA0). Anything that goes wrong answers "enabled". */
static int initrd_enabled(void) {
        _cleanup_free_ char *cmdline = NULL, *invalid = NULL;
        int r;

        r = proc_cmdline_read(&cmdline);
        if (r < 0) {
                log_warning_errno(r, "Cannot read the kernel command line, waiting in the initrd: %m");
                return GATE_EXIT_READY;
        }
        r = gate_initrd_enabled(cmdline, &invalid);
        if (r < 0) {
                log_warning_errno(r, "Cannot parse the kernel command line, waiting in the initrd: %m");
                return GATE_EXIT_READY;
        }
        if (invalid)
                log_warning("Invalid entropy_gate.initrd=%s on the kernel command line (expected a boolean), "
                            "waiting in the initrd.", invalid);
        return r > 0 ? GATE_EXIT_READY : GATE_EXIT_INITRD_DISABLED;
}

int entropy_gate_main(int argc, char *argv[]) {
        GateArgs args;
        char error[256];

        log_open("entropy-gate", LOG_TARGET_STDERR);

        if (gate_parse_argv(argc, argv, &args, error, sizeof(error)) < 0) {
                log_error("%s", error);
                fprintf(stderr, "Try '%s --help' for more information.\n", program_invocation_short_name);
                return GATE_EXIT_USAGE;
        }
        if (args.action == GATE_ACTION_HELP) {
                help();
                return GATE_EXIT_READY;
        }
        if (args.action == GATE_ACTION_VERSION) {
                puts(PROJECT_NAME " " PROJECT_VERSION);
                return GATE_EXIT_READY;
        }
        log_set_quiet(args.quiet);
        if (args.action == GATE_ACTION_INITRD_ENABLED)
                return initrd_enabled();
        if (args.ready_fd >= 0 && fcntl(args.ready_fd, F_GETFD) < 0) {
                log_error("Invalid --ready-fd=%i: not an open file descriptor", args.ready_fd);
                fprintf(stderr, "Try '%s --help' for more information.\n", program_invocation_short_name);
                return GATE_EXIT_USAGE;
        }
        /* After that check: a closed --ready-fd is an error, never /dev/null. */
        stdio_ensure_open();
        /* A --ready-fd reader that went away is an error to report, not a
         * reason to die silently. (The notification socket needs nothing:
         * it is sent to with MSG_NOSIGNAL.) */
        if (args.ready_fd >= 0)
                (void) signal(SIGPIPE, SIG_IGN);

        return run(&args);
}

#ifndef EG_MULTICALL
int main(int argc, char *argv[]) {
        return entropy_gate_main(argc, argv);
}
#endif
