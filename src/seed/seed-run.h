/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>

/* The verbs of entropy-seed. They are the front end's body: they log (once
 * per event, with context) and return 0 when the job was done, whether or
 * not a seed was credited, or a negative errno already logged, which main()
 * maps to exit status 1. Each runs once per process: the seed directory
 * stays open and locked until the process exits, which releases the lock
 * with the fd (no close() right before exit). */

typedef struct SeedOptions {
        const char *seed_dir;               /* the seed directory, inside the root (resolved by root.h) */
        const char *seed_dir_shown;         /* the same with the root in front, for messages */
        bool cross_mounts;                  /* provision: may pass mount points inside the tree */
        bool credit;
        const char *credit_disabled_by;     /* who turned crediting off, for the message */
        bool credit_without_machine_id;
        bool credit_credential_without_memory;
        const char *machine_id;             /* provision --machine-id=, or NULL */
        bool credential_only;               /* load --credential-only: no seed directory (the initrd) */
        const char *cmdline;                /* the kernel command line, NULL when unknown */
} SeedOptions;

int seed_load(const SeedOptions *o);
int seed_save(const SeedOptions *o);
int seed_provision(const SeedOptions *o);   /* ENTROPY_GATE_PROVISION builds only */
