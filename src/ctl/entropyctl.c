// SPDX-License-Identifier: LGPL-2.1-or-later
/* entropyctl: inspect the kernel's random pool and entropy-gate's work.
 * The conventions are systemd's own tools': a pager on a terminal,
 * --no-pager, --json=short|pretty|off, -q, colour only where it is wanted. */
#include <getopt.h>
#include <stdio.h>

#include "ctl.h"
#include "io-util.h"
#include "log.h"
#include "macro.h"
#include "pager.h"
#include "paths.h"
#include "terminal.h"

typedef struct Verb {
        const char *name;
        unsigned min_args, max_args;   /* not counting the verb itself */
        bool json, image;              /* takes --json=; takes check-image's options */
        int (*run)(int argc, char *argv[], const CtlArgs *a);
        const char *synopsis;
        const char *help;
        bool file_format;              /* writes SVG, metrics or a seed: no pager; takes --output= */
} Verb;

static int verb_help(int argc, char *argv[], const CtlArgs *a);

static const Verb verbs[] = {
        { "status",      0, 0, true,  false, verb_status,      "status",
          "Show the random pool, hardware RNGs, the seed file, units and this boot's results" },
        { "timeline",    0, 0, true,  false, verb_timeline,    "timeline",
          "Show this boot's events, from kernel start to the units gated on entropy" },
        { "check-image", 0, 1, true,  true,  verb_check_image, "check-image [--root=]ROOT",
          "List what every clone of an image root would share; --fix removes it" },
        { "plot",        0, 1, true,  false, verb_plot,        "plot [TIMELINE.json]",
          "Draw this boot, or a saved 'timeline --json', as an SVG picture", true },
        { "metrics",     0, 0, true,  false, verb_metrics,     "metrics",
          "Print this boot's results for Prometheus (node_exporter's textfile collector)", true },
        { "credential",  0, 0, true,  false, verb_credential,  "credential",
          "Print a fresh seed for one machine, in the form its hypervisor passes it on", true },
        { "help",        0, 0, false, false, verb_help,        "help",
          "Show this help" },
};

static void help(void) {
        printf("%sentropyctl%s [OPTIONS...] COMMAND ...\n\n"
               "Inspect the kernel's random pool and entropy-gate.\n\n"
               "%sCommands:%s\n", ansi_bold(), ansi_normal(), ansi_bold(), ansi_normal());
        for (size_t i = 0; i < ELEMENTSOF(verbs); i++)
                printf("  %-28s %s\n", verbs[i].synopsis, verbs[i].help);
        printf("\n%sOptions:%s\n"
               "  -h --help                    Show this help\n"
               "     --version                 Show the version\n"
               "     --no-pager                Do not pipe output into a pager\n"
               "     --json=pretty|short|off   Print JSON (--json alone: pretty); plot: the boots it\n"
               "                               would draw; credential: the text in an object\n"
               "  -q --quiet                   Print nothing but errors: the exit status answers\n"
               "     --root=ROOT               check-image: the image's root directory\n"
               "     --fix                     check-image: remove or reset what clones would share\n"
               "     --force                   check-image: allow --fix on the running system's root\n"
               "     --cross-mounts            check-image: walk into file systems mounted in the tree\n"
               "     --machine-id=uninitialized|empty\n"
               "                               check-image --fix: what /etc/machine-id becomes\n"
               "     --compare=TIMELINE.json   plot: draw this other boot below, on the same time axis\n"
               "     --output=FILE             plot, metrics: replace FILE atomically instead of printing;\n"
               "                               credential: write a new FILE, mode 0600\n"
               "     --format=FORMAT           credential: qemu-smbios (default), qemu-fw-cfg, vmspawn,\n"
               "                               libvirt, virt-install, mkosi, hex or raw (--format=help)\n"
               "     --bits=N                  credential: the seed's size, 256 to 4096, a multiple of 8\n"
               "                               (default 512)\n"
               "\nExit status: 0 success, 1 error (check-image: something found), 2 usage,\n"
               "3 status: the CRNG is not initialized.\n"
               "See the entropyctl(1) man page for details.\n", ansi_bold(), ansi_normal());
}

static int verb_help(int argc, char *argv[], const CtlArgs *a) {
        help();
        return CTL_EXIT_OK;
}

