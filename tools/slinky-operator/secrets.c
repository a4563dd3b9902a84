/* Materialise the key Secrets a Controller references as files of the local cluster. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "operator.h"

static const slinky_kube_resource res_secrets = {"", "v1", "secrets", true};

/* Write Secret ns/ref.name [ref.key] to path (0600, atomically). */
static slinky_status write_secret_key(char *msg, size_t msglen, op_state *st, const char *ns,
                                      const slinky_doc_value *ref, const char *field,
                                      const char *path)
{
    const char *name = slinky_doc_value_path_string(ref, "name", NULL);
    const char *key = slinky_doc_value_path_string(ref, "key", NULL);
    slinky_doc *secret = NULL;
    if (!name || !key) {
        snprintf(msg, msglen, "%s: name and key are required", field);
        return SLINKY_EINVALID;
    }
    slinky_status rc = slinky_kube_get(&secret, st->client, &res_secrets, ns, name, NULL);
    if (rc < 0) {
        snprintf(msg, msglen, "%s: Secret %s/%s: %s", field, ns, name,
                 slinky_error_last()->message);
        return rc;
    }
    const slinky_doc_value *data = slinky_doc_value_get(slinky_doc_root(secret), "data");
    const char *b64 = slinky_doc_value_get_string(slinky_doc_value_get(data, key));
    const slinky_doc_value *sdata = slinky_doc_value_get(slinky_doc_root(secret), "stringData");
    const char *plain = slinky_doc_value_get_string(slinky_doc_value_get(sdata, key));
    unsigned char *bytes = NULL;
    long len = -1;
    size_t blen = 0;
    if (b64) {
        if (slinky_base64_decode((char **)&bytes, &blen, b64, 0) == 0)
            len = (long)blen;
    } else if (plain) {
        bytes = (unsigned char *)strdup(plain);
        len = bytes ? (long)strlen(plain) : -1;
    }
    slinky_doc_free(secret);
    if (len <= 0) {
        free(bytes);
        snprintf(msg, msglen, "%s: Secret %s/%s has no valid data key %s", field, ns, name, key);
        return SLINKY_EINVALID;
    }
    char tmp[4200];
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    bool ok = fd >= 0 && write(fd, bytes, (size_t)len) == len && fsync(fd) == 0;
    if (fd >= 0)
        ok = close(fd) == 0 && ok;
    ok = ok && rename(tmp, path) == 0;
    free(bytes);
    if (!ok) {
        snprintf(msg, msglen, "%s: writing %s: %s", field, path, strerror(errno));
        unlink(tmp);
        return SLINKY_EIO;
    }
    return 0;
}

slinky_status op_write_keys(char *msg, size_t msglen, op_state *st, const slinky_doc_value *ctl)
{
    const char *ns = slinky_doc_value_path_string(ctl, "metadata.namespace", st->o.namespace_);
    char path[4096];
    const slinky_doc_value *jwt = slinky_doc_value_path(ctl, "spec.jwtHs256KeyRef");
    const char *jwt_field = "spec.jwtHs256KeyRef";
    if (!jwt) {
        jwt = slinky_doc_value_path(ctl, "spec.jwtKeyRef");
        jwt_field = "spec.jwtKeyRef";
    }
    if (jwt) {
        snprintf(path, sizeof(path), "%s/etc/jwt.key", st->o.slurm_dir);
        slinky_status rc = write_secret_key(msg, msglen, st, ns, jwt, jwt_field, path);
        if (rc < 0)
            return rc;
    }
    const slinky_doc_value *sk = slinky_doc_value_path(ctl, "spec.slurmKeyRef");
    if (sk) {
        snprintf(path, sizeof(path), "%s/etc/slurm.key", st->o.slurm_dir);
        return write_secret_key(msg, msglen, st, ns, sk, "spec.slurmKeyRef", path);
    }
    return 0;
}
