// SPDX-License-Identifier: LGPL-2.1-or-later
#include <stdbool.h>
#include <string.h>

#include "credential.h"
#include "macro.h"

static const char *const credential_class_table[_CREDENTIAL_CLASS_MAX] = {
        [CREDENTIAL_CLASS_BINARY] = "binary",
        [CREDENTIAL_CLASS_HEX] = "hex",
        [CREDENTIAL_CLASS_TEXT] = "text",
};

const char *credential_class_to_string(CredentialClass c) {
        return c >= 0 && c < _CREDENTIAL_CLASS_MAX ? credential_class_table[c] : NULL;
}

static bool is_whitespace(uint32_t c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* A character a person types: not a C0 or C1 control (whitespace aside),
 * not DEL, not a surrogate, not a noncharacter, not past Unicode. */
static bool is_text_char(uint32_t c) {
        if (is_whitespace(c))
                return true;
        if (c < 0x20 || (c >= 0x7f && c < 0xa0))
                return false;
        if ((c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff)
                return false;
        return (c & 0xfffe) != 0xfffe && !(c >= 0xfdd0 && c <= 0xfdef);
}

/* Latin-1 (and so ASCII): every byte a character. */
static bool is_latin1_text(const uint8_t *p, size_t n, bool *ret_ascii) {
        bool ascii = true;

        for (size_t i = 0; i < n; i++) {
                if (!is_text_char(p[i]))
                        return false;
                ascii = ascii && p[i] < 0x80;
        }
        *ret_ascii = ascii;
        return true;
}

/* One UTF-8 sequence at @p (at most @n bytes): its length and code point,
 * or 0 when it is not well-formed (overlong, a surrogate, past U+10FFFF,
 * cut short). */
static size_t utf8_decode(const uint8_t *p, size_t n, uint32_t *ret) {
        size_t len;
        uint32_t c, min;

        if (p[0] < 0x80) {
                *ret = p[0];
                return 1;
        }
        if ((p[0] & 0xe0) == 0xc0)
                len = 2, c = p[0] & 0x1f, min = 0x80;
        else if ((p[0] & 0xf0) == 0xe0)
                len = 3, c = p[0] & 0x0f, min = 0x800;
        else if ((p[0] & 0xf8) == 0xf0)
                len = 4, c = p[0] & 0x07, min = 0x10000;
        else
                return 0;
        if (len > n)
                return 0;
        for (size_t i = 1; i < len; i++) {
                if ((p[i] & 0xc0) != 0x80)
                        return 0;
                c = c << 6 | (p[i] & 0x3f);
        }
        if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
                return 0;
        *ret = c;
        return len;
}

static bool is_utf8_text(const uint8_t *p, size_t n) {
        if (n >= 3 && p[0] == 0xef && p[1] == 0xbb && p[2] == 0xbf)
                p += 3, n -= 3;
        for (size_t i = 0; i < n;) {
                uint32_t c;
                size_t len = utf8_decode(p + i, n - i, &c);

                if (len == 0 || !is_text_char(c))
                        return false;
                i += len;
        }
        return true;
}

static uint32_t unit16(const uint8_t *p, bool be) {
        return be ? (uint32_t) p[0] << 8 | p[1] : (uint32_t) p[1] << 8 | p[0];
}

static uint32_t unit32(const uint8_t *p, bool be) {
        return be ? (uint32_t) p[0] << 24 | (uint32_t) p[1] << 16 | (uint32_t) p[2] << 8 | p[3] :
                (uint32_t) p[3] << 24 | (uint32_t) p[2] << 16 | (uint32_t) p[1] << 8 | p[0];
}

/* UTF-16 or UTF-32 text in @p (the whole credential, trailing NULs
 * included: a terminator there is a NUL unit). Recognized by a byte order
 * mark, or without one by the zero bytes of ASCII characters in every
 * unit; random bytes have neither. */
static const char *wide_text_encoding(const uint8_t *p, size_t n) {
        static const struct {
                const char *name;
                size_t width;
                bool be;
        } encodings[] = {
                { "UTF-32LE", 4, false }, { "UTF-32BE", 4, true },
                { "UTF-16LE", 2, false }, { "UTF-16BE", 2, true },
        };

        for (size_t e = 0; e < ELEMENTSOF(encodings); e++) {
                size_t w = encodings[e].width, i = 0, chars = 0;
                bool be = encodings[e].be, bom, ascii = true, ok = true;

                if (n < w || n % w != 0)
                        continue;
                bom = (w == 4 ? unit32(p, be) : unit16(p, be)) == 0xfeff;
                if (bom)
                        i = w;
                /* Trailing NUL units: a terminator, not text. */
                while (n > i && (w == 4 ? unit32(p + n - w, be) : unit16(p + n - w, be)) == 0)
                        n -= w;
                for (; ok && i < n; i += w) {
                        uint32_t c = w == 4 ? unit32(p + i, be) : unit16(p + i, be);

                        if (w == 2 && c >= 0xd800 && c <= 0xdbff && i + 2 * w <= n) {
                                uint32_t lo = unit16(p + i + w, be);

                                if (lo >= 0xdc00 && lo <= 0xdfff) {
                                        c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
                                        i += w;
                                }
                        }
                        ok = is_text_char(c);
                        ascii = ascii && c < 0x80;
                        chars++;
                }
                if (ok && chars > 0 && (bom || ascii))
                        return encodings[e].name;
        }
        return NULL;
}

/* A byte order mark at the start makes the credential text, whatever
 * follows: only text is written with one, and a stray unit after it (a
 * noncharacter, a lone surrogate, an odd last byte) must not make
 * UTF-16 Cyrillic or Chinese 8 bits a byte. A random binary credential
 * starts so with a probability near 2^-15 (FF FE or FE FF; the UTF-8 and
 * UTF-32 marks are rarer still): it is then mixed, not credited, which
 * fails closed. The UTF-32 marks go first: FF FE 00 00 starts with
 * UTF-16LE's. */
static const char *byte_order_mark_encoding(const uint8_t *p, size_t n) {
        static const struct {
                const char *name;
                uint8_t mark[4];
                size_t len;
        } marks[] = {
                { "UTF-32LE by its byte order mark", { 0xff, 0xfe, 0x00, 0x00 }, 4 },
                { "UTF-32BE by its byte order mark", { 0x00, 0x00, 0xfe, 0xff }, 4 },
                { "UTF-8 by its byte order mark", { 0xef, 0xbb, 0xbf }, 3 },
                { "UTF-16LE by its byte order mark", { 0xff, 0xfe }, 2 },
                { "UTF-16BE by its byte order mark", { 0xfe, 0xff }, 2 },
        };

        for (size_t i = 0; i < ELEMENTSOF(marks); i++)
                if (n >= marks[i].len && memcmp(p, marks[i].mark, marks[i].len) == 0)
                        return marks[i].name;
        return NULL;
}

/* UTF-16 without a byte order mark, of text in one alphabetic script: the
 * high bytes of its units are the script's block (0x04 Cyrillic, 0x03
 * Greek, 0x05 Hebrew, 0x06 Arabic, ...) and 0x00 (spaces, digits, ASCII
 * punctuation), so two values cover nearly all of them. The test: at least
 * UTF16_UNITS_MIN whole units, and the two most frequent high bytes cover
 * 90% of them, in either byte order (the high bytes are those at the odd
 * offsets for UTF-16LE, at the even ones for UTF-16BE, so a stray byte
 * before the text is the other order's view, and one after it is left
 * out).
 *
 * Random bytes pass for one byte order with a probability of at most
 * C(256,2) * P(at least ceil(0.9 m) of m uniform bytes fall in a given
 * pair): for m units that is 1.2e-4 at 8 bytes (4 units, all of them in
 * two values; 1.06e-4 exactly, and a simulation of 2*10^7 random 8-byte
 * strings gave 1.07e-4 for one order, 2.1e-4 for either), 9.5e-7 at 10
 * bytes, 7.4e-9 at 12, 4.5e-13 at 16, 1.3e-26 at 32 and 1.2e-53 at 64;
 * twice that for either order. A credential that passes is mixed, not
 * credited: it fails closed.
 *
 * Not caught: UTF-16 without a byte order mark of CJK text, whose
 * ideographs spread over 80 and more high byte values, as random bytes'
 * do; nothing here tells the two apart (docs/design.md). */
#define UTF16_UNITS_MIN 4

static bool utf16_one_script_view(const uint8_t *p, size_t n, bool be) {
        unsigned count[256] = {};
        size_t units = n / 2, first = 0, second = 0;

        if (units < UTF16_UNITS_MIN)
                return false;
        for (size_t i = 0; i < units; i++)
                count[p[2 * i + (be ? 0 : 1)]]++;
        for (size_t v = 0; v < ELEMENTSOF(count); v++)
                if (count[v] > first) {
                        second = first;
                        first = count[v];
                } else if (count[v] > second)
                        second = count[v];
        return (first + second) * 10 >= units * 9;
}

static const char *utf16_one_script_encoding(const uint8_t *p, size_t n) {
        if (utf16_one_script_view(p, n, false))
                return "UTF-16LE by its high bytes";
        if (utf16_one_script_view(p, n, true))
                return "UTF-16BE by its high bytes";
        return NULL;
}

/* ASCII that a person or a tool writes: printable, or whitespace. */
static bool is_ascii_text(uint8_t c) {
        return (c >= 0x20 && c < 0x7f) || is_whitespace(c);
}

/* The longest run of ASCII text that proves text is in there: random bytes
 * hold one of this length at a given place with a probability of
 * (101/256)^16, below 4 in 10^7, and 512 of them anywhere below 2 in 10^4. */
#define TEXT_RUN_MIN 16

/* Text with something else in it: a hex seed with a stray byte after it
 * (a DOS end of file, a DEL, a NUL and a control), a passphrase with a
 * control character in it, hex digits followed by random bytes. None of it
 * holds 8 bits a byte, so none of it is binary: binary is only what does
 * not look like text at all. Four bytes in five that are ASCII text, NUL
 * (UTF-16's ASCII) or part of a well-formed UTF-8 character, or a run of
 * TEXT_RUN_MIN ASCII text bytes anywhere, make it text. Random bytes are a
 * little over 40% such bytes: at 32 bytes this takes them for text with a
 * probability near 1/80000, at 512 bytes (the run) below 1/10000; with
 * Latin-1 (2/10000 at 32 bytes) still below the 1/4000 of credential.h. */
static bool is_mostly_text(const uint8_t *p, size_t n) {
        size_t texty = 0, run = 0;

        for (size_t i = 0; i < n;) {
                uint32_t c;
                size_t len = p[i] >= 0x80 ? utf8_decode(p + i, n - i, &c) : 0;

                if (len > 0 && is_text_char(c)) {
                        texty += len;
                        i += len;
                        run = 0;
                        continue;
                }
                if (is_ascii_text(p[i])) {
                        if (++run >= TEXT_RUN_MIN)
                                return true;
                        texty++;
                } else {
                        run = 0;
                        if (p[i] == 0)
                                texty++;
                }
                i++;
        }
        return texty >= n - n / 5;
}

void credential_canonicalize(const uint8_t *raw, size_t size, uint8_t *ret_bytes, CredentialContent *ret) {
        const char *wide;
        size_t n = size;
        bool ascii = false;

        *ret = (CredentialContent) {};

        /* Before anything strips the NULs that belong to its last unit. */
        wide = wide_text_encoding(raw, size);

        while (n > 0 && (raw[n - 1] == 0 || raw[n - 1] == '\n' || raw[n - 1] == '\r'))
                n--;

        if (n > 0 && n % 2 == 0) {
                size_t i;

                for (i = 0; i < n && unhexchar((char) raw[i]) >= 0; i++)
                        ;
                if (i == n) {
                        for (i = 0; i < n / 2; i++)
                                ret_bytes[i] = (uint8_t) (unhexchar((char) raw[2 * i]) << 4 | unhexchar((char) raw[2 * i + 1]));
                        ret->class = CREDENTIAL_CLASS_HEX;
                        ret->size = n / 2;
                        return;
                }
        }

        if (n > 0)
                memcpy(ret_bytes, raw, n);
        ret->size = n;

        if (n == 0)
                /* Nothing but terminators: nothing to credit. */
                ret->encoding = "ASCII";
        else if (wide || (wide = wide_text_encoding(raw, n)))
                /* With its terminator, or without (a single "\n" after
                 * UTF-16 leaves an odd length). */
                ret->encoding = wide;
        else if (is_latin1_text(raw, n, &ascii))
                ret->encoding = ascii ? "ASCII" : is_utf8_text(raw, n) ? "UTF-8" : "Latin-1";
        else if (is_utf8_text(raw, n))
                ret->encoding = "UTF-8";
        else if ((wide = byte_order_mark_encoding(raw, size)) || (wide = utf16_one_script_encoding(raw, n)))
                /* Text that did not parse as a whole: a stray unit or
                 * byte after a byte order mark, or in UTF-16 of one
                 * script that has no mark. */
                ret->encoding = wide;
        else if (is_mostly_text(raw, n))
                ret->encoding = "mostly ASCII or UTF-8, with stray bytes";
        ret->class = ret->encoding ? CREDENTIAL_CLASS_TEXT : CREDENTIAL_CLASS_BINARY;
}
