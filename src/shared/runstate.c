// SPDX-License-Identifier: LGPL-2.1-or-later
#include <fcntl.h>
#include <inttypes.h>
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

static const char *const record_vm_generation_table[_RECORD_VM_GENERATION_MAX] = {
        [RECORD_VM_GENERATION_NONE] = "none",
        [RECORD_VM_GENERATION_VMCLOCK] = "vmclock",
        [RECORD_VM_GENERATION_VMGENID] = "vmgenid",
        [RECORD_VM_GENERATION_UNREADABLE] = "unreadable",
};

static const char *const seed_generation_table[_SEED_GENERATION_MAX] = {
        [SEED_GENERATION_UNBOUND] = "unbound",
        [SEED_GENERATION_SAME] = "same",
        [SEED_GENERATION_CHANGED] = "changed",
        [SEED_GENERATION_UNVERIFIABLE] = "unverifiable",
};

DEFINE_STRING_TABLE(record_vm_generation, RecordVmGeneration)
DEFINE_STRING_TABLE(seed_generation, SeedGeneration)
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

/* A value is one line, and a path may hold any byte but NUL: a backslash,
 * every control byte and every byte past ASCII are written as \xHH (the
 * record is plain ASCII), so that the parser gets back exactly the bytes
 * that were there. */
