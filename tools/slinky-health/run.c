/*
 * run: each check in a child process (its own process group, so a shell the
 * check started goes too) that hands its result back through a pipe; at the
 * check's timeout the group is killed and the result is "timeout".
 */
#include "health.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

void check_run_guarded(const check *c, const node_facts *nf, result *r)
{
    memset(r, 0, sizeof(*r));
    r->value = NAN;
    double t0 = health_now_ms();
    int fds[2];
    if (pipe(fds)) {
        r->kind = R_FAIL;
        snprintf(r->value_text, sizeof(r->value_text), "error");
        snprintf(r->detail, sizeof(r->detail), "pipe: %s", strerror(errno));
        return;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        close(fds[0]);
        result cr;
        check_run(c, nf, &cr);
        ssize_t w = write(fds[1], &cr, sizeof(cr));
        _exit(w == (ssize_t)sizeof(cr) ? 0 : 1);
    }
    close(fds[1]);
    if (pid < 0) {
        close(fds[0]);
        r->kind = R_FAIL;
        snprintf(r->value_text, sizeof(r->value_text), "error");
        snprintf(r->detail, sizeof(r->detail), "fork: %s", strerror(errno));
        return;
    }
    setpgid(pid, pid); /* both sides, so the group exists before a kill */
    size_t got = 0;
    bool timed_out = false;
    while (got < sizeof(*r)) {
        int left = (int)(c->timeout_ms - (health_now_ms() - t0));
        if (left <= 0) {
            timed_out = true;
            break;
        }
        struct pollfd p = {fds[0], POLLIN, 0};
        int n = poll(&p, 1, left);
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0) {
            timed_out = true;
            break;
        }
        ssize_t k = read(fds[0], (char *)r + got, sizeof(*r) - got);
        if (k <= 0)
            break;
        got += (size_t)k;
    }
    close(fds[0]);
    if (timed_out || got < sizeof(*r))
        kill(-pid, SIGKILL);
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    if (timed_out) {
        memset(r, 0, sizeof(*r));
        r->kind = R_TIMEOUT;
        r->value = NAN;
        snprintf(r->value_text, sizeof(r->value_text), "timeout");
        snprintf(r->limit_text, sizeof(r->limit_text), "%.0fms", c->timeout_ms);
        snprintf(r->detail, sizeof(r->detail), "killed after %.0f ms", c->timeout_ms);
    } else if (got < sizeof(*r)) {
        memset(r, 0, sizeof(*r));
        r->kind = R_FAIL;
        r->value = NAN;
        snprintf(r->value_text, sizeof(r->value_text), "crashed");
        snprintf(r->detail, sizeof(r->detail), "the check's process ended without a result");
    }
    r->duration_s = (health_now_ms() - t0) / 1e3;
}
