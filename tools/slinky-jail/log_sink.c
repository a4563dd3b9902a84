/*
 * The launcher's log sink, registered with slinky_log_set_callback(): messages go to
 * stderr, warnings and errors always, the rest with SLINKY_JAIL_VERBOSE=1; -v N /
 * --quiet on the command line set the level instead (cli_log_set_level). (slinky-jail
 * is linked statically with --as-needed; the library's core starts no libcurl or libgit2,
 * so the launcher, which starts once per jailed command, loads neither.)
 */
#include <stdio.h>
#include <stdlib.h>

#include "slinky/core.h"
#include "log_sink.h"

static void to_stderr(slinky_log_level level, const char *module, const char *message,
                      void *payload)
{
    (void)payload;
    fprintf(stderr, "slinky-jail: %s: %s: %s\n", module,
            level <= SLINKY_LOG_ERROR ? "error" : level <= SLINKY_LOG_WARNING ? "warning" : "info",
            message);
}

void cli_log_set_level(slinky_log_level max_level);
void cli_log_set_level(slinky_log_level max_level)
{
    slinky_log_set_callback(to_stderr, max_level, NULL);
}

void jail_log_sink_install(void)
{
    const char *v = getenv("SLINKY_JAIL_VERBOSE");
    cli_log_set_level(v && *v && *v != '0' ? SLINKY_LOG_DEBUG : SLINKY_LOG_WARNING);
}
