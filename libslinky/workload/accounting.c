/* workload: Accounting -> Service, the slurmdbd.conf Secret and the StatefulSet,
 * as upstream's internal/builder/accountingbuilder (accounting_service.go,
 * accounting_config.go, accounting_app.go). slurmdbd.conf comes from the conf
 * module's renderer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slinky/conf.h"
#include "workload/workload_internal.h"

#define ANN_SLURMDBD_CONF_HASH "slinky.slurm.net/slurmdbd-conf-hash"

/* Accounting annotations/labels + extra + WithAccountingLabels. */
static int acct_meta(slinky_doc_value *meta, const slinky_model_object *a,
                     const slinky_doc_value *extra)
{
    slinky_doc_value *labels = NULL;
    int rc;
    if ((rc = slinky_workload__map_copy(meta, "annotations", wl_meta(a, "annotations"))) ||
        (rc = slinky_workload__map_copy(meta, "labels", wl_meta(a, "labels"))) ||
        (rc = slinky_workload__map_copy(meta, "annotations", slinky_doc_value_get(extra, "annotations"))) ||
        (rc = slinky_workload__map_copy(meta, "labels", slinky_doc_value_get(extra, "labels"))) ||
        (rc = slinky_workload__obj(&labels, meta, "labels")))
        return rc;
    return slinky_workload__labels(labels, SLINKY_WL_APP_ACCOUNTING, slinky_model_object_get_name(a),
                                   SLINKY_WL_COMP_ACCOUNTING);
}

static int check_field(const slinky_model_accounting *a, const char *field, const char *v)
{
    return v ? slinky_workload__check_line_value(a, field, v, strlen(v)) : 0;
}

/* The Secret <name>-accounting with slurmdbd.conf; hash receives its CheckSumFromMap. */
static int config_secret(slinky_workload *w, char hash[65], const slinky_model_accounting *a,
                         const slinky_workload_input *in, const char *name)
{
    const slinky_doc_value *ev = slinky_doc_value_get(wl_spec(a), "extraConf");
    const slinky_model_object *objs[2] = {a, NULL};
    slinky_conf_models *models = NULL;
    slinky_conf_accounting ca;
    char *conf = NULL;
    slinky_doc *doc = NULL;
    slinky_doc_value *root, *meta, *sd = NULL;
    /* the password's Secret must be there (upstream's GetSecretKeyRef fails the build) */
    int rc = slinky_workload__ref(&objs[1], in, a, "spec.storageConfig.passwordKeyRef.name",
                                  SLINKY_MODEL_KIND_SECRET,
                                  slinky_doc_value_path_string(wl_spec(a),
                                                               "storageConfig.passwordKeyRef.name", ""));
    if (rc)
        return rc;
    if ((rc = slinky_conf_models_new(&models, NULL, objs, 2)) ||
        (rc = slinky_conf_models_accounting(&ca, models))) {
        slinky__error_prefix("workload: ");
        goto done;
    }
    if ((rc = check_field(a, "spec.storageConfig.host", ca.storage_host)) ||
        (rc = check_field(a, "spec.storageConfig.username", ca.storage_user)) ||
        (rc = check_field(a, "spec.storageConfig.database", ca.storage_loc)) ||
        (rc = check_field(a, "spec.storageConfig.passwordKeyRef", ca.storage_pass)))
        goto done;
    if (ca.extra_conf && memchr(ca.extra_conf, '\0', slinky_doc_value_get_string_len(ev))) {
        rc = slinky__error_set(SLINKY_EINVALID, "workload: %s: spec.extraConf: a NUL byte",
                               slinky_workload__describe(a));
        goto done;
    }
    if ((rc = slinky_conf_render_slurmdbd(&conf, &ca, NULL))) {
        slinky__error_prefix("workload: %s: ", slinky_workload__describe(a));
        goto done;
    }
    if ((rc = slinky_workload__object_new(&doc, &root, &meta, "v1", "Secret",
                                          slinky_model_object_get_namespace(a), name)) ||
        (rc = acct_meta(meta, a, NULL)) || (rc = slinky_workload__set_controller_ref(meta, a)) ||
        (rc = slinky_workload__obj(&sd, root, "stringData")) ||
        (rc = slinky_doc_value_object_set_string(sd, "slurmdbd.conf", conf)) ||
        (rc = slinky_doc_value_object_set_bool(root, "immutable", false)) ||
        (rc = slinky_workload__checksum_map(hash, sd, false)))
        goto done;
    slinky_workload__meta_prune(meta);
done:
    rc = slinky_workload__push_done(w, doc, rc);
    if (conf)
        memset(conf, 0, strlen(conf)); /* it holds the password */
    slinky_free(conf);
    slinky_conf_models_free(models);
    return rc;
}