/* Returns > 0 to go on with a verb, 0 when done (help, version), < 0 with
 * the exit code negated. *ret_image_option names a check-image option given. */
static int parse_argv(int argc, char *argv[], CtlArgs *a, bool *ret_json_given, const char **ret_image_option) {
        enum {
                ARG_VERSION = 0x100,
                ARG_NO_PAGER,
                ARG_JSON,
                ARG_ROOT,
                ARG_FIX,
                ARG_FORCE,
                ARG_MACHINE_ID,
                ARG_COMPARE,
                ARG_OUTPUT,
                ARG_CROSS_MOUNTS,
                ARG_FORMAT,
                ARG_BITS,
        };
        static const struct option options[] = {
                { "help",       no_argument,       NULL, 'h' },
                { "version",    no_argument,       NULL, ARG_VERSION },
                { "no-pager",   no_argument,       NULL, ARG_NO_PAGER },
                { "json",       optional_argument, NULL, ARG_JSON },
                { "quiet",      no_argument,       NULL, 'q' },
                { "root",       required_argument, NULL, ARG_ROOT },
                { "fix",        no_argument,       NULL, ARG_FIX },
                { "force",      no_argument,       NULL, ARG_FORCE },
                { "machine-id", required_argument, NULL, ARG_MACHINE_ID },
                { "compare",    required_argument, NULL, ARG_COMPARE },
                { "output",     required_argument, NULL, ARG_OUTPUT },
                { "cross-mounts", no_argument,     NULL, ARG_CROSS_MOUNTS },
                { "format",     required_argument, NULL, ARG_FORMAT },
                { "bits",       required_argument, NULL, ARG_BITS },
                {}
        };
        bool want_help = false;
        int c;

        /* getopt's own messages name argv[0], a path: ours name entropyctl. */
        opterr = 0;
        while ((c = getopt_long(argc, argv, ":hq", options, NULL)) >= 0)
                switch (c) {
                case 'h':
                        want_help = true;
                        break;
                case ARG_VERSION:
                        printf("entropyctl (%s) %s\n", PROJECT_NAME, PROJECT_VERSION);
                        return 0;
                case ARG_NO_PAGER:
                        a->no_pager = true;
                        break;
                case ARG_JSON:
                        /* systemd's tools need a value; "--json" alone has
                         * always meant indented JSON here, and still does. */
                        if (!optarg)
                                a->json = JSON_FORMAT_PRETTY;
                        else if (streq(optarg, "help")) {
                                for (int i = 0; i < _JSON_FORMAT_MAX; i++)
                                        puts(json_format_to_string(i));
                                return 0;
                        } else {
                                JsonFormat f = json_format_from_string(optarg);

                                if (f < 0) {
                                        log_error("Unknown --json= format '%s': expected short, pretty or off.", optarg);
                                        return -CTL_EXIT_USAGE;
                                }
                                a->json = f;
                        }
                        *ret_json_given = true;
                        break;
                case 'q':
                        a->quiet = true;
                        break;
                case ARG_ROOT:
                        if (!*optarg) {
                                log_error("--root= needs a directory.");
                                return -CTL_EXIT_USAGE;
                        }
                        /* One image per run: a second --root= would
                         * silently win, and the first go unchecked. */
                        if (a->root) {
                                log_error("Give the image root once: --root= was given twice.");
                                return -CTL_EXIT_USAGE;
                        }
                        a->root = optarg;
                        *ret_image_option = "--root=";
                        break;
                case ARG_FIX:
                        a->fix = true;
                        *ret_image_option = "--fix";
                        break;
                case ARG_FORCE:
                        a->force = true;
                        *ret_image_option = "--force";
                        break;
                case ARG_CROSS_MOUNTS:
                        a->cross_mounts = true;
                        *ret_image_option = "--cross-mounts";
                        break;
                case ARG_MACHINE_ID: {
                        MachineIdReset m = machine_id_reset_from_string(optarg);

                        if (m < 0) {
                                log_error("Unknown --machine-id= value '%s': expected uninitialized or empty.", optarg);
                                return -CTL_EXIT_USAGE;
                        }
                        a->machine_id = m;
                        *ret_image_option = "--machine-id=";
                        break;
                }
                case ARG_COMPARE:
                case ARG_OUTPUT:
                        if (!*optarg) {
                                log_error("--%s= needs a file.", c == ARG_COMPARE ? "compare" : "output");
                                return -CTL_EXIT_USAGE;
                        }
                        *(c == ARG_COMPARE ? &a->compare : &a->output) = optarg;
                        break;
                case ARG_FORMAT:
                        if (streq(optarg, "help")) {
                                for (int i = 0; i < _CREDENTIAL_FORMAT_MAX; i++)
                                        if (i != CREDENTIAL_FORMAT_CLOUD_INIT)
                                                puts(credential_format_to_string(i));
                                return 0;
                        }
                        a->format = credential_format_from_string(optarg);
                        if (a->format < 0) {
                                log_error("Unknown --format= '%s'; --format=help lists them.", optarg);
                                return -CTL_EXIT_USAGE;
                        }
                        break;
                case ARG_BITS: {
                        int r = credential_bits_parse(optarg, &a->bits);

                        if (r == -ERANGE)
                                log_error("--bits=%s is out of range: %u to %u, a multiple of 8.",
                                          optarg, CREDENTIAL_BITS_MIN, CREDENTIAL_BITS_MAX);
                        else if (r < 0)
                                log_error("--bits= takes a number of bits, not '%s'.", optarg);
                        if (r < 0)
                                return -CTL_EXIT_USAGE;
                        break;
                }
                case ':':
                        log_error("Option '%s' needs a value; see --help.", argv[optind - 1]);
                        return -CTL_EXIT_USAGE;
                default:
                        if (optopt > 0 && optopt < 0x100)
                                log_error("Unknown option '-%c'; see --help.", optopt);
                        else
                                log_error("Unknown option '%s'; see --help.", argv[optind - 1]);
                        return -CTL_EXIT_USAGE;
                }

        if (want_help) {
                (void) pager_open(a->no_pager);
                help();
                pager_close();
                return 0;
        }
        return 1;
}

