/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>

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

/* Every setting of every binary, in one place. Layers are applied in order of
 * precedence, lowest first: defaults, configuration files, the kernel command
 * line (entropy_gate.*), then each binary's explicit options. */
typedef struct Config {
        /* [Gate] */
        usec_t timeout;              /* USEC_INFINITY: wait for ever (the default) */
        OnTimeout on_timeout;
        usec_t warn_after;
        char **units;                /* NULL-terminated, for the generator */
        /* [Seed] */
        bool credit;
        char *seed_dir;
        bool credit_without_machine_id;
} Config;

#define WARN_AFTER_DEFAULT (10 * USEC_PER_SEC)

int config_init(Config *c);       /* defaults; -ENOMEM */
void config_done(Config *c);

/* Pure: apply the entropy_gate.* keys of a kernel command line text. Returns
 * 0, or -ENOMEM; bad values are reported through @warn and ignored.
 * entropy_gate.units= (names separated by commas or, quoted, spaces) is
 * appended to the units the configuration files named. */
int config_apply_cmdline(Config *c, const char *cmdline, config_warn_t warn, void *userdata);

/* Pure: apply one configuration file's @text (see entropy-gate.conf(5)) on
 * top of @c; @source names it in warnings. An empty assignment resets the
 * key to its default ("Units=" empties the list). Unknown sections and
 * keys and bad values are reported through @warn (with the line) and the
 * earlier value is kept. Returns 0 or -ENOMEM. */
int config_parse_text(Config *c, const char *text, const char *source, config_warn_t warn, void *userdata);

/* Apply CONF_FILE, then every *.conf in CONF_DROPIN_DIR, in lexical order
 * (later files win). $ENTROPY_GATE_CONF and $ENTROPY_GATE_CONF_DIR replace
 * the two paths (tests). Missing files are fine; a file that cannot be
 * read, is not a regular file or is larger than CONFIG_FILE_MAX is reported
 * through @warn and skipped. Returns 0 or -ENOMEM. */
#define CONFIG_FILE_MAX (64U * 1024U)
int config_load_files(Config *c, config_warn_t warn, void *userdata);

/* The configuration files' paths, after the environment overrides. */
const char *config_file_path(void);
const char *config_dropin_dir(void);

/* Append each unit name in @list (separated by whitespace or commas) to
 * c->units, skipping those already there. Names are not validated here:
 * the generator does that, so that the kernel log says which were skipped.
 * Returns 0 or -ENOMEM. */
int config_units_append(Config *c, const char *list);

/* Parse a boolean the way systemd does: 1/yes/y/true/t/on, 0/no/n/false/f/off. */
int parse_boolean(const char *s);
