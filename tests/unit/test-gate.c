// SPDX-License-Identifier: LGPL-2.1-or-later
/* entropy-gate's option parsing (every bad value rejected, named in the
 * message) and its wait loop over the scripted pool: deadlines met to the
 * millisecond, ticks, one warning, SIGTERM, and the signal state restored. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/time.h>
#include <sys/wait.h>

#include "gate.h"
#include "macro.h"

static int parse(char **argv, GateArgs *a, char *err, size_t size) {
        int argc = 0;
        while (argv[argc])
                argc++;
        return gate_parse_argv(argc, argv, a, err, size);
}

static void test_parse_defaults(void **state) {
        char *argv[] = { (char *) "entropy-gate", NULL };
        GateArgs a;
        char err[256] = "";

        assert_int_equal(gate_parse_argv(1, argv, &a, err, sizeof(err)), 0);
        assert_int_equal(a.action, GATE_ACTION_RUN);
        assert_true(a.timeout == USEC_INFINITY);
        assert_false(a.timeout_set || a.on_timeout_set || a.warn_after_set || a.quiet);
        assert_true(a.warn_after == WARN_AFTER_DEFAULT);
        assert_int_equal(a.ready_fd, -EBADF);
}

static void test_parse_good(void **state) {
        static const struct {
                const char *args[4];
                usec_t timeout;
                OnTimeout on_timeout;
                usec_t warn_after;
                int ready_fd;
                bool quiet;
                GateAction action;
        } table[] = {
                { { "--timeout=10" },    10 * USEC_PER_SEC, ON_TIMEOUT_FAIL, WARN_AFTER_DEFAULT, -EBADF },
                { { "--timeout=10s" },   10 * USEC_PER_SEC, ON_TIMEOUT_FAIL, WARN_AFTER_DEFAULT, -EBADF },
                { { "--timeout", "500ms" }, 500 * USEC_PER_MSEC, ON_TIMEOUT_FAIL, WARN_AFTER_DEFAULT, -EBADF },
                { { "--timeout=2min" },  2 * USEC_PER_MINUTE, ON_TIMEOUT_FAIL, WARN_AFTER_DEFAULT, -EBADF },
                { { "--timeout=infinity" }, USEC_INFINITY, ON_TIMEOUT_FAIL, WARN_AFTER_DEFAULT, -EBADF },
                { { "--timeout=1min 30s" }, 90 * USEC_PER_SEC, ON_TIMEOUT_FAIL, WARN_AFTER_DEFAULT, -EBADF },
                { { "--on-timeout=proceed" }, USEC_INFINITY, ON_TIMEOUT_PROCEED, WARN_AFTER_DEFAULT, -EBADF },
                { { "--on-timeout=fail" }, USEC_INFINITY, ON_TIMEOUT_FAIL, WARN_AFTER_DEFAULT, -EBADF },
                { { "--warn-after=0" },  USEC_INFINITY, ON_TIMEOUT_FAIL, 0, -EBADF },
                { { "--warn-after=infinity" }, USEC_INFINITY, ON_TIMEOUT_FAIL, USEC_INFINITY, -EBADF },
                { { "--ready-fd=3" },    USEC_INFINITY, ON_TIMEOUT_FAIL, WARN_AFTER_DEFAULT, 3 },
                { { "--ready-fd=0" },    USEC_INFINITY, ON_TIMEOUT_FAIL, WARN_AFTER_DEFAULT, 0 },
                { { "-q" },              USEC_INFINITY, ON_TIMEOUT_FAIL, WARN_AFTER_DEFAULT, -EBADF, true },
                { { "--quiet", "--timeout=1", "--timeout=2" }, 2 * USEC_PER_SEC, ON_TIMEOUT_FAIL, WARN_AFTER_DEFAULT, -EBADF, true },
                { { "--help" },          USEC_INFINITY, ON_TIMEOUT_FAIL, WARN_AFTER_DEFAULT, -EBADF, false, GATE_ACTION_HELP },
                { { "-h" },              USEC_INFINITY, ON_TIMEOUT_FAIL, WARN_AFTER_DEFAULT, -EBADF, false, GATE_ACTION_HELP },
                { { "--version" },       USEC_INFINITY, ON_TIMEOUT_FAIL, WARN_AFTER_DEFAULT, -EBADF, false, GATE_ACTION_VERSION },
                { { "--initrd-enabled" }, USEC_INFINITY, ON_TIMEOUT_FAIL, WARN_AFTER_DEFAULT, -EBADF, false, GATE_ACTION_INITRD_ENABLED },
        };

        for (size_t i = 0; i < ELEMENTSOF(table); i++) {
                char *argv[6] = { (char *) "entropy-gate" };
                GateArgs a;
                char err[256] = "";

                for (size_t j = 0; j < 4 && table[i].args[j]; j++)
                        argv[j + 1] = (char *) table[i].args[j];
                if (parse(argv, &a, err, sizeof(err)) != 0)
                        fail_msg("case %zu (%s): %s", i, table[i].args[0], err);
                assert_true(a.timeout == table[i].timeout);
                assert_int_equal(a.on_timeout, table[i].on_timeout);
                assert_true(a.warn_after == table[i].warn_after);
                assert_int_equal(a.ready_fd, table[i].ready_fd);
                assert_int_equal(a.quiet, table[i].quiet);
                assert_int_equal(a.action, table[i].action);
        }
}

static void test_parse_bad(void **state) {
        /* Each with the text its message must contain. */
        static const struct {
                const char *args[3];
                const char *named;
        } table[] = {
                { { "--timeout=abc" },      "--timeout=abc" },
                { { "--timeout=10x" },      "--timeout=10x" },
                { { "--timeout=" },         "--timeout=" },
                { { "--timeout=-1" },       "--timeout=-1" },
                { { "--timeout=1.5.3s" },   "--timeout=1.5.3s" },
                { { "--timeout=1min 30" },  "--timeout=1min 30" },
                { { "--timeout=99999999999999999999" }, "--timeout=99999999999999999999" },
                { { "--timeout=infinit" },  "--timeout=infinit" },
                { { "--timeout" },          "--timeout" },
                { { "--warn-after=soon" },  "--warn-after=soon" },
                { { "--warn-after=5 s s" }, "--warn-after=5 s s" },
                { { "--on-timeout=maybe" }, "--on-timeout=maybe" },
                { { "--on-timeout=" },      "--on-timeout=" },
                { { "--on-timeout=FAIL" },  "--on-timeout=FAIL" },
                { { "--ready-fd=abc" },     "--ready-fd=abc" },
                { { "--ready-fd=-1" },      "--ready-fd=-1" },
                { { "--ready-fd=3x" },      "--ready-fd=3x" },
                { { "--ready-fd=" },        "--ready-fd=" },
                { { "--ready-fd= 3" },      "--ready-fd= 3" },
                { { "--ready-fd=+3" },      "--ready-fd=+3" },
                { { "--ready-fd=99999999999" }, "--ready-fd=99999999999" },
                { { "--bogus" },            "--bogus" },
                { { "--quiet=yes" },        "--quiet=yes" },
                { { "-x" },                 "-x" },
                { { "-qz" },                "-z" },
                { { "extra" },              "extra" },
                { { "--timeout=5", "extra" }, "extra" },
                { { "--", "--timeout=5" },  "--timeout=5" },
        };

        for (size_t i = 0; i < ELEMENTSOF(table); i++) {
                char *argv[5] = { (char *) "entropy-gate" };
                GateArgs a = { .action = 42 };
                char err[256] = "";

                for (size_t j = 0; j < 3 && table[i].args[j]; j++)
                        argv[j + 1] = (char *) table[i].args[j];
                if (parse(argv, &a, err, sizeof(err)) != -EINVAL)
                        fail_msg("case %zu (%s) was accepted", i, table[i].args[0]);
                if (!strstr(err, table[i].named))
                        fail_msg("case %zu: message \"%s\" does not name \"%s\"", i, err, table[i].named);
                assert_int_equal(a.action, 42); /* untouched on failure */
        }
}

