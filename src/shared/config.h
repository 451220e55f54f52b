/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "conf-parser.h"
#include "macro.h"
#include "time-util.h"

typedef enum OnTimeout {
        ON_TIMEOUT_FAIL,
        ON_TIMEOUT_PROCEED,
        _ON_TIMEOUT_MAX,
        _ON_TIMEOUT_INVALID = -EINVAL,
} OnTimeout;

const char *on_timeout_to_string(OnTimeout t);
OnTimeout on_timeout_from_string(const char *s);

/* Every setting of every binary, in one place, filled by one set of
 * parsers from every layer. Layers apply in order of precedence, lowest
 * first: defaults, configuration files, the kernel command line
 * (entropy_gate.*), then each binary's explicit options. */
typedef struct Config {
        /* [Gate] */
        usec_t timeout;              /* USEC_INFINITY: wait for ever (the default) */
        OnTimeout on_timeout;
        usec_t warn_after;
        char **units;                /* NULL-terminated, for the generator */
        size_t n_units, n_units_allocated;
        size_t *units_index;         /* a hash set over units (config.c), so that appending stays linear */
        size_t units_index_size;
        /* [Seed] */
        bool credit;
        char *credit_origin;         /* who said no: "Credit=no in FILE", "entropy_gate.credit=0 on the kernel command line" */
        char *seed_dir;              /* absolute, inside the root (root.h) */
        bool credit_without_machine_id;
        bool credit_credential_without_memory; /* where no seed directory can remember it (the initrd) */
        /* Fail closed: the first configuration source that could not be read
         * or parsed. Whatever it meant to say might have been Credit=no, so
         * crediting is off for this run, whatever later layers say. */
        char *broken;
        /* The kernel command line config_load() read, for other questions
         * a front end asks of it (NULL when unreadable). Until the next
         * config_load(): it is held in a buffer of config.c's, not on the
         * heap (io-util.h), when it fits. */
        const char *cmdline;
        char *cmdline_heap;          /* one longer than that buffer holds */
} Config;

#define WARN_AFTER_DEFAULT (10 * USEC_PER_SEC)

int config_init(Config *c);       /* defaults; -ENOMEM */
void config_done(Config *c);

/* Pure: apply one configuration file's @text (see entropy-gate.conf(5)) on
 * top of @c; @source names it in warnings. An empty assignment resets the
 * key to its default ("Units=" empties the list). Unknown sections and
 * keys and bad values are reported through @warn (with the line) and the
 * earlier value is kept. Returns 0 or -ENOMEM. */
int config_parse_text(Config *c, const char *text, const char *source, config_warn_t warn, void *userdata);

/* Pure: apply the entropy_gate.* keys of a kernel command line text, through
 * the same parsers. entropy_gate.units= (names separated by commas or,
 * quoted, spaces) is appended to the units the files named. A bad
 * entropy_gate.credit= value turns crediting off (c->broken). Returns 0 or
 * -ENOMEM. */
int config_apply_cmdline(Config *c, const char *cmdline, config_warn_t warn, void *userdata);

/* Every front end's configuration: the defaults, CONF_FILE and every *.conf
 * in CONF_DROPIN_DIR in lexical order (later files win), then the kernel
 * command line; all inside the root (root.h). A missing file is fine; a file
 * that cannot be read (not a regular file, larger than CONFIG_FILE_MAX, a
 * NUL byte, an I/O error, a symbolic link that leads nowhere or loops) or
 * has any line that does not parse is reported through @warn and sets
 * c->broken. An unreadable kernel command line is reported and skipped.
 * Returns 0 or -ENOMEM; @c is initialized either way (config_done() it).
 *
 * Bounded, so that the boot never spends long on configuration: more than
 * CONFIG_DROPINS_MAX drop-ins and no drop-in is applied (a subset chosen by
 * directory order would mean something nobody wrote); past CONFIG_TOTAL_MAX
 * bytes in all, the file that crosses it and those after it (in lexical
 * order) are not. Either is reported and sets c->broken. */
#define CONFIG_FILE_MAX (64U * 1024U)
#define CONFIG_DROPINS_MAX 1024U
#define CONFIG_TOTAL_MAX (4U * 1024U * 1024U)
int config_load(Config *c, config_warn_t warn, void *userdata);
/* The files alone (defaults, CONF_FILE, its drop-ins), without the kernel
 * command line: c->cmdline stays NULL. 0 or -ENOMEM; a file that cannot be
 * read or parsed sets c->broken, as in config_load(). */
int config_load_files(Config *c, config_warn_t warn, void *userdata);

/* Write what config_load_files() read into @c as one configuration file,
 * for an initrd (entropy-seed initrd-config): parsed again, it gives the
 * same settings (Units= apart, which only the generator reads), and a
 * broken configuration stays broken. Checked before it is written: 0, or 1
 * when the settings would not parse back and a broken configuration was
 * written instead; -errno. */
int config_write_initrd(const Config *c, FILE *f);

/* Why crediting is off by configuration, for messages; NULL when it is on. */
const char *config_credit_disabled_by(const Config *c);

/* Append each unit name in @list (separated by whitespace or commas) to
 * c->units, skipping those already there (a hash set: linear in the list,
 * however long). Names are not validated here: the generator does that, so
 * that the kernel log says which were skipped. More than CONFIG_UNITS_MAX
 * names in all is more units than any system has: the rest are not added,
 * and the return value says so. Returns 0, -E2BIG (over the cap) or
 * -ENOMEM. */
#define CONFIG_UNITS_MAX 4096U
int config_units_append(Config *c, const char *list);

/* Parse a boolean the way systemd does: 1/yes/y/true/t/on, 0/no/n/false/f/off. */
int parse_boolean(const char *s);
