// SPDX-License-Identifier: LGPL-2.1-or-later
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <strings.h>
#include <sys/stat.h>

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
        free(v);
        v = NULL;

        r = proc_cmdline_get_key(cmdline, "entropy_gate.units", &v);
        if (r < 0)
                return r;
        if (r > 0) {
                if (!v)
                        warnf(warn, userdata, CMDLINE_SOURCE, 0,
                              "entropy_gate.units needs a value (entropy_gate.units=UNIT[,UNIT...]), ignoring");
                else {
                        r = config_units_append(c, v);
                        if (r < 0)
                                return r;
                }
        }
        return 0;
}

static bool is_list_separator(char ch) {
        return ch == ',' || ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r';
}

static bool units_contain(char **l, const char *s, size_t len) {
        for (char **i = l; i && *i; i++)
                if (strlen(*i) == len && strncmp(*i, s, len) == 0)
                        return true;
        return false;
}

int config_units_append(Config *c, const char *list) {
        size_t n = 0;

        for (char **i = c->units; i && *i; i++)
                n++;

        for (const char *p = list; *p;) {
                const char *w;
                size_t len;
                char **t;

                while (*p && is_list_separator(*p))
                        p++;
                if (!*p)
                        break;
                w = p;
                while (*p && !is_list_separator(*p))
                        p++;
                len = (size_t) (p - w);
                if (units_contain(c->units, w, len))
                        continue;

                t = realloc(c->units, (n + 2) * sizeof(char *));
                if (!t)
                        return -ENOMEM;
                c->units = t;
                t[n] = strndup(w, len);
                if (!t[n]) {
                        t[n] = NULL;
                        return -ENOMEM;
                }
                t[++n] = NULL;
        }
        return 0;
}

/* The configuration file: one parse function per kind of value. Each
 * treats "" as "back to the default", as systemd does. */

static int parse_timeout(const ConfContext *ctx, const char *value, void *data) {
        usec_t *u = data;

        if (!*value) {
                *u = USEC_INFINITY;
                return 0;
        }
        if (parse_duration(value, u) < 0)
                conf_warn(ctx, "Invalid %s=%s (expected a duration such as 30s, 2min or infinity), ignoring",
                          ctx->key, value);
        return 0;
}

static int parse_warn_after(const ConfContext *ctx, const char *value, void *data) {
        usec_t *u = data;

        if (!*value) {
                *u = WARN_AFTER_DEFAULT;
                return 0;
        }
        if (parse_duration(value, u) < 0)
                conf_warn(ctx, "Invalid %s=%s (expected a duration such as 10s or infinity), ignoring",
                          ctx->key, value);
        return 0;
}

static int parse_on_timeout(const ConfContext *ctx, const char *value, void *data) {
        OnTimeout *o = data, t;

        if (!*value) {
                *o = ON_TIMEOUT_FAIL;
                return 0;
        }
        t = on_timeout_from_string(value);
        if (t < 0)
                conf_warn(ctx, "Invalid %s=%s (expected fail or proceed), ignoring", ctx->key, value);
        else
                *o = t;
        return 0;
}

static int parse_units(const ConfContext *ctx, const char *value, void *data) {
        Config *c = data;

        if (!*value) {
                strv_free(c->units);
                c->units = NULL;
                return 0;
        }
        return config_units_append(c, value);
}

static int parse_bool_default(const ConfContext *ctx, const char *value, bool *b, bool def) {
        int k;

        if (!*value) {
                *b = def;
                return 0;
        }
        k = parse_boolean(value);
        if (k < 0)
                conf_warn(ctx, "Invalid %s=%s (expected yes or no), ignoring", ctx->key, value);
        else
                *b = k;
        return 0;
}

static int parse_credit(const ConfContext *ctx, const char *value, void *data) {
        return parse_bool_default(ctx, value, data, true);
}

static int parse_credit_without_machine_id(const ConfContext *ctx, const char *value, void *data) {
        return parse_bool_default(ctx, value, data, false);
}

static int parse_directory(const ConfContext *ctx, const char *value, void *data) {
        char **dir = data, *n;

        if (!*value)
                value = SEED_DIR_DEFAULT;
        else if (value[0] != '/' || strlen(value) >= PATH_MAX) {
                conf_warn(ctx, "Invalid %s=%s (expected an absolute path), ignoring", ctx->key, value);
                return 0;
        }
        n = strdup(value);
        if (!n)
                return -ENOMEM;
        free(*dir);
        *dir = n;
        return 0;
}

static const ConfItem config_table[] = {
        { "Gate", "Timeout",                parse_timeout,                    offsetof(Config, timeout) },
        { "Gate", "OnTimeout",              parse_on_timeout,                 offsetof(Config, on_timeout) },
        { "Gate", "WarnAfter",              parse_warn_after,                 offsetof(Config, warn_after) },
        /* The whole Config: appending to the list goes through config_units_append(). */
        { "Gate", "Units",                  parse_units,                      0 },
        { "Seed", "Credit",                 parse_credit,                     offsetof(Config, credit) },
        { "Seed", "Directory",              parse_directory,                  offsetof(Config, seed_dir) },
        { "Seed", "CreditWithoutMachineId", parse_credit_without_machine_id,  offsetof(Config, credit_without_machine_id) },
};

