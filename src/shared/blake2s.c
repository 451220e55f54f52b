/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <string.h>

#include "blake2s.h"
#include "macro.h"

/* RFC 7693, section 2.6: the SHA-256 initial values. */
static const uint32_t blake2s_iv[8] = {
        0x6A09E667U, 0xBB67AE85U, 0x3C6EF372U, 0xA54FF53AU,
        0x510E527FU, 0x9B05688CU, 0x1F83D9ABU, 0x5BE0CD19U,
};

/* RFC 7693, section 2.7: the message schedule, one row per round. */
static const uint8_t blake2s_sigma[10][16] = {
        {  0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15 },
        { 14, 10,  4,  8,  9, 15, 13,  6,  1, 12,  0,  2, 11,  7,  5,  3 },
        { 11,  8, 12,  0,  5,  2, 15, 13, 10, 14,  3,  6,  7,  1,  9,  4 },
        {  7,  9,  3,  1, 13, 12, 11, 14,  2,  6,  5, 10,  4,  0, 15,  8 },
        {  9,  0,  5,  7,  2,  4, 10, 15, 14,  1, 11, 12,  6,  8,  3, 13 },
        {  2, 12,  6, 10,  0, 11,  8,  3,  4, 13,  7,  5, 15, 14,  1,  9 },
        { 12,  5,  1, 15, 14, 13,  4, 10,  0,  7,  6,  3,  9,  2,  8, 11 },
        { 13, 11,  7, 14, 12,  1,  3,  9,  5,  0, 15,  4,  8,  6,  2, 10 },
        {  6, 15, 14,  9, 11,  3,  0,  8, 12,  2, 13,  7,  1,  4, 10,  5 },
        { 10,  2,  8,  4,  7,  6,  1,  5, 15, 11,  9, 14,  3, 12, 13,  0 },
};

static inline uint32_t rotr32(uint32_t x, unsigned n) {
        return (x >> n) | (x << (32 - n));
}

/* Byte-wise so that it is right on any endianness and alignment (OpenWrt
 * runs on big-endian MIPS). */
