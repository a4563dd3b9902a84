/*
 * conf: checking a file with the installed Slurm (two stages, see
 * ../shared/notes/real-slurm-on-loopback.md section 7) and applying a config
 * (scontrol reconfigure, or a restart by the caller).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "conf/conf_internal.h"

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* argv = prefix words (split on blanks) + the given words. */
static char **build_argv(const char *prefix, const char *const *words)
{
    size_t n = 0, w = 0;
    char *copy = prefix ? slinky__strdup(prefix) : NULL;
    if (prefix && !copy)
        return NULL;
    for (const char *p = copy; p && *p; p++)
        n += *p != ' ' && (p == copy || p[-1] == ' ');
    while (words[w])
        w++;
    char **argv = slinky__calloc(n + w + 2, sizeof(*argv));
    if (!argv) {
        free(copy);
        return NULL;
    }
    size_t i = 0;
    /* argv[last+1] keeps the copy so that it can be freed */
    for (char *s = copy, *t; copy && (t = strsep(&s, " "));)
        if (*t)
            argv[i++] = t;
    for (size_t j = 0; j < w; j++)
        argv[i++] = (char *)words[j];
    argv[i] = NULL;
    argv[n + w + 1] = copy;
    return argv;
}

static void free_argv(char **argv, const char *const *words)
{
    size_t n = 0, w = 0;
    while (words[w])
        w++;
    while (argv[n])
        n++;
    free(argv[n + 1]);
    free(argv);
}

/*
 * Run a command with extra environment ("K=V"), capture stdout+stderr.
 * Returns the exit status (>= 0), or a negative slinky_status.
 */
static int run(char **out, const char *prefix, const char *const *words, const char *env1,
               int timeout_ms)
{
    char **argv = build_argv(prefix, words);
    if (!argv)
        return SLINKY_ENOMEM;
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) < 0) {
        free_argv(argv, words);
        return slinky__error_set_errno(SLINKY_EIO, errno, "conf: pipe");
    }
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        free_argv(argv, words);
        return slinky__error_set_errno(SLINKY_EIO, errno, "conf: fork");
    }
    if (pid == 0) {
        dup2(fds[1], 1);
        dup2(fds[1], 2);
        int null = open("/dev/null", O_RDONLY);
        if (null >= 0)
            dup2(null, 0);
        if (env1)
            putenv((char *)env1);
        execvp(argv[0], argv);
        fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(fds[1]);
    free_argv(argv, words);
    slinky__buf b = SLINKY__BUF_INIT;
    slinky__buf_puts(&b, "");
    long long end = now_ms() + timeout_ms;
    int timed_out = 0;
    for (;;) {
        struct pollfd p = {fds[0], POLLIN, 0};
        long long left = end - now_ms();
        if (left <= 0) {
            timed_out = 1;
            break;
        }
        int r = poll(&p, 1, (int)left);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            timed_out = r == 0;
            break;
        }
        char buf[4096];
        ssize_t n = read(fds[0], buf, sizeof(buf));
        if (n <= 0)
            break;
        slinky__buf_put(&b, buf, (size_t)n);
    }
    close(fds[0]);
    if (timed_out)
        kill(pid, SIGKILL);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    int rc = slinky__buf_finish(out, NULL, &b);
    if (rc < 0)
        return rc;
    if (timed_out)
        return slinky__error_set(SLINKY_ETIMEOUT, "conf: %s timed out after %d ms", words[0],
                                 timeout_ms);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

/* Keep the error/fatal lines of Slurm's output (minus known noise). */
static char *error_lines(const char *text)
{
    slinky__buf b = SLINKY__BUF_INIT;
    slinky__buf_puts(&b, "");
    int kept = 0;
    for (const char *p = text; *p && kept < 8;) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        char line[1024];
        snprintf(line, sizeof(line), "%.*s", (int)(n < 1000 ? n : 1000), p);
        if ((strstr(line, "error") || strstr(line, "fatal") || strstr(line, "Invalid") ||
             strstr(line, "Parse")) &&
            !strstr(line, "pmix") && !strstr(line, "MPI") && !strstr(line, "state file") &&
            !strstr(line, "NOTE: Trying") && !strstr(line, "specified more than once") &&
            !strstr(line, "Configured MailProg")) {
            slinky__buf_printf(&b, "%s%s", kept ? "\n" : "", line);
            kept++;
        }
        p = e ? e + 1 : p + n;
    }
    if (!kept)
        slinky__buf_puts(&b, text);
    return slinky__buf_detach(&b, NULL);
}

