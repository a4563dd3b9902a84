/* model: the upstream admission webhook's rules and the immutable fields. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/internal.h"

#define ERR(p, path, ...) slinky_model__problems_add((p), SLINKY_MODEL_ERROR, (path), __VA_ARGS__)
#define WARN(p, path, ...)                                                                   \
    slinky_model__problems_add((p), SLINKY_MODEL_WARNING, (path), __VA_ARGS__)

static const char *const deny_config_files[] = {"slurm.conf", "slurmdbd.conf", NULL};
static const char *const known_config_files[] = {
    "acct_gather.conf", "burst_buffer.conf", "cgroup.conf",   "cli_filter.lua",
    "gres.conf",        "helpers.conf",      "job_container.conf", "job_submit.lua",
    "mpi.conf",         "namespace.yaml",    "oci.conf",      "plugstack.conf",
    "topology.conf",    "topology.yaml",     NULL};

static bool in_list(const char *const *list, const char *s)
{
    for (; *list; list++)
        if (strcmp(*list, s) == 0)
            return true;
    return false;
}

/* Effective ClusterName: spec.clusterName or <namespace>_<name>. */
static char *cluster_name(const slinky_doc_value *root)
{
    const char *cn = slinky_doc_value_path_string(root, "spec.clusterName", "");
    if (*cn)
        return slinky__strdup(cn);
    return slinky__sprintf("%s_%s", slinky_doc_value_path_string(root, "metadata.namespace", ""),
                           slinky_doc_value_path_string(root, "metadata.name", ""));
}

/* NodeSet extraConf: whitespace-separated Key=Value pairs (values may be
 * double-quoted and then hold spaces). Returns NULL when fine, else the
 * offending token (static buffer copy into *bad). */
static bool extra_conf_ok(const char *s, char *bad, size_t badlen)
{
    while (*s) {
        while (*s == ' ' || *s == '\t')
            s++;
        if (!*s)
            break;
        const char *start = s;
        bool quoted = false, key = true, ok = true;
        size_t klen = 0;
        while (*s && (quoted || (*s != ' ' && *s != '\t'))) {
            if (*s == '\n' || *s == '\r')
                ok = false;
            if (key) {
                if (*s == '=')
                    key = false;
                else if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') ||
                           (*s >= '0' && *s <= '9') || *s == '_'))
                    ok = false;
                else
                    klen++;
            } else if (*s == '"') {
                quoted = !quoted;
            }
            s++;
        }
        if (key || klen == 0 || quoted || !ok) {
            size_t n = (size_t)(s - start);
            if (n >= badlen)
                n = badlen - 1;
            memcpy(bad, start, n);
            bad[n] = '\0';
            return false;
        }
    }
    return true;
}

static int service_external_ips(slinky_model_problems *p, const slinky_doc_value *root,
                                const char *what)
{
    const slinky_doc_value *ips = slinky_doc_value_path(root, "spec.service.spec.externalIPs");
    if (ips && !slinky_doc_value_is_null(ips))
        return WARN(p, "spec.service.spec.externalIPs",
                    "ExternalIPs may not be set for %s service (CVE-2020-8554)", what);
    return 0;
}

/* The API server's check of a scale subresource's replica paths (ValidateScaleSpec and
 * ValidateScaleStatus): an integer, not negative (the int32 limit is the schema's). */
static int scale_replicas(slinky_model_problems *p, const slinky_doc_value *root)
{
    static const char *const paths[] = {"spec.replicas", "status.replicas"};
    for (size_t i = 0; i < SLINKY__ARRAY_SIZE(paths); i++) {
        const slinky_doc_value *r = slinky_doc_value_path(root, paths[i]);
        if (slinky_doc_value_type(r) == SLINKY_DOC_INT && slinky_doc_value_get_int(r) < 0) {
            int rc = ERR(p, paths[i], "Invalid value: %lld: should be a non-negative integer",
                         (long long)slinky_doc_value_get_int(r));
            if (rc < 0)
                return rc;
        }
    }
    return 0;
}

