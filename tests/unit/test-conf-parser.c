// SPDX-License-Identifier: LGPL-2.1-or-later
/* The configuration file parser (config_parse_text) and loader
 * (config_load_files): every key with good and bad values, empty
 * assignments, drop-in order and the precedence of the layers. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "config.h"
#include "paths.h"
#include "root.h"
#include "test-util.h"

typedef struct Warnings {
        unsigned n;
        char last[1024];
        unsigned last_line;
} Warnings;

static void record_warning(void *userdata, const char *source, unsigned line, const char *message) {
        Warnings *w = userdata;

        w->n++;
        w->last_line = line;
        snprintf(w->last, sizeof(w->last), "%s:%u: %s", source, line, message);
}

static char *units_joined(const Config *c) {
        static char buf[1024];

        buf[0] = 0;
        for (char **i = c->units; i && *i; i++) {
                if (buf[0])
                        strncat(buf, " ", sizeof(buf) - strlen(buf) - 1);
                strncat(buf, *i, sizeof(buf) - strlen(buf) - 1);
        }
        return buf;
}

/* One row: a file's text and what the Config must hold after it is
 * applied on top of the defaults. */
typedef struct Row {
        const char *text;
        usec_t timeout;
        OnTimeout on_timeout;
        usec_t warn_after;
        const char *units;           /* space-joined */
        bool credit;
        const char *seed_dir;
        bool cwmi;
        unsigned n_warnings;
        unsigned warning_line;       /* line of the last warning */
        const char *warning;         /* a substring of the last warning */
} Row;

