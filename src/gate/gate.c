// SPDX-License-Identifier: LGPL-2.1-or-later
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <sys/time.h>

#include "conf-parser.h"
#include "gate.h"
#include "macro.h"
#include "pool.h"
#include "proc-cmdline.h"

/* ---- Command line ---- */

enum {
        ARG_VERSION = 0x100,
        ARG_TIMEOUT,
        ARG_ON_TIMEOUT,
        ARG_WARN_AFTER,
        ARG_READY_FD,
        ARG_INITRD_ENABLED,
};

static const struct option gate_options[] = {
        { "help",       no_argument,       NULL, 'h'            },
        { "version",    no_argument,       NULL, ARG_VERSION    },
        { "timeout",    required_argument, NULL, ARG_TIMEOUT    },
        { "on-timeout", required_argument, NULL, ARG_ON_TIMEOUT },
        { "warn-after", required_argument, NULL, ARG_WARN_AFTER },
        { "ready-fd",   required_argument, NULL, ARG_READY_FD   },
        { "quiet",      no_argument,       NULL, 'q'            },
        { "initrd-enabled", no_argument,   NULL, ARG_INITRD_ENABLED },
        {}
};

static int parse_fd(const char *s, int *ret) {
        char *end;
        long v;

        if (!s || *s < '0' || *s > '9') /* no sign, no leading space */
                return -EINVAL;
        errno = 0;
        v = strtol(s, &end, 10);
        if (errno != 0 || *end != 0 || v > INT_MAX)
                return -EINVAL;
        *ret = (int) v;
        return 0;
}

int gate_parse_argv(int argc, char *argv[], GateArgs *ret, char *error, size_t error_size) {
        GateArgs a = {
                .action = GATE_ACTION_RUN,
                .timeout = USEC_INFINITY,
                .on_timeout = ON_TIMEOUT_FAIL,
                .warn_after = WARN_AFTER_DEFAULT,
                .ready_fd = -EBADF,
        };
        int c;

#define FAIL(...) do { snprintf(error, error_size, __VA_ARGS__); return -EINVAL; } while (0)

        /* optind = 0 makes glibc and musl start afresh (tests parse many
         * command lines in one process); opterr = 0 and the leading ':' keep
         * getopt quiet so that the message below is the only one. */
        optind = 0;
        opterr = 0;
        while ((c = getopt_long(argc, argv, ":hq", gate_options, NULL)) >= 0) {
                switch (c) {
                case 'h':
                        a.action = GATE_ACTION_HELP;
                        break;
                case ARG_VERSION:
                        a.action = GATE_ACTION_VERSION;
                        break;
                case 'q':
                        a.quiet = true;
                        break;
                case ARG_INITRD_ENABLED:
                        a.action = GATE_ACTION_INITRD_ENABLED;
                        break;
                case ARG_TIMEOUT:
                        if (parse_duration(optarg, &a.timeout) < 0)
                                FAIL("Invalid --timeout=%.*s%s: expected a duration such as 30s, 500ms, 2min or infinity",
                                     CONF_QUOTE(optarg));
                        a.timeout_set = true;
                        break;
                case ARG_WARN_AFTER:
                        if (parse_duration(optarg, &a.warn_after) < 0)
                                FAIL("Invalid --warn-after=%.*s%s: expected a duration such as 10s, 500ms, 2min or infinity",
                                     CONF_QUOTE(optarg));
                        a.warn_after_set = true;
                        break;
                case ARG_ON_TIMEOUT: {
                        OnTimeout t = on_timeout_from_string(optarg);
                        if (t < 0)
                                FAIL("Invalid --on-timeout=%.*s%s: expected fail or proceed", CONF_QUOTE(optarg));
                        a.on_timeout = t;
                        a.on_timeout_set = true;
                        break;
                }
                case ARG_READY_FD:
                        if (parse_fd(optarg, &a.ready_fd) < 0)
                                FAIL("Invalid --ready-fd=%.*s%s: expected a file descriptor number", CONF_QUOTE(optarg));
                        break;
                case ':':
                        FAIL("Option '%.*s%s' needs a value", CONF_QUOTE(argv[optind - 1]));
                case '?':
                default:
                        /* A short option is named by optopt (it may sit inside
                         * a group like -qx); a long one by its word. */
                        if (optopt > 0 && optopt < 0x100 && !startswith(argv[optind - 1], "--"))
                                FAIL("Unknown option '-%c'", optopt);
                        FAIL("Unknown option '%.*s%s'", CONF_QUOTE(argv[optind - 1]));
                }
        }
        if (optind < argc)
                FAIL("Unexpected argument '%.*s%s': entropy-gate takes options only", CONF_QUOTE(argv[optind]));
#undef FAIL

        *ret = a;
        return 0;
}

