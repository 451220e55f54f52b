// SPDX-License-Identifier: LGPL-2.1-or-later
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
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

static void units_clear(Config *c) {
        strv_free(c->units);
        free(c->units_index);
        c->units = NULL;
        c->units_index = NULL;
        c->n_units = c->n_units_allocated = c->units_index_size = 0;
}

void config_done(Config *c) {
        units_clear(c);
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

/* FNV-1a: good enough for unit names, and no seed is needed: the cap on
 * the number of names bounds what colliding names can cost. */
static size_t name_hash(const char *s, size_t len) {
        uint64_t h = UINT64_C(0xcbf29ce484222325);

        for (size_t i = 0; i < len; i++)
                h = (h ^ (unsigned char) s[i]) * UINT64_C(0x100000001b3);
        return (size_t) h;
}

/* The slot of @s in the open-addressing index (entries are 1 + the
 * position in c->units; 0 is free): where it is, or where it would go. */
static size_t units_index_slot(const Config *c, const char *s, size_t len, bool *ret_found) {
        size_t mask = c->units_index_size - 1, i = name_hash(s, len) & mask;

        for (;; i = (i + 1) & mask) {
                size_t e = c->units_index[i];

                if (e == 0) {
                        *ret_found = false;
                        return i;
                }
                if (strlen(c->units[e - 1]) == len && memcmp(c->units[e - 1], s, len) == 0) {
                        *ret_found = true;
                        return i;
                }
        }
}

/* Room for one more name: the list (NULL-terminated) and an index never
 * more than half full, both doubling. */
static int units_reserve(Config *c) {
        bool found;

        if (c->n_units + 2 > c->n_units_allocated) {
                size_t a = MAX(c->n_units_allocated * 2, (size_t) 8);
                char **t = reallocarray(c->units, a, sizeof(char *));

                if (!t)
                        return -ENOMEM;
                if (!c->units)
                        t[0] = NULL;
                c->units = t;
                c->n_units_allocated = a;
        }
        if (2 * (c->n_units + 1) > c->units_index_size) {
                size_t size = MAX(c->units_index_size * 2, (size_t) 16);
                size_t *old = c->units_index, old_size = c->units_index_size;

                c->units_index = calloc(size, sizeof(size_t));
                if (!c->units_index) {
                        c->units_index = old;
                        return -ENOMEM;
                }
                c->units_index_size = size;
                for (size_t k = 0; k < old_size; k++)
                        if (old[k] != 0) {
                                const char *u = c->units[old[k] - 1];
                                c->units_index[units_index_slot(c, u, strlen(u), &found)] = old[k];
                        }
                free(old);
        }
        return 0;
}

int config_units_append(Config *c, const char *list) {
        int ret = 0;

        for (const char *p = list; *p;) {
                const char *w;
                size_t len, slot;
                bool found = false;
                int r;

                while (*p && is_list_separator(*p))
                        p++;
                if (!*p)
                        break;
                w = p;
                while (*p && !is_list_separator(*p))
                        p++;
                len = (size_t) (p - w);
                if (c->units_index)
                        (void) units_index_slot(c, w, len, &found);
                if (found)
                        continue;
                if (c->n_units >= CONFIG_UNITS_MAX) {
                        /* Still read to the end: each further name costs
                         * one lookup, never more. */
                        ret = -E2BIG;
                        continue;
                }

                r = units_reserve(c);
                if (r < 0)
                        return r;
                slot = units_index_slot(c, w, len, &found);
                c->units[c->n_units] = strndup(w, len);
                if (!c->units[c->n_units])
                        return -ENOMEM;
                c->units[++c->n_units] = NULL;
                c->units_index[slot] = c->n_units;
        }
        return ret;
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
                conf_warn(ctx, "Invalid %s=%.*s%s (expected a duration such as 30s, 2min or infinity), ignoring",
                          ctx->key, CONF_QUOTE(value));
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
                conf_warn(ctx, "Invalid %s=%.*s%s (expected fail or proceed), ignoring", ctx->key, CONF_QUOTE(value));
        else
                *o = t;
        return 0;
}

/* The whole Config: appending goes through config_units_append(). */
static int parse_units(const ConfContext *ctx, const char *value, void *data) {
        Config *c = data;
        int r;

        if (!value) {
                conf_warn(ctx, "%s needs a value (%s=UNIT[,UNIT...]), ignoring", ctx->key, ctx->key);
                return 0;
        }
        if (!*value) {
                units_clear(c);
                return 0;
        }
        r = config_units_append(c, value);
        if (r == -E2BIG) {
                conf_warn(ctx, "More than %u units in %s=, ignoring the rest", CONFIG_UNITS_MAX, ctx->key);
                return 0;
        }
        return r;
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
                conf_warn(ctx, "Invalid %s=%.*s%s (expected yes or no), ignoring", ctx->key, CONF_QUOTE(value));
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
                conf_warn(ctx, "Invalid %s=%.*s%s (expected yes or no), ignoring, and crediting nothing", ctx->key,
                          CONF_QUOTE(value));
                return config_mark_broken(c, "%s=%.*s%s (%s) does not parse", ctx->key, CONF_QUOTE(value), ctx->source);
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
                conf_warn(ctx, "Invalid %s=%.*s%s (expected an absolute path without \".\", \"..\" or empty "
                          "components), ignoring", ctx->key, CONF_QUOTE(value));
                return 0;
        } else if (streq(value, "/")) {
                /* "$STATE/" with nothing in $STATE: the seed and its
                 * temporary files among the root's own. */
                conf_warn(ctx, "Invalid %s=/ (the seed needs a directory of its own), ignoring", ctx->key);
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
               r == -ELOOP ? "a symbolic link loop (too many levels of links)" :
               r == -EXDEV ? "behind a mount point in the tree, not crossed" :
               r == CHASE_ERR_FOREIGN_MOUNT ? "behind a mount of a file system that is also mounted outside the tree or whose files may live outside it (overlay, FUSE, network), never crossed" :
               r == -ENOSYS ? "/proc is not mounted (or /proc/self/fd is not the kernel's), and without it no file is opened safely" :
               r == -ESTALE ? "it changed while it was opened, or /proc/self/fd did not lead back to it (something mounted over /proc?): not opened" :
               strerror(-r);
}

/* Does the name @path (absolute, inside the root) exist itself, whatever
 * it points to? A file that cannot be opened because it is a symbolic link
 * to nowhere is not an absent file: someone put it there, perhaps meaning
 * Credit=no, and it must fail closed. 1, 0, or -errno; 2 for a symbolic
 * link whose text is "/dev/null": it masks the file on the system, even
 * read in an image's tree whose /dev is empty until it boots (dracut
 * --sysroot=, provision). */
static int name_exists(const char *path) {
        _cleanup_free_ char *dir = NULL;
        _cleanup_close_ int dfd = -EBADF;
        const char *slash = strrchr(path, '/');
        struct stat st;

        if (!slash || !slash[1])
                return -EINVAL;
        dir = slash == path ? strdup("/") : strndup(path, (size_t) (slash - path));
        if (!dir)
                return -ENOMEM;
        dfd = root_open(dir, CHASE_DIRECTORY);
        if (dfd == -ENOENT || dfd == -ENOTDIR)
                return 0;
        if (dfd < 0)
                return dfd;
        if (fstatat(dfd, slash + 1, &st, AT_SYMLINK_NOFOLLOW) < 0)
                return errno == ENOENT ? 0 : negative_errno();
        if (S_ISLNK(st.st_mode)) {
                char target[sizeof("/dev/null")];
                ssize_t k = readlinkat(dfd, slash + 1, target, sizeof(target));

                if (k == (ssize_t) strlen("/dev/null") && memcmp(target, "/dev/null", (size_t) k) == 0)
                        return 2;
        }
        return 1;
}

/* What loading has cost so far, against the caps in config.h. */
typedef struct LoadBudget {
        size_t bytes;
} LoadBudget;

/* One file, @path inside the root. Symlinks are followed as the system
 * would follow them, never out of the root; one to /dev/null masks the
 * file, as in systemd. */
static int load_one(Config *c, const char *path, LoadBudget *budget, config_warn_t warn, void *userdata) {
        _cleanup_free_ char *text = NULL, *shown = NULL;
        _cleanup_close_ int fd = -EBADF;
        WarnCounter w = { .warn = warn, .userdata = userdata };
        struct stat st;
        size_t n;
        int r;

        /* O_PATH first: only a regular file is opened for reading below,
         * a device there never is (its driver's open() has effects). */
        fd = root_open_path(path, 0);
        if (fd == -ENOENT) {
                r = name_exists(path);
                if (r == 0 || r == 2)
                        return 0;
                if (r == -ENOMEM)
                        return r;
                /* A dangling symbolic link (r > 0), or a name we cannot
                 * even look at: as unreadable. */
                fd = r > 0 ? -ENOENT : r;
        }
        r = root_path(path, &shown);
        if (r < 0)
                return r;
        r = fd;
        if (fd >= 0 && fstat(fd, &st) >= 0 && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3))
                return 0;
        if (fd >= 0) {
                _cleanup_close_ int rfd = fd_reopen_regular(fd, NULL);

                /* Bounded, and no NUL: the configuration decides whether
                 * seeds are credited, so it must be what it says it is. */
                r = rfd < 0 ? rfd : read_fd_bounded(rfd, CONFIG_FILE_MAX, READ_NUL_TERMINATE | READ_REFUSE_NUL, &text, &n);
        }
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                const char *why = r == -ENOENT ? "a symbolic link to nothing" : read_error_string(r);

                warnf(warn, userdata, shown, "Ignoring configuration file: %s; crediting nothing", why);
                return config_mark_broken(c, "%s cannot be read: %s", shown, why);
        }
        budget->bytes += n;
        if (budget->bytes > CONFIG_TOTAL_MAX) {
                warnf(warn, userdata, shown, "Ignoring configuration file: more than %u bytes of configuration in all; crediting nothing",
                      CONFIG_TOTAL_MAX);
                (void) config_mark_broken(c, "%s is past the limit of %u bytes of configuration", shown, CONFIG_TOTAL_MAX);
                return -E2BIG;
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

static int load_dropins(Config *c, LoadBudget *budget, config_warn_t warn, void *userdata) {
        _cleanup_strv_free_ char **names = NULL;
        _cleanup_free_ char *shown = NULL;
        _cleanup_close_ int dfd = -EBADF;
        size_t n = 0, allocated = 0;
        bool too_many = false;
        DIR *d;
        int r;

        if (root_path(CONF_DROPIN_DIR, &shown) < 0)
                return -ENOMEM;
        dfd = root_open(CONF_DROPIN_DIR, CHASE_DIRECTORY);
        if (dfd == -ENOENT) {
                r = name_exists(CONF_DROPIN_DIR);
                if (r == 0)
                        return 0;
                if (r == -ENOMEM)
                        return r;
                dfd = r > 0 ? -ENOENT : r;
        }
        d = dfd >= 0 ? fdopendir(dfd) : NULL;
        if (!d) {
                const char *why;

                r = dfd < 0 ? dfd : negative_errno();
                why = r == -ENOENT ? "a symbolic link to nothing" : strerror(-r);
                warnf(warn, userdata, shown, "Ignoring drop-in directory: %s; crediting nothing", why);
                return config_mark_broken(c, "%s cannot be read: %s", shown, why);
        }
        dfd = -EBADF; /* now owned by d */

        for (;;) {
                struct dirent *de;

                r = dir_next(d, &de);
                if (r <= 0)
                        break;
                if (!is_dropin_name(de->d_name))
                        continue;
                if (n >= CONFIG_DROPINS_MAX) {
                        /* Stop reading: more would only cost time. */
                        too_many = true;
                        break;
                }
                if (n + 2 > allocated) {
                        size_t a = MAX(allocated * 2, (size_t) 16);
                        char **t = reallocarray(names, a, sizeof(char *));

                        if (!t) {
                                closedir(d);
                                return -ENOMEM;
                        }
                        names = t;
                        allocated = a;
                }
                names[n] = strdup(de->d_name);
                names[n + 1] = NULL;
                if (!names[n]) {
                        closedir(d);
                        return -ENOMEM;
                }
                n++;
        }
        closedir(d);
        if (r < 0) {
                /* A listing that failed half-way is not an empty directory:
                 * a drop-in we never saw may say Credit=no. */
                warnf(warn, userdata, shown, "Ignoring drop-in directory: it cannot be listed: %s; crediting nothing",
                      strerror(-r));
                return config_mark_broken(c, "%s cannot be listed: %s", shown, strerror(-r));
        }
        if (too_many) {
                warnf(warn, userdata, shown, "More than %u drop-ins, ignoring all of them; crediting nothing",
                      CONFIG_DROPINS_MAX);
                return config_mark_broken(c, "%s holds more than %u drop-ins", shown, CONFIG_DROPINS_MAX);
        }
        if (n > 0)
                qsort(names, n, sizeof(char *), compare_names);

        r = 0;
        for (size_t i = 0; i < n && r >= 0; i++) {
                _cleanup_free_ char *path = NULL;

                if (asprintf(&path, "%s/%s", CONF_DROPIN_DIR, names[i]) < 0) {
                        path = NULL;
                        return -ENOMEM;
                }
                r = load_one(c, path, budget, warn, userdata);
        }
        return r;
}

/* x86's and arm64's COMMAND_LINE_SIZE, and the 2 bytes a bounded read needs. */
static char cmdline_buf[2048 + 2];

int config_load_files(Config *c, config_warn_t warn, void *userdata) {
        LoadBudget budget = {};
        int r;

        r = config_init(c);
        if (r < 0)
                return r;

        r = load_one(c, CONF_FILE, &budget, warn, userdata);
        if (r >= 0)
                r = load_dropins(c, &budget, warn, userdata);
        /* Past a cap (-E2BIG): said, and crediting is off; the files read
         * before it apply, and the kernel command line still does. */
        return r == -ENOMEM ? r : 0;
}

int config_load(Config *c, config_warn_t warn, void *userdata) {
        int r;

        r = config_load_files(c, warn, userdata);
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

#define INITRD_HEADER                                                                               \
        "# The settings of " CONF_FILE " and " CONF_DROPIN_DIR "/*.conf\n"                           \
        "# on the system that built this initrd, as its configuration loader read\n"               \
        "# them (entropy-seed initrd-config); the files themselves are not copied.\n"
/* A file that could not be read or parsed turns crediting off whatever the
 * kernel command line says; Credit=no would not (entropy_gate.credit=1 may
 * turn it on again). A value that does not parse does the same here,
 * through the same rule. */
#define INITRD_BROKEN                                                                               \
        "# A configuration file there could not be read or parsed: crediting is\n"                  \
        "# off whatever the kernel command line says, here as there.\n"                             \
        "Credit=broken-on-the-system-that-built-this-initrd\n"

/* Seconds and microseconds, each a number parse_duration() takes: a sum
 * it accepts ("18446744073709s 551614us") may be a total it refuses as one
 * number of microseconds. Whole seconds as seconds alone, as people write
 * them. */
static void write_duration(FILE *f, usec_t u) {
        if (u == USEC_INFINITY)
                fputs("infinity", f);
        else if (u % USEC_PER_SEC == 0)
                fprintf(f, "%llus", (unsigned long long) (u / USEC_PER_SEC));
        else
                fprintf(f, "%llus %lluus", (unsigned long long) (u / USEC_PER_SEC),
                        (unsigned long long) (u % USEC_PER_SEC));
}

static void write_initrd(const Config *c, FILE *f) {
        static const char *const no_yes[] = { "no", "yes" };

        fputs(INITRD_HEADER "# Units= is left out: the generator, its only reader, does not run here.\n", f);
        fputs("[Gate]\nTimeout=", f);
        write_duration(f, c->timeout);
        fprintf(f, "\nOnTimeout=%s\nWarnAfter=", on_timeout_to_string(c->on_timeout));
        write_duration(f, c->warn_after);
        fprintf(f, "\n[Seed]\nDirectory=%s\nCreditWithoutMachineId=%s\nCreditCredentialWithoutMemory=%s\n",
                c->seed_dir, no_yes[c->credit_without_machine_id], no_yes[c->credit_credential_without_memory]);
        if (c->broken)
                fputs(INITRD_BROKEN, f);
        else
                fprintf(f, "Credit=%s\n", no_yes[c->credit]);
}

static void count_only(void *userdata, const char *source, unsigned line, const char *message) {
        (*(unsigned *) userdata)++;
}

/* Whether @text, parsed, gives @c's settings (Units= apart). */
static bool parses_to(const char *text, const Config *c) {
        unsigned n = 0;
        bool same;
        Config w;

        if (config_init(&w) < 0 || config_parse_text(&w, text, "", count_only, &n) < 0) {
                config_done(&w);
                return false;
        }
        same = n == (c->broken ? 1U : 0U) && !w.broken == !c->broken && w.timeout == c->timeout &&
               w.on_timeout == c->on_timeout && w.warn_after == c->warn_after && streq(w.seed_dir, c->seed_dir) &&
               w.credit_without_machine_id == c->credit_without_machine_id &&
               w.credit_credential_without_memory == c->credit_credential_without_memory &&
               (c->broken || w.credit == c->credit);
        config_done(&w);
        return same;
}

int config_write_initrd(const Config *c, FILE *f) {
        _cleanup_free_ char *text = NULL;
        size_t size = 0;
        FILE *m;
        int r = 0;

        /* Checked, not assumed: what is written must parse back to the
         * same settings (a value the writer spells differently, a
         * character the parser reads otherwise). If not, the initrd gets
         * no setting at all but the one that turns crediting off (1):
         * a value that did not read back could move the others. */
        m = open_memstream(&text, &size);
        if (!m)
                return -ENOMEM;
        write_initrd(c, m);
        if (fclose(m) != 0)
                return -ENOMEM;
        if (parses_to(text, c))
                fputs(text, f);
        else {
                fputs(INITRD_HEADER "[Seed]\n" INITRD_BROKEN, f);
                r = 1;
        }
        return fflush(f) == 0 && !ferror(f) ? r : negative_errno();
}
