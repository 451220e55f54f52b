/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

/* Whether to credit the seed read at boot: a pure function of facts the
 * caller gathers (file, stat() results, machine-id, configuration), so every
 * rule can be table-tested without a kernel or root. The seven rules, and
 * why each exists, are described above seed_credit_decide() in credit.c and
 * in docs/design.md and entropy-seed(8) ("CREDITING RULES"). */

struct seed_facts {
        /* Rule 1: configuration. */
        bool credit_enabled;
        const char *credit_disabled_by;   /* e.g. "--no-credit", "entropy_gate.credit=0"; NULL: unnamed */

        /* Rule 2: the file. */
        bool file_parsed;
        const char *parse_error;          /* seed_file_parse()'s reason when !file_parsed; NULL: unnamed */

        /* Rule 3: the creditable flag stored in the file. */
        bool creditable_flag;

        /* Rule 4: machine binding. */
        bool machine_id_present;          /* /etc/machine-id exists (whatever it holds) */
        bool machine_id_invalid;          /* it exists but is neither 32 hex digits nor "uninitialized" */
        bool binding_matches;             /* file binding == seed_binding_compute(current id, or NULL) */
        bool credit_without_machine_id;   /* configuration: CreditWithoutMachineId= */
        /* ... and to this VM generation (vm-generation.h). */
        bool seed_generation_bound;       /* the file records the VM generation it was saved in */
        bool generation_readable;         /* this boot's VM generation could be read */
        bool generation_matches;          /* ... and is the one the file records */

        /* Rule 5: first boot. */
        bool machine_id_uninitialized;    /* /etc/machine-id says "uninitialized" */
        bool first_boot_flag_present;     /* /run/systemd/first-boot exists */

        /* Rule 6: ownership and permissions (from fstat of the open file
         * and of the directory fd): the file 0600 or stricter, the
         * directory 0700 or stricter, both root's. */
        bool file_regular;
        uid_t file_uid;
        mode_t file_mode;
        unsigned long file_nlink;         /* one: a hard link elsewhere would be another name for it */
        uid_t dir_uid;
        mode_t dir_mode;

        /* Rule 7: the replacement seed was written, fsynced, renamed over
         * the old one and the directory fsynced. */
        bool replacement_durable;
};

/* Room for a whole path (a --root tree may be deep) and the words around
 * it: no reason is cut short. */
#define CREDIT_REASON_MAX (PATH_MAX + 256)

typedef struct CreditDecision {
        bool credit;
        unsigned rule;                    /* the first rule that failed, 1..7; 0 when crediting */
        char reason[CREDIT_REASON_MAX];   /* "all rules hold", or why not, in words */
} CreditDecision;

/* Apply the rules in order; the first that fails decides the reason. */
CreditDecision seed_credit_decide(const struct seed_facts *facts);

/* Rules 2..6 only: does the old seed pass as a secret this machine alone
 * holds? (Rule 1 is a policy of this boot and rule 7 is not known yet when
 * the replacement is marked.) */
bool seed_credit_rules_2_to_6_hold(const struct seed_facts *facts);

/* The creditable mark of the replacement seed written by "load" (its step
 * "derive the next seed" in entropy-seed(8)): creditable only when derived from a secret this machine alone held (the
 * old seed passed rules 2..6) or when the fresh bytes came from an
 * initialized CRNG. A clone's replacement, derived from a seed every clone
 * shares plus possibly predictable early-boot bytes, never is. */
bool seed_replacement_creditable(bool old_seed_passed_rules_2_to_6, bool fresh_from_initialized_crng);
