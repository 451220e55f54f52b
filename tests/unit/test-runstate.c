// SPDX-License-Identifier: LGPL-2.1-or-later
/* The records in /run/entropy-gate: one formatter and one parser each, round
 * trips, unknown fields, hostile text; and the files themselves. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "macro.h"
#include "root.h"
#include "runstate.h"
#include "test-util.h"

static void test_string_tables(void **state) {
        for (int i = 0; i < _RECORD_OUTCOME_MAX; i++)
                assert_int_equal(record_outcome_from_string(record_outcome_to_string(i)), i);
        for (int i = 0; i < _SEED_ACTION_MAX; i++)
                assert_int_equal(seed_action_from_string(seed_action_to_string(i)), i);
        for (int i = 0; i < _CREDENTIAL_MAX; i++)
                assert_int_equal(credential_result_from_string(credential_result_to_string(i)), i);
        assert_string_equal(record_outcome_to_string(RECORD_OUTCOME_TIMEOUT_PROCEED), "timeout-proceed");
        assert_string_equal(seed_action_to_string(SEED_ACTION_NOT_CREDITED), "not-credited");
        assert_int_equal(record_outcome_from_string("nope"), _RECORD_OUTCOME_INVALID);
        assert_null(record_outcome_to_string(_RECORD_OUTCOME_INVALID));
}

static void test_gate_record(void **state) {
        GateRecord in = {
                .outcome = RECORD_OUTCOME_READY,
                .ready_at_start = 0,
                .start_usec = 1500000,
                .end_usec = 2500001,
                .waited_usec = 1000001,
        }, out;
        char buf[256];

        assert_true(gate_record_format(&in, buf, sizeof(buf)) > 0);
        assert_string_equal(buf, "OUTCOME=ready\nREADY_AT_START=no\nSTART_BOOTTIME_USEC=1500000\n"
                                 "END_BOOTTIME_USEC=2500001\nWAITED_USEC=1000001\n");
        gate_record_parse(buf, &out);
        assert_memory_equal(&in, &out, sizeof(in));
        assert_int_equal(gate_record_format(&in, buf, 20), -ENOBUFS);

        /* Missing and unknown keys, junk values: unknown, never a crash. */
        gate_record_parse("FUTURE=1\nOUTCOME=sideways\nWAITED_USEC=12x\nREADY_AT_START=yes\nnoequals\n", &out);
        assert_int_equal(out.outcome, _RECORD_OUTCOME_INVALID);
        assert_true(out.waited_usec == RUNSTATE_UNKNOWN);
        assert_true(out.start_usec == RUNSTATE_UNKNOWN);
        assert_int_equal(out.ready_at_start, 1);
        gate_record_parse("WAITED_USEC=99999999999999999999999\nEND_BOOTTIME_USEC=\n", &out);
        assert_true(out.waited_usec == RUNSTATE_UNKNOWN);
        assert_true(out.end_usec == RUNSTATE_UNKNOWN);
        gate_record_parse("", &out);
        assert_int_equal(out.ready_at_start, -1);
}

