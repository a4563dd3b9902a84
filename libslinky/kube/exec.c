/*
 * kube: client-go credential (exec) plugins. The command runs through
 * fork/execve with the environment and arguments from the kubeconfig plus
 * KUBERNETES_EXEC_INFO; stdout must be an ExecCredential.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kube_internal.h"

extern char **environ;

#define EXEC_MAX_OUTPUT (1 << 20)
#define EXEC_TIMEOUT_MS 60000

static char *exec_info(const slinky_kube__exec *ex, const char *server)
{
    slinky__buf b = SLINKY__BUF_INIT;
    slinky__buf_printf(&b, "{\"apiVersion\":\"%s\",\"kind\":\"ExecCredential\",\"spec\":{",
                       ex->api_version);
    if (ex->provide_cluster_info && server) {
        slinky__buf_puts(&b, "\"cluster\":{\"server\":\"");
        for (const char *p = server; *p; p++) {
            if (*p == '"' || *p == '\\')
                slinky__buf_putc(&b, '\\');
            slinky__buf_putc(&b, *p);
        }
        slinky__buf_puts(&b, "\"},");
    }
    slinky__buf_puts(&b, "\"interactive\":false}}");
    if (b.failed) {
        slinky__buf_dispose(&b);
        slinky__error_oom();
        return NULL;
    }
    return slinky__buf_detach(&b, NULL);
}

/* Find a command without '/' on PATH (from the plugin's env when it sets PATH). */
static char *find_command(const char *cmd, char *const *envp)
{
    if (strchr(cmd, '/'))
        return slinky__strdup(cmd);
    const char *path = NULL;
    for (char *const *e = envp; *e; e++)
        if (strncmp(*e, "PATH=", 5) == 0)
            path = *e + 5;
    if (path == NULL)
        path = "/usr/local/bin:/usr/bin:/bin";
    char *copy = slinky__strdup(path);
    if (copy == NULL)
        return NULL;
    char *save = NULL;
    for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        char *full = slinky__sprintf("%s/%s", *d ? d : ".", cmd);
        if (full && access(full, X_OK) == 0) {
            free(copy);
            return full;
        }
        free(full);
    }
    free(copy);
    return slinky__strdup(cmd); /* execve reports ENOENT */
}

static int parse_credential(slinky_kube__creds *out, int64_t *expiry, const char *data,
                            size_t len, const slinky_kube__exec *ex)
{
    slinky_doc *d = NULL;
    int err = slinky_doc_parse_json(&d, data, len);
    if (err) {
        slinky__error_prefix("exec plugin %s: output is not JSON: ", ex->command);
        return err == SLINKY_ENOMEM ? err : SLINKY_EAUTH;
    }
    const slinky_doc_value *r = slinky_doc_root(d);
    const char *kind = slinky_doc_value_path_string(r, "kind", "");
    const char *av = slinky_doc_value_path_string(r, "apiVersion", "");
    const char *token = slinky_doc_value_path_string(r, "status.token", NULL);
    const char *cert = slinky_doc_value_path_string(r, "status.clientCertificateData", NULL);
    const char *key = slinky_doc_value_path_string(r, "status.clientKeyData", NULL);
    const char *exp = slinky_doc_value_path_string(r, "status.expirationTimestamp", NULL);
    slinky_kube__creds c = {0};
    err = 0;
    if (strcmp(kind, "ExecCredential") != 0 || strcmp(av, ex->api_version) != 0) {
        err = slinky__error_set(SLINKY_EAUTH,
                                "exec plugin %s: expected an ExecCredential of %s, got kind \"%s\" apiVersion \"%s\"",
                                ex->command, ex->api_version, kind, av);
    } else if ((token == NULL || *token == '\0') && (cert == NULL || key == NULL)) {
        err = slinky__error_set(SLINKY_EAUTH, "exec plugin %s: status has neither token nor client certificate",
                                ex->command);
    } else if ((cert == NULL) != (key == NULL)) {
        err = slinky__error_set(SLINKY_EAUTH, "exec plugin %s: clientCertificateData and clientKeyData must be given together",
                                ex->command);
    } else if (exp && slinky_kube__parse_rfc3339(exp) < 0) {
        err = slinky__error_set(SLINKY_EAUTH, "exec plugin %s: bad expirationTimestamp \"%s\"",
                                ex->command, exp);
    }
    if (err == 0 && token && *token && (c.token = slinky__strdup(token)) == NULL)
        err = SLINKY_ENOMEM;
    if (err == 0 && cert) {
        c.cert = slinky__strdup(cert);
        c.key = slinky__strdup(key);
        c.cert_len = strlen(cert);
        c.key_len = strlen(key);
        if (!c.cert || !c.key)
            err = SLINKY_ENOMEM;
    }
    *expiry = exp ? slinky_kube__parse_rfc3339(exp) : 0;
    slinky_doc_free(d);
    if (err) {
        slinky_kube__creds_dispose(&c);
        return err;
    }
    *out = c;
    return 0;
}