static int slurmdbd_container(slinky_doc_value *containers, const slinky_model_accounting *a)
{
    slinky_doc_value *ct = NULL, *ports = NULL, *p = NULL, *mounts = NULL;
    int rc;
    if ((rc = slinky_workload__push_obj(&ct, containers)) ||
        (rc = slinky_doc_value_object_set_string(ct, "name", SLINKY_WL_APP_ACCOUNTING)) ||
        (rc = slinky_workload__arr(&ports, ct, "ports")) ||
        (rc = slinky_workload__push_obj(&p, ports)) ||
        (rc = slinky_doc_value_object_set_string(p, "name", SLINKY_WL_APP_ACCOUNTING)) ||
        (rc = slinky_doc_value_object_set_int(p, "containerPort", SLINKY_WL_SLURMDBD_PORT)) ||
        (rc = slinky_doc_value_object_set_string(p, "protocol", "TCP")) ||
        (rc = slinky_workload__probe(ct, "readinessProbe", NULL, NULL, SLINKY_WL_SLURMDBD_PORT, 0, 0)) ||
        (rc = slinky_workload__run_as(ct, "securityContext", SLINKY_WL_SLURM_UID, false)) ||
        (rc = slinky_workload__arr(&mounts, ct, "volumeMounts")) ||
        (rc = slinky_workload__mount(mounts, SLINKY_WL_ETC_VOLUME, SLINKY_WL_ETC_DIR, true)) ||
        (rc = slinky_workload__mount(mounts, SLINKY_WL_PID_VOLUME, SLINKY_WL_PID_DIR, false)))
        return rc;
    return slinky_workload__merge_container(ct, slinky_doc_value_get(wl_spec(a), "slurmdbd"));
}

