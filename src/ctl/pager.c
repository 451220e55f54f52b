// SPDX-License-Identifier: LGPL-2.1-or-later
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <systemd/sd-login.h>

#include "config.h"
#include "io-util.h"
#include "macro.h"
#include "pager.h"

#define PAGER_WORDS_MAX 16


int pager_split(const char *command, char *buf, size_t size, char **argv, size_t max) {
        size_t n = 0;
        char *p, *save = NULL;

        if (strlen(command) >= size)
                return -E2BIG;
        strcpy(buf, command);
        for (p = strtok_r(buf, " \t\n", &save); p; p = strtok_r(NULL, " \t\n", &save)) {
                if (n + 1 >= max)
                        return -E2BIG;
                argv[n++] = p;
        }
        argv[n] = NULL;
        return (int) n;
}

/* less's charset from the locale's name: we never call setlocale(), so that
 * numbers print the same in every locale. */
static bool locale_is_utf8(void) {
        const char *l = getenv("LC_ALL");

        if (!l || !*l)
                l = getenv("LC_CTYPE");
        if (!l || !*l)
                l = getenv("LANG");
        return l && (strcasestr(l, "utf-8") || strcasestr(l, "utf8"));
}

/* A pager can run commands and open files (less's '!' and ':e'): under
 * sudo that is a root shell for whoever sits at the terminal. As systemd
 * decides it: $SYSTEMD_PAGERSECURE when set; else secure unless we run as
 * the owner of our own login session. */
static bool pager_secure(bool *ret_explicit) {
        const char *e = getenv("SYSTEMD_PAGERSECURE");
        uid_t uid;

        *ret_explicit = e;
        if (e)
                return parse_boolean(e) != 0;   /* a value that does not parse: secure */
        return sd_pid_get_owner_uid(0, &uid) < 0 || uid != geteuid();
}

/* The child: becomes the pager reading @fd, or reports errno on @notify_fd. */
_noreturn_ static void pager_exec(int fd, int notify_fd, pid_t parent, const char *env_pager) {
        static const char *const fallbacks[] = { "pager", "less", "more" };
        char buf[1024], *argv[PAGER_WORDS_MAX];
        bool secure, explicit;
        sigset_t ss;
        int e;

        (void) sigemptyset(&ss);
        (void) sigprocmask(SIG_SETMASK, &ss, NULL);
        (void) signal(SIGPIPE, SIG_DFL);
        if (dup2(fd, STDIN_FILENO) < 0)
                goto fail;

        (void) setenv("LESS", getenv("SYSTEMD_LESS") ?: "FRXMK", 1);
        if (getenv("SYSTEMD_LESSCHARSET"))
                (void) setenv("LESSCHARSET", getenv("SYSTEMD_LESSCHARSET"), 1);
        else if (locale_is_utf8())
                (void) setenv("LESSCHARSET", "utf-8", 1);
        secure = pager_secure(&explicit);
        if (secure)
                (void) setenv("LESSSECURE", "1", 1);

        /* The pager goes when we go, even if we are killed. */
        if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0)
                goto fail;
        if (getppid() != parent)
                _exit(EXIT_SUCCESS);

        /* A pager named in the environment may not know LESSSECURE: in
         * secure mode it is used only when the user said so explicitly. */
        if (env_pager && (!secure || explicit) &&
            pager_split(env_pager, buf, sizeof(buf), argv, ELEMENTSOF(argv)) > 0)
                execvp(argv[0], argv);
        for (size_t i = 0; i < ELEMENTSOF(fallbacks); i++) {
                if (secure && !streq(fallbacks[i], "less"))
                        continue;
                execlp(fallbacks[i], fallbacks[i], (char *) NULL);
        }
fail:
        e = errno;
        (void) loop_write(notify_fd, &e, sizeof(e));
        _exit(EXIT_FAILURE);
}

/* Fork the pager, reading from a pipe: its write end in *ret_fd. 0 when no
 * pager could be started. */
