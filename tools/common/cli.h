/*
 * Command-line habits every libslinky program shares (STYLE.md, "Programs"):
 * the program is named as invoked (basename, also in getopt's messages),
 * --version prints the program's and the loaded library's versions, and
 * -v N / --quiet set how much of the library's log reaches stderr.
 *
 * Header-only: a program's main.c includes it once ("../common/cli.h").
 *
 * Exit codes every tool uses: 0 success, 1 failure, 2 usage error; a tool
 * documents any code above 2 in its --help and man page.
 */
#ifndef SLINKY_TOOLS_CLI_H
#define SLINKY_TOOLS_CLI_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slinky/core.h"
#include "slinky/version.h"

#define CLI_EXIT_OK 0
#define CLI_EXIT_FAILURE 1
#define CLI_EXIT_USAGE 2

/* The program's name as invoked (set by cli_init). */
static const char *cli_prog = "slinky";
/* -1 quiet (errors only), 0 default (warnings), 1 info, 2 debug, 3+ trace. */
static int cli_verbosity = 0;

/* Name the program after argv[0]'s basename and make getopt use it too. */
static inline const char *cli_init(char **argv, const char *fallback)
{
    const char *p = argv && argv[0] && *argv[0] ? argv[0] : fallback;
    const char *slash = strrchr(p, '/');
    cli_prog = slash && slash[1] ? slash + 1 : p;
    if (argv && argv[0])
        argv[0] = (char *)cli_prog;
    return cli_prog;
}

/* "PROG VERSION (libslinky VERSION)": the headers built against and the library loaded. */
static inline int cli_print_version(FILE *f)
{
    fprintf(f, "%s %s (libslinky %s)\n", cli_prog, SLINKY_VERSION, slinky_version(NULL, NULL, NULL));
    return CLI_EXIT_OK;
}

#ifdef CLI_OWN_LOG_SINK
/* The program links its own log sink (slinky-jail): it takes the level. */
void cli_log_set_level(slinky_log_level max_level);
#else
static void cli_log(slinky_log_level level, const char *module, const char *message, void *payload)
{
    (void)payload;
    fprintf(stderr, "%s: %s: %s: %s\n", cli_prog, module, slinky_log_level_name(level), message);
}
#endif

/* Route the library's log to stderr at the chosen verbosity. */
static inline void cli_apply_verbosity(void)
{
    int v = cli_verbosity < 0 ? SLINKY_LOG_ERROR : SLINKY_LOG_WARNING + cli_verbosity;
    if (v > SLINKY_LOG_TRACE)
        v = SLINKY_LOG_TRACE;
#ifdef CLI_OWN_LOG_SINK
    cli_log_set_level((slinky_log_level)v);
#else
    slinky_log_set_callback(cli_log, (slinky_log_level)v, NULL);
#endif
}

/* -v N: N is 0..9; false (with a message) for anything else. */
static inline bool cli_set_verbosity(const char *arg)
{
    if (!arg || !*arg || strspn(arg, "0123456789") != strlen(arg) || strlen(arg) > 1) {
        fprintf(stderr, "%s: -v wants a level from 0 to 9, not '%s'\n", cli_prog, arg ? arg : "");
        return false;
    }
    cli_verbosity = atoi(arg);
    cli_apply_verbosity();
    return true;
}

static inline void cli_set_quiet(void)
{
    cli_verbosity = -1;
    cli_apply_verbosity();
}

/* The shared options for a getopt_long table, and their handling as the
 * switch's default (an unknown option prints the usage):
 *   default: if ((rc = cli_option(c, optarg, usage)) >= 0) return rc; break;
 * cli_option returns -1 to go on, else the exit code (0 after --version, 2 on
 * a bad -v or an unknown option). */
#define CLI_OPT_VERSION 0x1000
#define CLI_LONGOPTS                                                                               \
    {"version", no_argument, 0, CLI_OPT_VERSION}, {"verbose", required_argument, 0, 'v'},         \
        {"quiet", no_argument, 0, 'q'}
static inline int cli_option(int c, const char *arg, void (*usage)(FILE *))
{
    if (c == CLI_OPT_VERSION)
        return cli_print_version(stdout);
    if (c == 'v')
        return cli_set_verbosity(arg) ? -1 : CLI_EXIT_USAGE;
    if (c == 'q') {
        cli_set_quiet();
        return -1;
    }
    if (usage)
        usage(stderr);
    return CLI_EXIT_USAGE;
}

/* The lines every --help ends with. */
#define CLI_COMMON_HELP                                                                            \
    "  -v, --verbose N    library log on stderr: 0 warnings (default), 1 info, 2 debug, 3 trace\n" \
    "  -q, --quiet        errors only\n"                                                           \
    "  -h, --help         this text\n"                                                             \
    "      --version      program and library versions\n"

#define CLI_EXIT_HELP "exit codes: 0 success, 1 failure, 2 usage error"

#endif
