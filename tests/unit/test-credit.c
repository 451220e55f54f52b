// SPDX-License-Identifier: LGPL-2.1-or-later
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "credit.h"
#include "macro.h"

/* Every rule holds. */
static struct seed_facts good(void) {
        return (struct seed_facts) {
                .credit_enabled = true,
                .file_parsed = true,
                .creditable_flag = true,
                .machine_id_present = true,
                .binding_matches = true,
                .credit_without_machine_id = false,
                .machine_id_uninitialized = false,
                .first_boot_flag_present = false,
                .file_regular = true,
                .file_uid = 0,
                .file_mode = S_IFREG | 0600,
                .file_nlink = 1,
                .dir_uid = 0,
                .dir_mode = S_IFDIR | 0700,
                .replacement_durable = true,
        };
}

static void test_all_rules_hold(void **state) {
        struct seed_facts f = good();
        CreditDecision d = seed_credit_decide(&f);

        assert_true(d.credit);
        assert_int_equal(d.rule, 0);
        assert_string_equal(d.reason, "all rules hold");
        assert_true(seed_credit_rules_2_to_6_hold(&f));

        /* Stricter modes are fine too. */
        static const mode_t file_modes[] = { 0400, 0200, 0000, 0600 };
        static const mode_t dir_modes[] = { 0700, 0500, 0300, 01700 };
        for (size_t i = 0; i < ELEMENTSOF(file_modes); i++)
                for (size_t j = 0; j < ELEMENTSOF(dir_modes); j++) {
                        f.file_mode = S_IFREG | file_modes[i];
                        f.dir_mode = S_IFDIR | dir_modes[j];
                        assert_true(seed_credit_decide(&f).credit);
                }
}

