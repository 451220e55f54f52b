// SPDX-License-Identifier: LGPL-2.1-or-later
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>

#include "io-util.h"
#include "macro.h"
#include "paths.h"
#include "root.h"
#include "runstate.h"
#include "string-table.h"

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

DEFINE_STRING_TABLE(record_outcome, RecordOutcome)
DEFINE_STRING_TABLE(seed_action, SeedAction)
DEFINE_STRING_TABLE(credential_result, CredentialResult)

/* ---- Formatting ---- */

typedef struct Out {
        char *buf;
        size_t size, len;
        bool overflow;
} Out;

/* Appends @n bytes, all or nothing, keeping the text NUL-terminated. No
 * printf: a record is a few hundred bytes that are written at every boot,
 * and a vsnprintf() per piece of them cost more instructions than the rest
 * of entropy-seed load together. */
static void put_mem(Out *o, const char *s, size_t n) {
        if (o->overflow)
                return;
        if (n >= o->size - o->len) {
                o->overflow = true;
                return;
        }
        memcpy(o->buf + o->len, s, n);
        o->len += n;
        o->buf[o->len] = 0;
}

static void put_str(Out *o, const char *s) {
        put_mem(o, s, strlen(s));
}

/* A value is one line: a newline in a reason or path would start a key. */
static void put_text(Out *o, const char *key, const char *value) {
        put_str(o, key);
        put_str(o, "=");
        for (const char *p = value ?: ""; *p;) {
                size_t n = strcspn(p, "\n\r");

                put_mem(o, p, n);
                p += n;
                if (*p) {
                        put_str(o, " ");
                        p++;
                }
        }
        put_str(o, "\n");
}

static void put_u64(Out *o, const char *key, uint64_t v) {
        char digits[21], *d = digits + sizeof(digits);

        if (v == RUNSTATE_UNKNOWN)
                return;
        do
                *--d = (char) ('0' + v % 10);
        while ((v /= 10) > 0);
        put_str(o, key);
        put_str(o, "=");
        put_mem(o, d, (size_t) (digits + sizeof(digits) - d));
        put_str(o, "\n");
}

static void put_bool(Out *o, const char *key, int b) {
        if (b < 0)
                return;
        put_str(o, key);
        put_str(o, "=");
        put_str(o, yes_no(b));
        put_str(o, "\n");
}

/* ---- The fields: one table per record, read by the formatter and the parser ---- */

typedef enum FieldType {
        FIELD_TEXT,                  /* char[size] */
        FIELD_TEXT_OPTIONAL,         /* char[size], left out when empty */
        FIELD_U64,                   /* uint64_t, left out when RUNSTATE_UNKNOWN */
        FIELD_BOOL,                  /* int: 1, 0, -1 unknown (left out) */
        FIELD_ENUM,                  /* int, from a string table; -EINVAL unknown */
} FieldType;

typedef struct Field {
        const char *key;
        FieldType type;
        size_t offset, size;
        const char *const *table;    /* FIELD_ENUM */
        int n_table;
} Field;

#define TEXT(k, t, f)     { k, FIELD_TEXT,          offsetof(t, f), sizeof(((t *) 0)->f), NULL, 0 }
#define TEXT_OPT(k, t, f) { k, FIELD_TEXT_OPTIONAL, offsetof(t, f), sizeof(((t *) 0)->f), NULL, 0 }
#define U64(k, t, f)      { k, FIELD_U64,           offsetof(t, f), 0, NULL, 0 }
#define BOOL(k, t, f)     { k, FIELD_BOOL,          offsetof(t, f), 0, NULL, 0 }
#define ENUM(k, t, f, tb) { k, FIELD_ENUM,          offsetof(t, f), 0, tb, (int) ELEMENTSOF(tb) }

/* Enum fields are read and written as int. */
_Static_assert(sizeof(RecordOutcome) == sizeof(int) && sizeof(SeedAction) == sizeof(int) &&
               sizeof(CredentialResult) == sizeof(int), "enum fields must be int-sized");

