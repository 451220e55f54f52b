// SPDX-License-Identifier: LGPL-2.1-or-later
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>

#include "io-util.h"
#include "macro.h"
#include "paths.h"
#include "root.h"
#include "runstate.h"

/* ---- String tables ---- */

static const char *const record_outcome_table[_RECORD_OUTCOME_MAX] = {
        [RECORD_OUTCOME_READY] = "ready",
        [RECORD_OUTCOME_TIMEOUT_PROCEED] = "timeout-proceed",
        [RECORD_OUTCOME_TIMEOUT_FAIL] = "timeout-fail",
        [RECORD_OUTCOME_INTERRUPTED] = "interrupted",
        [RECORD_OUTCOME_ERROR] = "error",
};

static const char *const seed_action_table[_SEED_ACTION_MAX] = {
        [SEED_ACTION_CREDITED] = "credited",
        [SEED_ACTION_NOT_CREDITED] = "not-credited",
        [SEED_ACTION_ERROR] = "error",
};

static const char *const credential_result_table[_CREDENTIAL_MAX] = {
        [CREDENTIAL_NONE] = "none",
        [CREDENTIAL_MIXED] = "mixed",
        [CREDENTIAL_CREDITED] = "credited",
};

static const char *table_to_string(const char *const *table, int n, int i) {
        return i >= 0 && i < n ? table[i] : NULL;
}

static int table_from_string(const char *const *table, int n, const char *s) {
        for (int i = 0; s && i < n; i++)
                if (streq(table[i], s))
                        return i;
        return -1;
}

#define STRING_TABLE(name, type, table, max)                                            \
        const char *name##_to_string(type x) {                                          \
                return table_to_string(table, max, (int) x);                            \
        }                                                                               \
        type name##_from_string(const char *s) {                                        \
                return (type) table_from_string(table, max, s);                         \
        }

STRING_TABLE(record_outcome, RecordOutcome, record_outcome_table, _RECORD_OUTCOME_MAX)
STRING_TABLE(seed_action, SeedAction, seed_action_table, _SEED_ACTION_MAX)
STRING_TABLE(credential_result, CredentialResult, credential_result_table, _CREDENTIAL_MAX)

/* ---- Formatting ---- */

typedef struct Out {
        char *buf;
        size_t size, len;
        bool overflow;
} Out;

static void put(Out *o, const char *format, ...) _printf_(2, 3);
static void put(Out *o, const char *format, ...) {
        va_list ap;
        int k;

        if (o->overflow)
                return;
        va_start(ap, format);
        k = vsnprintf(o->buf + o->len, o->size - o->len, format, ap);
        va_end(ap);
        if (k < 0 || (size_t) k >= o->size - o->len)
                o->overflow = true;
        else
                o->len += (size_t) k;
}

/* A value is one line: a newline in a reason or path would start a key. */
static void put_text(Out *o, const char *key, const char *value) {
        put(o, "%s=", key);
        for (const char *p = value ?: ""; *p; p++)
                put(o, "%c", *p == '\n' || *p == '\r' ? ' ' : *p);
        put(o, "\n");
}

static void put_u64(Out *o, const char *key, uint64_t v) {
        if (v != RUNSTATE_UNKNOWN)
                put(o, "%s=%" PRIu64 "\n", key, v);
}

static void put_bool(Out *o, const char *key, int b) {
        if (b >= 0)
                put(o, "%s=%s\n", key, yes_no(b));
}

static int out_finish(const Out *o) {
        return o->overflow ? -ENOBUFS : (int) o->len;
}

int gate_record_format(const GateRecord *r, char *buf, size_t size) {
        Out o = { .buf = buf, .size = size };

        if (size > 0)
                buf[0] = 0;
        put_text(&o, "OUTCOME", record_outcome_to_string(r->outcome));
        put_bool(&o, "READY_AT_START", r->ready_at_start);
        put_u64(&o, "START_BOOTTIME_USEC", r->start_usec);
        put_u64(&o, "END_BOOTTIME_USEC", r->end_usec);
        put_u64(&o, "WAITED_USEC", r->waited_usec);
        return out_finish(&o);
}