static void put_text(Out *o, const char *key, const char *value) {
        static const char hex[] = "0123456789abcdef";

        put_str(o, key);
        put_str(o, "=");
        for (const unsigned char *p = (const unsigned char *) (value ?: ""); *p;) {
                size_t n = 0;

                while (p[n] >= 0x20 && p[n] < 0x7f && p[n] != '\\')
                        n++;
                put_mem(o, (const char *) p, n);
                p += n;
                if (*p) {
                        char esc[4] = { '\\', 'x', hex[*p >> 4], hex[*p & 15] };

                        put_mem(o, esc, sizeof(esc));
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
               sizeof(CredentialResult) == sizeof(int) && sizeof(RecordVmGeneration) == sizeof(int) &&
               sizeof(SeedGeneration) == sizeof(int), "enum fields must be int-sized");

static const Field gate_fields[] = {
        ENUM("OUTCOME", GateRecord, outcome, record_outcome_table),
        BOOL("READY_AT_START", GateRecord, ready_at_start),
        U64("START_BOOTTIME_USEC", GateRecord, start_usec),
        U64("END_BOOTTIME_USEC", GateRecord, end_usec),
        U64("WAITED_USEC", GateRecord, waited_usec),
        TEXT_OPT("ENTROPY_AVAIL", GateRecord, entropy_avail),
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
        ENUM("VM_GENERATION", SeedRecord, vm_generation, record_vm_generation_table),
        ENUM("SEED_GENERATION", SeedRecord, seed_generation, seed_generation_table),
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

/* put_text() undone into @ret (@size bytes). A value that does not fit, or
 * a \x escape that is cut short or would give NUL, leaves the field empty
 * ("unknown"): never a value that lost bytes on the way. */
static void text_unescape(const char *v, size_t vlen, char *ret, size_t size) {
        size_t n = 0;

        for (size_t i = 0; i < vlen; i++) {
                int c = (unsigned char) v[i];

                if (c == '\\') {
                        int hi, lo;

                        if (vlen - i < 4 || v[i + 1] != 'x')
                                goto bad;
                        hi = unhexchar(v[i + 2]);
                        lo = unhexchar(v[i + 3]);
                        if (hi < 0 || lo < 0 || (hi | lo) == 0)
                                goto bad;
                        c = hi << 4 | lo;
                        i += 3;
                }
                if (n + 1 >= size)
                        goto bad;
                ret[n++] = (char) c;
        }
        ret[n] = 0;
        return;
bad:
        /* Nothing of a half-decoded value stays behind. */
        memset(ret, 0, size);
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
                                /* A key given twice: the last wins, whole. */
                                memset(p, 0, f->size);
                                text_unescape(v, vlen, p, f->size);
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
        static char dir[PATH_MAX + sizeof(RUN_DIR_DEFAULT)];

        snprintf(dir, sizeof(dir), "%s" RUN_DIR_DEFAULT, root_get() ?: "");
        return dir;
}

/* The runtime directory, through the resolver, created (0755, its parent
 * must exist) when @create and missing. */
static int runstate_dir_open(bool create) {
        char name[NAME_MAX + 1];
        int fd, pfd;

        fd = root_open(RUN_DIR_DEFAULT, CHASE_DIRECTORY);
        if (fd != -ENOENT || !create)
                return fd;
        pfd = root_open_parent(RUN_DIR_DEFAULT, 0, name);
        if (pfd < 0)
                return pfd;
        if (mkdirat(pfd, name, 0755) < 0 && errno != EEXIST) {
                fd = negative_errno();
                safe_close(pfd);
                return fd;
        }
        safe_close(pfd);
        return root_open(RUN_DIR_DEFAULT, CHASE_DIRECTORY);
}

bool runstate_dir_is(const struct stat *st) {
        _cleanup_close_ int dfd = runstate_dir_open(false);
        struct stat run;

        return dfd >= 0 && fstat(dfd, &run) >= 0 && run.st_dev == st->st_dev && run.st_ino == st->st_ino;
}

int runstate_write(const char *name, const char *text) {
        _cleanup_close_ int dfd = runstate_dir_open(true);

        if (dfd < 0)
                return dfd;
        /* No fsync: /run is tmpfs and this is about this boot only. The
         * temporary file is created O_EXCL|O_NOFOLLOW with its mode, and the
         * rename replaces whatever has the record's name without following
         * it. Several programs write here, unlocked: a temporary name of
         * their own. */
        return write_file_atomic_at(dfd, name, text, strlen(text), 0644, WRITE_UNIQUE_TMP);
}

int runstate_read(const char *name, char **ret) {
        _cleanup_close_ int dfd = runstate_dir_open(false);
        size_t n;

        if (dfd < 0)
                return dfd;
        return read_file_at(dfd, name, RUNSTATE_MAX, READ_NUL_TERMINATE | READ_REFUSE_NUL, ret, &n, NULL);
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

/* ---- The ledger ---- */

static const char *const ledger_kind_table[_LEDGER_KIND_MAX] = {
        [LEDGER_DIRECTORY] = "DIRECTORY",
        [LEDGER_SEED] = "SEED",
        [LEDGER_CREDENTIAL] = "CREDENTIAL",
        [LEDGER_NEXT] = "NEXT",
};

static bool hex_string_is(const char *s, size_t len) {
        for (size_t i = 0; i < len; i++)
                if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
                        return false;
        return s[len] == 0;
}

/* DIRECTORY: "DEV:INO" in lower-case hex; SEED, CREDENTIAL, NEXT: 64 hex digits. */
static bool ledger_id_valid(LedgerKind kind, const char *id) {
        size_t colon;

        if (kind == LEDGER_DIRECTORY) {
                colon = strcspn(id, ":");
                return colon > 0 && colon <= 16 && id[colon] == ':' && strlen(id + colon + 1) > 0 &&
                        strlen(id + colon + 1) <= 16 && hex_string_is(id + colon + 1, strlen(id + colon + 1)) &&
                        strspn(id, "0123456789abcdef") == colon;
        }
        return strlen(id) == 64 && hex_string_is(id, 64);
}

void ledger_directory_id(uint64_t dev, uint64_t ino, char ret[static LEDGER_ID_MAX]) {
        snprintf(ret, LEDGER_ID_MAX, "%" PRIx64 ":%" PRIx64, dev, ino);
}

bool ledger_has(const Ledger *l, LedgerKind kind, const char *id) {
        for (size_t i = 0; i < l->n; i++)
                if (l->entries[i].kind == kind && streq(l->entries[i].id, id))
                        return true;
        return false;
}

int ledger_add(Ledger *l, LedgerKind kind, const char *id) {
        if (!ledger_id_valid(kind, id))
                return -EINVAL;
        if (ledger_has(l, kind, id))
                return 0;
        if (l->n >= LEDGER_ENTRIES_MAX)
                return -ENOSPC;
        l->entries[l->n].kind = kind;
        snprintf(l->entries[l->n].id, sizeof(l->entries[l->n].id), "%s", id);
        l->n++;
        return 1;
}

int ledger_format(const Ledger *l, char *buf, size_t size) {
        Out o = { .buf = buf, .size = size };

        if (size > 0)
                buf[0] = 0;
        put_text(&o, "BOOT_ID", l->boot_id);
        for (size_t i = 0; i < l->n; i++)
                put_text(&o, ledger_kind_table[l->entries[i].kind], l->entries[i].id);
        return o.overflow ? -ENOBUFS : (int) o.len;
}

int ledger_parse(const char *text, Ledger *ret) {
        Ledger l = {};
        size_t lines = 0;

        /* Strict: every line complete and understood, the boot first. A
         * record that says less than it should may be a damaged claim that
         * something was credited. */
        for (const char *line = text; *line; lines++) {
                const char *nl = strchr(line, '\n'), *eq;
                char key[16], value[LEDGER_ID_MAX];
                size_t klen, vlen;
                int kind;

                if (!nl)
                        return -EBADMSG;
                eq = memchr(line, '=', (size_t) (nl - line));
                if (!eq)
                        return -EBADMSG;
                klen = (size_t) (eq - line);
                vlen = (size_t) (nl - eq - 1);
                if (klen >= sizeof(key) || vlen >= sizeof(value))
                        return -EBADMSG;
                memcpy(key, line, klen);
                key[klen] = 0;
                memcpy(value, eq + 1, vlen);
                value[vlen] = 0;

                if (lines == 0) {
                        if (!streq(key, "BOOT_ID") || vlen != 32 || !hex_string_is(value, 32))
                                return -EBADMSG;
                        memcpy(l.boot_id, value, sizeof(l.boot_id));
                } else {
                        kind = string_table_from_string(ledger_kind_table, _LEDGER_KIND_MAX, key);
                        if (kind < 0 || ledger_add(&l, (LedgerKind) kind, value) < 0)
                                return -EBADMSG;
                }
                line = nl + 1;
        }
        if (lines == 0)
                return -EBADMSG;
        *ret = l;
        return 0;
}

int ledger_lock(uint64_t timeout_usec, struct stat *ret_dir_stat) {
        _cleanup_close_ int dfd = runstate_dir_open(true);
        int r;

        if (dfd < 0)
                return dfd;
        if (fstat(dfd, ret_dir_stat) < 0)
                return negative_errno();
        r = flock_timeout(dfd, timeout_usec);
        if (r < 0)
                return r;
        return TAKE_FD(dfd);
}

int ledger_read(int dfd, Ledger *ret) {
        _cleanup_free_ char *text = NULL;
        FileStat st;
        size_t n;
        int r;

        r = read_file_at(dfd, RUNSTATE_LEDGER, RUNSTATE_MAX, READ_NUL_TERMINATE | READ_REFUSE_NUL, &text, &n, &st);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return r;
        if (st.uid != 0 || (st.mode & 022) != 0)
                return -EPERM;
        r = ledger_parse(text, ret);
        return r < 0 ? r : 1;
}

int ledger_write(int dfd, const Ledger *l) {
        char text[RUNSTATE_MAX];
        int r;

        r = ledger_format(l, text, sizeof(text));
        if (r < 0)
                return r;
        /* Under the lock: a fixed temporary name is safe. */
        return write_file_atomic_at(dfd, RUNSTATE_LEDGER, text, (size_t) r, 0644, 0);
}
