/* slinky_jail_run: a child in new namespaces enters the jail and execs; wait for it. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jail_internal.h"

#if defined(__SANITIZE_ADDRESS__)
#define JAIL_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define JAIL_ASAN 1
#endif
#endif
#ifdef JAIL_ASAN
#include <sanitizer/asan_interface.h>
/* the child's frames end with exec, never unwound: their redzones would stay poisoned
 * in the shadow the child shares with us, for whatever is mapped there next */
#define UNPOISON(p, n) __asan_unpoison_memory_region((p), (n))
#else
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

extern char **environ;

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

/*
 * The child shares the caller's memory (CLONE_VM | CLONE_VFORK, as posix_spawn does): no
 * page tables to copy, no copy-on-write faults while it builds the jail, and exec does
 * not tear down a copy of the caller's address space. The caller is suspended until the
 * child has exec'd or exited. So the child must not change what the caller sees: it never
 * touches `environ` (the jail's environment is built by the caller and given to
 * execve), it runs with every signal blocked and the caller's handlers reset to the
 * default before the mask is restored for exec, and whatever it allocates is freed
 * before exec (slinky_jail__enter_ctx does) or belongs to the caller (args).
 */
typedef struct child_args {
    int errfd;
    const slinky_jail_spec *spec;
    slinky_jail__ctx *ctx;
    const char *const *argv;
    char **env;         /* the jail's environment, built by the caller */
    const char **shargv; /* room for "/bin/sh FILE ARGS..." (a script without #!) */
    sigset_t mask;       /* the caller's signal mask, restored for exec */
} child_args;

/* execve, or like execvp with the PATH of `env` (not the caller's) */
static void exec_in_jail(const child_args *a)
{
    const char *file = a->argv[0];
    char *const *argv = (char *const *)a->argv;
    char path[4096];
    if (!*file) {
        errno = ENOENT;
        return;
    }
    const char *search = NULL;
    if (!strchr(file, '/')) {
        search = "/bin:/usr/bin"; /* glibc's default when PATH is unset */
        for (size_t i = 0; a->env[i]; i++)
            if (!strncmp(a->env[i], "PATH=", 5))
                search = a->env[i] + 5;
    }
    bool eacces = false;
    const char *p = search;
    for (;;) {
        const char *cand = file;
        if (search) {
            size_t len = strcspn(p, ":");
            int n = len ? snprintf(path, sizeof(path), "%.*s/%s", (int)len, p, file)
                        : snprintf(path, sizeof(path), "%s", file);
            cand = n > 0 && (size_t)n < sizeof(path) ? path : NULL;
            p += len;
        }
        if (cand) {
            execve(cand, argv, a->env);
            if (errno == ENOEXEC) {
                size_t i = 0;
                a->shargv[0] = "/bin/sh";
                a->shargv[1] = cand;
                while (argv[i] && argv[i + 1]) {
                    a->shargv[i + 2] = argv[i + 1];
                    i++;
                }
                a->shargv[i + 2] = NULL;
                execve("/bin/sh", (char *const *)a->shargv, a->env);
                errno = ENOEXEC;
            }
            if (!search)
                return;
            if (errno == EACCES)
                eacces = true;
            else if (errno != ENOENT && errno != ENOTDIR && errno != ESTALE && errno != ENODEV &&
                     errno != ETIMEDOUT)
                return;
        }
        if (*p != ':')
            break;
        p++;
    }
    errno = eacces ? EACCES : ENOENT;
}