/* Each row overrides the defaults it cares about: designated initializers
 * given twice, on purpose. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverride-init"
#ifdef __clang__
#pragma GCC diagnostic ignored "-Winitializer-overrides"
#endif
#define D(...) .timeout = USEC_INFINITY, .on_timeout = ON_TIMEOUT_FAIL, .warn_after = WARN_AFTER_DEFAULT, \
        .units = "", .credit = true, .seed_dir = SEED_DIR_DEFAULT, .cwmi = false, __VA_ARGS__

static const Row rows[] = {
        { "", D() },
        { "# only a comment\n; and another\n\n", D() },
        /* [Gate] Timeout= */
        { "[Gate]\nTimeout=30s\n", D(.timeout = 30 * USEC_PER_SEC) },
        { "[Gate]\nTimeout = 1min 30s \n", D(.timeout = 90 * USEC_PER_SEC) },
        { "[Gate]\nTimeout=infinity\n", D() },
        { "[Gate]\nTimeout=soon\n", D(.n_warnings = 1, .warning_line = 2, .warning = "Invalid Timeout=soon") },
        { "[Gate]\nTimeout=5s\nTimeout=soon\n", D(.timeout = 5 * USEC_PER_SEC, .n_warnings = 1, .warning_line = 3, .warning = "soon") },
        { "[Gate]\nTimeout=5s\nTimeout=\n", D() },
        /* OnTimeout= */
        { "[Gate]\nOnTimeout=proceed\n", D(.on_timeout = ON_TIMEOUT_PROCEED) },
        { "[Gate]\nOnTimeout=fail\n", D() },
        { "[Gate]\nOnTimeout=proceed\nOnTimeout=maybe\n", D(.on_timeout = ON_TIMEOUT_PROCEED, .n_warnings = 1, .warning_line = 3, .warning = "Invalid OnTimeout=maybe") },
        { "[Gate]\nOnTimeout=proceed\nOnTimeout=\n", D() },
        /* WarnAfter= */
        { "[Gate]\nWarnAfter=2s\n", D(.warn_after = 2 * USEC_PER_SEC) },
        { "[Gate]\nWarnAfter=-1\n", D(.n_warnings = 1, .warning_line = 2, .warning = "Invalid WarnAfter=-1") },
        { "[Gate]\nWarnAfter=2s\nWarnAfter=\n", D() },
        /* Units= */
        { "[Gate]\nUnits=ssh.service\n", D(.units = "ssh.service") },
        { "[Gate]\nUnits=ssh.service  foo.socket,bar@1.service\nUnits=ssh.service x.target\n",
          D(.units = "ssh.service foo.socket bar@1.service x.target") },
        { "[Gate]\nUnits=a.service\nUnits=\nUnits=b.service\n", D(.units = "b.service") },
        { "[Gate]\nUnits=a.service \\\n  b.service\n", D(.units = "a.service b.service") },
        { "[Gate]\nUnits=a.service \\\n# a comment inside\n  b.service\nTimeout=x\n",
          D(.units = "a.service b.service", .n_warnings = 1, .warning_line = 5, .warning = "Timeout=x") },
        /* [Seed] Credit= */
        { "[Seed]\nCredit=no\n", D(.credit = false) },
        { "[Seed]\nCredit=off\nCredit=perhaps\n", D(.credit = false, .n_warnings = 1, .warning_line = 3, .warning = "Invalid Credit=perhaps") },
        { "[Seed]\nCredit=0\nCredit=\n", D() },
        /* Directory= */
        { "[Seed]\nDirectory=/srv/seed\n", D(.seed_dir = "/srv/seed") },
        { "[Seed]\nDirectory=relative/dir\n", D(.n_warnings = 1, .warning_line = 2, .warning = "absolute path") },
        { "[Seed]\nDirectory=/\n", D(.n_warnings = 1, .warning_line = 2, .warning = "Invalid Directory=/ (the seed needs a directory of its own)") },
        { "[Seed]\nDirectory=/srv/seed\nDirectory=\n", D() },
        /* CreditWithoutMachineId= */
        { "[Seed]\nCreditWithoutMachineId=yes\n", D(.cwmi = true) },
        { "[Seed]\nCreditWithoutMachineId=2\n", D(.n_warnings = 1, .warning_line = 2, .warning = "CreditWithoutMachineId=2") },
        { "[Seed]\nCreditWithoutMachineId=yes\nCreditWithoutMachineId=\n", D() },
        /* Syntax: each mistake is one warning naming the line, the rest applies. */
        { "Timeout=5s\n[Gate]\nOnTimeout=proceed\n", D(.on_timeout = ON_TIMEOUT_PROCEED, .n_warnings = 1, .warning_line = 1, .warning = "outside of any section") },
        { "[Gate]\nTimout=5s\n", D(.n_warnings = 1, .warning_line = 2, .warning = "Unknown key 'Timout' in section [Gate]") },
        { "[Gate]\ntimeout=5s\n", D(.n_warnings = 1, .warning_line = 2, .warning = "Unknown key 'timeout'") },
        { "[Seed]\nTimeout=5s\n", D(.n_warnings = 1, .warning_line = 2, .warning = "Unknown key 'Timeout' in section [Seed]") },
        { "[Gates]\nTimeout=5s\nCredit=no\n", D(.n_warnings = 1, .warning_line = 1, .warning = "Unknown section 'Gates'") },
        { "[X-Vendor]\nAnything=1\n[Gate]\nTimeout=1s\n", D(.timeout = USEC_PER_SEC) },
        { "[Gate\nTimeout=5s\n", D(.n_warnings = 1, .warning_line = 1, .warning = "Invalid section header") },
        { "[Gate]\nTimeout\n", D(.n_warnings = 1, .warning_line = 2, .warning = "Missing '='") },
        { "[Gate]\n=5s\n", D(.n_warnings = 1, .warning_line = 2, .warning = "Missing key name") },
        { "  [Gate]  \r\n\tTimeout=2s\r\n", D(.timeout = 2 * USEC_PER_SEC) },
        { "[Gate]\nUnits=a.service \\", D(.units = "a.service") },
        /* systemd's syntax (systemd.syntax(7) and its config_parse()), case by case. */
        /* A UTF-8 byte order mark: skipped at the start of the first line
         * that has one (comment lines are looked at before it), once. */
        { "\xef\xbb\xbf[Gate]\nTimeout=5s\n", D(.timeout = 5 * USEC_PER_SEC) },
        { "\xef\xbb\xbf" "# comment\n[Gate]\nTimeout=5s\n", D(.timeout = 5 * USEC_PER_SEC) },
        { "# comment\n\xef\xbb\xbf[Gate]\nTimeout=5s\n", D(.timeout = 5 * USEC_PER_SEC) },
        { "\xef\xbb\xbf[Gate]\n\xef\xbb\xbfTimeout=5s\n", D(.n_warnings = 1, .warning_line = 2, .warning = "Unknown key") },
        { " \xef\xbb\xbf[Gate]\n", D(.n_warnings = 1, .warning_line = 1, .warning = "outside of any section") },
        /* Lines end in LF, CR LF or a lone CR. */
        { "[Gate]\rTimeout=5s\rOnTimeout=proceed", D(.timeout = 5 * USEC_PER_SEC, .on_timeout = ON_TIMEOUT_PROCEED) },
        { "[Gate]\r\n\r\nTimeout=5s\n\rTimeout=soon\n", D(.timeout = 5 * USEC_PER_SEC, .n_warnings = 1, .warning_line = 5, .warning = "soon") },
        /* White space is " \t\n\r"; "\v" and "\f" belong to the key. */
        { "[Gate]\n\vTimeout=5s\n", D(.n_warnings = 1, .warning_line = 2, .warning = "Unknown key") },
        { "[Gate]\n\t Timeout \t=\t 5s \t\n", D(.timeout = 5 * USEC_PER_SEC) },
        /* A continued line keeps its white space: the backslash becomes a
         * space, the next line is appended as it is. */
        { "[Seed]\nDirectory=/a\\\n   b\n", D(.seed_dir = "/a    b") },
        /* An escaped backslash at the end does not continue; an odd one does. */
        { "[Gate]\nUnits=a\\\\\nTimeout=5s\n", D(.units = "a\\\\", .timeout = 5 * USEC_PER_SEC) },
        { "[Gate]\nUnits=a\\\\\\\nb\n", D(.units = "a\\\\ b") },
        /* A comment line never continues, even ending in a backslash. */
        { "[Gate]\n# note \\\nTimeout=5s\n", D(.timeout = 5 * USEC_PER_SEC) },
        /* A continued line is reported at its last line, as systemd does. */
        { "[Gate]\nTimeout=\\\nsoon\n", D(.n_warnings = 1, .warning_line = 3, .warning = "Invalid Timeout=soon") },
        /* A continued line that turns out to be a comment is one. */
        { "[Gate]\n\\\n# x\n#y\n", D() },
        /* Section headers: whole, with safe characters only. */
        { "[Ga\"te]\nTimeout=5s\n", D(.n_warnings = 1, .warning_line = 1, .warning = "Bad characters") },
        { "[Gate] # comment\nTimeout=5s\n", D(.n_warnings = 1, .warning_line = 1, .warning = "Invalid section header") },
        { "[]\nTimeout=5s\n", D(.n_warnings = 1, .warning_line = 1, .warning = "Unknown section ''") },
        /* Lines in a skipped section are skipped silently. */
        { "[Unknown]\nA=1\nno equals sign\n[Gate]\nTimeout=5s\n", D(.timeout = 5 * USEC_PER_SEC, .n_warnings = 1, .warning_line = 1) },
        /* .include is gone from systemd too. */
        { "[Gate]\n.include /etc/other.conf\n", D(.n_warnings = 1, .warning_line = 2, .warning = ".include") },
        /* Comments are whole lines: a '#' after a value is part of it. */
        { "[Gate]\nTimeout=5s # five\n", D(.n_warnings = 1, .warning_line = 2, .warning = "Invalid Timeout") },
        /* Duplicated keys: the last wins; for a list, they add up, and an
         * empty assignment resets it. */
        { "[Gate]\nTimeout=1s\nTimeout=2s\n[Seed]\n[Gate]\nTimeout=3s\n", D(.timeout = 3 * USEC_PER_SEC) },
        { "[Gate]\nUnits=a.service\n[Gate]\nUnits=b.service a.service\nUnits=\nUnits=c.service\n", D(.units = "c.service") },
        /* Everything at once. */
        { "[Gate]\nTimeout=1min\nOnTimeout=proceed\nWarnAfter=5s\nUnits=ssh.service\n"
          "[Seed]\nCredit=false\nDirectory=/var/lib/eg\nCreditWithoutMachineId=true\n",
          D(.timeout = USEC_PER_MINUTE, .on_timeout = ON_TIMEOUT_PROCEED, .warn_after = 5 * USEC_PER_SEC,
            .units = "ssh.service", .credit = false, .seed_dir = "/var/lib/eg", .cwmi = true) },
};
#pragma GCC diagnostic pop