static void test_seed_record(void **state) {
        SeedRecord in = {
                .boot_id = "0123456789abcdef0123456789abcdef",
                .action = SEED_ACTION_NOT_CREDITED,
                .bits = 0,
                .seed_path = "/var/lib/entropy-gate/seed",
                .reason = "first boot\n(/etc/machine-id is uninitialized)",
                .credential = CREDENTIAL_MIXED,
                .credential_bits = 0,
                .credential_hash = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff",
                .legacy_mixed = 2,
                .replacement_creditable = 1,
                .boottime_usec = 123,
        }, out;
        char buf[RUNSTATE_MAX];

        assert_true(seed_record_format(&in, buf, sizeof(buf)) > 0);
        /* A newline in a value cannot start a key of its own, and comes
         * back as it was. */
        assert_non_null(strstr(buf, "REASON=first boot\\x0a(/etc/machine-id is uninitialized)\n"));
        seed_record_parse(buf, &out);
        assert_string_equal(out.boot_id, in.boot_id);
        assert_int_equal(out.action, in.action);
        assert_true(out.bits == 0);
        assert_string_equal(out.seed_path, in.seed_path);
        assert_string_equal(out.reason, in.reason);
        assert_int_equal(out.credential, CREDENTIAL_MIXED);
        assert_string_equal(out.credential_hash, in.credential_hash);
        assert_true(out.legacy_mixed == 2);
        assert_int_equal(out.replacement_creditable, 1);
        assert_true(out.boottime_usec == 123);

        /* The record of a version without BOOT_ID still parses. */
        seed_record_parse("ACTION=credited\nBITS=256\nREASON=\n", &out);
        assert_string_equal(out.boot_id, "");
        assert_int_equal(out.action, SEED_ACTION_CREDITED);
        assert_true(out.bits == 256);
        assert_int_equal(out.credential, _CREDENTIAL_INVALID);
}

/* Any byte but NUL in a path survives the record: no byte lost, none
 * changed, and a value that cannot be decoded is unknown, never altered. */
static void test_seed_record_any_byte(void **state) {
        SeedRecord in = { .action = SEED_ACTION_CREDITED }, out;
        char buf[RUNSTATE_MAX];
        size_t n = 0;

        for (unsigned c = 1; c < 256; c++)
                in.seed_path[n++] = (char) c;
        memcpy(in.seed_path + n, "\\x41\\", 5);
        assert_true(seed_record_format(&in, buf, sizeof(buf)) > 0);
        for (const char *p = buf; *p; p++)
                assert_true((unsigned char) *p < 0x80 && (*p == '\n' || (unsigned char) *p >= 0x20));
        seed_record_parse(buf, &out);
        assert_memory_equal(out.seed_path, in.seed_path, sizeof(in.seed_path));

        seed_record_parse("SEED_PATH=/a\\x0\n", &out);
        assert_string_equal(out.seed_path, "");
        seed_record_parse("SEED_PATH=/a\\x00b\n", &out);
        assert_string_equal(out.seed_path, "");
        seed_record_parse("SEED_PATH=/a\\y41\n", &out);
        assert_string_equal(out.seed_path, "");
        seed_record_parse("SEED_PATH=/a\\x\n", &out);
        assert_string_equal(out.seed_path, "");
        seed_record_parse("SEED_PATH=/plain/\\x09tab\n", &out);
        assert_string_equal(out.seed_path, "/plain/\ttab");
}