static const Field gate_fields[] = {
        ENUM("OUTCOME", GateRecord, outcome, record_outcome_table),
        BOOL("READY_AT_START", GateRecord, ready_at_start),
        U64("START_BOOTTIME_USEC", GateRecord, start_usec),
        U64("END_BOOTTIME_USEC", GateRecord, end_usec),
        U64("WAITED_USEC", GateRecord, waited_usec),
};

static const Field seed_fields[] = {
        TEXT_OPT("BOOT_ID", SeedRecord, boot_id),
        ENUM("ACTION", SeedRecord, action, seed_action_table),
        U64("BITS", SeedRecord, bits),
        TEXT("SEED_PATH", SeedRecord, seed_path),
        TEXT("REASON", SeedRecord, reason),
        ENUM("CREDENTIAL", SeedRecord, credential, credential_result_table),
        U64("CREDENTIAL_BITS", SeedRecord, credential_bits),
        TEXT_OPT("CREDENTIAL_HASH", SeedRecord, credential_hash),
        U64("LEGACY_MIXED", SeedRecord, legacy_mixed),
        BOOL("REPLACEMENT_CREDITABLE", SeedRecord, replacement_creditable),
        U64("BOOTTIME_USEC", SeedRecord, boottime_usec),
};

/* Fields by offset, copied: no cast to a wider alignment. */
static uint64_t get_u64(const char *p) { uint64_t v; memcpy(&v, p, sizeof(v)); return v; }
static int get_int(const char *p) { int v; memcpy(&v, p, sizeof(v)); return v; }
static void set_u64(char *p, uint64_t v) { memcpy(p, &v, sizeof(v)); }
static void set_int(char *p, int v) { memcpy(p, &v, sizeof(v)); }

static int record_format(const Field *fields, size_t n, const void *rec, char *buf, size_t size) {
        Out o = { .buf = buf, .size = size };

        if (size > 0)
                buf[0] = 0;
        for (size_t i = 0; i < n; i++) {
                const Field *f = fields + i;
                const char *p = (const char *) rec + f->offset;

                switch (f->type) {
                case FIELD_TEXT_OPTIONAL:
                        if (!*p)
                                break;
                        _fallthrough_;
                case FIELD_TEXT:
                        put_text(&o, f->key, p);
                        break;
                case FIELD_U64:
                        put_u64(&o, f->key, get_u64(p));
                        break;
                case FIELD_BOOL:
                        put_bool(&o, f->key, get_int(p));
                        break;
                case FIELD_ENUM:
                        put_text(&o, f->key, string_table_to_string(f->table, (size_t) f->n_table, get_int(p)));
                        break;
                }
        }
        return o.overflow ? -ENOBUFS : (int) o.len;
}

int gate_record_format(const GateRecord *r, char *buf, size_t size) {
        return record_format(gate_fields, ELEMENTSOF(gate_fields), r, buf, size);
}

int seed_record_format(const SeedRecord *r, char *buf, size_t size) {
        return record_format(seed_fields, ELEMENTSOF(seed_fields), r, buf, size);
}

/* ---- Parsing ---- */