int slinky_model__webhook_validate(slinky_model_problems *p, const slinky_model_object *o,
                                   const slinky_doc_value *root)
{
    int rc = 0;
    switch (o->info->kind) {
    case SLINKY_MODEL_KIND_CONTROLLER: {
        char *cn = cluster_name(root);
        if (!cn)
            return SLINKY_ENOMEM;
        if (strlen(cn) > 40)
            rc = ERR(p, "spec.clusterName", "ClusterName exceeds 40 characters (%zu): %s",
                     strlen(cn), cn);
        free(cn);
        if (!rc)
            rc = service_external_ips(p, root, "controller");
        break;
    }
    case SLINKY_MODEL_KIND_NODESET: {
        const slinky_doc_value *spec = slinky_doc_value_get(root, "spec");
        const slinky_doc_value *cref = slinky_doc_value_get(spec, "controllerRef");
        if (cref && slinky_doc_value_type(cref) == SLINKY_DOC_OBJECT &&
            !*slinky_doc_value_path_string(cref, "name", ""))
            rc = ERR(p, "spec.controllerRef.name", "controllerRef.name must not be empty");
        const slinky_doc_value *mu =
            slinky_doc_value_path(spec, "updateStrategy.rollingUpdate.maxUnavailable");
        if (!rc && slinky_doc_value_type(mu) == SLINKY_DOC_INT && slinky_doc_value_get_int(mu) < 1)
            rc = ERR(p, "spec.updateStrategy.rollingUpdate.maxUnavailable",
                     "maxUnavailable must be >= 1, got %lld",
                     (long long)slinky_doc_value_get_int(mu));
        if (!rc && slinky_doc_value_type(mu) == SLINKY_DOC_STRING &&
            strcmp(slinky_doc_value_get_string(mu), "0%") == 0)
            rc = ERR(p, "spec.updateStrategy.rollingUpdate.maxUnavailable",
                     "maxUnavailable must not be 0%%");
        if (!rc && slinky_doc_value_path_bool(spec, "ssh.enabled", false) &&
            !*slinky_doc_value_path_string(spec, "ssh.sssdConfRef.name", ""))
            rc = ERR(p, "spec.ssh.sssdConfRef.name",
                     "ssh.sssdConfRef.name must not be empty when ssh is enabled");
        if (!rc)
            rc = scale_replicas(p, root);
        const char *ec = slinky_doc_value_get_string(slinky_doc_value_get(spec, "extraConf"));
        char bad[64];
        if (!rc && ec && !extra_conf_ok(ec, bad, sizeof(bad)))
            rc = ERR(p, "spec.extraConf",
                     "extraConf must be space-separated Key=Value pairs (slurmd --conf), "
                     "got \"%s\"", bad);
        break;
    }
    case SLINKY_MODEL_KIND_LOGINSET:
        rc = service_external_ips(p, root, "loginset");
        if (!rc)
            rc = scale_replicas(p, root);
        break;
    case SLINKY_MODEL_KIND_ACCOUNTING:
        rc = service_external_ips(p, root, "accounting");
        break;
    case SLINKY_MODEL_KIND_RESTAPI:
        rc = service_external_ips(p, root, "restapi");
        break;
    default:
        break;
    }
    return rc;
}

/* Compare a path in two (defaulted) roots; NULL/absent equal to each other. */
static bool same(const slinky_doc_value *a, const slinky_doc_value *b, const char *path)
{
    const slinky_doc_value *x = slinky_doc_value_path(a, path);
    const slinky_doc_value *y = slinky_doc_value_path(b, path);
    if (slinky_doc_value_is_null(x) && slinky_doc_value_is_null(y))
        return true; /* NULL reads as null */
    return slinky_doc_value_equal(x, y);
}

static const slinky_doc_value *jwt_ref(const slinky_doc_value *root)
{
    const slinky_doc_value *r = slinky_doc_value_path(root, "spec.jwtKeyRef");
    return (r && !slinky_doc_value_is_null(r)) ? r
                                               : slinky_doc_value_path(root, "spec.jwtHs256KeyRef");
}

static int immutable(slinky_model_problems *p, const slinky_doc_value *a,
                     const slinky_doc_value *b, const char *path, const char *msg)
{
    return same(a, b, path) ? 0 : ERR(p, path, "Invalid value: field is immutable: %s", msg);
}

static int defaulted(slinky_doc **out, const slinky_model_object *o)
{
    int rc = slinky_doc_new_copy(out, slinky_model__root(o));
    if (!rc && (rc = slinky_model__default_value(slinky_doc_root(*out),
                                                 &slinky_model__nodes[o->info->root], false))) {
        slinky_doc_free(*out);
        *out = NULL;
    }
    return rc;
}