/* Each rule failing alone: no credit, that rule named, the reason in words. */
static void test_each_rule_alone(void **state) {
        static const struct {
                unsigned rule;
                const char *field;
                const char *reason;
                bool in_2_to_6;
        } table[] = {
                { 1, "no-credit",         "crediting disabled (--no-credit)", false },
                { 1, "disabled-unnamed",  "crediting disabled", false },
                { 2, "parse",             "seed file does not parse: checksum mismatch", true },
                { 2, "parse-unnamed",     "seed file does not parse: invalid", true },
                { 3, "creditable",        "seed was written before the CRNG was initialized, or under no valid machine-id", true },
                { 4, "binding",           "seed is bound to another machine (machine-id changed: cloned image?)", true },
                { 5, "uninitialized",     "first boot (/etc/machine-id is uninitialized)", true },
                { 5, "first-boot",        "first boot (/run/systemd/first-boot exists)", true },
                { 6, "not-regular",       "seed file is not a regular file", true },
                { 6, "file-uid",          "seed file is owned by UID 1000, not root", true },
                { 6, "mode-0644",         "seed file is mode 0644, must be 0600 or stricter", true },
                { 6, "mode-0640",         "seed file is mode 0640, must be 0600 or stricter", true },
                { 6, "mode-0604",         "seed file is mode 0604, must be 0600 or stricter", true },
                { 6, "mode-0700",         "seed file is mode 0700, must be 0600 or stricter", true },
                { 6, "mode-4600",         "seed file is mode 4600, must be 0600 or stricter", true },
                { 6, "dir-uid",           "seed directory is owned by UID 65534, not root", true },
                { 6, "dir-g+w",           "seed directory is mode 0775, must be 0700 or stricter", true },
                { 6, "dir-o+w",           "seed directory is mode 1777, must be 0700 or stricter", true },
                { 6, "dir-0755",          "seed directory is mode 0755, must be 0700 or stricter", true },
                { 6, "dir-0711",          "seed directory is mode 0711, must be 0700 or stricter", true },
                { 4, "mid-invalid",       "/etc/machine-id is not a valid machine-id (32 hex digits, not all zero)", true },
                { 5, "first-boot-clone",  "first boot (/etc/machine-id is uninitialized)", true },
                { 7, "durable",           "replacement seed could not be written durably", false },
        };

        for (size_t i = 0; i < ELEMENTSOF(table); i++) {
                struct seed_facts f = good();
                const char *field = table[i].field;

                if (streq(field, "no-credit")) {
                        f.credit_enabled = false;
                        f.credit_disabled_by = "--no-credit";
                } else if (streq(field, "disabled-unnamed"))
                        f.credit_enabled = false;
                else if (streq(field, "parse")) {
                        f.file_parsed = false;
                        f.parse_error = "checksum mismatch";
                } else if (streq(field, "parse-unnamed"))
                        f.file_parsed = false;
                else if (streq(field, "creditable"))
                        f.creditable_flag = false;
                else if (streq(field, "binding"))
                        f.binding_matches = false;
                else if (streq(field, "uninitialized"))
                        f.machine_id_uninitialized = true;
                else if (streq(field, "first-boot"))
                        f.first_boot_flag_present = true;
                else if (streq(field, "not-regular"))
                        f.file_regular = false;
                else if (streq(field, "file-uid"))
                        f.file_uid = 1000;
                else if (streq(field, "mode-0644"))
                        f.file_mode = S_IFREG | 0644;
                else if (streq(field, "mode-0640"))
                        f.file_mode = S_IFREG | 0640;
                else if (streq(field, "mode-0604"))
                        f.file_mode = S_IFREG | 0604;
                else if (streq(field, "mode-0700"))
                        f.file_mode = S_IFREG | 0700;
                else if (streq(field, "mode-4600"))
                        f.file_mode = S_IFREG | 04600;
                else if (streq(field, "dir-uid"))
                        f.dir_uid = 65534;
                else if (streq(field, "dir-g+w"))
                        f.dir_mode = S_IFDIR | 0775;
                else if (streq(field, "dir-o+w"))
                        f.dir_mode = S_IFDIR | 01777;
                else if (streq(field, "dir-0755"))
                        f.dir_mode = S_IFDIR | 0755;
                else if (streq(field, "dir-0711"))
                        f.dir_mode = S_IFDIR | 0711;
                else if (streq(field, "mid-invalid"))
                        f.machine_id_invalid = true;
                else if (streq(field, "first-boot-clone")) {
                        /* An image's seed on a first boot: bound to the
                         * machine that made the image. */
                        f.machine_id_uninitialized = true;
                        f.binding_matches = false;
                }
                else if (streq(field, "durable"))
                        f.replacement_durable = false;
                else
                        fail_msg("unknown field %s", field);

                CreditDecision d = seed_credit_decide(&f);
                print_message("rule %u (%s): %s\n", table[i].rule, field, d.reason);
                assert_false(d.credit);
                assert_int_equal(d.rule, table[i].rule);
                assert_string_equal(d.reason, table[i].reason);
                /* Rules 1 and 7 do not decide whether the old seed was a secret
                 * of this machine alone. */
                assert_int_equal(seed_credit_rules_2_to_6_hold(&f), !table[i].in_2_to_6);
        }
}

/* The first failing rule is the one reported. */
static void test_first_rule_wins(void **state) {
        struct seed_facts f = good();
        f.replacement_durable = false;
        f.file_mode = 0666;
        f.machine_id_uninitialized = true;
        f.creditable_flag = false;
        assert_int_equal(seed_credit_decide(&f).rule, 3);
        f.credit_enabled = false;
        assert_int_equal(seed_credit_decide(&f).rule, 1);

        /* Nothing at all is true: rule 1. */
        struct seed_facts zero = {};
        CreditDecision d = seed_credit_decide(&zero);
        assert_false(d.credit);
        assert_int_equal(d.rule, 1);
}

/* No machine-id at all (OpenWrt): rule 4 holds only with the configuration
 * knob, and then only for an unbound file (binding_matches is computed
 * against the all-zero binding). */