static int stateful_set(slinky_workload *w, const slinky_model_accounting *a,
                        const slinky_workload_input *in, const char *name, const char *conf_hash)
{
    const slinky_doc_value *s = wl_spec(a);
    const char *nsn = slinky_model_object_get_namespace(a), *jn, *jk;
    slinky_doc *doc = NULL;
    slinky_doc_value *root, *meta, *spec = NULL, *sel = NULL, *ml = NULL, *tmpl = NULL,
                     *tmeta = NULL, *pspec = NULL, *containers = NULL, *vols = NULL, *src = NULL;
    int rc;
    slinky_workload__jwt_ref(&jn, &jk, a);
    if ((rc = slinky_workload__object_new(&doc, &root, &meta, "apps/v1", "StatefulSet", nsn, name)) ||
        (rc = acct_meta(meta, a, slinky_doc_value_path(s, "template.metadata"))) ||
        (rc = slinky_workload__obj(&spec, root, "spec")) ||
        (rc = slinky_doc_value_object_set_string(spec, "podManagementPolicy", "Parallel")) ||
        (rc = slinky_doc_value_object_set_int(spec, "replicas", 1)) ||
        (rc = slinky_doc_value_object_set_int(spec, "revisionHistoryLimit", 0)) ||
        (rc = slinky_workload__obj(&sel, spec, "selector")) ||
        (rc = slinky_workload__obj(&ml, sel, "matchLabels")) ||
        (rc = slinky_workload__labels(ml, SLINKY_WL_APP_ACCOUNTING, slinky_model_object_get_name(a), NULL)) ||
        (rc = slinky_doc_value_object_set_string(spec, "serviceName", name)) ||
        (rc = slinky_workload__obj(&tmpl, spec, "template")) ||
        (rc = slinky_workload__obj(&tmeta, tmpl, "metadata")) ||
        (rc = slinky_doc_value_object_set_string(tmeta, "name", name)) ||
        (nsn && *nsn && (rc = slinky_doc_value_object_set_string(tmeta, "namespace", nsn))) ||
        /* upstream's pod template leaves out spec.template.metadata */
        (rc = acct_meta(tmeta, a, NULL)) || (rc = slinky_workload__auth_hashes(tmeta, in, a)) ||
        (rc = slinky_workload__map_put(tmeta, "annotations", ANN_SLURMDBD_CONF_HASH, conf_hash)) ||
        (rc = slinky_workload__map_put(tmeta, "annotations", SLINKY_WL_ANN_DEFAULT_CONTAINER,
                                       SLINKY_WL_APP_ACCOUNTING)) ||
        (rc = slinky_workload__obj(&pspec, tmpl, "spec")) ||
        (rc = slinky_doc_value_object_set_bool(pspec, "automountServiceAccountToken", false)) ||
        (rc = slinky_workload__arr(&containers, pspec, "containers")) ||
        (rc = slurmdbd_container(containers, a)) ||
        (rc = slinky_workload__run_as(pspec, "securityContext", SLINKY_WL_SLURM_UID, true)) ||
        (rc = slinky_workload__arr(&vols, pspec, "volumes")) ||
        (rc = slinky_workload__projected(&src, vols, SLINKY_WL_ETC_VOLUME, 0600)) ||
        (rc = slinky_workload__projection(src, true, name, "slurmdbd.conf", "slurmdbd.conf")) ||
        (rc = slinky_workload__projection(src, true,
                                          slinky_doc_value_path_string(s, "slurmKeyRef.name", ""),
                                          slinky_doc_value_path_string(s, "slurmKeyRef.key", ""),
                                          SLINKY_WL_SLURM_KEY_FILE)) ||
        (rc = slinky_workload__projection(src, true, jn, jk, SLINKY_WL_JWT_KEY_FILE)))
        goto done;
    if (slinky_doc_value_path_string(s, "jwksKeyRef.name", NULL) &&
        (rc = slinky_workload__projection(src, false,
                                          slinky_doc_value_path_string(s, "jwksKeyRef.name", ""),
                                          slinky_doc_value_path_string(s, "jwksKeyRef.key", ""),
                                          SLINKY_WL_JWKS_KEY_FILE)))
        goto done;
    if ((rc = slinky_workload__empty_dir(vols, SLINKY_WL_PID_VOLUME, true)) ||
        (rc = slinky_workload__merge_pod_spec(pspec, slinky_doc_value_path(s, "template.spec"))) ||
        (rc = slinky_workload__set_controller_ref(meta, a)))
        goto done;
    slinky_workload__meta_prune(meta);
done:
    rc = slinky_workload__push_done(w, doc, rc);
    return rc;
}

