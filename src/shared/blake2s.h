/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* BLAKE2s (RFC 7693): the 32-bit member of the BLAKE2 family, the hash the
 * seed derivation, the machine binding and the seed file checksum use. It is
 * small enough to own (no crypto library in early boot) and its output is
 * checked in the tests against the RFC's vectors, the reference KAT and
 * Python's hashlib.
 *
 * Parameters outside the ranges below are programming errors: the functions
 * return -EINVAL and leave the output untouched. The state holds key
 * material; blake2s_final() wipes it, and a state abandoned before final must
 * be wiped with blake2s_erase(). */

#define BLAKE2S_BLOCK_SIZE 64
#define BLAKE2S_OUTBYTES   32    /* maximum (and usual) digest size */
#define BLAKE2S_KEYBYTES   32    /* maximum key size */

typedef struct Blake2s {
        uint32_t h[8];                  /* chained state */
        uint32_t t[2];                  /* byte counter, 64 bits */
        uint8_t buf[BLAKE2S_BLOCK_SIZE];/* pending input, the last block is kept back */
        size_t buflen;
        size_t outlen;
} Blake2s;

/* Unkeyed hash with a digest of @outlen bytes (1..32). 0 or -EINVAL. */
int blake2s_init(Blake2s *s, size_t outlen);

/* Keyed hash (BLAKE2s's MAC mode): @keylen 1..32 bytes (0 is the same as
 * blake2s_init()), @outlen 1..32. 0 or -EINVAL. */
int blake2s_init_key(Blake2s *s, size_t outlen, const void *key, size_t keylen);

/* Absorb @inlen bytes; may be called any number of times, with any split. */
void blake2s_update(Blake2s *s, const void *in, size_t inlen);

/* Write the digest (s->outlen bytes) to @out and wipe the state. */
void blake2s_final(Blake2s *s, uint8_t *out);

/* Wipe a state without producing a digest (error paths). */
void blake2s_erase(Blake2s *s);

/* One shot: @out (@outlen bytes, 1..32) = BLAKE2s(@key (@keylen 0..32, NULL
 * when 0), @in). 0 or -EINVAL. */
int blake2s(uint8_t *out, size_t outlen, const void *key, size_t keylen, const void *in, size_t inlen);