int config_parse_text(Config *c, const char *text, const char *source, config_warn_t warn, void *userdata) {
        return conf_parse_text(config_table, ELEMENTSOF(config_table), c, text, source, warn, userdata);
}

/* Loading the files: the only part of this module that does I/O. */

const char *config_file_path(void) {
        const char *e = getenv("ENTROPY_GATE_CONF");
        return e && *e ? e : CONF_FILE;
}

const char *config_dropin_dir(void) {
        const char *e = getenv("ENTROPY_GATE_CONF_DIR");
        return e && *e ? e : CONF_DROPIN_DIR;
}

/* Read a whole regular file of at most CONFIG_FILE_MAX bytes. A missing
 * file is -ENOENT; anything else wrong is reported by the caller. */
static int read_conf_file(int dfd, const char *name, char **ret) {
        _cleanup_close_ int fd = -EBADF;
        _cleanup_free_ char *buf = NULL;
        struct stat st;
        size_t n = 0;

        /* O_NONBLOCK: a FIFO planted here must not hang the boot. */
        fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0)
                return negative_errno();
        if (fstat(fd, &st) < 0)
                return negative_errno();
        if (S_ISDIR(st.st_mode))
                return -EISDIR;
        if (!S_ISREG(st.st_mode))
                return -EBADFD;

        buf = malloc(CONFIG_FILE_MAX + 1);
        if (!buf)
                return -ENOMEM;
        for (;;) {
                ssize_t k = read(fd, buf + n, CONFIG_FILE_MAX + 1 - n);
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        return negative_errno();
                }
                if (k == 0)
                        break;
                n += (size_t) k;
                if (n > CONFIG_FILE_MAX)
                        return -EFBIG;
        }
        if (memchr(buf, 0, n))
                return -EBADMSG;
        buf[n] = 0;
        *ret = buf;
        buf = NULL;
        return 0;
}

static int load_one(Config *c, int dfd, const char *name, const char *path, config_warn_t warn, void *userdata) {
        _cleanup_free_ char *text = NULL;
        int r;

        r = read_conf_file(dfd, name, &text);
        if (r == -ENOENT)
                return 0;
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                const char *why =
                        r == -EFBIG ? "larger than 64 KiB" :
                        r == -EBADMSG ? "contains a NUL byte" :
                        r == -EISDIR || r == -EBADFD ? "not a regular file" :
                        NULL;
                if (why)
                        warnf(warn, userdata, path, 0, "Ignoring configuration file: %s", why);
                else
                        warnf(warn, userdata, path, 0, "Ignoring configuration file: %s", strerror(-r));
                return 0;
        }
        return config_parse_text(c, text, path, warn, userdata);
}

static int compare_names(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

static bool is_dropin_name(const char *n) {
        size_t l = strlen(n);
        /* Hidden files are editor and package manager leftovers. */
        return n[0] != '.' && l > 5 && streq(n + l - 5, ".conf");
}

int config_load_files(Config *c, config_warn_t warn, void *userdata) {
        const char *dir = config_dropin_dir();
        _cleanup_strv_free_ char **names = NULL;
        _cleanup_close_ int dfd = -EBADF;
        size_t n = 0;
        DIR *d;
        int r;

        r = load_one(c, AT_FDCWD, config_file_path(), config_file_path(), warn, userdata);
        if (r < 0)
                return r;

        dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0) {
                if (errno != ENOENT)
                        warnf(warn, userdata, dir, 0, "Ignoring drop-in directory: %s", strerror(errno));
                return 0;
        }
        d = fdopendir(dfd);
        if (!d)
                return -ENOMEM;
        dfd = -EBADF; /* now owned by d */

        for (struct dirent *de; (de = readdir(d));) {
                char **t;

                if (!is_dropin_name(de->d_name))
                        continue;
                t = realloc(names, (n + 2) * sizeof(char *));
                if (!t) {
                        closedir(d);
                        return -ENOMEM;
                }
                names = t;
                names[n] = strdup(de->d_name);
                names[n + 1] = NULL;
                if (!names[n]) {
                        closedir(d);
                        return -ENOMEM;
                }
                n++;
        }
        if (n > 0)
                qsort(names, n, sizeof(char *), compare_names);

        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ char *path = NULL;

                if (asprintf(&path, "%s/%s", dir, names[i]) < 0) {
                        path = NULL;
                        closedir(d);
                        return -ENOMEM;
                }
                r = load_one(c, dirfd(d), names[i], path, warn, userdata);
                if (r < 0) {
                        closedir(d);
                        return r;
                }
        }
        closedir(d);
        return 0;
}
