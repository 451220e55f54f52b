// SPDX-License-Identifier: LGPL-2.1-or-later
/* entropy-seed: credit the seed saved on the previous boot, at most once,
 * and save the next one. The front end: options, the configuration, the
 * verb table, exit codes. The work is in seed-run.c. */
#include <getopt.h>
#include <stdio.h>

#include "config.h"
#include "io-util.h"
#include "log.h"
#include "machine-id.h"
#include "macro.h"
#include "multicall.h"
#include "paths.h"
#include "root.h"
#include "seed-run.h"
#include "seed-store.h"

enum {
        EXIT_DONE = 0,   /* done, credited or not */
        EXIT_ERROR = 1,
        EXIT_USAGE = 2,
};

typedef struct Verb {
        const char *name;
        int (*run)(const SeedOptions *o);
        bool needs_root;             /* refuses to run on the real root */
} Verb;

#if ENTROPY_GATE_INITRD_CONFIG
/* initrd-config: what the initrd generators' hooks put into an initrd in
 * place of the configuration files, read here by the loader that reads
 * them at boot. Never the files themselves: what a name leads to (a link
 * to the seed, a file only root may read, a name the loader does not
 * follow) is the loader's to decide, and an initrd is not a secret. */
static int initrd_config(const SeedOptions *o) {
        Config config;
        int r;

        (void) o;
        r = config_load_files(&config, log_config_warning, NULL);
        if (r >= 0) {
                if (config.broken)
                        log_warning("Crediting nothing in the initrd: %s", config.broken);
                r = config_write_initrd(&config, stdout);
                if (r < 0)
                        log_error_errno(r, "Failed to write the configuration: %m");
                else if (r > 0)
                        log_warning("Crediting nothing in the initrd: the settings do not read back as written");
        } else
                log_error_errno(r, "Out of memory");
        config_done(&config);
        return r;
}
#endif

static const Verb verbs[] = {
        { "load",      seed_load,      false },
        { "save",      seed_save,      false },
#if ENTROPY_GATE_PROVISION
        { "provision", seed_provision, true  },
#else
        /* Not in this build: images are provisioned on their build host,
         * by its own entropy-seed. */
        { "provision", NULL,           true  },
#endif
#if ENTROPY_GATE_INITRD_CONFIG
        { "initrd-config", initrd_config, false },
#endif
};

#if ENTROPY_GATE_INITRD_CONFIG
#  define INITRD_SYNOPSIS "|initrd-config"
#  define INITRD_LIST ", initrd-config"
#  define INITRD_HELP                                                                        \
        "  initrd-config      print the configuration files' settings as one file\n"          \
        "                     (the initrd generators' hooks put it into the initrd)\n"
#else
#  define INITRD_SYNOPSIS ""
#  define INITRD_LIST ""
#  define INITRD_HELP ""
#endif
#if ENTROPY_GATE_PROVISION
#  define VERBS_SYNOPSIS "load|save|provision" INITRD_SYNOPSIS
#  define VERBS_LIST "load, save" INITRD_LIST " or provision"
#  define PROVISION_HELP                                                                     \
        "  provision          write a fresh creditable seed into an image (--root=)\n"
#  define PROVISION_OPTIONS_HELP                                                             \
        "     --machine-id=ID provision: bind to ID and write it to ROOT/etc/machine-id\n"   \
        "     --cross-mounts  provision: follow paths through mount points inside ROOT\n"
#else
#  define VERBS_SYNOPSIS "load|save" INITRD_SYNOPSIS
#  define VERBS_LIST "load" INITRD_LIST " or save"
#  define PROVISION_HELP "  (provision is not part of this build: run it on the image's build host)\n"
#  define PROVISION_OPTIONS_HELP ""
#endif

static void help(void) {
        printf("%s " VERBS_SYNOPSIS " [OPTIONS...]\n"
               "\n"
               "Credit the seed saved on the previous boot to the kernel's random pool,\n"
               "at most once, and replace it; or save a new seed at shutdown.\n"
               "\n"
               "  load               mix the machine-id, legacy seeds and the credential,\n"
               "                     rotate the seed, credit the old one if every rule holds\n"
               "  save               write a new seed (never blocks)\n"
               PROVISION_HELP
               INITRD_HELP
               "\n"
               "  -h --help          show this help\n"
               "     --version       show the version\n"
               "     --seed-dir=DIR  seed directory (default %s, or Directory=)\n"
               "     --no-credit     mix seeds into the pool, never credit them\n"
               "     --root=ROOT     take every system path inside ROOT\n"
               "     --credential-only\n"
               "                     load: the system credential only, no seed directory\n"
               "                     (the initrd)\n"
               PROVISION_OPTIONS_HELP
               "\n"
               "Exit status: 0 done (credited or not), 1 error, 2 usage.\n"
               "See entropy-seed(8).\n",
               program_invocation_short_name, SEED_DIR_DEFAULT);
}