static void test_args_apply(void **state) {
        Config c;
        GateArgs a;
        char err[256];
        char *argv1[] = { (char *) "entropy-gate", (char *) "--warn-after=3s", NULL };
        char *argv2[] = { (char *) "entropy-gate", (char *) "--timeout=infinity", (char *) "--on-timeout=fail", NULL };

        assert_int_equal(config_init(&c), 0);
        c.timeout = 7 * USEC_PER_SEC;          /* as if from the kernel command line */
        c.on_timeout = ON_TIMEOUT_PROCEED;
        assert_int_equal(gate_parse_argv(2, argv1, &a, err, sizeof(err)), 0);
        gate_args_apply(&a, &c);
        /* Only what the command line gave overrides the lower layers. */
        assert_true(c.timeout == 7 * USEC_PER_SEC);
        assert_int_equal(c.on_timeout, ON_TIMEOUT_PROCEED);
        assert_true(c.warn_after == 3 * USEC_PER_SEC);

        assert_int_equal(gate_parse_argv(3, argv2, &a, err, sizeof(err)), 0);
        gate_args_apply(&a, &c);
        assert_true(c.timeout == USEC_INFINITY);
        assert_int_equal(c.on_timeout, ON_TIMEOUT_FAIL);
        config_done(&c);
}

