// SPDX-License-Identifier: LGPL-2.1-or-later
#include <stdarg.h>
#include <stdio.h>
#include <strings.h>

#include "config.h"
#include "paths.h"
#include "proc-cmdline.h"

static const char *const on_timeout_table[_ON_TIMEOUT_MAX] = {
        [ON_TIMEOUT_FAIL] = "fail",
        [ON_TIMEOUT_PROCEED] = "proceed",
};

const char *on_timeout_to_string(OnTimeout t) {
        return t >= 0 && t < _ON_TIMEOUT_MAX ? on_timeout_table[t] : NULL;
}

OnTimeout on_timeout_from_string(const char *s) {
        for (int i = 0; i < _ON_TIMEOUT_MAX; i++)
                if (s && streq(s, on_timeout_table[i]))
                        return (OnTimeout) i;
        return _ON_TIMEOUT_INVALID;
}

int parse_boolean(const char *s) {
        static const char *const yes[] = { "1", "yes", "y", "true", "t", "on" };
        static const char *const no[] = { "0", "no", "n", "false", "f", "off" };

        if (!s)
                return -EINVAL;
        for (size_t i = 0; i < ELEMENTSOF(yes); i++) {
                if (strcasecmp(s, yes[i]) == 0)
                        return 1;
                if (strcasecmp(s, no[i]) == 0)
                        return 0;
        }
        return -EINVAL;
}

int config_init(Config *c) {
        *c = (Config) {
                .timeout = USEC_INFINITY,
                .on_timeout = ON_TIMEOUT_FAIL,
                .warn_after = WARN_AFTER_DEFAULT,
                .credit = true,
        };
        c->seed_dir = strdup(SEED_DIR_DEFAULT);
        return c->seed_dir ? 0 : -ENOMEM;
}

void config_done(Config *c) {
        strv_free(c->units);
        c->units = NULL;
        free(c->seed_dir);
        c->seed_dir = NULL;
}

static void warnf(config_warn_t warn, void *userdata, const char *source, unsigned line, const char *fmt, ...) _printf_(5, 6);
static void warnf(config_warn_t warn, void *userdata, const char *source, unsigned line, const char *fmt, ...) {
        char msg[512];
        va_list ap;

        if (!warn)
                return;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        warn(userdata, source, line, msg);
}

#define CMDLINE_SOURCE "kernel command line"

int config_apply_cmdline(Config *c, const char *cmdline, config_warn_t warn, void *userdata) {
        _cleanup_free_ char *v = NULL;
        int r;

        r = proc_cmdline_get_key(cmdline, "entropy_gate.timeout", &v);
        if (r < 0)
                return r;
        if (r > 0) {
                usec_t u;
                if (parse_duration(v, &u) < 0)
                        warnf(warn, userdata, CMDLINE_SOURCE, 0,
                              "Invalid entropy_gate.timeout=%s, ignoring", strna(v));
                else
                        c->timeout = u;
        }
        free(v);
        v = NULL;

        r = proc_cmdline_get_key(cmdline, "entropy_gate.on_timeout", &v);
        if (r < 0)
                return r;
        if (r > 0) {
                OnTimeout t = on_timeout_from_string(v);
                if (t < 0)
                        warnf(warn, userdata, CMDLINE_SOURCE, 0,
                              "Invalid entropy_gate.on_timeout=%s (expected fail or proceed), ignoring", strna(v));
                else
                        c->on_timeout = t;
        }
        free(v);
        v = NULL;

        r = proc_cmdline_get_key(cmdline, "entropy_gate.credit", &v);
        if (r < 0)
                return r;
        if (r > 0) {
                /* A bare "entropy_gate.credit" means yes, as with kernel booleans. */
                int b = v ? parse_boolean(v) : 1;
                if (b < 0)
                        warnf(warn, userdata, CMDLINE_SOURCE, 0,
                              "Invalid entropy_gate.credit=%s (expected 0 or 1), ignoring", v);
                else
                        c->credit = b;
        }
        return 0;
}