static void test_no_machine_id(void **state) {
        struct seed_facts f = good();
        CreditDecision d;

        f.machine_id_present = false;
        f.binding_matches = true;    /* an unbound file */
        f.credit_without_machine_id = false;
        d = seed_credit_decide(&f);
        assert_false(d.credit);
        assert_int_equal(d.rule, 4);
        assert_string_equal(d.reason, "no machine-id to bind the seed to (CreditWithoutMachineId= is off)");
        assert_false(seed_credit_rules_2_to_6_hold(&f));

        f.credit_without_machine_id = true;
        d = seed_credit_decide(&f);
        assert_true(d.credit);
        assert_string_equal(d.reason, "all rules hold");
        assert_true(seed_credit_rules_2_to_6_hold(&f));

        /* A file bound to a machine-id that has vanished since. */
        f.binding_matches = false;
        d = seed_credit_decide(&f);
        assert_false(d.credit);
        assert_int_equal(d.rule, 4);
        assert_string_equal(d.reason, "seed is bound to a machine-id, but this system has none (cloned image?)");

        /* The knob changes nothing where a machine-id exists. */
        f = good();
        f.credit_without_machine_id = true;
        f.binding_matches = false;
        d = seed_credit_decide(&f);
        assert_false(d.credit);
        assert_int_equal(d.rule, 4);

        /* A machine-id that exists but is unreadable or invalid is never
         * "none": the knob does not let an unbound seed through. */
        f = good();
        f.machine_id_invalid = true;
        f.credit_without_machine_id = true;
        f.binding_matches = true;
        d = seed_credit_decide(&f);
        assert_false(d.credit);
        assert_int_equal(d.rule, 4);
        assert_false(seed_credit_rules_2_to_6_hold(&f));

        /* Nor does it skip the first-boot flag. */
        f = good();
        f.machine_id_present = false;
        f.credit_without_machine_id = true;
        f.first_boot_flag_present = true;
        d = seed_credit_decide(&f);
        assert_false(d.credit);
        assert_int_equal(d.rule, 5);
}

static void test_replacement_creditable(void **state) {
        assert_true(seed_replacement_creditable(true, true));
        assert_true(seed_replacement_creditable(true, false));
        assert_true(seed_replacement_creditable(false, true));
        /* A clone's replacement: a shared seed and early-boot bytes. */
        assert_false(seed_replacement_creditable(false, false));

        /* The chain as entropy-seed load uses it: a cloned image (binding
         * changed) before the CRNG is ready gives a non-creditable
         * replacement, even with crediting enabled and the write durable. */
        struct seed_facts f = good();
        f.binding_matches = false;
        assert_false(seed_replacement_creditable(seed_credit_rules_2_to_6_hold(&f), false));
        /* --no-credit does not make an otherwise good seed's successor worse. */
        f = good();
        f.credit_enabled = false;
        assert_true(seed_replacement_creditable(seed_credit_rules_2_to_6_hold(&f), false));
}

/* The VM generation (part of rule 4): a seed saved in one is credited only
 * in that same one; a seed saved in none keeps the machine-id rule alone. */
static void test_vm_generation(void **state) {
        struct seed_facts f = good();
        CreditDecision d;

        /* Saved in none: whatever this boot can read. */
        f.generation_readable = true;
        assert_true(seed_credit_decide(&f).credit);
        f.generation_readable = false;
        assert_true(seed_credit_decide(&f).credit);

        /* Same generation. */
        f.seed_generation_bound = true;
        f.generation_readable = true;
        f.generation_matches = true;
        assert_true(seed_credit_decide(&f).credit);
        assert_true(seed_credit_rules_2_to_6_hold(&f));

        /* Another generation: a restored snapshot or a clone. */
        f.generation_matches = false;
        d = seed_credit_decide(&f);
        assert_false(d.credit);
        assert_int_equal(d.rule, 4);
        assert_string_equal(d.reason, "VM generation changed since this seed was saved: restored snapshot or clone");
        assert_false(seed_credit_rules_2_to_6_hold(&f));

        /* None readable now (a stale "matches" must not count). */
        f.generation_readable = false;
        f.generation_matches = true;
        d = seed_credit_decide(&f);
        assert_false(d.credit);
        assert_int_equal(d.rule, 4);
        assert_string_equal(d.reason, "seed was saved in a VM generation, but none can be read now: restored "
                            "snapshot or clone?");
        assert_false(seed_credit_rules_2_to_6_hold(&f));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_all_rules_hold),
                cmocka_unit_test(test_each_rule_alone),
                cmocka_unit_test(test_first_rule_wins),
                cmocka_unit_test(test_no_machine_id),
                cmocka_unit_test(test_replacement_creditable),
                cmocka_unit_test(test_vm_generation),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