int gate_initrd_enabled(const char *cmdline, char **ret_invalid) {
        _cleanup_free_ char *value = NULL;
        int r, b;

        *ret_invalid = NULL;
        r = proc_cmdline_get_key(cmdline, "entropy_gate.initrd", &value);
        if (r <= 0)
                return r < 0 ? r : 1;
        if (!value)
                return 1; /* a bare key is yes, as for every boolean there */
        b = parse_boolean(value);
        if (b < 0) {
                *ret_invalid = TAKE_PTR(value);
                return 1;
        }
        return b;
}

void gate_args_apply(const GateArgs *a, Config *c) {
        if (a->timeout_set)
                c->timeout = a->timeout;
        if (a->on_timeout_set)
                c->on_timeout = a->on_timeout;
        if (a->warn_after_set)
                c->warn_after = a->warn_after;
}

/* ---- Waiting ---- */

/* If the first expiry of a wake-up timer lands in the instant between arming
 * it and entering getrandom() (a preempted process), it is lost; the timer
 * then keeps firing at this interval until it is disarmed, so that loss
 * costs at most this long. Normally the first expiry interrupts the wait and
 * the loop disarms it at once. */
#define TIMER_RETRY_USEC (10 * USEC_PER_MSEC)

static volatile sig_atomic_t gate_signal = 0;

static struct timeval timeval_from_usec(usec_t u) {
        return (struct timeval) {
                .tv_sec = (time_t) (u / USEC_PER_SEC),
                .tv_usec = (suseconds_t) (u % USEC_PER_SEC),
        };
}

static int timer_arm(usec_t value, usec_t interval) {
        struct itimerval it = {
                .it_value = timeval_from_usec(value),
                .it_interval = timeval_from_usec(interval),
        };
        return RET_NERRNO(setitimer(ITIMER_REAL, &it, NULL));
}

static void on_alarm(int sig) {
        /* Nothing to do: its only job is to make getrandom() return EINTR. */
}

static void on_terminate(int sig) {
        int saved_errno = errno;

        gate_signal = sig;
        /* The signal may arrive after the loop last looked at gate_signal and
         * before it entered getrandom(), which would then sleep until the
         * next tick. A burst of 1ms timer expiries interrupts it at once,
         * wherever it is. setitimer() is a plain system call. */
        (void) timer_arm(USEC_PER_MSEC, USEC_PER_MSEC);
        errno = saved_errno;
}

typedef struct SignalState {
        struct sigaction alarm, term, intr;
        sigset_t mask;
} SignalState;

static int signals_install(SignalState *old) {
        struct sigaction alarm = { .sa_handler = on_alarm };
        struct sigaction term = { .sa_handler = on_terminate };
        sigset_t unblock;

        /* A supervisor may have started us with these blocked. */
        sigemptyset(&unblock);
        sigaddset(&unblock, SIGALRM);
        sigaddset(&unblock, SIGTERM);
        sigaddset(&unblock, SIGINT);
        if (sigprocmask(SIG_UNBLOCK, &unblock, &old->mask) < 0)
                return negative_errno();

        /* No SA_RESTART: a handler that ran must end the blocking
         * getrandom() with EINTR, or the loop would never see the tick. */
        sigemptyset(&alarm.sa_mask);
        sigemptyset(&term.sa_mask);
        sigaddset(&term.sa_mask, SIGTERM);
        sigaddset(&term.sa_mask, SIGINT);

        gate_signal = 0;
        if (sigaction(SIGALRM, &alarm, &old->alarm) < 0 ||
            sigaction(SIGTERM, &term, &old->term) < 0 ||
            sigaction(SIGINT, &term, &old->intr) < 0)
                return negative_errno();
        return 0;
}