int seed_record_format(const SeedRecord *r, char *buf, size_t size) {
        Out o = { .buf = buf, .size = size };

        if (size > 0)
                buf[0] = 0;
        if (r->boot_id[0])
                put_text(&o, "BOOT_ID", r->boot_id);
        put_text(&o, "ACTION", seed_action_to_string(r->action));
        put_u64(&o, "BITS", r->bits);
        put_text(&o, "SEED_PATH", r->seed_path);
        put_text(&o, "REASON", r->reason);
        put_text(&o, "CREDENTIAL", credential_result_to_string(r->credential));
        put_u64(&o, "CREDENTIAL_BITS", r->credential_bits);
        if (r->credential_hash[0])
                put_text(&o, "CREDENTIAL_HASH", r->credential_hash);
        put_u64(&o, "LEGACY_MIXED", r->legacy_mixed);
        put_bool(&o, "REPLACEMENT_CREDITABLE", r->replacement_creditable);
        put_u64(&o, "BOOTTIME_USEC", r->boottime_usec);
        return out_finish(&o);
}

/* ---- Parsing ---- */

/* Calls @field for each "KEY=VALUE" line of @text. */
static void for_each_field(const char *text, void (*field)(const char *key, size_t klen, const char *value,
                                                           size_t vlen, void *userdata), void *userdata) {
        for (const char *line = text; line && *line;) {
                const char *nl = strchrnul(line, '\n'), *eq = memchr(line, '=', (size_t) (nl - line));

                if (eq)
                        field(line, (size_t) (eq - line), eq + 1, (size_t) (nl - eq - 1), userdata);
                line = *nl ? nl + 1 : NULL;
        }
}

static bool key_is(const char *key, size_t klen, const char *name) {
        return strlen(name) == klen && strncmp(key, name, klen) == 0;
}

static void copy_text(char *dst, size_t size, const char *v, size_t vlen) {
        snprintf(dst, size, "%.*s", (int) MIN(vlen, (size_t) INT32_MAX), v);
}

static uint64_t parse_u64(const char *v, size_t vlen) {
        uint64_t u = 0;

        if (vlen == 0 || vlen > 20)
                return RUNSTATE_UNKNOWN;
        for (size_t i = 0; i < vlen; i++) {
                if (v[i] < '0' || v[i] > '9' || u > (UINT64_MAX - 9) / 10)
                        return RUNSTATE_UNKNOWN;
                u = u * 10 + (uint64_t) (v[i] - '0');
        }
        return u;
}

static int parse_yes_no(const char *v, size_t vlen) {
        return key_is(v, vlen, "yes") ? 1 : key_is(v, vlen, "no") ? 0 : -1;
}

static int parse_enum(const char *const *table, int n, const char *v, size_t vlen) {
        for (int i = 0; i < n; i++)
                if (key_is(v, vlen, table[i]))
                        return i;
        return -1;
}

static void gate_field(const char *k, size_t kl, const char *v, size_t vl, void *userdata) {
        GateRecord *r = userdata;

        if (key_is(k, kl, "OUTCOME"))
                r->outcome = (RecordOutcome) parse_enum(record_outcome_table, _RECORD_OUTCOME_MAX, v, vl);
        else if (key_is(k, kl, "READY_AT_START"))
                r->ready_at_start = parse_yes_no(v, vl);
        else if (key_is(k, kl, "START_BOOTTIME_USEC"))
                r->start_usec = parse_u64(v, vl);
        else if (key_is(k, kl, "END_BOOTTIME_USEC"))
                r->end_usec = parse_u64(v, vl);
        else if (key_is(k, kl, "WAITED_USEC"))
                r->waited_usec = parse_u64(v, vl);
}

void gate_record_parse(const char *text, GateRecord *ret) {
        *ret = (GateRecord) {
                .outcome = _RECORD_OUTCOME_INVALID,
                .ready_at_start = -1,
                .start_usec = RUNSTATE_UNKNOWN,
                .end_usec = RUNSTATE_UNKNOWN,
                .waited_usec = RUNSTATE_UNKNOWN,
        };
        for_each_field(text, gate_field, ret);
}

