/* Install a rendered slurm.conf and apply it by its change class. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include "operator.h"

static _Thread_local char last_error[1024];

const char *op_last_error(void)
{
    return last_error;
}

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 65536, n = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        size_t r = fread(buf + n, 1, cap - n, f);
        n += r;
        if (n < cap)
            break;
        char *nb = realloc(buf, cap * 2 + 1);
        if (!nb) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
        cap *= 2;
    }
    fclose(f);
    if (buf) {
        buf[n] = '\0';
        *len = n;
    }
    return buf;
}

static int write_atomic(const char *path, const char *text)
{
    char tmp[4096];
    snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return -errno;
    size_t len = strlen(text), off = 0;
    while (off < len) {
        ssize_t w = write(fd, text + off, len - off);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            close(fd);
            unlink(tmp);
            return -e;
        }
        off += (size_t)w;
    }
    if (fsync(fd) < 0 || close(fd) < 0) {
        int e = errno;
        unlink(tmp);
        return -e;
    }
    if (rename(tmp, path) < 0) {
        int e = errno;
        unlink(tmp);
        return -e;
    }
    return 0;
}

struct restart_ctx {
    const op_options *o;
    const char *conf_path;
    char message[1024];
};

/* Run the restart command with the class in the environment. */
static slinky_status run_restart(slinky_conf_change_class klass, void *payload)
{
    struct restart_ctx *rc = payload;
    if (!rc->o->restart_cmd || !*rc->o->restart_cmd) {
        snprintf(rc->message, sizeof(rc->message),
                 "change class %s needs a restart and no --restart-command is set",
                 slinky_conf_change_class_name(klass));
        return SLINKY_EINVALID;
    }
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(rc->message, sizeof(rc->message), "fork: %s", strerror(errno));
        return SLINKY_EIO;
    }
    if (pid == 0) {
        setenv("SLINKY_CHANGE_CLASS", slinky_conf_change_class_name(klass), 1);
        setenv("SLURM_CONF", rc->conf_path, 1);
        execl("/bin/sh", "sh", "-c", rc->o->restart_cmd, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        snprintf(rc->message, sizeof(rc->message), "restart command failed (status %d): %s",
                 WIFEXITED(status) ? WEXITSTATUS(status) : -1, rc->o->restart_cmd);
        return SLINKY_EIO;
    }
    return 0;
}

slinky_status op_install_and_apply(slinky_conf_change_class *class_out, char **summary_out,
                                   const op_options *o, const char *path, const char *new_text)
{
    size_t old_len = 0;
    char *old_text = read_all(path, &old_len);
    slinky_conf *old_conf = NULL, *new_conf = NULL;
    slinky_conf_diff *diff = NULL;
    slinky_conf_change_class klass = SLINKY_CONF_CLASS_RESTART_ALL;
    char *summary = NULL;
    slinky_status rc;
    char prev[4096];
    struct restart_ctx rctx = {o, path, ""};

    last_error[0] = '\0';
    snprintf(prev, sizeof(prev), "%s.prev", path);
    rc = slinky_conf_parse(&new_conf, new_text, strlen(new_text), path, NULL);
    if (rc < 0)
        goto out;
    if (old_text) {
        rc = slinky_conf_parse(&old_conf, old_text, old_len, path, NULL);
        if (rc < 0)
            goto out;
        rc = slinky_conf_diff_new(&diff, old_conf, new_conf, o->slurm_version);
        if (rc < 0)
            goto out;
        klass = slinky_conf_diff_class(diff);
        rc = slinky_conf_diff_render(&summary, diff);
        if (rc < 0)
            goto out;
    } else {
        summary = strdup("no slurm.conf yet: start the daemons\noverall: restart-all\n");
    }

    if (old_text && strcmp(old_text, new_text) == 0) {
        klass = SLINKY_CONF_CLASS_NONE;
        goto done;
    }
    /* keep the old file: scontrol must still reach the daemons it describes */
    if (old_text && write_atomic(prev, old_text) < 0) {
        snprintf(last_error, sizeof(last_error), "write %s: %s", prev, strerror(errno));
        rc = SLINKY_EIO;
        goto out;
    }
    int w = write_atomic(path, new_text);
    if (w < 0) {
        snprintf(last_error, sizeof(last_error), "write %s: %s", path, strerror(-w));
        rc = SLINKY_EIO; /* old file untouched: rename never happened */
        goto out;
    }
    if (klass == SLINKY_CONF_CLASS_NONE)
        goto done; /* comments or layout only */

    if (diff) {
        slinky_conf_apply_options ao;
        slinky_conf_apply_options_init(&ao, SLINKY_CONF_APPLY_OPTIONS_VERSION);
        ao.client_conf = prev;
        ao.restart = run_restart;
        ao.payload = &rctx;
        rc = slinky_conf_apply(NULL, diff, &ao);
    } else {
        rc = run_restart(klass, &rctx);
    }
    if (rc < 0) {
        /* put the old file back; after a failed restart bring the old config up again */
        if (old_text) {
            write_atomic(path, old_text);
            if (klass >= SLINKY_CONF_CLASS_RESTART_SLURMCTLD) {
                char msg[1024];
                memcpy(msg, rctx.message, sizeof(msg));
                run_restart(klass, &rctx);
                memcpy(rctx.message, msg, sizeof(msg));
            }
        }
        snprintf(last_error, sizeof(last_error), "%s",
                 rctx.message[0] ? rctx.message : slinky_error_last()->message);
        goto out;
    }
done:
    rc = 0;
    if (class_out)
        *class_out = klass;
    if (summary_out) {
        *summary_out = summary;
        summary = NULL;
    }
out:
    if (rc < 0 && !last_error[0])
        snprintf(last_error, sizeof(last_error), "%s", slinky_error_last()->message);
    slinky_conf_diff_free(diff);
    slinky_conf_free(old_conf);
    slinky_conf_free(new_conf);
    free(old_text);
    free(summary);
    return rc;
}