/* ---- The wait loop, over the scripted pool ---- */

typedef struct Events {
        unsigned waiting, ticks, warns;
        usec_t warn_at;
        usec_t tick_at[16];
} Events;

static void record(GateEvent e, usec_t elapsed, void *userdata) {
        Events *ev = userdata;

        switch (e) {
        case GATE_EVENT_WAITING:
                ev->waiting++;
                break;
        case GATE_EVENT_TICK:
                if (ev->ticks < ELEMENTSOF(ev->tick_at))
                        ev->tick_at[ev->ticks] = elapsed;
                ev->ticks++;
                break;
        case GATE_EVENT_WARN:
                ev->warns++;
                ev->warn_at = elapsed;
                break;
        }
}

static char state_path[64];

static int setup_pool(void **state) {
        int fd;

        snprintf(state_path, sizeof(state_path), "/tmp/eg-test-gate.XXXXXX");
        fd = mkstemp(state_path);
        assert_true(fd >= 0);
        (void) close(fd);
        assert_int_equal(setenv("FAKE_POOL_STATE", state_path, 1), 0);
        assert_int_equal(setenv("FAKE_POOL_READY_AFTER_MS", "never", 1), 0);
        (void) unsetenv("FAKE_POOL_ENOSYS");
        return 0;
}

static int teardown_pool(void **state) {
        (void) unlink(state_path);
        return 0;
}

static void assert_signals_restored(void) {
        struct sigaction sa;
        struct itimerval it;

        assert_int_equal(sigaction(SIGALRM, NULL, &sa), 0);
        assert_true(sa.sa_handler == SIG_DFL);
        assert_int_equal(sigaction(SIGTERM, NULL, &sa), 0);
        assert_true(sa.sa_handler == SIG_DFL);
        assert_int_equal(getitimer(ITIMER_REAL, &it), 0);
        assert_int_equal(it.it_value.tv_sec, 0);
        assert_int_equal(it.it_value.tv_usec, 0);
}

static void make_ready_in(unsigned ms) {
        pid_t pid = fork();

        assert_true(pid >= 0);
        if (pid == 0) {
                FILE *f;

                (void) usleep(ms * 1000);
                f = fopen(state_path, "we");
                if (!f || fputs("ready\n", f) < 0 || fclose(f) != 0)
                        _exit(1);
                _exit(0);
        }
}

static void test_wait_ready_at_start(void **state) {
        Events ev = {};
        GateResult res;

        make_ready_in(0);
        assert_int_equal(wait(NULL) > 0, 1);
        assert_int_equal(gate_wait(USEC_INFINITY, WARN_AFTER_DEFAULT, record, &ev, &res), 0);
        assert_int_equal(res.outcome, GATE_OUTCOME_READY);
        assert_true(res.ready_at_start);
        assert_true(res.waited == 0);
        assert_int_equal(ev.waiting + ev.ticks + ev.warns, 0);
        assert_signals_restored();
}

