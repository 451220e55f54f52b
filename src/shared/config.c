// SPDX-License-Identifier: LGPL-2.1-or-later
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "config.h"
#include "io-util.h"
#include "paths.h"
#include "proc-cmdline.h"
#include "root.h"
#include "string-table.h"

static const char *const on_timeout_table[_ON_TIMEOUT_MAX] = {
        [ON_TIMEOUT_FAIL] = "fail",
        [ON_TIMEOUT_PROCEED] = "proceed",
};

DEFINE_STRING_TABLE(on_timeout, OnTimeout)

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

/* What "" restores. Pointers in here are never freed or written. */
static const Config config_defaults = {
        .timeout = USEC_INFINITY,
        .on_timeout = ON_TIMEOUT_FAIL,
        .warn_after = WARN_AFTER_DEFAULT,
        .credit = true,
        .seed_dir = (char *) SEED_DIR_DEFAULT,
};

/* The default directory is not copied (the boot path sets up no heap):
 * seed_dir is freed only when a setting replaced it. */
static void seed_dir_free(char *dir) {
        if (dir != config_defaults.seed_dir)
                free(dir);
}

int config_init(Config *c) {
        *c = config_defaults;
        return 0;
}

void config_done(Config *c) {
        strv_free(c->units);
        free(c->credit_origin);
        seed_dir_free(c->seed_dir);
        free(c->broken);
        free(c->cmdline_heap);
        *c = (Config) {};
}

const char *config_credit_disabled_by(const Config *c) {
        if (c->broken)
                return c->broken;
        if (!c->credit)
                return c->credit_origin ?: "Credit=no";
        return NULL;
}