static void seed_field(const char *k, size_t kl, const char *v, size_t vl, void *userdata) {
        SeedRecord *r = userdata;

        if (key_is(k, kl, "BOOT_ID"))
                copy_text(r->boot_id, sizeof(r->boot_id), v, vl);
        else if (key_is(k, kl, "ACTION"))
                r->action = (SeedAction) parse_enum(seed_action_table, _SEED_ACTION_MAX, v, vl);
        else if (key_is(k, kl, "BITS"))
                r->bits = parse_u64(v, vl);
        else if (key_is(k, kl, "SEED_PATH"))
                copy_text(r->seed_path, sizeof(r->seed_path), v, vl);
        else if (key_is(k, kl, "REASON"))
                copy_text(r->reason, sizeof(r->reason), v, vl);
        else if (key_is(k, kl, "CREDENTIAL"))
                r->credential = (CredentialResult) parse_enum(credential_result_table, _CREDENTIAL_MAX, v, vl);
        else if (key_is(k, kl, "CREDENTIAL_BITS"))
                r->credential_bits = parse_u64(v, vl);
        else if (key_is(k, kl, "CREDENTIAL_HASH"))
                copy_text(r->credential_hash, sizeof(r->credential_hash), v, vl);
        else if (key_is(k, kl, "LEGACY_MIXED"))
                r->legacy_mixed = parse_u64(v, vl);
        else if (key_is(k, kl, "REPLACEMENT_CREDITABLE"))
                r->replacement_creditable = parse_yes_no(v, vl);
        else if (key_is(k, kl, "BOOTTIME_USEC"))
                r->boottime_usec = parse_u64(v, vl);
}

void seed_record_parse(const char *text, SeedRecord *ret) {
        *ret = (SeedRecord) {
                .action = _SEED_ACTION_INVALID,
                .bits = RUNSTATE_UNKNOWN,
                .credential = _CREDENTIAL_INVALID,
                .credential_bits = RUNSTATE_UNKNOWN,
                .legacy_mixed = RUNSTATE_UNKNOWN,
                .replacement_creditable = -1,
                .boottime_usec = RUNSTATE_UNKNOWN,
        };
        for_each_field(text, seed_field, ret);
}

/* ---- Files ---- */

const char *runstate_dir(void) {
        static char dir[PATH_MAX];

        snprintf(dir, sizeof(dir), "%s" RUN_DIR_DEFAULT, root_get() ?: "");
        return dir;
}

int runstate_write(const char *name, const char *text) {
        const char *dir = runstate_dir();
        _cleanup_close_ int dfd = -EBADF;

        dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        if (dfd < 0 && errno == ENOENT) {
                if (mkdir(dir, 0755) < 0 && errno != EEXIST)
                        return negative_errno();
                dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        }
        if (dfd < 0)
                return negative_errno();
        /* No fsync: /run is tmpfs and this is about this boot only. Several
         * programs write here, unlocked: a temporary name of their own. */
        return write_file_atomic_at(dfd, name, text, strlen(text), 0644, WRITE_UNIQUE_TMP);
}

int runstate_read(const char *name, char **ret) {
        char path[PATH_MAX];
        size_t n;

        if ((size_t) snprintf(path, sizeof(path), "%s/%s", runstate_dir(), name) >= sizeof(path))
                return -ENAMETOOLONG;
        return read_file_at(AT_FDCWD, path, RUNSTATE_MAX, READ_NUL_TERMINATE | READ_REFUSE_NUL, ret, &n, NULL);
}

int gate_record_read(GateRecord *ret) {
        _cleanup_free_ char *text = NULL;
        int r;

        r = runstate_read(RUNSTATE_GATE, &text);
        gate_record_parse(r >= 0 ? text : "", ret);
        return r == -ENOENT ? 0 : r < 0 ? r : 1;
}

int seed_record_read(SeedRecord *ret) {
        _cleanup_free_ char *text = NULL;
        int r;

        r = runstate_read(RUNSTATE_SEED, &text);
        seed_record_parse(r >= 0 ? text : "", ret);
        return r == -ENOENT ? 0 : r < 0 ? r : 1;
}
