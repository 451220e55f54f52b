/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* The system credential entropy-gate.seed, by its content: classified,
 * then canonicalized, then hashed and measured. Pure: no I/O, no
 * allocation, table-tested and fuzzed.
 *
 *   hex     hex digits only (either case, an even number), decoded: 4 bits
 *           a digit.
 *   text    every byte printable or whitespace in ASCII, Latin-1 or UTF-8,
 *           or UTF-16/UTF-32 text (with a byte order mark, or ASCII in
 *           it); anything that starts with a byte order mark (UTF-8,
 *           UTF-16, UTF-32), whatever follows; UTF-16 without one whose
 *           units' high bytes are nearly all two values (one alphabetic
 *           script: Cyrillic, Greek, ...); and what is mostly such text
 *           with stray bytes in it (hex digits and a ^Z, four bytes in
 *           five text, or 16 ASCII characters in a row anywhere): mixed,
 *           never credited: how much less than 8 bits a byte it holds
 *           nobody can say. UTF-16 CJK text without a byte order mark
 *           looks like random bytes and is not recognized.
 *   binary  what does not look like text at all: 8 bits a byte.
 *
 * Trailing NUL, CR and LF bytes are not part of any of them (a hypervisor
 * or a shell adds them), so "X", "X\n", "X\0" and X written in hex are one
 * credential: the same canonical bytes, the same hash, credited once. A
 * random binary credential is taken for text with a probability below
 * 1/4000 at 32 bytes (and falling fast with length, to the 2^-15 of a
 * byte order mark at its start): then it is mixed, not credited, which
 * costs a credit and never adds a false one. */

/* The system credential's name: what entropy-seed reads
 * (LoadCredential=, /run/credentials/@system/) and what entropyctl
 * credential hands to a hypervisor. */
#define CREDENTIAL_NAME "entropy-gate.seed"

typedef enum CredentialClass {
        CREDENTIAL_CLASS_BINARY,
        CREDENTIAL_CLASS_HEX,
        CREDENTIAL_CLASS_TEXT,
        _CREDENTIAL_CLASS_MAX,
} CredentialClass;

const char *credential_class_to_string(CredentialClass c);

typedef struct CredentialContent {
        CredentialClass class;
        const char *encoding;        /* text: "ASCII", "UTF-8", "Latin-1", "UTF-16LE", ...; else NULL */
        size_t size;                 /* canonical bytes, in the caller's buffer */
} CredentialContent;

/* Classify the @size bytes of @raw and write the canonical bytes (at most
 * @size of them) to @ret_bytes: the decoded digits for hex; the bytes
 * without their trailing NUL, CR and LF otherwise. Never reads or writes
 * past @size. */
void credential_canonicalize(const uint8_t *raw, size_t size, uint8_t *ret_bytes, CredentialContent *ret);
