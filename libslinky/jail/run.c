/* slinky_jail_run: fork into new namespaces, enter, exec, wait. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jail_internal.h"

static volatile sig_atomic_t child_pid;
static volatile sig_atomic_t signals_seen;

static void forward(int sig)
{
    if (child_pid > 0) {
        /* PID 1 of a namespace ignores signals it has no handler for: escalate */
        kill((pid_t)child_pid, ++signals_seen > 1 ? SIGKILL : sig);
    }
}

static void write_all(int fd, const char *s)
{
    size_t n = strlen(s);
    while (n) {
        ssize_t w = write(fd, s, n);
        if (w <= 0)
            return;
        s += w;
        n -= (size_t)w;
    }
}

static _Noreturn void child_main(int errfd, const slinky_jail_spec *spec,
                                 const slinky_jail_job *job, const char *const *argv)
{
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    char msg[4096];
    int rc = slinky_jail_enter(spec, job, SLINKY_JAIL_ENTER_NO_PIDNS);
    if (rc < 0) {
        snprintf(msg, sizeof(msg), "%d:%s", rc, slinky_error_last()->message);
        write_all(errfd, msg);
        _exit(127);
    }
    execvp(argv[0], (char *const *)argv);
    snprintf(msg, sizeof(msg), "%d:jail: cannot run %s in the jail: %s",
             errno == ENOENT ? SLINKY_ENOTFOUND : SLINKY_EIO, argv[0], strerror(errno));
    write_all(errfd, msg);
    _exit(127);
}

slinky_status slinky_jail_run(int *exit_out, const slinky_jail_spec *spec,
                              const slinky_jail_job *job, const char *const *argv, bool cleanup)
{
    if (!exit_out || !spec || !argv || !argv[0])
        return slinky__error_set(SLINKY_EINVALID, "jail: NULL argument");
    int rc = slinky_jail_setup(spec, job, 0);
    if (rc < 0)
        return rc;
    int pfd[2];
    if (pipe2(pfd, O_CLOEXEC) < 0)
        return slinky__error_set_errno(SLINKY_EIO, errno, "jail: pipe");
    struct sigaction sa, old_int, old_term, old_hup;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = forward;
    sigemptyset(&sa.sa_mask);
    signals_seen = 0;
    child_pid = 0;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    sigaction(SIGHUP, &sa, &old_hup);
    fflush(NULL);
    unsigned long cf = SIGCHLD | (spec->ns_pid ? CLONE_NEWPID : 0);
    pid_t pid = (pid_t)syscall(SYS_clone, cf, NULL, NULL, NULL, NULL);
    if (pid < 0) {
        rc = slinky__error_set_errno(SLINKY_EIO, errno, "jail: clone");
        close(pfd[0]);
        close(pfd[1]);
        goto out;
    }
    if (pid == 0) {
        close(pfd[0]);
        child_main(pfd[1], spec, job, argv);
    }
    child_pid = pid;
    close(pfd[1]);
    char msg[4096];
    size_t got = 0;
    for (;;) {
        ssize_t n = read(pfd[0], msg + got, sizeof(msg) - 1 - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
        if (got >= sizeof(msg) - 1)
            break;
    }
    msg[got] = '\0';
    close(pfd[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            rc = slinky__error_set_errno(SLINKY_EIO, errno, "jail: waitpid");
            goto out;
        }
    }
    if (got) {
        char *colon = NULL;
        long code = strtol(msg, &colon, 10);
        if (!colon || *colon != ':' || code >= 0 || code < -100)
            rc = slinky__error_set(SLINKY_EIO, "%s", msg);
        else
            rc = slinky__error_set((int)code, "%s", colon + 1);
        goto out;
    }
    *exit_out = WIFEXITED(status) ? WEXITSTATUS(status)
                : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 255;
out:
    child_pid = 0;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGHUP, &old_hup, NULL);
    if (cleanup && job && job->job_id) {
        char keep[4096];
        snprintf(keep, sizeof(keep), "%s", slinky_error_last()->message);
        int crc = slinky_jail_cleanup(spec, job->job_id);
        if (rc == 0)
            rc = crc;
        else
            slinky__error_set(rc, "%s", keep);
    }
    return rc;
}
