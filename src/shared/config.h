/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>

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

/* Reports a bad setting: where it came from (a file name, or "kernel command
 * line"), the line number (0 when none) and what is wrong. Parsers never
 * log; they call this and keep the earlier value. */
typedef void (*config_warn_t)(void *userdata, const char *source, unsigned line, const char *message);

int config_init(Config *c);       /* defaults; -ENOMEM */
void config_done(Config *c);

/* Pure: apply the entropy_gate.* keys of a kernel command line text. Returns
 * 0, or -ENOMEM; bad values are reported through @warn and ignored. */
int config_apply_cmdline(Config *c, const char *cmdline, config_warn_t warn, void *userdata);

/* Parse a boolean the way systemd does: 1/yes/y/true/t/on, 0/no/n/false/f/off. */
int parse_boolean(const char *s);
