/*
 * The launcher's own log sink. It replaces the library's callback-based logging
 * (core/global.c) at link time, so the static link does not pull in global.c and with
 * it libcurl and libgit2: slinky-jail starts once per jailed command, and loading those
 * libraries and their TLS stacks cost about 20 ms per start.
 * Messages go to stderr: warnings and errors always, the rest with SLINKY_JAIL_VERBOSE=1;
 * -v N / --quiet on the command line set the level instead (cli_log_set_level).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/internal.h"

static int level_from_args = -1;

void cli_log_set_level(slinky_log_level max_level);
void cli_log_set_level(slinky_log_level max_level)
{
    level_from_args = (int)max_level;
}

static int max_level(void)
{
    if (level_from_args >= 0)
        return level_from_args;
    const char *v = getenv("SLINKY_JAIL_VERBOSE");
    return v && *v && *v != '0' ? SLINKY_LOG_DEBUG : SLINKY_LOG_WARNING;
}

int slinky__log_enabled(slinky_log_level level)
{
    return (int)level <= max_level();
}

void slinky__log(slinky_log_level level, const char *module, const char *fmt, ...)
{
    if (!slinky__log_enabled(level))
        return;
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fprintf(stderr, "slinky-jail: %s: %s: %s\n", module ? module : "slinky",
            level <= SLINKY_LOG_ERROR ? "error" : level <= SLINKY_LOG_WARNING ? "warning" : "info",
            msg);
}