slinky_status slinky_conf_validate_options_init(slinky_conf_validate_options *opts,
                                                unsigned int version)
{
    if (!opts || version != SLINKY_CONF_VALIDATE_OPTIONS_VERSION)
        return slinky__error_set(SLINKY_EINVALID, "conf: unknown validate options version %u",
                                 version);
    slinky_conf_validate_options d = SLINKY_CONF_VALIDATE_OPTIONS_INIT;
    *opts = d;
    return 0;
}

static int free_port(void)
{
    int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s < 0)
        return 0;
    struct sockaddr_in a;
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t l = sizeof(a);
    int port = 0;
    if (bind(s, (struct sockaddr *)&a, sizeof(a)) == 0 &&
        getsockname(s, (struct sockaddr *)&a, &l) == 0)
        port = ntohs(a.sin_port);
    close(s);
    return port;
}

/* Copy the regular files beside `src` (for relative Includes, keys) into `dir`. */
static void copy_siblings(const char *src, const char *dir)
{
    char *d = slinky__strdup(src);
    if (!d)
        return;
    char *slash = strrchr(d, '/');
    const char *from = ".";
    if (slash) {
        *slash = '\0';
        from = *d ? d : "/";
    }
    DIR *dh = opendir(from);
    for (struct dirent *e; dh && (e = readdir(dh));) {
        char path[4096], to[4096];
        struct stat st;
        snprintf(path, sizeof(path), "%s/%s", from, e->d_name);
        if (stat(path, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > (1 << 24))
            continue;
        char *text = NULL;
        size_t n = 0;
        if (slinky__read_file(&text, &n, path) == 0) {
            snprintf(to, sizeof(to), "%s/%s", dir, e->d_name);
            slinky__write_file_atomic(to, text, n, st.st_mode & 0777);
            free(text);
        }
    }
    if (dh)
        closedir(dh);
    free(d);
    slinky_error_clear();
}

static void rm_tree(const char *dir)
{
    DIR *dh = opendir(dir);
    for (struct dirent *e; dh && (e = readdir(dh));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char p[4096];
        struct stat st;
        snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
        if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
            rm_tree(p);
        else
            unlink(p);
    }
    if (dh)
        closedir(dh);
    rmdir(dir);
}

static int stage2(char **msg, const char *path, const slinky_conf_validate_options *o)
{
    char tmpl[4096];
    snprintf(tmpl, sizeof(tmpl), "%s/slinky-validate.XXXXXX", o->scratch_dir ? o->scratch_dir : "/tmp");
    if (!mkdtemp(tmpl))
        return slinky__error_set_errno(SLINKY_EIO, errno, "conf: validate: mkdtemp %s", tmpl);
    char d[4200], etc[4300], p[4400];
    snprintf(d, sizeof(d), "%s", tmpl);
    snprintf(etc, sizeof(etc), "%s/etc", d);
    const char *subs[] = {"etc", "state", "log", "run"};
    for (size_t i = 0; i < SLINKY__ARRAY_SIZE(subs); i++) {
        snprintf(p, sizeof(p), "%s/%s", d, subs[i]);
        mkdir(p, 0755);
    }
    copy_siblings(path, etc);
    slinky_conf *c = NULL;
    slinky_conf_parse_options po = SLINKY_CONF_PARSE_OPTIONS_INIT;
    po.no_includes = true;
    int rc = slinky_conf_load(&c, path, &po);
    if (rc < 0)
        goto out;
    static const char *const hostkeys[] = {"SlurmctldHost", "ControlMachine", "ControlAddr",
                                           "BackupController", "BackupAddr"};
    for (size_t i = 0; i < SLINKY__ARRAY_SIZE(hostkeys); i++)
        if (slinky_conf_unset(c, hostkeys[i]) < 0)
            slinky_error_clear();
    int port = o->port > 0 ? o->port : free_port();
    char v[4500];
    const char *alt = slinky_conf_get(c, "AuthAltTypes");
#define SET(k, ...)                                                                               \
    do {                                                                                          \
        snprintf(v, sizeof(v), __VA_ARGS__);                                                      \
        if (rc == 0)                                                                              \
            rc = slinky_conf_set(c, k, v);                                                        \
    } while (0)
    SET("SlurmctldHost", "localhost");
    SET("SlurmctldAddr", "127.0.0.1");
    SET("SlurmctldPort", "%d", port);
    SET("SlurmUser", "root");
    SET("StateSaveLocation", "%s/state", d);
    SET("SlurmctldPidFile", "%s/run/slurmctld.pid", d);
    SET("SlurmctldLogFile", "%s/log/slurmctld.log", d);
    SET("SlurmSchedLogFile", "%s/log/sched.log", d);
    SET("MailProg", "/bin/true");
    SET("AccountingStorageType", "accounting_storage/none");
    if (slinky_conf_get(c, "AccountingStorageEnforce") && slinky_conf_unset(c, "AccountingStorageEnforce") < 0)
        slinky_error_clear();
    if (o->munge_socket) {
        SET("AuthInfo", "socket=%s", o->munge_socket);
    }
    if (alt && strstr(alt, "auth/jwt")) {
        char key[4400];
        snprintf(key, sizeof(key), "%s/jwt.key", d);
        unsigned char rnd[32] = {0};
        int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
        if (fd >= 0) {
            if (read(fd, rnd, sizeof(rnd)) != (ssize_t)sizeof(rnd))
                rnd[0] ^= 1; /* a throwaway key: any bytes do */
            close(fd);
        }
        slinky__write_file_atomic(key, rnd, sizeof(rnd), 0600);
        SET("AuthAltParameters", "jwt_key=%s", key);
    }
#undef SET
    snprintf(p, sizeof(p), "%s/slurm.conf", etc);
    if (rc == 0)
        rc = slinky_conf_save(c, p);
    slinky_conf_free(c);
    if (rc < 0)
        goto out;
    /* run slurmctld -D and watch its output for acceptance or death */
    char logp[4400];
    snprintf(logp, sizeof(logp), "%s/out", d);
    const char *words[] = {"slurmctld", "-D", "-f", p, NULL};
    char **argv = build_argv(o->bin_prefix, words);
    if (!argv) {
        rc = SLINKY_ENOMEM;
        goto out;
    }
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(logp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
        }
        int null = open("/dev/null", O_RDONLY);
        if (null >= 0)
            dup2(null, 0);
        execvp(argv[0], argv);
        _exit(127);
    }
    free_argv(argv, words);
    if (pid < 0) {
        rc = slinky__error_set_errno(SLINKY_EIO, errno, "conf: validate: fork");
        goto out;
    }
    long long end = now_ms() + (o->timeout_ms > 0 ? o->timeout_ms : 15000);
    int res = 2, st = 0;
    char *text = NULL;
    while (now_ms() < end) {
        size_t n;
        free(text);
        text = NULL;
        if (slinky__read_file(&text, &n, logp) == 0 && strstr(text, "Running as primary controller")) {
            res = 0;
            break;
        }
        if (waitpid(pid, &st, WNOHANG) == pid) {
            pid = -1;
            res = 1;
            free(text);
            text = NULL;
            slinky__read_file(&text, &n, logp);
            break;
        }
        usleep(20000);
    }
    slinky_error_clear();
    if (pid > 0) {
        kill(pid, SIGTERM);
        long long kend = now_ms() + 10000;
        while (waitpid(pid, &st, WNOHANG) == 0) {
            if (now_ms() > kend) {
                kill(pid, SIGKILL);
                waitpid(pid, &st, 0);
                break;
            }
            usleep(20000);
        }
    }
    if (res == 0) {
        *msg = slinky__strdup("");
        rc = *msg ? 0 : SLINKY_ENOMEM;
    } else if (res == 1) {
        *msg = error_lines(text ? text : "slurmctld exited");
        rc = slinky__error_set(SLINKY_EINVALID, "REJECTED (slurmctld): %s", *msg ? *msg : "");
    } else {
        *msg = error_lines(text ? text : "");
        rc = slinky__error_set(SLINKY_ETIMEOUT, "conf: validate: slurmctld did not start within "
                                                "the timeout");
    }
    free(text);
out:
    rm_tree(d);
    return rc;
}