static void check_row(const Row *row) {
        Warnings w = {};
        Config c;

        assert_int_equal(config_init(&c), 0);
        assert_int_equal(config_parse_text(&c, row->text, "/etc/test.conf", record_warning, &w), 0);
        if (w.n != row->n_warnings)
                fail_msg("%s: %u warnings, expected %u (last: %s)", row->text, w.n, row->n_warnings, w.last);
        if (row->warning) {
                if (!strstr(w.last, row->warning) || !strstr(w.last, "/etc/test.conf:"))
                        fail_msg("%s: warning '%s' lacks '%s'", row->text, w.last, row->warning);
                assert_int_equal(w.last_line, row->warning_line);
        }
        assert_true(c.timeout == row->timeout);
        assert_int_equal(c.on_timeout, row->on_timeout);
        assert_true(c.warn_after == row->warn_after);
        assert_string_equal(units_joined(&c), row->units);
        assert_int_equal(c.credit, row->credit);
        assert_string_equal(c.seed_dir, row->seed_dir);
        assert_int_equal(c.credit_without_machine_id, row->cwmi);
        config_done(&c);
}

static void test_table(void **state) {
        for (size_t i = 0; i < ELEMENTSOF(rows); i++) {
                print_message("row %zu\n", i);
                check_row(rows + i);
        }
}

