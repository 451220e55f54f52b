// SPDX-License-Identifier: LGPL-2.1-or-later
/* entropyctl: inspect the kernel's random pool and entropy-gate's work. */
#include <getopt.h>
#include <stdio.h>

#include "ctl.h"
#include "log.h"
#include "macro.h"
#include "paths.h"

typedef struct Verb {
        const char *name;
        unsigned min_args, max_args;   /* not counting the verb itself */
        bool json, fix;                /* options it accepts */
        int (*run)(int argc, char *argv[], const CtlArgs *a);
        const char *synopsis;
        const char *help;
} Verb;

static const Verb verbs[] = {
        { "status",      0, 0, true,  false, verb_status,      "status [--json]",
          "Show the random pool, hardware RNGs, the seed file and this boot's results" },
        { "timeline",    0, 0, false, false, verb_timeline,    "timeline",
          "Show this boot's events, from kernel start to the units gated on entropy" },
        { "check-image", 1, 1, false, true,  verb_check_image, "check-image ROOT [--fix]",
          "List what every clone of an image root would share; --fix removes it" },
};

static void help(void) {
        printf("Usage: entropyctl [OPTIONS] COMMAND ...\n\n"
               "Inspect the kernel's random pool and entropy-gate.\n\n"
               "Commands:\n");
        for (size_t i = 0; i < ELEMENTSOF(verbs); i++)
                printf("  %-26s %s\n", verbs[i].synopsis, verbs[i].help);
        printf("\nOptions:\n"
               "  -h --help                  Show this help\n"
               "     --version               Show the version\n"
               "     --json                  status: print JSON (see entropyctl(1))\n"
               "     --fix                   check-image: remove what clones would share\n"
               "\nSee entropyctl(1).\n");
}

int main(int argc, char *argv[]) {
        enum { ARG_VERSION = 0x100, ARG_JSON, ARG_FIX };
        static const struct option options[] = {
                { "help",    no_argument, NULL, 'h' },
                { "version", no_argument, NULL, ARG_VERSION },
                { "json",    no_argument, NULL, ARG_JSON },
                { "fix",     no_argument, NULL, ARG_FIX },
                {}
        };
        CtlArgs a = {};
        const Verb *verb = NULL;
        unsigned nargs;
        int c;

        log_open("entropyctl", LOG_TARGET_STDERR);

        while ((c = getopt_long(argc, argv, "h", options, NULL)) >= 0)
                switch (c) {
                case 'h':
                        help();
                        return CTL_EXIT_OK;
                case ARG_VERSION:
                        printf("entropyctl %s\n", PROJECT_VERSION);
                        return CTL_EXIT_OK;
                case ARG_JSON:
                        a.json = true;
                        break;
                case ARG_FIX:
                        a.fix = true;
                        break;
                default:
                        return CTL_EXIT_USAGE;
                }

        if (optind >= argc) {
                log_error("Missing command; see --help.");
                return CTL_EXIT_USAGE;
        }
        for (size_t i = 0; i < ELEMENTSOF(verbs); i++)
                if (streq(argv[optind], verbs[i].name))
                        verb = verbs + i;
        if (!verb) {
                log_error("Unknown command '%s'; see --help.", argv[optind]);
                return CTL_EXIT_USAGE;
        }
        nargs = (unsigned) (argc - optind - 1);
        if (nargs < verb->min_args || nargs > verb->max_args) {
                log_error("Usage: entropyctl %s", verb->synopsis);
                return CTL_EXIT_USAGE;
        }
        if ((a.json && !verb->json) || (a.fix && !verb->fix)) {
                log_error("%s does not take %s.", verb->name, a.json ? "--json" : "--fix");
                return CTL_EXIT_USAGE;
        }
        return verb->run(argc - optind, argv + optind, &a);
}