slinky_status slinky_conf_validate_slurm(char **message_out, const char *path,
                                         const slinky_conf_validate_options *opts)
{
    slinky_conf_validate_options o = SLINKY_CONF_VALIDATE_OPTIONS_INIT;
    if (!path)
        return slinky__error_set(SLINKY_EINVALID, "conf: validate: NULL path");
    if (opts) {
        if (opts->version != SLINKY_CONF_VALIDATE_OPTIONS_VERSION)
            return slinky__error_set(SLINKY_EINVALID, "conf: unknown validate options version %u",
                                     opts->version);
        o = *opts;
    }
    char env[4200];
    snprintf(env, sizeof(env), "SLURM_CONF=%s", path);
    const char *words[] = {"env", env, "scontrol", "show", "hostnames", "x", NULL};
    char *out = NULL;
    int rc = run(&out, o.bin_prefix, words, NULL, 90000);
    if (rc < 0)
        return rc;
    if (rc == 127) {
        rc = slinky__error_set(SLINKY_EIO, "conf: validate: cannot run scontrol: %s", out);
        free(out);
        return rc;
    }
    if (rc != 0) {
        char *m = error_lines(out);
        free(out);
        rc = slinky__error_set(SLINKY_EINVALID, "REJECTED (parse): %s", m ? m : "");
        if (message_out)
            *message_out = m;
        else
            free(m);
        return rc;
    }
    free(out);
    char *msg = NULL;
    if (o.parse_only)
        msg = slinky__strdup("");
    else
        rc = stage2(&msg, path, &o);
    if (message_out)
        *message_out = msg;
    else
        free(msg);
    return rc < 0 ? rc : (msg ? 0 : SLINKY_ENOMEM);
}

