/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define _cleanup_(f)   __attribute__((cleanup(f)))
#define _unused_       __attribute__((unused))
#define _noreturn_     __attribute__((noreturn))
#define _printf_(a, b) __attribute__((format(printf, a, b)))
#define _warn_unused_result_ __attribute__((warn_unused_result))
#define _fallthrough_  __attribute__((__fallthrough__))

#define ELEMENTSOF(x) (sizeof(x) / sizeof((x)[0]))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define CLAMP(x, lo, hi) MIN(MAX((x), (lo)), (hi))

/* libc's -1 + errno, converted once at the call into our -errno convention. */
#define RET_NERRNO(expr) ({ int _r = (expr); _r < 0 ? -errno : _r; })

static inline int negative_errno(void) {
        /* errno is never 0 after a failing call, but a compiler can't know it. */
        return errno > 0 ? -errno : -EIO;
}

static inline int safe_close(int fd) {
        if (fd >= 0) {
                int saved = errno;
                (void) close(fd);
                errno = saved;
        }
        return -EBADF;
}

static inline void closep(int *fd) { (void) safe_close(*fd); }

/* Hand an fd out of a _cleanup_close_ variable: returns it and leaves -EBADF behind. */
#define TAKE_FD(fd) ({ int _fd = (fd); (fd) = -EBADF; _fd; })
/* The same for a pointer. */
#define TAKE_PTR(p) ({ typeof(p) _p = (p); (p) = NULL; _p; })
static inline void freep(void *p) { free(*(void **) p); }
static inline void fclosep(FILE **f) { if (*f) (void) fclose(*f); }
#define _cleanup_close_ _cleanup_(closep)
#define _cleanup_free_  _cleanup_(freep)

/* Key material: wiped on every path, whatever the compiler thinks of dead stores. */
static inline void erase(void *p, size_t n) { explicit_bzero(p, n); }

static inline bool streq(const char *a, const char *b) { return strcmp(a, b) == 0; }
static inline bool streq_ptr(const char *a, const char *b) {
        return a && b ? streq(a, b) : a == b;
}
static inline const char *startswith(const char *s, const char *prefix) {
        size_t l = strlen(prefix);
        return strncmp(s, prefix, l) == 0 ? s + l : NULL;
}
static inline const char *yes_no(bool b) { return b ? "yes" : "no"; }
static inline const char *strna(const char *s) { return s ?: "n/a"; }

static inline void strv_free(char **l) {
        if (!l)
                return;
        for (char **i = l; *i; i++)
                free(*i);
        free(l);
}
static inline void strv_freep(char ***l) { strv_free(*l); }
#define _cleanup_strv_free_ _cleanup_(strv_freep)

/* The value of one hex digit (either case), or -1. */
static inline int unhexchar(char c) {
        return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
                c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}
