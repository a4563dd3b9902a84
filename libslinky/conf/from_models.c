/*
 * conf: the renderer's input taken from typed model objects, gathered the way
 * upstream's BuildControllerConfig does (controllerbuilder/controller_config.go):
 * the Controller, its NodeSets, the Accounting it references and the
 * ConfigMaps of configFileRefs and the four *ScriptRefs. Every value is read
 * from a copy with the schema's defaults applied, so those are the only
 * defaults.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf/conf_internal.h"
#include "slinky/model.h"

struct slinky_conf_models {
    slinky_model_object *controller; /* defaulted copies (own the strings) */
    slinky_model_object **nodesets;
    size_t nodeset_count;
    slinky_model_object *accounting;
    slinky_conf_nodeset *sets;
    char **scripts[4]; /* file names borrowed from the input's ConfigMaps, copied */
    size_t script_count[4];
    char *storage_pass;
    slinky_conf_cluster cluster;
    bool has_cluster;
};

void slinky_conf_models_free(slinky_conf_models *m)
{
    if (!m)
        return;
    slinky_model_object_free(m->controller);
    for (size_t i = 0; i < m->nodeset_count; i++)
        slinky_model_object_free(m->nodesets[i]);
    free(m->nodesets);
    slinky_model_object_free(m->accounting);
    free(m->sets);
    for (int k = 0; k < 4; k++) {
        for (size_t i = 0; i < m->script_count[k]; i++)
            free(m->scripts[k][i]);
        free(m->scripts[k]);
    }
    free(m->storage_pass);
    free(m);
}

static const char *describe(const slinky_model_object *o, char *buf, size_t n)
{
    const char *ns = slinky_model_object_get_namespace(o), *name = slinky_model_object_get_name(o);
    const char *kind = slinky_model_kind_name(slinky_model_object_get_kind(o));
    snprintf(buf, n, "%s %s%s%s", kind ? kind : "object", ns && *ns ? ns : "", ns && *ns ? "/" : "",
             name ? name : "(no name)");
    return buf;
}

static bool same_ns(const slinky_model_object *a, const slinky_model_object *b)
{
    const char *x = slinky_model_object_get_namespace(a), *y = slinky_model_object_get_namespace(b);
    return !strcmp(x ? x : "", y ? y : "");
}

/* A defaulted deep copy. */
static int defaulted(slinky_model_object **out, const slinky_model_object *o)
{
    slinky_model_object *c = NULL;
    int rc = slinky_model_object_copy(&c, o);
    if (rc == 0 && (rc = slinky_model_object_apply_defaults(c, SLINKY_MODEL_DEFAULT_ALL)) < 0) {
        slinky_model_object_free(c);
        return rc;
    }
    if (rc == 0)
        *out = c;
    return rc;
}

/* A value that goes onto one slurm.conf line: no line break, NUL or comment. */
static int line_value(const slinky_model_object *o, const char *field, const char *v)
{
    if (!v)
        return 0;
    size_t bad = strcspn(v, "\n\r#");
    if (!v[bad])
        return 0;
    char d[256];
    return slinky__error_set(SLINKY_EINVALID,
                             "conf: %s: %s: %s at byte %zu would break the slurm.conf line",
                             describe(o, d, sizeof(d)), field,
                             v[bad] == '#' ? "'#'" : "a line break", bad);
}

static const char *str_or_null(slinky_status (*get)(const char **, const slinky_model_object *),
                               const slinky_model_object *o)
{
    const char *s = NULL;
    return get(&s, o) == 0 ? s : NULL;
}

static bool bool_or_false(slinky_status (*get)(bool *, const slinky_model_object *),
                          const slinky_model_object *o)
{
    bool b = false;
    return get(&b, o) == 0 && b;
}