/* ---------------------------------------------------------------- apply */

slinky_status slinky_conf_apply_options_init(slinky_conf_apply_options *opts, unsigned int version)
{
    if (!opts || version != SLINKY_CONF_APPLY_OPTIONS_VERSION)
        return slinky__error_set(SLINKY_EINVALID, "conf: unknown apply options version %u",
                                 version);
    slinky_conf_apply_options d = SLINKY_CONF_APPLY_OPTIONS_INIT;
    *opts = d;
    return 0;
}

slinky_status slinky_conf_apply(slinky_conf_change_class *applied_out, const slinky_conf_diff *diff,
                                const slinky_conf_apply_options *opts)
{
    slinky_conf_apply_options o = SLINKY_CONF_APPLY_OPTIONS_INIT;
    if (!diff)
        return slinky__error_set(SLINKY_EINVALID, "conf: apply: NULL diff");
    if (opts) {
        if (opts->version != SLINKY_CONF_APPLY_OPTIONS_VERSION)
            return slinky__error_set(SLINKY_EINVALID, "conf: unknown apply options version %u",
                                     opts->version);
        o = *opts;
    }
    slinky_conf_change_class k = slinky_conf_diff_class(diff);
    int rc = 0;
    if (k == SLINKY_CONF_CLASS_RECONFIGURE) {
        char env[4200], *out = NULL;
        const char *words[] = {"scontrol", "reconfigure", NULL};
        const char *words_env[] = {"env", env, "scontrol", "reconfigure", NULL};
        if (o.client_conf)
            snprintf(env, sizeof(env), "SLURM_CONF=%s", o.client_conf);
        rc = run(&out, o.bin_prefix, o.client_conf ? words_env : words, NULL, 60000);
        if (rc > 0) {
            rc = slinky__error_set(SLINKY_EIO, "conf: apply: scontrol reconfigure failed (%d): %s",
                                   rc, out ? out : "");
        }
        free(out);
    } else if (k != SLINKY_CONF_CLASS_NONE) {
        if (!o.restart)
            return slinky__error_set(SLINKY_EINVALID,
                                     "conf: apply: the change needs %s and no restart callback "
                                     "was given (reconfigure is never used for it)",
                                     slinky_conf_change_class_name(k));
        rc = o.restart(k, o.payload);
    }
    if (rc < 0)
        return rc;
    if (applied_out)
        *applied_out = k;
    return 0;
}
