/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>

#include "check-image.h"
#include "credential-format.h"
#include "json.h"

/* entropyctl's exit codes, as documented in entropyctl(1). */
enum {
        CTL_EXIT_OK = 0,
        CTL_EXIT_FAILURE = 1,        /* an error; check-image: something found */
        CTL_EXIT_USAGE = 2,
        CTL_EXIT_NOT_READY = 3,      /* status: the CRNG is not initialized */
};

/* The options, parsed once by main() and handed to every verb. */
typedef struct CtlArgs {
        JsonFormat json;             /* --json=; JSON_FORMAT_OFF: text */
        bool quiet;                  /* -q: nothing on standard output, the exit status answers */
        bool no_pager;
        /* check-image */
        const char *root;            /* --root=, or the positional ROOT */
        bool fix, force;
        bool cross_mounts;           /* --cross-mounts: walk into what is mounted inside the tree */
        MachineIdReset machine_id;   /* --machine-id=; _MACHINE_ID_RESET_INVALID: not given */
        /* plot, metrics */
        const char *compare;         /* plot --compare=: a saved timeline drawn below */
        const char *output;          /* --output=: the file to replace (credential: to create); NULL: standard output */
        /* credential */
        CredentialFormat format;     /* --format=; _CREDENTIAL_FORMAT_INVALID: not given */
        unsigned bits;               /* --bits=; 0: not given */
} CtlArgs;

/* One per subcommand; @argv holds the subcommand's arguments (argv[0] is
 * the subcommand). Each returns an exit code. */
int verb_status(int argc, char *argv[], const CtlArgs *a);
int verb_timeline(int argc, char *argv[], const CtlArgs *a);
int verb_check_image(int argc, char *argv[], const CtlArgs *a);
int verb_plot(int argc, char *argv[], const CtlArgs *a);
int verb_metrics(int argc, char *argv[], const CtlArgs *a);
int verb_credential(int argc, char *argv[], const CtlArgs *a);
