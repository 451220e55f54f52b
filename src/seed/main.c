// SPDX-License-Identifier: LGPL-2.1-or-later
/* entropy-seed: credit the seed saved on the previous boot, at most once,
 * and save the next one. The front end: options, configuration layers, the
 * verb table, exit codes. The work is in seed-run.c. */
#include <getopt.h>
#include <stdio.h>

#include "config.h"
#include "log.h"
#include "macro.h"
#include "paths.h"
#include "proc-cmdline.h"
#include "seed-run.h"

enum {
        EXIT_DONE = 0,   /* done, credited or not */
        EXIT_ERROR = 1,
        EXIT_USAGE = 2,
};

static const struct {
        const char *name;
        int (*run)(const SeedOptions *o);
} verbs[] = {
        { "load", seed_load },
        { "save", seed_save },
};

static void help(void) {
        printf("%s load|save [OPTIONS...]\n"
               "\n"
               "Credit the seed saved on the previous boot to the kernel's random pool,\n"
               "at most once, and replace it; or save a new seed at shutdown.\n"
               "\n"
               "  load            mix the machine-id and legacy seeds, rotate the seed,\n"
               "                  credit the old one if every rule holds\n"
               "  save            write a new seed (never blocks)\n"
               "\n"
               "  -h --help       show this help\n"
               "     --version    show the version\n"
               "     --seed-dir=DIR  seed directory (default %s)\n"
               "     --no-credit  mix seeds into the pool, never credit them\n"
               "\n"
               "See entropy-seed(8).\n",
               program_invocation_short_name, SEED_DIR_DEFAULT);
}

static void warn_config(void *userdata, const char *source, unsigned line, const char *message) {
        if (line > 0)
                log_warning("%s:%u: %s", source, line, message);
        else
                log_warning("%s: %s", source, message);
}

int main(int argc, char *argv[]) {
        enum { ARG_VERSION = 0x100, ARG_SEED_DIR, ARG_NO_CREDIT };
        static const struct option options[] = {
                { "help",      no_argument,       NULL, 'h'           },
                { "version",   no_argument,       NULL, ARG_VERSION   },
                { "seed-dir",  required_argument, NULL, ARG_SEED_DIR  },
                { "no-credit", no_argument,       NULL, ARG_NO_CREDIT },
                {}
        };
        _cleanup_free_ char *cmdline = NULL;
        const char *arg_seed_dir = NULL, *disabled_by = NULL;
        bool arg_no_credit = false, credit_after_files;
        Config config;
        SeedOptions o;
        int c, r;

        log_open("entropy-seed");

        while ((c = getopt_long(argc, argv, "h", options, NULL)) >= 0)
                switch (c) {
                case 'h':
                        help();
                        return EXIT_DONE;
                case ARG_VERSION:
                        printf("entropy-seed %s\n", PROJECT_VERSION);
                        return EXIT_DONE;
                case ARG_SEED_DIR:
                        if (!*optarg) {
                                log_error("--seed-dir= needs a directory");
                                return EXIT_USAGE;
                        }
                        arg_seed_dir = optarg;
                        break;
                case ARG_NO_CREDIT:
                        arg_no_credit = true;
                        break;
                default:
                        return EXIT_USAGE;
                }

        if (optind + 1 != argc) {
                log_error(optind >= argc ? "Missing verb: load or save (see --help)"
                                         : "Too many arguments (see --help)");
                return EXIT_USAGE;
        }

        for (size_t i = 0; i < ELEMENTSOF(verbs); i++) {
                if (!streq(argv[optind], verbs[i].name))
                        continue;

                /* Layers, lowest precedence first: defaults, configuration
                 * files, the kernel command line, options. */
                r = config_init(&config);
                if (r < 0) {
                        log_error_errno(r, "Out of memory");
                        return EXIT_ERROR;
                }
                r = config_load_files(&config, warn_config, NULL);
                if (r < 0) {
                        config_done(&config);
                        log_error_errno(r, "Failed to load the configuration: %m");
                        return EXIT_ERROR;
                }
                credit_after_files = config.credit;

                r = proc_cmdline_read(&cmdline);
                if (r < 0)
                        log_warning_errno(r, "Failed to read the kernel command line, ignoring: %m");
                else {
                        r = config_apply_cmdline(&config, cmdline, warn_config, NULL);
                        if (r < 0) {
                                config_done(&config);
                                log_error_errno(r, "Failed to apply the kernel command line: %m");
                                return EXIT_ERROR;
                        }
                }

                if (arg_no_credit)
                        disabled_by = "--no-credit";
                else if (!config.credit && credit_after_files)
                        disabled_by = "entropy_gate.credit=0 on the kernel command line";
                else if (!config.credit)
                        disabled_by = "Credit=no in [Seed] of the configuration";

                o = (SeedOptions) {
                        .seed_dir = arg_seed_dir ?: config.seed_dir,
                        .credit = config.credit && !arg_no_credit,
                        .credit_disabled_by = disabled_by,
                        .credit_without_machine_id = config.credit_without_machine_id,
                };
                r = verbs[i].run(&o);
                config_done(&config);
                return r < 0 ? EXIT_ERROR : EXIT_DONE;
        }

        log_error("Unknown verb \"%s\": load or save (see --help)", argv[optind]);
        return EXIT_USAGE;
}