int slinky_kube__exec_run(slinky_kube__creds *out, int64_t *expiry_out,
                          const slinky_kube__exec *ex, const char *server)
{
    /* Build env and argv before fork (no allocation in the child). */
    size_t nenv = 0, nplug = 0, nargs = 0;
    while (environ && environ[nenv])
        nenv++;
    while (ex->env && ex->env[nplug])
        nplug++;
    while (ex->args && ex->args[nargs])
        nargs++;
    char *info = exec_info(ex, server);
    char *info_env = info ? slinky__sprintf("KUBERNETES_EXEC_INFO=%s", info) : NULL;
    free(info);
    char **envp = slinky__calloc(nenv + nplug + 2, sizeof(char *));
    char **argv = slinky__calloc(nargs + 2, sizeof(char *));
    char *cmd = NULL;
    int err = 0;
    if (!info_env || !envp || !argv) {
        err = SLINKY_ENOMEM;
        goto out;
    }
    size_t n = 0;
    for (size_t i = 0; i < nenv; i++) {
        if (strncmp(environ[i], "KUBERNETES_EXEC_INFO=", 21) == 0)
            continue;
        bool overridden = false;
        for (size_t j = 0; j < nplug; j++) {
            size_t kl = strcspn(ex->env[j], "=");
            if (strncmp(environ[i], ex->env[j], kl + 1) == 0)
                overridden = true;
        }
        if (!overridden)
            envp[n++] = environ[i];
    }
    for (size_t j = 0; j < nplug; j++)
        envp[n++] = ex->env[j];
    envp[n++] = info_env;
    cmd = find_command(ex->command, envp);
    if (cmd == NULL) {
        err = SLINKY_ENOMEM;
        goto out;
    }
    argv[0] = ex->command;
    for (size_t i = 0; i < nargs; i++)
        argv[i + 1] = ex->args[i];

    int outp[2], errp[2];
    if (pipe2(outp, O_CLOEXEC) != 0) {
        err = slinky__error_set_errno(SLINKY_EIO, errno, "exec plugin: pipe");
        goto out;
    }
    if (pipe2(errp, O_CLOEXEC) != 0) {
        close(outp[0]);
        close(outp[1]);
        err = slinky__error_set_errno(SLINKY_EIO, errno, "exec plugin: pipe");
        goto out;
    }
    pid_t pid = fork();
    if (pid < 0) {
        err = slinky__error_set_errno(SLINKY_EIO, errno, "exec plugin: fork");
        close(outp[0]);
        close(outp[1]);
        close(errp[0]);
        close(errp[1]);
        goto out;
    }
    if (pid == 0) {
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0)
            dup2(devnull, 0);
        dup2(outp[1], 1);
        dup2(errp[1], 2);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        execve(cmd, argv, envp);
        _exit(127);
    }
    close(outp[1]);
    close(errp[1]);
    slinky__buf o = SLINKY__BUF_INIT, e = SLINKY__BUF_INIT;
    struct pollfd pfd[2] = {{outp[0], POLLIN, 0}, {errp[0], POLLIN, 0}};
    int open_fds = 2;
    int64_t deadline = slinky_kube__now_ms() + EXEC_TIMEOUT_MS;
    bool timed_out = false;
    while (open_fds > 0) {
        int64_t left = deadline - slinky_kube__now_ms();
        if (left <= 0) {
            timed_out = true;
            break;
        }
        int r = poll(pfd, 2, (int)left);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            timed_out = r == 0;
            break;
        }
        for (int i = 0; i < 2; i++) {
            if (pfd[i].fd < 0 || !(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            char buf[4096];
            ssize_t k = read(pfd[i].fd, buf, sizeof(buf));
            if (k <= 0) {
                close(pfd[i].fd);
                pfd[i].fd = -1;
                open_fds--;
                continue;
            }
            slinky__buf *dst = i == 0 ? &o : &e;
            if (dst->len < EXEC_MAX_OUTPUT)
                slinky__buf_put(dst, buf, (size_t)k);
        }
    }
    for (int i = 0; i < 2; i++)
        if (pfd[i].fd >= 0)
            close(pfd[i].fd);
    if (timed_out)
        kill(pid, SIGKILL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (timed_out) {
        err = slinky__error_set(SLINKY_ETIMEOUT, "exec plugin %s: no answer within %d s", ex->command,
                                EXEC_TIMEOUT_MS / 1000);
    } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        size_t el = e.len;
        while (el && (e.data[el - 1] == '\n'))
            el--;
        if (WIFEXITED(status) && WEXITSTATUS(status) == 127 && el == 0)
            err = slinky__error_set(SLINKY_EAUTH, "exec plugin %s: could not run it%s%s", ex->command,
                                    ex->install_hint ? ": " : "", ex->install_hint ? ex->install_hint : "");
        else
            err = slinky__error_set(SLINKY_EAUTH, "exec plugin %s failed (%s %d)%s%.*s", ex->command,
                                    WIFEXITED(status) ? "exit status" : "signal",
                                    WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
                                    el ? ": " : "", (int)(el > 500 ? 500 : el), e.data ? e.data : "");
    } else if (o.failed || e.failed) {
        err = slinky__error_oom();
    } else {
        err = parse_credential(out, expiry_out, o.data ? o.data : "", o.len, ex);
    }
    if (o.data)
        explicit_bzero(o.data, o.len);
    slinky__buf_dispose(&o);
    slinky__buf_dispose(&e);
out:
    free(cmd);
    free(info_env);
    free(envp);
    free(argv);
    return err;
}
