// SPDX-License-Identifier: LGPL-2.1-or-later
/* The one machine-id parser: what counts as an id, as "uninitialized", as
 * absent, and that everything else counts as invalid; read inside a root,
 * following symlinks; and the boot id. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "io-util.h"
#include "machine-id.h"
#include "macro.h"
#include "root.h"
#include "test-util.h"

#define ID "4c6f6e6720736565642074657374000a"

static void check(const char *text, size_t n, MachineIdState want, const char *want_id) {
        MachineId m;

        machine_id_parse(text, n, &m);
        if (m.state != want)
                fail_msg("'%.*s': %s, expected %s", (int) n, text, machine_id_state_to_string(m.state),
                         machine_id_state_to_string(want));
        if (want_id)
                assert_string_equal(machine_id_get(&m), want_id);
        else
                assert_null(machine_id_get(&m));
        assert_int_equal(m.raw_size, MIN(n, sizeof(m.raw)));
}
#define CHECK(s, want, id) check(s, sizeof(s) - 1, want, id)

static void test_parse(void **state) {
        CHECK(ID "\n", MACHINE_ID_VALID, ID);
        CHECK(ID, MACHINE_ID_VALID, ID);
        CHECK("4C6F6E6720736565642074657374000A\n", MACHINE_ID_VALID, ID);
        CHECK("uninitialized\n", MACHINE_ID_UNINITIALIZED, NULL);
        CHECK("uninitialized", MACHINE_ID_UNINITIALIZED, NULL);
        CHECK("", MACHINE_ID_EMPTY, NULL);
        CHECK("\n", MACHINE_ID_EMPTY, NULL);
        /* Anything else is invalid: never "no machine-id". */
        CHECK(ID "\n\n", MACHINE_ID_INVALID, NULL);
        CHECK(" " ID "\n", MACHINE_ID_INVALID, NULL);
        CHECK(ID " \n", MACHINE_ID_INVALID, NULL);
        CHECK("4c6f6e6720736565642074657374000\n", MACHINE_ID_INVALID, NULL);
        CHECK("4c6f6e6720736565642074657374000a0\n", MACHINE_ID_INVALID, NULL);
        CHECK("4c6f6e6720736565642074657374000g\n", MACHINE_ID_INVALID, NULL);
        CHECK("4c6f6e67-2073-6565-6420-74657374000a\n", MACHINE_ID_INVALID, NULL);
        CHECK("Uninitialized\n", MACHINE_ID_INVALID, NULL);
        CHECK("4c6f6e6720736565\0" "42074657374000a\n", MACHINE_ID_INVALID, NULL);
        check("x", 1, MACHINE_ID_INVALID, NULL);
        /* All zeros is systemd's "no ID", and the same on every machine
         * whose init system keeps it. */
        CHECK("00000000000000000000000000000000\n", MACHINE_ID_INVALID, NULL);
        CHECK("00000000000000000000000000000001\n", MACHINE_ID_VALID, "00000000000000000000000000000001");
        assert_true(machine_id_is_valid(ID));
        assert_false(machine_id_is_valid(""));
        assert_false(machine_id_is_valid("00000000000000000000000000000000"));
}

static char root[PATH_MAX];

static void write_at(const char *rel, const char *content, mode_t mode) {
        test_write(root, rel, content, strlen(content), mode);
}

static void path_at(const char *rel, char *buf, size_t size) {
        snprintf(buf, size, "%s/%s", root, rel);
}

static void test_read(void **state) {
        char p[PATH_MAX + 64];
        MachineId m;

        test_tmpdir(root, "test-machine-id");
        test_mkdir_p(root, "etc");
        root_set(root);

        machine_id_read(&m);
        assert_int_equal(m.state, MACHINE_ID_ABSENT);

        write_at("etc/machine-id", ID "\n", 0444);
        machine_id_read(&m);
        assert_int_equal(m.state, MACHINE_ID_VALID);
        assert_string_equal(m.id, ID);

        /* A symlink is followed (inside the root), as systemd does. */
        write_at("etc/real-id", ID "\n", 0444);
        path_at("etc/machine-id", p, sizeof(p));
        assert_int_equal(unlink(p), 0);
        assert_int_equal(symlink("/etc/real-id", p), 0);
        machine_id_read(&m);
        assert_int_equal(m.state, MACHINE_ID_VALID);

        /* A dangling link is an id elsewhere, not none. */
        assert_int_equal(unlink(p), 0);
        assert_int_equal(symlink("/run/machine-id", p), 0);
        machine_id_read(&m);
        assert_int_equal(m.state, MACHINE_ID_INVALID);

        /* A directory, a FIFO, a huge file: there, but not an id. */
        assert_int_equal(unlink(p), 0);
        assert_int_equal(mkdir(p, 0755), 0);
        machine_id_read(&m);
        assert_int_equal(m.state, MACHINE_ID_INVALID);
        assert_int_equal(rmdir(p), 0);
        assert_int_equal(mkfifo(p, 0644), 0);
        machine_id_read(&m);
        assert_int_equal(m.state, MACHINE_ID_INVALID);
        assert_int_equal(unlink(p), 0);
        write_at("etc/machine-id", ID ID ID "\n", 0444);
        machine_id_read(&m);
        assert_int_equal(m.state, MACHINE_ID_INVALID);
        assert_int_equal(m.error, -EFBIG);

        /* An unreadable one (without CAP_DAC_OVERRIDE): invalid with its error. */
        write_at("etc/machine-id", ID "\n", 0000);
        if (geteuid() != 0) {
                machine_id_read(&m);
                assert_int_equal(m.state, MACHINE_ID_INVALID);
                assert_int_equal(m.error, -EACCES);
        }
}

static void test_boot_id(void **state) {
        char id[MACHINE_ID_HEX_LEN + 1];

        test_mkdir_p(root, "proc/sys/kernel/random");
        assert_int_equal(boot_id_read(id), -ENOENT);
        write_at("proc/sys/kernel/random/boot_id", "4C6F6E67-2073-6565-6420-74657374000A\n", 0444);
        assert_int_equal(boot_id_read(id), 0);
        assert_string_equal(id, ID);
        write_at("proc/sys/kernel/random/boot_id", "4c6f6e67-2073-6565-6420-74657374000\n", 0444);
        assert_int_equal(boot_id_read(id), -EBADMSG);
        write_at("proc/sys/kernel/random/boot_id", "4c6f6e67-2073-6565-6420-74657374000az\n", 0444);
        assert_int_equal(boot_id_read(id), -EBADMSG);

        /* The running kernel's. */
        root_set(NULL);
        assert_int_equal(boot_id_read(id), 0);
        assert_true(machine_id_is_valid(id));
}

static int teardown(void **state) {
        test_rm_rf(root);
        return 0;
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_parse),
                cmocka_unit_test(test_read),
                cmocka_unit_test(test_boot_id),
        };
        return cmocka_run_group_tests(tests, NULL, teardown);
}