static inline uint32_t load_le32(const uint8_t *p) {
        return (uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16 | (uint32_t) p[3] << 24;
}

static inline void store_le32(uint8_t *p, uint32_t v) {
        p[0] = (uint8_t) v;
        p[1] = (uint8_t) (v >> 8);
        p[2] = (uint8_t) (v >> 16);
        p[3] = (uint8_t) (v >> 24);
}

/* RFC 7693, section 3.1: the mixing function G, on columns and diagonals. */
#define G(v, a, b, c, d, x, y)                          \
        do {                                            \
                v[a] = v[a] + v[b] + (x);               \
                v[d] = rotr32(v[d] ^ v[a], 16);         \
                v[c] = v[c] + v[d];                     \
                v[b] = rotr32(v[b] ^ v[c], 12);         \
                v[a] = v[a] + v[b] + (y);               \
                v[d] = rotr32(v[d] ^ v[a], 8);          \
                v[c] = v[c] + v[d];                     \
                v[b] = rotr32(v[b] ^ v[c], 7);          \
        } while (0)

/* RFC 7693, section 3.2: compress one 64-byte block; @last marks the final
 * block (the f0 flag), which is why update() always keeps one block back. */
static void blake2s_compress(Blake2s *s, const uint8_t block[static BLAKE2S_BLOCK_SIZE], bool last) {
        uint32_t m[16], v[16];

        for (size_t i = 0; i < 16; i++)
                m[i] = load_le32(block + 4 * i);
        for (size_t i = 0; i < 8; i++) {
                v[i] = s->h[i];
                v[i + 8] = blake2s_iv[i];
        }
        v[12] ^= s->t[0];
        v[13] ^= s->t[1];
        if (last)
                v[14] = ~v[14];

        for (size_t r = 0; r < 10; r++) {
                const uint8_t *sg = blake2s_sigma[r];

                G(v, 0, 4,  8, 12, m[sg[0]],  m[sg[1]]);
                G(v, 1, 5,  9, 13, m[sg[2]],  m[sg[3]]);
                G(v, 2, 6, 10, 14, m[sg[4]],  m[sg[5]]);
                G(v, 3, 7, 11, 15, m[sg[6]],  m[sg[7]]);
                G(v, 0, 5, 10, 15, m[sg[8]],  m[sg[9]]);
                G(v, 1, 6, 11, 12, m[sg[10]], m[sg[11]]);
                G(v, 2, 7,  8, 13, m[sg[12]], m[sg[13]]);
                G(v, 3, 4,  9, 14, m[sg[14]], m[sg[15]]);
        }

        for (size_t i = 0; i < 8; i++)
                s->h[i] ^= v[i] ^ v[i + 8];

        /* The message words and working vector are functions of the key and
         * the seed: leave none of them on the stack. */
        erase(m, sizeof(m));
        erase(v, sizeof(v));
}

/* The byte counter t counts the input bytes up to and including this block
 * (the final block counts only its real bytes, not the padding). */
static void blake2s_increment(Blake2s *s, uint32_t inc) {
        s->t[0] += inc;
        if (s->t[0] < inc)
                s->t[1]++;
}

int blake2s_init_key(Blake2s *s, size_t outlen, const void *key, size_t keylen) {
        if (!s || outlen < 1 || outlen > BLAKE2S_OUTBYTES || keylen > BLAKE2S_KEYBYTES || (keylen > 0 && !key))
                return -EINVAL;

        *s = (Blake2s) { .outlen = outlen };
        memcpy(s->h, blake2s_iv, sizeof(s->h));
        /* Parameter block word 0 (RFC 7693, section 2.5): digest length,
         * key length, fanout 1, depth 1 (sequential mode); the rest, salt
         * and personalization, stay zero. */
        s->h[0] ^= 0x01010000U ^ ((uint32_t) keylen << 8) ^ (uint32_t) outlen;

        if (keylen > 0) {
                /* The key, zero-padded to a full block, is the first block of input. */
                memcpy(s->buf, key, keylen);
                s->buflen = BLAKE2S_BLOCK_SIZE;
        }
        return 0;
}

int blake2s_init(Blake2s *s, size_t outlen) {
        return blake2s_init_key(s, outlen, NULL, 0);
}

void blake2s_update(Blake2s *s, const void *in, size_t inlen) {
        const uint8_t *p = in;

        if (inlen == 0)
                return;

        /* Fill the pending block; compress it only once more input is
         * known to follow, since the last block must be compressed by
         * final() with the last-block flag. */
        size_t fill = BLAKE2S_BLOCK_SIZE - s->buflen;
        if (inlen > fill) {
                memcpy(s->buf + s->buflen, p, fill);
                blake2s_increment(s, BLAKE2S_BLOCK_SIZE);
                blake2s_compress(s, s->buf, false);
                s->buflen = 0;
                p += fill;
                inlen -= fill;

                /* Whole blocks straight from the input, all but the last. */
                while (inlen > BLAKE2S_BLOCK_SIZE) {
                        blake2s_increment(s, BLAKE2S_BLOCK_SIZE);
                        blake2s_compress(s, p, false);
                        p += BLAKE2S_BLOCK_SIZE;
                        inlen -= BLAKE2S_BLOCK_SIZE;
                }
        }
        memcpy(s->buf + s->buflen, p, inlen);
        s->buflen += inlen;
}

void blake2s_final(Blake2s *s, uint8_t *out) {
        uint8_t digest[BLAKE2S_OUTBYTES];

        blake2s_increment(s, (uint32_t) s->buflen);
        memset(s->buf + s->buflen, 0, BLAKE2S_BLOCK_SIZE - s->buflen);
        blake2s_compress(s, s->buf, true);

        for (size_t i = 0; i < 8; i++)
                store_le32(digest + 4 * i, s->h[i]);
        memcpy(out, digest, s->outlen);

        erase(digest, sizeof(digest));
        blake2s_erase(s);
}

void blake2s_erase(Blake2s *s) {
        erase(s, sizeof(*s));
}

int blake2s(uint8_t *out, size_t outlen, const void *key, size_t keylen, const void *in, size_t inlen) {
        Blake2s s;
        int r;

        if (!out || (inlen > 0 && !in))
                return -EINVAL;

        r = blake2s_init_key(&s, outlen, key, keylen);
        if (r < 0)
                return r;
        blake2s_update(&s, in, inlen);
        blake2s_final(&s, out);
        return 0;
}