static void signals_restore(const SignalState *old) {
        struct sigaction ignore = { .sa_handler = SIG_IGN };
        sigset_t block;

        sigemptyset(&block);
        sigaddset(&block, SIGALRM);
        sigaddset(&block, SIGTERM);
        sigaddset(&block, SIGINT);
        (void) sigprocmask(SIG_BLOCK, &block, NULL);
        (void) timer_arm(0, 0);
        /* Ignoring a blocked signal discards it if pending: a last tick must
         * never reach the old SIGALRM disposition, which is usually fatal. */
        (void) sigaction(SIGALRM, &ignore, NULL);
        (void) sigaction(SIGALRM, &old->alarm, NULL);
        (void) sigaction(SIGTERM, &old->term, NULL);
        (void) sigaction(SIGINT, &old->intr, NULL);
        (void) sigprocmask(SIG_SETMASK, &old->mask, NULL);
}

static void emit(gate_event_t on_event, GateEvent event, usec_t elapsed, void *userdata) {
        if (on_event)
                on_event(event, elapsed, userdata);
}

int gate_check_ready(GateResult *ret) {
        usec_t start = now_usec(CLOCK_BOOTTIME);
        int r;

        r = pool_probe_ready();
        if (r < 0)
                return r;
        *ret = (GateResult) { .start = start };
        if (r > 0) {
                ret->outcome = GATE_OUTCOME_READY;
                ret->ready_at_start = true;
                ret->end = start;
        }
        return r;
}

int gate_wait(usec_t timeout, usec_t warn_after, gate_event_t on_event, void *userdata, GateResult *ret) {
        GateResult res;
        int r;

        /* The common case on the boot path: no handlers, no timer. */
        r = gate_check_ready(&res);
        if (r != 0) {
                if (r > 0)
                        *ret = res;
                return MIN(r, 0);
        }
        return gate_wait_since(res.start, timeout, warn_after, on_event, userdata, ret);
}

int gate_wait_since(usec_t start, usec_t timeout, usec_t warn_after, gate_event_t on_event, void *userdata,
                    GateResult *ret) {
        GateResult res = { .start = start };
        SignalState old = {};
        usec_t next_tick = GATE_TICK_USEC;
        bool warned = warn_after == USEC_INFINITY;
        int r;

        /* Only sigaction() on these three signals could fail here, which it
         * does not; should it, what was installed is undone below. */
        if (sigprocmask(SIG_SETMASK, NULL, &old.mask) < 0)
                return negative_errno();
        r = signals_install(&old);
        if (r < 0)
                goto finish;
        emit(on_event, GATE_EVENT_WAITING, 0, userdata);

        for (;;) {
                usec_t elapsed = now_usec(CLOCK_BOOTTIME) - res.start, wake;

                if (gate_signal != 0)
                        break;
                if (timeout != USEC_INFINITY && elapsed >= timeout) {
                        /* One last look: it may have become ready right at the deadline. */
                        r = pool_probe_ready();
                        if (r < 0)
                                goto finish;
                        res.outcome = r > 0 ? GATE_OUTCOME_READY : GATE_OUTCOME_TIMEOUT;
                        r = 0;
                        goto finish;
                }
                if (!warned && elapsed >= warn_after) {
                        warned = true;
                        emit(on_event, GATE_EVENT_WARN, elapsed, userdata);
                }
                if (elapsed >= next_tick) {
                        emit(on_event, GATE_EVENT_TICK, elapsed, userdata);
                        next_tick = (elapsed / GATE_TICK_USEC + 1) * GATE_TICK_USEC;
                }

                /* Wake at the next tick, or earlier to meet a deadline exactly. */
                wake = next_tick;
                if (timeout != USEC_INFINITY)
                        wake = MIN(wake, timeout);
                if (!warned)
                        wake = MIN(wake, warn_after);
                elapsed = now_usec(CLOCK_BOOTTIME) - res.start;
                r = timer_arm(wake > elapsed ? wake - elapsed : 1, TIMER_RETRY_USEC);
                if (r < 0)
                        goto finish;
                /* Looked at after arming, so that a signal before this point
                 * is seen here and one after it is caught by its burst. */
                if (gate_signal != 0)
                        break;

                r = pool_wait_ready();
                (void) timer_arm(0, 0); /* no stray ticks while the caller logs */
                if (r == 0) {
                        res.outcome = GATE_OUTCOME_READY;
                        goto finish;
                }
                if (r != -EINTR)
                        goto finish;
        }

        res.outcome = GATE_OUTCOME_INTERRUPTED;
        res.signal = gate_signal;
        r = 0;

finish:
        signals_restore(&old);
        if (r < 0)
                return r;
        res.end = now_usec(CLOCK_BOOTTIME);
        res.waited = res.end - res.start;
        *ret = res;
        return 0;
}