static const slinky_model_object *find(const slinky_model_object *const *objs, size_t n,
                                       slinky_model_kind kind, const slinky_model_object *from,
                                       const char *name)
{
    for (size_t i = 0; i < n && name; i++)
        if (objs[i] && slinky_model_object_get_kind(objs[i]) == kind && same_ns(objs[i], from) &&
            slinky_model_object_get_name(objs[i]) &&
            !strcmp(slinky_model_object_get_name(objs[i]), name))
            return objs[i];
    return NULL;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

typedef slinky_status (*ref_name_fn)(const char **, const slinky_model_controller *, size_t);

static const struct {
    const char *field;
    size_t (*count)(const slinky_model_controller *);
    ref_name_fn name;
} script_refs[4] = {
    {"spec.prologScriptRefs", slinky_model_controller_get_prolog_script_refs_count,
     slinky_model_controller_get_prolog_script_refs_name},
    {"spec.epilogScriptRefs", slinky_model_controller_get_epilog_script_refs_count,
     slinky_model_controller_get_epilog_script_refs_name},
    {"spec.prologSlurmctldScriptRefs", slinky_model_controller_get_prolog_slurmctld_script_refs_count,
     slinky_model_controller_get_prolog_slurmctld_script_refs_name},
    {"spec.epilogSlurmctldScriptRefs", slinky_model_controller_get_epilog_slurmctld_script_refs_count,
     slinky_model_controller_get_epilog_slurmctld_script_refs_name},
};

/* The ConfigMap named by ref i of a list field; ENOTFOUND naming it when absent (upstream
 * fails the build when such a Get fails). */
static int ref_configmap(const slinky_model_object **out, const slinky_model_object *c,
                         const slinky_model_object *const *objs, size_t n, const char *field,
                         ref_name_fn get, size_t i)
{
    const char *name = NULL;
    char d[256];
    if (get(&name, c, i) || !name || !*name)
        return slinky__error_set(SLINKY_EINVALID, "conf: %s: %s[%zu].name is empty",
                                 describe(c, d, sizeof(d)), field, i);
    *out = find(objs, n, SLINKY_MODEL_KIND_CONFIGMAP, c, name);
    if (!*out)
        return slinky__error_set(SLINKY_ENOTFOUND, "conf: %s: %s[%zu]: no ConfigMap \"%s\" given",
                                 describe(c, d, sizeof(d)), field, i, name);
    return 0;
}

/* Upstream: for each ref, the ConfigMap's file names sorted, appended in ref order. */
static int gather_scripts(slinky_conf_models *m, int k, const slinky_model_object *c,
                          const slinky_model_object *const *objs, size_t n)
{
    size_t refs = script_refs[k].count(c);
    for (size_t i = 0; i < refs; i++) {
        const slinky_model_object *cm = NULL;
        int rc = ref_configmap(&cm, c, objs, n, script_refs[k].field, script_refs[k].name, i);
        if (rc)
            return rc;
        const slinky_doc_value *data =
            slinky_doc_value_get(slinky_model_object_get_value(cm), "data");
        size_t nk = slinky_doc_value_size(data), base = m->script_count[k];
        char **v = realloc(m->scripts[k], (base + nk + 1) * sizeof(*v));
        if (!v)
            return slinky__error_oom();
        m->scripts[k] = v;
        for (size_t j = 0; j < nk; j++) {
            const char *key = slinky_doc_value_key_at(data, j);
            if ((rc = line_value(cm, "data key", key)))
                return rc;
            if (!(v[m->script_count[k]] = slinky__strdup(key)))
                return SLINKY_ENOMEM;
            m->script_count[k]++;
        }
        qsort(v + base, nk, sizeof(*v), cmp_str);
    }
    return 0;
}

static int gather_nodesets(slinky_conf_models *m, const slinky_model_object *c,
                           const slinky_model_object *const *objs, size_t n)
{
    const char *cname = slinky_model_object_get_name(c);
    m->nodesets = calloc(n ? n : 1, sizeof(*m->nodesets));
    m->sets = calloc(n ? n : 1, sizeof(*m->sets));
    if (!m->nodesets || !m->sets)
        return slinky__error_oom();
    for (size_t i = 0; i < n; i++) {
        const slinky_model_object *o = objs[i];
        const char *ref = NULL;
        /* refresolver.GetNodeSetsForController: the Controller's namespace, controllerRef.name */
        if (!o || slinky_model_object_get_kind(o) != SLINKY_MODEL_KIND_NODESET || !same_ns(o, c) ||
            slinky_model_nodeset_get_controller_ref_name(&ref, o) || !ref || strcmp(ref, cname))
            continue;
        slinky_model_object *d = NULL;
        int rc = defaulted(&d, o);
        if (rc)
            return rc;
        m->nodesets[m->nodeset_count++] = d;
        slinky_conf_nodeset *s = &m->sets[m->nodeset_count - 1];
        s->name = slinky_model_object_get_name(d);
        const char *h = NULL;
        s->hostname = slinky_model_get_string(&h, d, "spec.template.spec.hostname") == 0 ? h : NULL;
        s->partition_enabled = bool_or_false(slinky_model_nodeset_get_partition_enabled, d);
        s->partition_config = str_or_null(slinky_model_nodeset_get_partition_config, d);
        int64_t gpus = 0;
        if (slinky_model_get_int(&gpus, d, "spec.slurmd.resources.limits[\"nvidia.com/gpu\"]"))
            gpus = 0;
        s->gpus = gpus > 0 ? (unsigned)gpus : 0;
        slinky_error_clear();
        if ((rc = line_value(d, "spec.template.spec.hostname", s->hostname)) ||
            (rc = line_value(d, "spec.partition.config", s->partition_config)))
            return rc;
    }
    return 0;
}

static int accounting_pass(slinky_conf_models *m, const slinky_model_object *const *objs, size_t n)
{
    const char *name = NULL, *key = NULL;
    if (slinky_model_accounting_get_storage_config_password_key_ref_name(&name, m->accounting) ||
        slinky_model_accounting_get_storage_config_password_key_ref_key(&key, m->accounting)) {
        slinky_error_clear();
        return 0;
    }
    const slinky_model_object *s = find(objs, n, SLINKY_MODEL_KIND_SECRET, m->accounting, name);
    if (!s)
        return 0; /* the caller supplies it */
    const slinky_doc_value *root = slinky_model_object_get_value(s);
    const char *plain = slinky_doc_value_get_string(
        slinky_doc_value_get(slinky_doc_value_get(root, "stringData"), key));
    const char *b64 = slinky_doc_value_get_string(
        slinky_doc_value_get(slinky_doc_value_get(root, "data"), key));
    char d[256];
    if (plain) {
        m->storage_pass = slinky__strdup(plain);
        return m->storage_pass ? 0 : SLINKY_ENOMEM;
    }
    if (!b64)
        return slinky__error_set(SLINKY_ENOTFOUND,
                                 "conf: %s: spec.storageConfig.passwordKeyRef: Secret \"%s\" has no "
                                 "key \"%s\"",
                                 describe(m->accounting, d, sizeof(d)), name, key);
    char *dec = NULL;
    if (slinky_base64_decode(&dec, NULL, b64, 0) < 0)
        return slinky__error_set(SLINKY_EINVALID,
                                 "conf: %s: spec.storageConfig.passwordKeyRef: Secret \"%s\" key "
                                 "\"%s\" is not base64",
                                 describe(m->accounting, d, sizeof(d)), name, key);
    m->storage_pass = dec;
    return 0;
}

static int fill(slinky_conf_models *m, const slinky_model_controller *controller,
                const slinky_model_object *const *objs, size_t n)
{
    int rc;
    const slinky_model_object *acct = NULL;
    if (controller) {
        if ((rc = defaulted(&m->controller, controller)))
            return rc;
        const slinky_model_object *c = m->controller;
        const char *aref = str_or_null(slinky_model_controller_get_accounting_ref_name, c);
        /* upstream ignores a referenced Accounting that does not exist (accounting/none) */
        acct = aref && *aref ? find(objs, n, SLINKY_MODEL_KIND_ACCOUNTING, c, aref) : NULL;
    } else {
        for (size_t i = 0; i < n && !acct; i++)
            if (objs[i] && slinky_model_object_get_kind(objs[i]) == SLINKY_MODEL_KIND_ACCOUNTING)
                acct = objs[i];
    }
    if (acct && ((rc = defaulted(&m->accounting, acct)) || (rc = accounting_pass(m, objs, n))))
        return rc;
    if (!controller)
        return 0;
    const slinky_model_object *c = m->controller;
    slinky_conf_cluster *d = &m->cluster;
    if ((rc = slinky_conf_cluster_init(d, SLINKY_CONF_CLUSTER_VERSION)))
        return rc;
    d->name = slinky_model_object_get_name(c);
    d->namespace_ = slinky_model_object_get_namespace(c);
    if (!d->namespace_)
        d->namespace_ = "";
    d->cluster_name = str_or_null(slinky_model_controller_get_cluster_name, c);
    if (d->cluster_name && !*d->cluster_name)
        d->cluster_name = NULL;
    d->external = bool_or_false(slinky_model_controller_get_external, c);
    d->external_host = str_or_null(slinky_model_controller_get_external_config_host, c);
    int64_t v = 0;
    if (slinky_model_controller_get_external_config_port(&v, c) == 0)
        d->external_port = (int)v;
    d->ha_enabled = bool_or_false(slinky_model_controller_get_ha_enabled, c);
    if (slinky_model_controller_get_ha_backups(&v, c) == 0)
        d->ha_backups = (int)v;
    d->metrics_enabled = bool_or_false(slinky_model_controller_get_metrics_enabled, c);
    d->jwks = slinky_model_controller_has_jwks_key_ref(c);
    d->extra_conf = str_or_null(slinky_model_controller_get_extra_conf, c);
    d->accounting_name = m->accounting ? slinky_model_object_get_name(m->accounting) : NULL;
    slinky_error_clear();
    if ((rc = line_value(c, "spec.clusterName", d->cluster_name)) ||
        (rc = line_value(c, "spec.externalConfig.host", d->external_host)))
        return rc;
    /* configFileRefs: every ConfigMap must exist; a cgroup.conf in one replaces ours */
    size_t nref = slinky_model_controller_get_config_file_refs_count(c);
    for (size_t i = 0; i < nref; i++) {
        const slinky_model_object *cm = NULL;
        if ((rc = ref_configmap(&cm, c, objs, n, "spec.configFileRefs",
                                slinky_model_controller_get_config_file_refs_name, i)))
            return rc;
        if (slinky_doc_value_get(slinky_doc_value_get(slinky_model_object_get_value(cm), "data"),
                                 "cgroup.conf"))
            d->has_cgroup_conf = true;
    }
    for (int k = 0; k < 4; k++)
        if ((rc = gather_scripts(m, k, c, objs, n)))
            return rc;
    d->prolog = (const char *const *)m->scripts[0];
    d->prolog_count = m->script_count[0];
    d->epilog = (const char *const *)m->scripts[1];
    d->epilog_count = m->script_count[1];
    d->prolog_slurmctld = (const char *const *)m->scripts[2];
    d->prolog_slurmctld_count = m->script_count[2];
    d->epilog_slurmctld = (const char *const *)m->scripts[3];
    d->epilog_slurmctld_count = m->script_count[3];
    if ((rc = gather_nodesets(m, c, objs, n)))
        return rc;
    d->nodesets = m->sets;
    d->nodeset_count = m->nodeset_count;
    m->has_cluster = true;
    return 0;
}

slinky_status slinky_conf_models_new(slinky_conf_models **out,
                                     const slinky_model_controller *controller,
                                     const slinky_model_object *const *objects, size_t object_count)
{
    if (!out || (object_count && !objects))
        return slinky__error_set(SLINKY_EINVALID, "conf: models_new: NULL argument");
    char d[256];
    if (controller && slinky_model_object_get_kind(controller) != SLINKY_MODEL_KIND_CONTROLLER)
        return slinky__error_set(SLINKY_EINVALID, "conf: expected a Controller, got %s",
                                 describe(controller, d, sizeof(d)));
    if (controller && (!slinky_model_object_get_name(controller) ||
                       !*slinky_model_object_get_name(controller)))
        return slinky__error_set(SLINKY_EINVALID, "conf: Controller: metadata.name is required");
    slinky_conf_models *m = slinky__calloc(1, sizeof(*m));
    if (!m)
        return SLINKY_ENOMEM;
    int rc = fill(m, controller, objects, object_count);
    if (rc) {
        slinky_conf_models_free(m);
        return rc;
    }
    *out = m;
    return 0;
}

const slinky_conf_cluster *slinky_conf_models_cluster(const slinky_conf_models *m)
{
    return m && m->has_cluster ? &m->cluster : NULL;
}

slinky_status slinky_conf_models_accounting(slinky_conf_accounting *out,
                                            const slinky_conf_models *m)
{
    if (!out || !m)
        return slinky__error_set(SLINKY_EINVALID, "conf: models_accounting: NULL argument");
    if (!m->accounting)
        return slinky__error_set(SLINKY_ENOTFOUND, "conf: no Accounting among the resources");
    const slinky_model_object *a = m->accounting;
    slinky_conf_accounting r;
    memset(&r, 0, sizeof(r));
    r.name = slinky_model_object_get_name(a);
    r.storage_host = str_or_null(slinky_model_accounting_get_storage_config_host, a);
    int64_t port = 0;
    if (slinky_model_accounting_get_storage_config_port(&port, a) == 0)
        r.storage_port = (int)port;
    r.storage_user = str_or_null(slinky_model_accounting_get_storage_config_username, a);
    r.storage_pass = m->storage_pass;
    r.storage_loc = str_or_null(slinky_model_accounting_get_storage_config_database, a);
    r.extra_conf = str_or_null(slinky_model_accounting_get_extra_conf, a);
    r.jwks = slinky_model_accounting_has_jwks_key_ref(a);
    slinky_error_clear();
    *out = r;
    return 0;
}