int entropy_seed_main(int argc, char *argv[]) {
        enum { ARG_VERSION = 0x100, ARG_SEED_DIR, ARG_NO_CREDIT, ARG_ROOT, ARG_MACHINE_ID, ARG_CREDENTIAL_ONLY, ARG_CROSS_MOUNTS };
        static const struct option options[] = {
                { "help",       no_argument,       NULL, 'h'            },
                { "version",    no_argument,       NULL, ARG_VERSION    },
                { "seed-dir",   required_argument, NULL, ARG_SEED_DIR   },
                { "no-credit",  no_argument,       NULL, ARG_NO_CREDIT  },
                { "root",       required_argument, NULL, ARG_ROOT       },
                { "machine-id", required_argument, NULL, ARG_MACHINE_ID },
                { "credential-only", no_argument,  NULL, ARG_CREDENTIAL_ONLY },
                { "cross-mounts", no_argument,     NULL, ARG_CROSS_MOUNTS },
                {}
        };
        char seed_dir_buf[PATH_MAX];
        const char *seed_dir, *seed_dir_shown, *arg_seed_dir = NULL, *arg_root = NULL, *arg_machine_id = NULL;
        bool arg_no_credit = false, arg_credential_only = false, arg_cross_mounts = false;
        const Verb *verb = NULL;
        Config config;
        SeedOptions o;
        int c, r;

        stdio_ensure_open();
        log_open("entropy-seed", LOG_TARGET_STDERR);

        /* getopt's own messages would name the program by its path and
         * say nothing of --help: ours name the option as it was given. */
        opterr = 0;
        while ((c = getopt_long(argc, argv, ":h", options, NULL)) >= 0)
                switch (c) {
                case 'h':
                        help();
                        return EXIT_DONE;
                case ARG_VERSION:
                        printf("entropy-seed %s\n", PROJECT_VERSION);
                        return EXIT_DONE;
                case ARG_SEED_DIR:
                        if (optarg[0] != '/' || strlen(optarg) >= PATH_MAX || optarg[strspn(optarg, "/")] == 0) {
                                log_error("--seed-dir= needs a directory of its own (not /), as an absolute path "
                                          "shorter than %d bytes", PATH_MAX);
                                return EXIT_USAGE;
                        }
                        arg_seed_dir = optarg;
                        break;
                case ARG_NO_CREDIT:
                        arg_no_credit = true;
                        break;
                case ARG_ROOT:
                        if (!*optarg) {
                                log_error("--root= needs a directory");
                                return EXIT_USAGE;
                        }
                        arg_root = optarg;
                        break;
                case ARG_MACHINE_ID:
                        if (!machine_id_is_valid(optarg)) {
                                log_error("Invalid --machine-id=%s: expected 32 hex digits, not all zero", optarg);
                                return EXIT_USAGE;
                        }
                        arg_machine_id = optarg;
                        break;
                case ARG_CREDENTIAL_ONLY:
                        arg_credential_only = true;
                        break;
                case ARG_CROSS_MOUNTS:
                        arg_cross_mounts = true;
                        break;
                case ':':
                        log_error("Option '%s' needs a value (see --help)", argv[optind - 1]);
                        return EXIT_USAGE;
                default:
                        /* A short option is named by optopt (it may sit in a
                         * group like -hx), a long one by its word. */
                        if (optopt > 0 && optopt < 0x100 && !startswith(argv[optind - 1], "--"))
                                log_error("Unknown option '-%c' (see --help)", optopt);
                        else
                                log_error("Unknown option '%s' (see --help)", argv[optind - 1]);
                        return EXIT_USAGE;
                }

        if (optind >= argc) {
                log_error("Missing verb: " VERBS_LIST " (see --help)");
                return EXIT_USAGE;
        }
        if (optind + 1 < argc) {
                log_error("Unexpected argument '%s': one verb at a time (see --help)", argv[optind + 1]);
                return EXIT_USAGE;
        }
        for (size_t i = 0; i < ELEMENTSOF(verbs); i++)
                if (streq(argv[optind], verbs[i].name))
                        verb = verbs + i;
        if (!verb) {
                log_error("Unknown verb \"%s\": " VERBS_LIST " (see --help)", argv[optind]);
                return EXIT_USAGE;
        }
        if (!verb->run) {
                log_error("%s is not part of this build of entropy-seed (ENTROPY_GATE_PROVISION=OFF): "
                          "provision the image on its build host, with that host's entropy-seed", verb->name);
                return EXIT_ERROR;
        }
        if (verb->needs_root && !arg_root) {
                log_error("%s writes into an image: it needs --root=ROOT", verb->name);
                return EXIT_USAGE;
        }
        if (arg_machine_id && !verb->needs_root) {
                log_error("--machine-id= is for provision only");
                return EXIT_USAGE;
        }
        if (arg_cross_mounts && !verb->needs_root) {
                log_error("--cross-mounts is for provision only");
                return EXIT_USAGE;
        }
        if (arg_credential_only && (verb->run != seed_load || arg_seed_dir)) {
                log_error("--credential-only is for load only, without --seed-dir=");
                return EXIT_USAGE;
        }
#if ENTROPY_GATE_INITRD_CONFIG
        if (verb->run == initrd_config && (arg_seed_dir || arg_no_credit)) {
                log_error("initrd-config takes no option but --root=");
                return EXIT_USAGE;
        }
#endif

        /* Every path from here on is inside the root. A root that cannot
         * be used as given is an error: acting on "/" instead would be the
         * worst of answers. */
        r = root_set(arg_root);
        if (r < 0) {
                log_error_errno(r, "Cannot use --root=%.256s%s: %m", arg_root, strlen(arg_root) > 256 ? "..." : "");
                return EXIT_ERROR;
        }
        if (verb->needs_root) {
                r = fd_is_system_root(root_fd());
                if (r != 0) {
                        if (r < 0)
                                log_error_errno(r, "Failed to compare --root=%s with this system's root: %m", arg_root);
                        else
                                log_error("Refusing %s into --root=%s: it is this running system's own root",
                                          verb->name, arg_root);
                        return EXIT_ERROR;
                }
        }

#if ENTROPY_GATE_INITRD_CONFIG
        /* The files alone: the initrd reads its own kernel command line. */
        if (verb->run == initrd_config)
                return initrd_config(NULL) < 0 ? EXIT_ERROR : EXIT_DONE;
#endif

        /* provision works on a tree, not a system: everything it reads or
         * writes there stays on the tree's mount (or, with --cross-mounts,
         * on file systems mounted nowhere else), and the tree's /proc is
         * not its kernel's. */
        if (verb->needs_root)
                root_set_tree(arg_cross_mounts ? CHASE_MOUNTS_IN_TREE : CHASE_NO_XDEV);

        /* Layers, lowest precedence first: defaults, configuration files,
         * the kernel command line, options. */
        r = config_load(&config, log_config_warning, NULL);
        if (r < 0) {
                config_done(&config);
                log_error_errno(r, "Out of memory");
                return EXIT_ERROR;
        }
        if (verb->needs_root && config.broken) {
                /* Whatever the image's configuration meant to say (another
                 * Directory=, say) cannot be known: write nothing. */
                log_error("Refusing %s: the image's configuration is broken: %s", verb->name, config.broken);
                config_done(&config);
                return EXIT_ERROR;
        }
        seed_dir = arg_seed_dir ?: config.seed_dir;
        seed_dir_shown = root_path_buf(seed_dir, seed_dir_buf);
        if (!seed_dir_shown) {
                log_error("The seed directory %s%s is too long", root_get() ?: "", seed_dir);
                config_done(&config);
                return EXIT_ERROR;
        }

        o = (SeedOptions) {
                .seed_dir = seed_dir,
                .seed_dir_shown = seed_dir_shown,
                .cross_mounts = arg_cross_mounts,
                .credit = !arg_no_credit && !config_credit_disabled_by(&config),
                .credit_disabled_by = arg_no_credit ? "--no-credit" : config_credit_disabled_by(&config),
                .credit_without_machine_id = config.credit_without_machine_id,
                .credit_credential_without_memory = config.credit_credential_without_memory,
                .machine_id = arg_machine_id,
                .credential_only = arg_credential_only,
                .cmdline = config.cmdline,
        };
        r = verb->run(&o);
        config_done(&config);
        return r < 0 ? EXIT_ERROR : EXIT_DONE;
}

#ifndef EG_MULTICALL
int main(int argc, char *argv[]) {
        return entropy_seed_main(argc, argv);
}
#endif