/* Only the first failure is named: it is the one to fix first. */
static int config_mark_broken(Config *c, const char *format, ...) _printf_(2, 3);
static int config_mark_broken(Config *c, const char *format, ...) {
        va_list ap;
        int k;

        if (c->broken)
                return 0;
        va_start(ap, format);
        k = vasprintf(&c->broken, format, ap);
        va_end(ap);
        if (k < 0) {
                c->broken = NULL;
                return -ENOMEM;
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

/* The parsers: one per kind of value, the same for files and the kernel
 * command line. "" restores the default, as in systemd; NULL is a bare
 * key on the kernel command line. */

static bool value_missing(const ConfContext *ctx, const char *value) {
        if (value)
                return false;
        conf_warn(ctx, "%s needs a value, ignoring", ctx->key);
        return true;
}

static int parse_duration_item(const ConfContext *ctx, const char *value, void *data) {
        usec_t *u = data;

        if (value_missing(ctx, value))
                return 0;
        if (!*value)
                *u = *(const usec_t *) ctx->default_value;
        else if (parse_duration(value, u) < 0)
                conf_warn(ctx, "Invalid %s=%s (expected a duration such as 30s, 2min or infinity), ignoring",
                          ctx->key, value);
        return 0;
}

static int parse_on_timeout(const ConfContext *ctx, const char *value, void *data) {
        OnTimeout *o = data, t;

        if (value_missing(ctx, value))
                return 0;
        if (!*value) {
                *o = *(const OnTimeout *) ctx->default_value;
                return 0;
        }
        t = on_timeout_from_string(value);
        if (t < 0)
                conf_warn(ctx, "Invalid %s=%s (expected fail or proceed), ignoring", ctx->key, value);
        else
                *o = t;
        return 0;
}

/* The whole Config: appending goes through config_units_append(). */
static int parse_units(const ConfContext *ctx, const char *value, void *data) {
        Config *c = data;

        if (!value) {
                conf_warn(ctx, "%s needs a value (%s=UNIT[,UNIT...]), ignoring", ctx->key, ctx->key);
                return 0;
        }
        if (!*value) {
                strv_free(c->units);
                c->units = NULL;
                return 0;
        }
        return config_units_append(c, value);
}

static int parse_bool_item(const ConfContext *ctx, const char *value, void *data) {
        bool *b = data;
        int k;

        if (value && !*value) {
                *b = *(const bool *) ctx->default_value;
                return 0;
        }
        /* A bare kernel parameter means yes. */
        k = value ? parse_boolean(value) : 1;
        if (k < 0)
                conf_warn(ctx, "Invalid %s=%s (expected yes or no), ignoring", ctx->key, value);
        else
                *b = k;
        return 0;
}

/* The whole Config: a "no" remembers who said it, for the message that
 * explains why nothing was credited; a value that does not parse turns
 * crediting off for good, since it may have meant no. */
static int parse_credit(const ConfContext *ctx, const char *value, void *data) {
        Config *c = data;
        int k;

        if (value && !*value)
                k = config_defaults.credit;
        else
                k = value ? parse_boolean(value) : 1;
        if (k < 0) {
                conf_warn(ctx, "Invalid %s=%s (expected yes or no), ignoring, and crediting nothing", ctx->key, value);
                return config_mark_broken(c, "%s=%s (%s) does not parse", ctx->key, value, ctx->source);
        }
        c->credit = k;
        free(c->credit_origin);
        c->credit_origin = NULL;
        if (!k) {
                bool cmdline = streq(ctx->source, CONF_SOURCE_CMDLINE);
                if (asprintf(&c->credit_origin, cmdline ? "%s=%s on the %s" : "%s=%s in %s",
                             ctx->key, value ?: "", ctx->source) < 0) {
                        c->credit_origin = NULL;
                        return -ENOMEM;
                }
        }
        return 0;
}

static int parse_directory(const ConfContext *ctx, const char *value, void *data) {
        char **dir = data, *n;

        if (value_missing(ctx, value))
                return 0;
        if (!*value)
                value = *(char *const *) ctx->default_value;
        else if (!path_is_normalized_absolute(value) || strlen(value) >= PATH_MAX) {
                /* A ".." would lead out of the tree it is read in (an
                 * image's), and another spelling of a directory is not
                 * what anyone means: refused, and the file is broken. */
                conf_warn(ctx, "Invalid %s=%s (expected an absolute path without \".\", \"..\" or empty "
                          "components), ignoring", ctx->key, value);
                return 0;
        }
        n = strdup(value);
        if (!n)
                return -ENOMEM;
        seed_dir_free(*dir);
        *dir = n;
        return 0;
}

static const ConfItem config_items[] = {
        { "Gate", "Timeout",                "entropy_gate.timeout",    parse_duration_item, offsetof(Config, timeout) },
        { "Gate", "OnTimeout",              "entropy_gate.on_timeout", parse_on_timeout,    offsetof(Config, on_timeout) },
        { "Gate", "WarnAfter",              NULL,                      parse_duration_item, offsetof(Config, warn_after) },
        { "Gate", "Units",                  "entropy_gate.units",      parse_units,         0 },
        { "Seed", "Credit",                 "entropy_gate.credit",     parse_credit,        0 },
        { "Seed", "Directory",              NULL,                      parse_directory,     offsetof(Config, seed_dir) },
        { "Seed", "CreditWithoutMachineId", NULL,                      parse_bool_item,     offsetof(Config, credit_without_machine_id) },
        { "Seed", "CreditCredentialWithoutMemory", NULL,               parse_bool_item,     offsetof(Config, credit_credential_without_memory) },
};

static const ConfTable config_table = {
        .items = config_items,
        .n_items = ELEMENTSOF(config_items),
        .defaults = &config_defaults,
};

int config_parse_text(Config *c, const char *text, const char *source, config_warn_t warn, void *userdata) {
        return conf_parse_text(&config_table, c, text, source, warn, userdata);
}

int config_apply_cmdline(Config *c, const char *cmdline, config_warn_t warn, void *userdata) {
        return conf_parse_cmdline(&config_table, c, cmdline, warn, userdata);
}

/* Loading: the only part of this module that does I/O. */

/* Counts what a file's parse reported, passing it on. */
typedef struct WarnCounter {
        config_warn_t warn;
        void *userdata;
        unsigned n;
} WarnCounter;

static void count_warning(void *userdata, const char *source, unsigned line, const char *message) {
        WarnCounter *w = userdata;

        w->n++;
        if (w->warn)
                w->warn(w->userdata, source, line, message);
}

static void warnf(config_warn_t warn, void *userdata, const char *source, const char *fmt, ...) _printf_(4, 5);
static void warnf(config_warn_t warn, void *userdata, const char *source, const char *fmt, ...) {
        char msg[512];
        va_list ap;

        if (!warn)
                return;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        warn(userdata, source, 0, msg);
}

static const char *read_error_string(int r) {
        return r == -EFBIG ? "larger than 64 KiB" :
               r == -EBADMSG ? "contains a NUL byte" :
               r == -EISDIR || r == -EBADFD ? "not a regular file" :
               r == -ELOOP ? "a symbolic link" :
               strerror(-r);
}

/* One file, @path inside the root. Symlinks are followed as the system
 * would follow them, never out of the root; one to /dev/null masks the
 * file, as in systemd. */
static int load_one(Config *c, const char *path, config_warn_t warn, void *userdata) {
        _cleanup_free_ char *text = NULL, *shown = NULL;
        _cleanup_close_ int fd = -EBADF;
        WarnCounter w = { .warn = warn, .userdata = userdata };
        struct stat st;
        size_t n;
        int r;

        fd = root_open_follow(path);
        if (fd == -ENOENT)
                return 0;
        r = root_path(path, &shown);
        if (r < 0)
                return r;
        r = fd;
        if (fd >= 0 && fstat(fd, &st) >= 0 && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3))
                return 0;
        if (fd >= 0)
                /* Bounded, and no NUL: the configuration decides whether
                 * seeds are credited, so it must be what it says it is. */
                r = read_fd_bounded(fd, CONFIG_FILE_MAX, READ_NUL_TERMINATE | READ_REFUSE_NUL, &text, &n);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                warnf(warn, userdata, shown, "Ignoring configuration file: %s; crediting nothing", read_error_string(r));
                return config_mark_broken(c, "%s cannot be read: %s", shown, read_error_string(r));
        }
        r = config_parse_text(c, text, shown, count_warning, &w);
        if (r < 0)
                return r;
        if (w.n > 0)
                return config_mark_broken(c, "%s does not parse cleanly (%u problem%s)", shown, w.n, w.n == 1 ? "" : "s");
        return 0;
}