SLINKY_API slinky_status slinky_workload_build_accounting(slinky_workload *into,
                                                          const slinky_model_accounting *a,
                                                          const slinky_workload_input *in)
{
    int rc = slinky_workload__builder_args(into, a, in, SLINKY_MODEL_KIND_ACCOUNTING);
    if (rc)
        return rc;
    /* external slurmdbd: upstream builds nothing */
    if (slinky_doc_value_path_bool(wl_spec(a), "external", false))
        return 0;
    char *name = slinky__sprintf("%s-accounting", slinky_model_object_get_name(a));
    char hash[65];
    if (!name)
        return SLINKY_ENOMEM;
    slinky_workload tmp = {0};
    if (!(rc = slinky_workload__owner_service(&tmp, a, name, SLINKY_WL_APP_ACCOUNTING,
                                              SLINKY_WL_SLURMDBD_PORT, acct_meta, NULL, NULL)) && !(rc = config_secret(&tmp, hash, a, in, name)))
        rc = stateful_set(&tmp, a, in, name, hash);
    rc = slinky_workload__commit(into, &tmp, rc);
    free(name);
    return rc;
}

/* ------------------------------------------------------------ everything */

static int build_kind(slinky_workload *w, const slinky_workload_input *in, slinky_model_kind k,
                      int pods)
{
    int rc = 0;
    for (size_t i = 0; i < in->object_count && !rc; i++) {
        const slinky_model_object *o = in->objects[i];
        if (slinky_model_object_get_kind(o) != k)
            continue;
        switch (k) {
        case SLINKY_MODEL_KIND_ACCOUNTING: rc = slinky_workload_build_accounting(w, o, in); break;
        case SLINKY_MODEL_KIND_CONTROLLER: rc = slinky_workload_build_controller(w, o, in); break;
        case SLINKY_MODEL_KIND_RESTAPI: rc = slinky_workload_build_restapi(w, o, in); break;
        case SLINKY_MODEL_KIND_NODESET:
            if (!pods) {
                rc = slinky_workload_build_nodeset(w, o, in);
            } else if (!strcmp(slinky_doc_value_path_string(wl_spec(o), "scalingMode", "StatefulSet"),
                               "StatefulSet")) {
                rc = slinky_workload_build_nodeset_pods(w, o, in);
            }
            break;
        default: break;
        }
    }
    return rc;
}

/* The workers Service and PDB are shared by every NodeSet of a cluster: keep the first. */
static void drop_duplicates(slinky_workload *w, size_t from)
{
    size_t out = from;
    for (size_t i = from; i < w->count; i++) {
        bool dup = false;
        const char *k = slinky_workload_kind_at(w, i), *n = slinky_workload_name_at(w, i);
        const char *ns = slinky_workload_namespace_at(w, i);
        for (size_t j = from; j < out && !dup && n; j++) {
            const char *k2 = slinky_workload_kind_at(w, j), *n2 = slinky_workload_name_at(w, j);
            const char *ns2 = slinky_workload_namespace_at(w, j);
            dup = k2 && n2 && !strcmp(k, k2) && !strcmp(n, n2) &&
                  !strcmp(ns ? ns : "", ns2 ? ns2 : "");
        }
        if (dup)
            slinky_doc_free(w->docs[i]);
        else
            w->docs[out++] = w->docs[i];
    }
    w->count = out;
}

SLINKY_API slinky_status slinky_workload_build_all(slinky_workload *into,
                                                   const slinky_workload_input *in)
{
    int rc;
    if (!into)
        return slinky__error_set(SLINKY_EINVALID, "workload: NULL argument");
    if ((rc = slinky_workload__input_check(in)))
        return rc;
    slinky_workload tmp = {0};
    if (!(rc = build_kind(&tmp, in, SLINKY_MODEL_KIND_ACCOUNTING, 0)) &&
        !(rc = build_kind(&tmp, in, SLINKY_MODEL_KIND_CONTROLLER, 0))) {
        size_t shared = tmp.count;
        if (!(rc = build_kind(&tmp, in, SLINKY_MODEL_KIND_NODESET, 0))) {
            drop_duplicates(&tmp, shared);
            if (!(rc = build_kind(&tmp, in, SLINKY_MODEL_KIND_NODESET, 1)))
                rc = build_kind(&tmp, in, SLINKY_MODEL_KIND_RESTAPI, 0);
        }
    }
    rc = slinky_workload__commit(into, &tmp, rc);
    return rc;
}
