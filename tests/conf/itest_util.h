/* conf integration tests: run shell commands (the harness, Slurm clients). */
#ifndef SLINKY_TESTS_CONF_ITEST_UTIL_H
#define SLINKY_TESTS_CONF_ITEST_UTIL_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "core/internal.h"

/* Run a shell command (printf-style); its exit status, 128 when it did not exit. */
static int sh(const char *fmt, ...) SLINKY_PRINTF(1, 2);
static int sh(const char *fmt, ...)
{
    char cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof(cmd), fmt, ap);
    va_end(ap);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* Run a shell command and return its stdout (free()). */
static char *capture(const char *fmt, ...) SLINKY_PRINTF(1, 2);
static char *capture(const char *fmt, ...)
{
    char cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof(cmd), fmt, ap);
    va_end(ap);
    FILE *p = popen(cmd, "r");
    slinky__buf b = SLINKY__BUF_INIT;
    slinky__buf_puts(&b, "");
    char buf[4096];
    size_t n;
    while (p && (n = fread(buf, 1, sizeof(buf), p)) > 0)
        slinky__buf_put(&b, buf, n);
    if (p)
        pclose(p);
    return slinky__buf_detach(&b, NULL);
}

#endif