static void test_ledger(void **state) {
        Ledger l = { .boot_id = "0123456789abcdef0123456789abcdef" }, out;
        char buf[RUNSTATE_MAX], id[LEDGER_ID_MAX];
        static const char *const bad[] = {
                "",
                "DIRECTORY=1:2\n",                                         /* no boot first */
                "BOOT_ID=0123456789abcdef0123456789abcdef",                /* cut short */
                "BOOT_ID=0123456789abcdef0123456789abcdef\nSEED=00\n",     /* a hash cut short */
                "BOOT_ID=0123456789abcdef0123456789abcdef\nDIRECTORY=1:2",  /* no newline at the end */
                "BOOT_ID=0123456789abcdef0123456789abcdef\nOTHER=1\n",     /* unknown */
                "BOOT_ID=0123456789ABCDEF0123456789abcdef\n",              /* upper case */
                "BOOT_ID=0123456789abcdef0123456789abcdef\nDIRECTORY=:2\n",
                "BOOT_ID=0123456789abcdef0123456789abcdef\nDIRECTORY=1:\n",
                "BOOT_ID=0123456789abcdef0123456789abcdef\nDIRECTORY=1:2:3\n",
                "BOOT_ID=0123456789abcdef0123456789abcdef\n\n",
        };

        ledger_directory_id(0x803, 1234567, id);
        assert_string_equal(id, "803:12d687");
        assert_int_equal(ledger_add(&l, LEDGER_DIRECTORY, id), 1);
        assert_int_equal(ledger_add(&l, LEDGER_DIRECTORY, id), 0);
        assert_int_equal(ledger_add(&l, LEDGER_SEED, "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"), 1);
        assert_int_equal(ledger_add(&l, LEDGER_SEED, "short"), -EINVAL);
        assert_int_equal(ledger_add(&l, LEDGER_CREDENTIAL, id), -EINVAL);
        /* A replacement written is its own kind: not a seed credited. */
        assert_int_equal(ledger_add(&l, LEDGER_NEXT, "ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100"), 1);
        assert_true(ledger_format(&l, buf, sizeof(buf)) > 0);
        assert_non_null(strstr(buf, "\nNEXT=ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100\n"));
        assert_int_equal(ledger_parse(buf, &out), 0);
        assert_string_equal(out.boot_id, l.boot_id);
        assert_true(ledger_has(&out, LEDGER_DIRECTORY, id));
        assert_false(ledger_has(&out, LEDGER_SEED, id));
        assert_true(ledger_has(&out, LEDGER_SEED, "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"));
        assert_true(ledger_has(&out, LEDGER_NEXT, "ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100"));
        assert_false(ledger_has(&out, LEDGER_SEED, "ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100"));
        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                assert_int_equal(ledger_parse(bad[i], &out), -EBADMSG);
        /* Full is an error, never a silent drop. */
        l.n = 0;
        for (unsigned i = 0; i < LEDGER_ENTRIES_MAX; i++) {
                ledger_directory_id(1, i, id);
                assert_int_equal(ledger_add(&l, LEDGER_DIRECTORY, id), 1);
        }
        ledger_directory_id(2, 0, id);
        assert_int_equal(ledger_add(&l, LEDGER_DIRECTORY, id), -ENOSPC);
}

static void test_files(void **state) {
        char *text = NULL, root[PATH_MAX], path[PATH_MAX + 64];
        GateRecord g;
        SeedRecord s;
        struct stat st;

        test_tmpdir(root, "test-runstate");
        test_mkdir_p(root, "run");
        root_set(root);
        snprintf(path, sizeof(path), "%s/run/entropy-gate", root);
        assert_string_equal(runstate_dir(), path);

        assert_int_equal(gate_record_read(&g), 0);
        assert_int_equal(g.outcome, _RECORD_OUTCOME_INVALID);
        assert_int_equal(runstate_read(RUNSTATE_SEED, &text), -ENOENT);

        assert_int_equal(runstate_write(RUNSTATE_GATE, "OUTCOME=timeout-fail\nWAITED_USEC=5\n"), 0);
        assert_int_equal(stat(path, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0755);
        assert_int_equal(gate_record_read(&g), 1);
        assert_int_equal(g.outcome, RECORD_OUTCOME_TIMEOUT_FAIL);
        assert_true(g.waited_usec == 5);
        assert_int_equal(runstate_write(RUNSTATE_SEED, "ACTION=error\n"), 0);
        assert_int_equal(seed_record_read(&s), 1);
        assert_int_equal(s.action, SEED_ACTION_ERROR);

        /* Not followed: a record that is a symlink is not read. */
        snprintf(path, sizeof(path), "%s/run/entropy-gate/gate", root);
        assert_int_equal(unlink(path), 0);
        assert_int_equal(symlink("seed", path), 0);
        assert_int_equal(gate_record_read(&g), -ELOOP);

        test_rm_rf(root);
        root_set(NULL);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_string_tables),
                cmocka_unit_test(test_gate_record),
                cmocka_unit_test(test_seed_record),
                cmocka_unit_test(test_seed_record_any_byte),
                cmocka_unit_test(test_ledger),
                cmocka_unit_test(test_files),
        };
        umask(022);
        return cmocka_run_group_tests(tests, NULL, NULL);
}