static int compare_names(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

static bool is_dropin_name(const char *n) {
        size_t l = strlen(n);
        /* Hidden files are editor and package manager leftovers. */
        return n[0] != '.' && l > 5 && streq(n + l - 5, ".conf");
}

static int load_dropins(Config *c, config_warn_t warn, void *userdata) {
        _cleanup_strv_free_ char **names = NULL;
        _cleanup_close_ int dfd = -EBADF;
        size_t n = 0;
        DIR *d;
        int r;

        dfd = root_open_follow(CONF_DROPIN_DIR);
        if (dfd == -ENOENT)
                return 0;
        d = dfd >= 0 ? fdopendir(dfd) : NULL;
        if (!d) {
                _cleanup_free_ char *shown = NULL;

                r = dfd < 0 ? dfd : negative_errno();
                if (root_path(CONF_DROPIN_DIR, &shown) < 0)
                        return -ENOMEM;
                warnf(warn, userdata, shown, "Ignoring drop-in directory: %s; crediting nothing", strerror(-r));
                return config_mark_broken(c, "%s cannot be read: %s", shown, strerror(-r));
        }
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
        closedir(d);
        if (n > 0)
                qsort(names, n, sizeof(char *), compare_names);

        r = 0;
        for (size_t i = 0; i < n && r >= 0; i++) {
                _cleanup_free_ char *path = NULL;

                if (asprintf(&path, "%s/%s", CONF_DROPIN_DIR, names[i]) < 0) {
                        path = NULL;
                        return -ENOMEM;
                }
                r = load_one(c, path, warn, userdata);
        }
        return r;
}

/* x86's and arm64's COMMAND_LINE_SIZE, and the 2 bytes a bounded read needs. */
static char cmdline_buf[2048 + 2];

int config_load(Config *c, config_warn_t warn, void *userdata) {
        int r;

        r = config_init(c);
        if (r < 0)
                return r;

        r = load_one(c, CONF_FILE, warn, userdata);
        if (r < 0)
                return r;
        r = load_dropins(c, warn, userdata);
        if (r < 0)
                return r;

        /* Into this module's buffer when it fits (it does wherever the
         * kernel's COMMAND_LINE_SIZE is 2 KiB: x86, arm64), without a heap
         * (io-util.h), and in .bss, where it takes no room in the binary;
         * a longer one is read again, into the heap. */
        r = proc_cmdline_read_into(cmdline_buf, sizeof(cmdline_buf));
        if (r == -E2BIG)
                r = proc_cmdline_read(&c->cmdline_heap);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                /* The files alone still say what to do. A command line that
                 * may have said entropy_gate.credit=0 cannot be read: fail
                 * closed. */
                warnf(warn, userdata, CONF_SOURCE_CMDLINE, "Cannot read /proc/cmdline (%s), ignoring it; crediting nothing",
                      strerror(-r));
                return config_mark_broken(c, "the kernel command line cannot be read: %s", strerror(-r));
        }
        c->cmdline = c->cmdline_heap ?: cmdline_buf;
        return config_apply_cmdline(c, c->cmdline, warn, userdata);
}