static bool key_is(const char *key, size_t klen, const char *name) {
        return strlen(name) == klen && strncmp(key, name, klen) == 0;
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

static int parse_enum(const char *const *table, int n, const char *v, size_t vlen) {
        for (int i = 0; i < n; i++)
                if (table[i] && key_is(v, vlen, table[i]))
                        return i;
        return -EINVAL;
}

/* Every field unknown, then each "KEY=VALUE" line of @text that names one. */
static void record_parse(const Field *fields, size_t n, void *rec, const char *text) {
        for (size_t i = 0; i < n; i++) {
                char *p = (char *) rec + fields[i].offset;

                switch (fields[i].type) {
                case FIELD_TEXT:
                case FIELD_TEXT_OPTIONAL:
                        p[0] = 0;
                        break;
                case FIELD_U64:
                        set_u64(p, RUNSTATE_UNKNOWN);
                        break;
                case FIELD_BOOL:
                        set_int(p, -1);
                        break;
                case FIELD_ENUM:
                        set_int(p, -EINVAL);
                        break;
                }
        }

        for (const char *line = text; line && *line;) {
                const char *nl = strchrnul(line, '\n'), *eq = memchr(line, '=', (size_t) (nl - line));

                for (size_t i = 0; eq && i < n; i++) {
                        const Field *f = fields + i;
                        char *p = (char *) rec + f->offset;
                        const char *v = eq + 1;
                        size_t vlen = (size_t) (nl - v);

                        if (!key_is(line, (size_t) (eq - line), f->key))
                                continue;
                        switch (f->type) {
                        case FIELD_TEXT:
                        case FIELD_TEXT_OPTIONAL:
                                snprintf(p, f->size, "%.*s", (int) MIN(vlen, (size_t) INT32_MAX), v);
                                break;
                        case FIELD_U64:
                                set_u64(p, parse_u64(v, vlen));
                                break;
                        case FIELD_BOOL:
                                set_int(p, key_is(v, vlen, "yes") ? 1 : key_is(v, vlen, "no") ? 0 : -1);
                                break;
                        case FIELD_ENUM:
                                set_int(p, parse_enum(f->table, f->n_table, v, vlen));
                                break;
                        }
                }
                line = *nl ? nl + 1 : NULL;
        }
}

void gate_record_parse(const char *text, GateRecord *ret) {
        *ret = (GateRecord) {};
        record_parse(gate_fields, ELEMENTSOF(gate_fields), ret, text);
}

void seed_record_parse(const char *text, SeedRecord *ret) {
        *ret = (SeedRecord) {};
        record_parse(seed_fields, ELEMENTSOF(seed_fields), ret, text);
}

/* ---- Files ---- */

const char *runstate_dir(void) {
        static char dir[PATH_MAX];

        snprintf(dir, sizeof(dir), "%s" RUN_DIR_DEFAULT, root_get() ?: "");
        return dir;
}

int runstate_write(const char *name, const char *text) {
        const char *dir = runstate_dir();
        char path[PATH_MAX];
        int r;

        if ((size_t) snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path))
                return -ENAMETOOLONG;
        /* No fsync: /run is tmpfs and this is about this boot only, so no
         * directory fd either: the record is written by its path, the
         * directory resolved as /run above it is (both root's; systemd
         * makes it, RuntimeDirectory=). The temporary file is still created
         * O_EXCL|O_NOFOLLOW and the rename replaces whatever has the
         * record's name without following it. Several programs write here,
         * unlocked: a temporary name of their own. */
        r = write_file_atomic_at(AT_FDCWD, path, text, strlen(text), 0644, WRITE_UNIQUE_TMP);
        if (r != -ENOENT)
                return r;
        if (mkdir(dir, 0755) < 0 && errno != EEXIST)
                return negative_errno();
        return write_file_atomic_at(AT_FDCWD, path, text, strlen(text), 0644, WRITE_UNIQUE_TMP);
}

int runstate_read(const char *name, char **ret) {
        char path[PATH_MAX];
        size_t n;

        if ((size_t) snprintf(path, sizeof(path), "%s/%s", runstate_dir(), name) >= sizeof(path))
                return -ENAMETOOLONG;
        return read_file_at(AT_FDCWD, path, RUNSTATE_MAX, READ_NUL_TERMINATE | READ_REFUSE_NUL, ret, &n, NULL);
}

static int record_read(const char *name, const Field *fields, size_t n, void *rec) {
        _cleanup_free_ char *text = NULL;
        int r;

        r = runstate_read(name, &text);
        record_parse(fields, n, rec, r >= 0 ? text : "");
        return r == -ENOENT ? 0 : r < 0 ? r : 1;
}

int gate_record_read(GateRecord *ret) {
        *ret = (GateRecord) {};
        return record_read(RUNSTATE_GATE, gate_fields, ELEMENTSOF(gate_fields), ret);
}

int seed_record_read(SeedRecord *ret) {
        *ret = (SeedRecord) {};
        return record_read(RUNSTATE_SEED, seed_fields, ELEMENTSOF(seed_fields), ret);
}