static int child_main(void *arg)
{
    child_args *a = arg;
    /* no handler of the caller may run here, on the caller's memory */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof(dfl));
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    for (int sig = 1; sig < NSIG; sig++) {
        struct sigaction cur;
        if (sig == SIGKILL || sig == SIGSTOP || sigaction(sig, NULL, &cur) < 0)
            continue;
        if (cur.sa_handler != SIG_DFL && cur.sa_handler != SIG_IGN)
            sigaction(sig, &dfl, NULL);
    }
    char msg[4096];
    int rc = slinky_jail__enter_ctx(a->spec, a->ctx,
                                    SLINKY_JAIL_ENTER_NO_PIDNS | SLINKY_JAIL_ENTER_KEEP_ENV);
    if (rc < 0) {
        snprintf(msg, sizeof(msg), "%d:%s", rc, slinky_error_last()->message);
        write_all(a->errfd, msg);
        return 127; /* clone's wrapper exits with it */
    }
    sigprocmask(SIG_SETMASK, &a->mask, NULL);
    exec_in_jail(a);
    int e = errno;
    sigset_t all;
    sigfillset(&all);
    sigprocmask(SIG_SETMASK, &all, NULL);
    snprintf(msg, sizeof(msg), "%d:jail: cannot run %s in the jail: %s",
             e == ENOENT ? SLINKY_ENOTFOUND : SLINKY_EIO, a->argv[0], strerror(e));
    write_all(a->errfd, msg);
    return 127;
}

slinky_status slinky_jail_run(int *exit_out, const slinky_jail_spec *spec,
                              const slinky_jail_job *job, const char *const *argv, bool cleanup)
{
    if (!exit_out || !spec || !argv || !argv[0])
        return slinky__error_set(SLINKY_EINVALID, "jail: NULL argument");
    /* the job user is looked up once, here, for the scratch and for the child */
    slinky_jail__ctx ctx;
    int rc = slinky_jail__begin(&ctx, spec, job, true);
    if (rc < 0)
        return rc;
    if ((rc = slinky_jail__setup_ctx(spec, &ctx, 0)) < 0) {
        slinky_jail__ctx_dispose(&ctx);
        return rc;
    }
    child_args a;
    memset(&a, 0, sizeof(a));
    a.spec = spec;
    a.ctx = &ctx;
    a.argv = argv;
    size_t nenv = 0, argc = 0, stack_size = 256 * 1024, page = (size_t)sysconf(_SC_PAGESIZE);
    while (argv[argc])
        argc++;
    if ((rc = slinky_jail__env_build(&a.env, &nenv, spec, &ctx, (const char *const *)environ)) < 0) {
        slinky_jail__ctx_dispose(&ctx);
        return rc;
    }
    int pfd[2] = {-1, -1};
    /* the child's stack, with a guard page below it */
    char *stack = mmap(NULL, stack_size + page, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (stack == MAP_FAILED) {
        stack = NULL;
        rc = slinky__error_set_errno(SLINKY_ENOMEM, errno, "jail: cannot map a stack");
    } else if (mprotect(stack, page, PROT_NONE) < 0) {
        rc = slinky__error_set_errno(SLINKY_EIO, errno, "jail: mprotect");
    } else if (!(a.shargv = slinky__calloc(argc + 2, sizeof(char *)))) {
        rc = SLINKY_ENOMEM;
    } else if (pipe2(pfd, O_CLOEXEC) < 0) {
        rc = slinky__error_set_errno(SLINKY_EIO, errno, "jail: pipe");
    }
    if (rc < 0) {
        if (stack)
            munmap(stack, stack_size + page);
        free(a.shargv);
        slinky_jail__strv_free(a.env, nenv);
        slinky_jail__ctx_dispose(&ctx);
        return rc;
    }
    a.errfd = pfd[1];
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
    /* every signal blocked until the child has exec'd (or exited) and child_pid is set */
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &a.mask);
    int cf = CLONE_VM | CLONE_VFORK | SIGCHLD | (spec->ns_pid ? CLONE_NEWPID : 0);
    UNPOISON(stack + page, stack_size);
    pid_t pid = clone(child_main, stack + page + stack_size, cf, &a);
    int clone_errno = errno;
    UNPOISON(stack + page, stack_size);
    if (pid > 0)
        child_pid = pid;
    pthread_sigmask(SIG_SETMASK, &a.mask, NULL);
    munmap(stack, stack_size + page);
    free(a.shargv);
    slinky_jail__strv_free(a.env, nenv);
    if (pid < 0) {
        rc = slinky__error_set_errno(SLINKY_EIO, clone_errno, "jail: clone");
        close(pfd[0]);
        close(pfd[1]);
        goto out;
    }
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
    slinky_jail__ctx_dispose(&ctx);
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