int slinky_model__webhook_validate_update(slinky_model_problems *p,
                                          const slinky_model_object *old,
                                          const slinky_model_object *new_)
{
    slinky_doc *da = NULL, *db = NULL;
    int rc = 0;
    if (old->info != new_->info)
        return ERR(p, "kind", "Invalid value: \"%s\": field is immutable (was %s)",
                   new_->info->name, old->info->name);
    if ((rc = defaulted(&da, old)) || (rc = defaulted(&db, new_)))
        goto done;
    const slinky_doc_value *a = slinky_doc_root(da), *b = slinky_doc_root(db);
    if ((rc = immutable(p, a, b, "metadata.name", "the name of an object cannot change")) ||
        (rc = immutable(p, a, b, "metadata.namespace", "the namespace of an object cannot change")))
        goto done;
    switch (old->info->kind) {
    case SLINKY_MODEL_KIND_CONTROLLER: {
        char *ca = cluster_name(a), *cb = cluster_name(b);
        if (!ca || !cb)
            rc = SLINKY_ENOMEM;
        else if (strcmp(ca, cb) != 0)
            rc = ERR(p, "spec.clusterName", "cannot change ClusterName after deployment (%s -> %s)",
                     ca, cb);
        free(ca);
        free(cb);
        if (!rc)
            rc = immutable(p, a, b, "spec.slurmKeyRef.name",
                           "cannot change SlurmKeyRef after deployment");
        if (!rc && !slinky_doc_value_equal(jwt_ref(a), jwt_ref(b)))
            rc = ERR(p, slinky_doc_value_path(b, "spec.jwtKeyRef") ? "spec.jwtKeyRef"
                                                                   : "spec.jwtHs256KeyRef",
                     "Invalid value: field is immutable: the value of JwtKeyRef or "
                     "JwtHs256KeyRef cannot be modified after deployment");
        bool ea = slinky_doc_value_path_bool(a, "spec.persistence.enabled", true);
        bool eb = slinky_doc_value_path_bool(b, "spec.persistence.enabled", true);
        if (!rc && ea != eb)
            rc = ERR(p, "spec.persistence.enabled",
                     "Invalid value: field is immutable: cannot change persistence.enabled "
                     "after deployment");
        if (!rc && eb)
            rc = immutable(p, a, b, "spec.persistence.existingClaim",
                           "cannot change persistence.existingClaim after deployment");
        break;
    }
    case SLINKY_MODEL_KIND_NODESET:
        if (!(rc = immutable(p, a, b, "spec.controllerRef",
                             "cannot change controllerRef after deployment")) &&
            !(rc = immutable(p, a, b, "spec.scalingMode",
                             "cannot change scalingMode after deployment")))
            rc = immutable(p, a, b, "spec.volumeClaimTemplates",
                           "cannot change volumeClaimTemplates after deployment");
        break;
    case SLINKY_MODEL_KIND_TOKEN:
        if (!(rc = immutable(p, a, b, "spec.jwtKeyRef", "cannot change jwtKeyRef after creation")))
            rc = immutable(p, a, b, "spec.jwtHs256KeyRef",
                           "cannot change jwtHs256KeyRef after creation");
        break;
    default:
        break;
    }
done:
    slinky_doc_free(da);
    slinky_doc_free(db);
    return rc;
}

SLINKY_API slinky_status slinky_model_validate_config_map(slinky_model_problems *into,
                                                          const slinky_model_controller *c,
                                                          const slinky_model_configmap *cm)
{
    if (!into || !c || !cm)
        return slinky__error_set(SLINKY_EINVALID, "model: NULL argument");
    if (c->info->kind != SLINKY_MODEL_KIND_CONTROLLER || cm->info->kind != SLINKY_MODEL_KIND_CONFIGMAP)
        return slinky__error_set(SLINKY_EINVALID,
                                 "model: validate_config_map needs a Controller and a ConfigMap");
    const char *name = slinky_model_object_get_name(cm);
    const slinky_doc_value *refs = slinky_doc_value_path(slinky_model__root(c), "spec.configFileRefs");
    size_t idx = (size_t)-1;
    for (size_t i = 0; name && i < slinky_doc_value_size(refs); i++)
        if (strcmp(slinky_doc_value_path_string(slinky_doc_value_at(refs, i), "name", ""), name) == 0) {
            idx = i;
            break;
        }
    if (idx == (size_t)-1)
        return slinky__error_set(SLINKY_ENOTFOUND,
                                 "model: ConfigMap %s is not in the Controller's configFileRefs",
                                 name ? name : "(unnamed)");
    char path[64];
    snprintf(path, sizeof(path), "spec.configFileRefs[%zu]", idx);
    static const char *const maps[] = {"data", "binaryData"};
    for (size_t m = 0; m < 2; m++) {
        const slinky_doc_value *d = slinky_doc_value_get(slinky_model__root(cm), maps[m]);
        for (size_t i = 0; i < slinky_doc_value_size(d); i++) {
            const char *file = slinky_doc_value_key_at(d, i);
            int rc = 0;
            if (!file)
                continue;
            if (in_list(deny_config_files, file))
                rc = ERR(into, path, "the configFile is reserved for slurm-operator use: %s", file);
            else if (!in_list(known_config_files, file))
                rc = WARN(into, path,
                          "the configFile is unknown to Slurm, make sure to include it in another "
                          "config file otherwise it is ignored: %s", file);
            if (rc)
                return rc;
        }
    }
    return 0;
}