static void test_no_warn_callback(void **state) {
        Config c;

        assert_int_equal(config_init(&c), 0);
        assert_int_equal(config_parse_text(&c, "[Gate]\nTimeout=bad\nUnits=a.service\n[Nope]\n", "x", NULL, NULL), 0);
        assert_true(c.timeout == USEC_INFINITY);
        assert_string_equal(units_joined(&c), "a.service");
        config_done(&c);
}

static void test_cmdline_units(void **state) {
        Warnings w = {};
        Config c;

        assert_int_equal(config_init(&c), 0);
        assert_int_equal(config_parse_text(&c, "[Gate]\nUnits=ssh.service\n", "f", record_warning, &w), 0);
        assert_int_equal(config_apply_cmdline(&c, "quiet entropy_gate.units=a.service,b.socket,ssh.service", record_warning, &w), 0);
        assert_string_equal(units_joined(&c), "ssh.service a.service b.socket");
        assert_int_equal(config_apply_cmdline(&c, "entropy-gate.units=\"c.target d.mount\"", record_warning, &w), 0);
        assert_string_equal(units_joined(&c), "ssh.service a.service b.socket c.target d.mount");
        assert_int_equal(w.n, 0);
        assert_int_equal(config_apply_cmdline(&c, "entropy_gate.units", record_warning, &w), 0);
        assert_int_equal(w.n, 1);
        assert_non_null(strstr(w.last, "kernel command line:0:"));
        config_done(&c);
}

/* A scratch root for the loader: ROOT/CONF_FILE and ROOT/CONF_DROPIN_DIR. */
static char root[PATH_MAX];

/* "main.conf" is CONF_FILE, "d/NAME" is in CONF_DROPIN_DIR. */
static void write_file(const char *rel, const char *text) {
        char path[PATH_MAX];

        if (streq(rel, "main.conf"))
                snprintf(path, sizeof(path), "%s", CONF_FILE);
        else
                snprintf(path, sizeof(path), "%s/%s", CONF_DROPIN_DIR, startswith(rel, "d/"));
        test_write_text(root, path, text);
}

static int setup_tree(void **state) {
        test_tmpdir(root, "test-conf-parser");
        test_mkdir_p(root, CONF_DROPIN_DIR);
        root_set(root);
        return 0;
}

static int teardown_tree(void **state) {
        root_set(NULL);
        test_rm_rf(root);
        return 0;
}

static void test_load_nothing(void **state) {
        Warnings w = {};
        Config c;

        /* Neither file nor directory: the defaults, silently. */
        test_tmpdir(root, "test-conf-parser");
        root_set(root);
        assert_int_equal(config_load(&c, record_warning, &w), 0);
        assert_int_equal(w.n, 0);
        assert_true(c.timeout == USEC_INFINITY);
        assert_null(c.broken);
        assert_null(config_credit_disabled_by(&c));
        config_done(&c);
        assert_int_equal(teardown_tree(state), 0);
}