static int pager_spawn(const char *env_pager, pid_t *ret_pid, int *ret_fd) {
        int data[2] = { -EBADF, -EBADF }, notify[2] = { -EBADF, -EBADF };
        pid_t parent, pid;
        ssize_t n;
        int e;

        if (pipe2(data, O_CLOEXEC) < 0)
                return 0;
        /* Close-on-exec: it reads as end of file in the parent once the
         * pager runs, and carries errno when no pager could be started. */
        if (pipe2(notify, O_CLOEXEC) < 0)
                goto fail;

        parent = getpid();
        pid = fork();
        if (pid < 0)
                goto fail;
        if (pid == 0)
                pager_exec(data[0], notify[1], parent, env_pager);

        data[0] = safe_close(data[0]);
        notify[1] = safe_close(notify[1]);
        do
                n = read(notify[0], &e, sizeof(e));
        while (n < 0 && errno == EINTR);
        notify[0] = safe_close(notify[0]);
        if (n != 0) {
                data[1] = safe_close(data[1]);
                (void) waitpid(pid, NULL, 0);
                return 0;
        }
        *ret_pid = pid;
        *ret_fd = data[1];
        return 1;

fail:
        safe_close(data[0]);
        safe_close(data[1]);
        safe_close(notify[0]);
        safe_close(notify[1]);
        return 0;
}

size_t text_rows(const char *text, size_t n, unsigned columns) {
        size_t rows = 0, width = 0;
        bool in_line = false;

        if (columns == 0)
                columns = 80;
        for (size_t i = 0; i < n; i++) {
                unsigned char c = (unsigned char) text[i];

                if (c == '\n') {
                        rows += width == 0 ? 1 : (width + columns - 1) / columns;
                        width = 0;
                        in_line = false;
                        continue;
                }
                in_line = true;
                if (c == 0x1b && i + 1 < n && text[i + 1] == '[') {
                        /* CSI ... final byte: a colour, no room taken. */
                        for (i += 2; i < n && !((unsigned char) text[i] >= 0x40 && (unsigned char) text[i] <= 0x7e); i++)
                                ;
                        continue;
                }
                if ((c & 0xc0) == 0x80)
                        continue;
                width++;
        }
        if (in_line)
                rows += width == 0 ? 1 : (width + columns - 1) / columns;
        return rows;
}

static FILE *saved_stdout;
static char *collected;
static size_t collected_size;
static const char *collected_for;  /* the pager from the environment, or NULL */

int pager_open(bool disabled) {
        const char *env_pager, *term;
        FILE *f;

        if (disabled || saved_stdout)
                return 0;
        if (isatty(STDOUT_FILENO) <= 0)
                return 0;
        term = getenv("TERM");
        if (term && streq(term, "dumb"))
                return 0;
        env_pager = getenv("SYSTEMD_PAGER") ?: getenv("PAGER");
        if (env_pager && (!env_pager[strspn(env_pager, " \t\n")] || streq(env_pager, "cat")))
                return 0;

        /* Collected first: only output longer than the screen needs a pager. */
        (void) fflush(stdout);
        f = open_memstream(&collected, &collected_size);
        if (!f)
                return 0;
        saved_stdout = stdout;
        stdout = f;
        collected_for = env_pager;
        return 1;
}

void pager_close(void) {
        struct winsize ws = {};
        unsigned rows = 24, columns = 80;
        pid_t pid;
        int fd;

        if (!saved_stdout)
                return;
        (void) fclose(stdout);
        stdout = saved_stdout;
        saved_stdout = NULL;
        if (!collected)
                return;

        if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) >= 0 && ws.ws_row > 0 && ws.ws_col > 0) {
                rows = ws.ws_row;
                columns = ws.ws_col;
        }
        /* One row stays for the shell's prompt. */
        if (text_rows(collected, collected_size, columns) >= rows &&
            pager_spawn(collected_for, &pid, &fd) > 0) {
                struct sigaction ign = { .sa_handler = SIG_IGN }, old;

                /* Quitting the pager early is no error of ours. */
                (void) sigemptyset(&ign.sa_mask);
                (void) sigaction(SIGPIPE, &ign, &old);
                (void) loop_write(fd, collected, collected_size);
                (void) sigaction(SIGPIPE, &old, NULL);
                safe_close(fd);
                while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
                        ;
        } else {
                (void) fwrite(collected, 1, collected_size, stdout);
                (void) fflush(stdout);
        }
        free(collected);
        collected = NULL;
        collected_size = 0;
}