static void test_wait_ready_later(void **state) {
        Events ev = {};
        GateResult res;

        make_ready_in(1300);
        assert_int_equal(gate_wait(USEC_INFINITY, 500 * USEC_PER_MSEC, record, &ev, &res), 0);
        (void) wait(NULL);
        assert_int_equal(res.outcome, GATE_OUTCOME_READY);
        assert_false(res.ready_at_start);
        assert_true(res.waited >= 1300 * USEC_PER_MSEC);
        assert_true(res.waited < 3 * USEC_PER_SEC);
        assert_true(res.end - res.start == res.waited);
        assert_int_equal(ev.waiting, 1);
        /* One refresh at 1s, and the one warning right at its deadline. */
        assert_int_equal(ev.ticks, 1);
        /* Upper bounds below leave a loaded machine room and still tell the
         * deadline apart from the tick after it. */
        assert_true(ev.tick_at[0] >= USEC_PER_SEC && ev.tick_at[0] < 2 * USEC_PER_SEC);
        assert_int_equal(ev.warns, 1);
        assert_true(ev.warn_at >= 500 * USEC_PER_MSEC && ev.warn_at < USEC_PER_SEC);
        assert_signals_restored();
}

static void test_wait_timeout_exact(void **state) {
        Events ev = {};
        GateResult res;

        assert_int_equal(gate_wait(200 * USEC_PER_MSEC, USEC_INFINITY, record, &ev, &res), 0);
        assert_int_equal(res.outcome, GATE_OUTCOME_TIMEOUT);
        /* Sub-second deadlines are met, not rounded up to the next tick. */
        assert_true(res.waited >= 200 * USEC_PER_MSEC);
        assert_true(res.waited < USEC_PER_SEC); /* a tick-driven loop would take 1s */
        assert_int_equal(ev.ticks, 0);
        assert_int_equal(ev.warns, 0);
        assert_signals_restored();
}

static void test_wait_ticks_and_one_warning(void **state) {
        Events ev = {};
        GateResult res;

        assert_int_equal(gate_wait(3200 * USEC_PER_MSEC, 100 * USEC_PER_MSEC, record, &ev, &res), 0);
        assert_int_equal(res.outcome, GATE_OUTCOME_TIMEOUT);
        assert_true(res.waited >= 3200 * USEC_PER_MSEC && res.waited < 4 * USEC_PER_SEC);
        assert_int_equal(ev.ticks, 3);
        for (unsigned i = 0; i < 3; i++)
                assert_true(ev.tick_at[i] >= (i + 1) * USEC_PER_SEC &&
                            ev.tick_at[i] < (i + 2) * USEC_PER_SEC);
        assert_int_equal(ev.warns, 1);
}

/* A child that sends @sig to us after @delay_usec. Returns its pid; once
 * it exits, *ret_fd yields the CLOCK_BOOTTIME (the gate's clock) at which
 * the signal was pending in the parent: measuring from there, a loaded
 * machine delaying the child proves nothing either way. */
static pid_t signal_later(usec_t delay_usec, int sig, int *ret_fd) {
        int p[2];
        pid_t pid;

        assert_int_equal(pipe(p), 0);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                usec_t t;

                (void) usleep((useconds_t) delay_usec);
                (void) kill(getppid(), sig);
                t = now_usec(CLOCK_BOOTTIME);
                (void) !write(p[1], &t, sizeof(t));
                _exit(0);
        }
        safe_close(p[1]);
        *ret_fd = p[0];
        return pid;
}

static usec_t signal_sent_at(pid_t pid, int fd) {
        usec_t sent;

        (void) waitpid(pid, NULL, 0);
        assert_int_equal(read(fd, &sent, sizeof(sent)), (ssize_t) sizeof(sent));
        safe_close(fd);
        return sent;
}

static void test_wait_sigterm(void **state) {
        Events ev = {};
        GateResult res;
        usec_t sent;
        int fd;
        pid_t pid;

        pid = signal_later(300 * USEC_PER_MSEC, SIGTERM, &fd);
        assert_int_equal(gate_wait(USEC_INFINITY, USEC_INFINITY, record, &ev, &res), 0);
        sent = signal_sent_at(pid, fd);
        assert_int_equal(res.outcome, GATE_OUTCOME_INTERRUPTED);
        assert_int_equal(res.signal, SIGTERM);
        /* Acted on at once, not at the next tick: no tick came once the
         * signal was pending. */
        for (unsigned i = 0; i < MIN(ev.ticks, (unsigned) ELEMENTSOF(ev.tick_at)); i++)
                assert_true(res.start + ev.tick_at[i] < sent);
        assert_signals_restored();
}

