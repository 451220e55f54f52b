/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Scratch trees for the unit tests: a temporary directory, files and
 * directories inside it (parents made as needed), and its removal. Every
 * failure fails the test. Include after <cmocka.h>. */

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "io-util.h"
#include "macro.h"

/* A new directory /tmp/NAME.XXXXXX, into @buf (PATH_MAX). */
static inline void test_tmpdir(char *buf, const char *name) {
        snprintf(buf, PATH_MAX, "/tmp/%s.XXXXXX", name);
        assert_non_null(mkdtemp(buf));
}

static inline void test_rm_rf(const char *dir) {
        char cmd[3 * PATH_MAX];

        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
        assert_int_equal(system(cmd), 0);
}

/* @dir/@rel (a leading '/' in @rel is dropped: absolute paths are taken
 * inside @dir), every missing directory on the way made 0755. */
static inline void test_mkdir_p(const char *dir, const char *rel) {
        char path[2 * PATH_MAX];

        while (*rel == '/')
                rel++;
        snprintf(path, sizeof(path), "%s/%s", dir, rel);
        for (char *p = path + strlen(dir) + 1; (p = strchr(p, '/')); p++) {
                *p = 0;
                assert_true(mkdir(path, 0755) >= 0 || errno == EEXIST);
                *p = '/';
        }
        assert_true(mkdir(path, 0755) >= 0 || errno == EEXIST);
}

/* Replace @dir/@rel (as above) with @size bytes of @data, mode @mode, parents made. */
static inline void test_write(const char *dir, const char *rel, const void *data, size_t size, mode_t mode) {
        char path[2 * PATH_MAX], parent[PATH_MAX];
        _cleanup_close_ int fd = -EBADF;
        const char *slash;

        while (*rel == '/')
                rel++;
        slash = strrchr(rel, '/');
        if (slash) {
                snprintf(parent, sizeof(parent), "%.*s", (int) (slash - rel), rel);
                test_mkdir_p(dir, parent);
        }
        snprintf(path, sizeof(path), "%s/%s", dir, rel);
        (void) unlink(path);
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode);
        assert_true(fd >= 0);
        assert_int_equal(loop_write(fd, data, size), 0);
}
#define test_write_text(dir, rel, text) test_write((dir), (rel), (text), strlen(text), 0644)