int main(int argc, char *argv[]) {
        CtlArgs a = { .machine_id = _MACHINE_ID_RESET_INVALID, .format = _CREDENTIAL_FORMAT_INVALID };
        const Verb *verb = NULL;
        const char *image_option = NULL;
        bool json_given = false;
        unsigned nargs;
        int r;

        /* check-image --fix writes into an image while it prints. */
        stdio_ensure_open();
        log_open("entropyctl", LOG_TARGET_STDERR);
        /* Before any pager takes standard output: is it a terminal? */
        colors_init();

        r = parse_argv(argc, argv, &a, &json_given, &image_option);
        if (r <= 0)
                return -r;
        if (a.quiet)
                log_set_quiet(true);

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
        if (nargs > verb->max_args) {
                log_error("Unexpected argument '%s' for '%s'. Usage: entropyctl %s", argv[optind + 1 + verb->max_args],
                          verb->name, verb->synopsis);
                return CTL_EXIT_USAGE;
        }
        if (nargs < verb->min_args) {
                log_error("Missing argument for '%s'. Usage: entropyctl %s", verb->name, verb->synopsis);
                return CTL_EXIT_USAGE;
        }
        if (json_given && !verb->json) {
                log_error("'%s' does not take --json.", verb->name);
                return CTL_EXIT_USAGE;
        }
        if (image_option && !verb->image) {
                log_error("'%s' does not take %s (check-image does).", verb->name, image_option);
                return CTL_EXIT_USAGE;
        }

        if (a.output && !verb->file_format) {
                log_error("'%s' does not take --output= (plot, metrics and credential do).", verb->name);
                return CTL_EXIT_USAGE;
        }
        /* "-" is standard output, as for most tools; "./-" names a file. */
        if (a.output && streq(a.output, "-"))
                a.output = NULL;
        if ((a.format >= 0 || a.bits > 0) && !streq(verb->name, "credential")) {
                log_error("'%s' does not take %s (credential does).", verb->name, a.format >= 0 ? "--format=" : "--bits=");
                return CTL_EXIT_USAGE;
        }
        if (a.compare && !streq(verb->name, "plot")) {
                log_error("'%s' does not take --compare= (plot does).", verb->name);
                return CTL_EXIT_USAGE;
        }

        /* Quiet prints nothing a pager could show; a file format is not for a pager. */
        if (!a.quiet && !verb->file_format)
                (void) pager_open(a.no_pager);
        r = verb->run(argc - optind, argv + optind, &a);
        pager_close();
        return r;
}