static void test_wait_sigterm_storm(void **state) {
        /* SIGTERM at many points of the loop, including between the flag
         * check and the blocking call: never lost until the next tick (a
         * second after the start). */
        for (unsigned i = 0; i < 20; i++) {
                int sig = i % 2 ? SIGTERM : SIGINT, fd;
                GateResult res;
                pid_t pid;

                pid = signal_later(20 * USEC_PER_MSEC + i * 1500, sig, &fd);
                assert_int_equal(gate_wait(USEC_INFINITY, USEC_INFINITY, NULL, NULL, &res), 0);
                assert_true(res.end < signal_sent_at(pid, fd) + 900 * USEC_PER_MSEC);
                assert_int_equal(res.outcome, GATE_OUTCOME_INTERRUPTED);
                assert_int_equal(res.signal, sig);
        }
        assert_signals_restored();
}

static void test_wait_enosys(void **state) {
        GateResult res = { .outcome = 42 };

        assert_int_equal(setenv("FAKE_POOL_ENOSYS", "1", 1), 0);
        assert_int_equal(gate_wait(USEC_INFINITY, USEC_INFINITY, NULL, NULL, &res), -ENOSYS);
        assert_int_equal(res.outcome, 42);
        (void) unsetenv("FAKE_POOL_ENOSYS");
}

static void check_initrd(const char *cmdline, int want, const char *want_invalid) {
        char *invalid = (char *) "untouched";

        print_message("%s\n", cmdline);
        assert_int_equal(gate_initrd_enabled(cmdline, &invalid), want);
        if (want_invalid)
                assert_string_equal(invalid, want_invalid);
        else
                assert_null(invalid);
        free(invalid);
}

static void test_initrd_enabled(void **state) {
        check_initrd("", 1, NULL);
        check_initrd("quiet splash", 1, NULL);
        for (const char *const *v = (const char *const[]) { "0", "no", "n", "false", "f", "off", "OFF", NULL }; *v; v++) {
                char buf[64];
                snprintf(buf, sizeof(buf), "ro entropy_gate.initrd=%s quiet", *v);
                check_initrd(buf, 0, NULL);
        }
        check_initrd("entropy-gate.initrd=0", 0, NULL);
        check_initrd("entropy_gate.initrd=\"0\"", 0, NULL);
        check_initrd("\"entropy_gate.initrd=0\"", 0, NULL);
        check_initrd("entropy_gate.initrd=1", 1, NULL);
        check_initrd("entropy_gate.initrd", 1, NULL);
        check_initrd("entropy_gate.initrd=0 entropy_gate.initrd=1", 1, NULL);
        check_initrd("entropy_gate.initrd=maybe", 1, "maybe");
        check_initrd("entropy_gate.initrd=", 1, "");
        /* As the kernel splits: a quoted value of another parameter holds
         * no parameter of its own, 0xA0 separates, "--" ends the kernel's. */
        check_initrd("foo=\"x entropy_gate.initrd=0\"", 1, NULL);
        check_initrd("foo=\"x entropy_gate.initrd=0\" bar", 1, NULL);
        check_initrd("quiet\xa0" "entropy_gate.initrd=0", 0, NULL);
        check_initrd("ro -- entropy_gate.initrd=0", 1, NULL);
        check_initrd("xentropy_gate.initrd=0", 1, NULL);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_parse_defaults),
                cmocka_unit_test(test_initrd_enabled),
                cmocka_unit_test(test_parse_good),
                cmocka_unit_test(test_parse_bad),
                cmocka_unit_test(test_args_apply),
                cmocka_unit_test_setup_teardown(test_wait_ready_at_start, setup_pool, teardown_pool),
                cmocka_unit_test_setup_teardown(test_wait_ready_later, setup_pool, teardown_pool),
                cmocka_unit_test_setup_teardown(test_wait_timeout_exact, setup_pool, teardown_pool),
                cmocka_unit_test_setup_teardown(test_wait_ticks_and_one_warning, setup_pool, teardown_pool),
                cmocka_unit_test_setup_teardown(test_wait_sigterm, setup_pool, teardown_pool),
                cmocka_unit_test_setup_teardown(test_wait_sigterm_storm, setup_pool, teardown_pool),
                cmocka_unit_test_setup_teardown(test_wait_enosys, setup_pool, teardown_pool),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