static void test_load_order(void **state) {
        Warnings w = {};
        char big[CONFIG_FILE_MAX + 64];
        Config c;

        write_file("main.conf", "[Gate]\nTimeout=10s\nOnTimeout=proceed\nUnits=ssh.service\n[Seed]\nCredit=no\n");
        /* Written out of order: the loader sorts. */
        write_file("d/20-second.conf", "[Gate]\nTimeout=20s\nUnits=b.service\n");
        write_file("d/10-first.conf", "[Gate]\nTimeout=15s\nWarnAfter=3s\nUnits=\nUnits=a.service\n");
        write_file("d/30-reset.conf", "[Seed]\nCredit=\n[Gate]\nOnTimeout=sometimes\n");
        write_file("d/.hidden.conf", "[Gate]\nTimeout=1h\n");
        write_file("d/README", "[Gate]\nTimeout=2h\n");
        write_file("d/40-noconf.conf.bak", "[Gate]\nTimeout=3h\n");
        memset(big, '#', sizeof(big) - 1);
        big[sizeof(big) - 1] = 0;
        write_file("d/50-big.conf", big);
        test_mkdir_p(root, CONF_DROPIN_DIR "/60-dir.conf");

        assert_int_equal(config_load(&c, record_warning, &w), 0);
        assert_true(c.timeout == 20 * USEC_PER_SEC);               /* 20-second.conf, the last to set it */
        assert_true(c.warn_after == 3 * USEC_PER_SEC);             /* 10-first.conf */
        assert_int_equal(c.on_timeout, ON_TIMEOUT_PROCEED);         /* main.conf; 30-reset's bad value ignored */
        assert_true(c.credit);                                      /* reset to the default by 30-reset.conf */
        assert_string_equal(units_joined(&c), "a.service b.service");
        /* 30-reset's bad value, 50-big and the 60-dir directory. */
        assert_int_equal(w.n, 3);
        assert_non_null(strstr(w.last, "60-dir.conf:0: Ignoring configuration file: not a regular file"));
        /* Fail closed: a file that could not be read might have said Credit=no. */
        assert_non_null(c.broken);
        assert_non_null(strstr(config_credit_disabled_by(&c), "30-reset.conf does not parse"));

        /* Precedence: the kernel command line over the files. */
        assert_int_equal(config_apply_cmdline(&c, "entropy_gate.timeout=1s entropy_gate.units=c.service entropy_gate.credit=0",
                                              record_warning, &w), 0);
        assert_true(c.timeout == USEC_PER_SEC);
        assert_false(c.credit);
        assert_string_equal(units_joined(&c), "a.service b.service c.service");
        assert_int_equal(w.n, 3);
        config_done(&c);
}

static void test_load_warning_names_file(void **state) {
        Warnings w = {};
        char expect[2 * PATH_MAX];
        Config c;

        write_file("main.conf", "[Gate]\n\nTimeout=never\n");
        assert_int_equal(config_load(&c, record_warning, &w), 0);
        assert_int_equal(w.n, 1);
        snprintf(expect, sizeof(expect), "%s%s:3: Invalid Timeout=never", root, CONF_FILE);
        assert_non_null(strstr(w.last, expect));
        config_done(&c);
}

static void test_load_not_a_file(void **state) {
        char path[2 * PATH_MAX];
        Config c;

        /* A loop is said to be one, not "a symbolic link". */
        snprintf(path, sizeof(path), "%s%s", root, CONF_FILE);
        assert_int_equal(symlink(strrchr(CONF_FILE, '/') + 1, path), 0);
        assert_int_equal(config_load(&c, NULL, NULL), 0);
        assert_non_null(c.broken);
        assert_non_null(strstr(c.broken, "cannot be read: a symbolic link loop"));
        config_done(&c);

        /* A FIFO with no writer: not waited for, not opened, not a regular file. */
        assert_int_equal(unlink(path), 0);
        assert_int_equal(mkfifo(path, 0644), 0);
        assert_int_equal(config_load(&c, NULL, NULL), 0);
        assert_non_null(c.broken);
        assert_non_null(strstr(c.broken, "cannot be read: not a regular file"));
        config_done(&c);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_table),
                cmocka_unit_test(test_no_warn_callback),
                cmocka_unit_test(test_cmdline_units),
                cmocka_unit_test(test_load_nothing),
                cmocka_unit_test_setup_teardown(test_load_order, setup_tree, teardown_tree),
                cmocka_unit_test_setup_teardown(test_load_warning_names_file, setup_tree, teardown_tree),
                cmocka_unit_test_setup_teardown(test_load_not_a_file, setup_tree, teardown_tree),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
