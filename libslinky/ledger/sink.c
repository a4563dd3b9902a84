/* Helpers of the sinks (sink.h): user lookup, plan lines and progress,
 * running a program. Used by every sink; replay.c only calls the sinks. */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ledger/sink.h"

extern char **environ;

const slinky_ledger__user *slinky_ledger__state_user(const slinky_ledger__state *st,
                                                     const char *name)
{
    for (size_t i = 0; i < st->nusers; i++)
        if (!strcmp(st->users[i].name, name))
            return &st->users[i];
    return NULL;
}

void slinky_ledger__run_step(slinky_ledger__run *run, bool changes, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    if (changes)
        slinky__buf_printf(&run->plan, "%s: %s\n", run->sink, line);
    run->done++;
    if (run->done > run->total)
        run->total = run->done;
    if (run->opts->progress)
        run->opts->progress(run->sink, run->done, run->total, line, run->opts->payload);
}

int slinky_ledger__exec(char **stdout_out, char *const argv[])
{
    int pfd[2];
    if (pipe2(pfd, O_CLOEXEC) < 0)
        return slinky__error_set_errno(SLINKY_EIO, errno, "pipe");
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, pfd[1], 1);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    pid_t pid;
    int err = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(pfd[1]);
    if (err != 0) {
        close(pfd[0]);
        return slinky__error_set_errno(err == ENOENT ? SLINKY_ENOTFOUND : SLINKY_EIO, err,
                                       "run %s", argv[0]);
    }
    slinky__buf b = SLINKY__BUF_INIT;
    char tmp[4096];
    for (;;) {
        ssize_t n = read(pfd[0], tmp, sizeof(tmp));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        slinky__buf_put(&b, tmp, (size_t)n);
    }
    close(pfd[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    slinky__buf_puts(&b, "");
    if (b.failed) {
        slinky__buf_dispose(&b);
        return slinky__error_oom();
    }
    if (stdout_out)
        *stdout_out = slinky__buf_detach(&b, NULL);
    else
        slinky__buf_dispose(&b);
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}
