/* workload: RestApi -> Service and Deployment, as upstream's
 * internal/builder/restapibuilder (restapi_service.go, restapi_app.go). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload/workload_internal.h"

#define SLURMRESTD_UID 65534

/* RestApi labels + (template or service) metadata + WithRestapiLabels. */
static int restapi_meta(slinky_doc_value *meta, const slinky_model_restapi *r,
                        const slinky_doc_value *extra, bool own)
{
    slinky_doc_value *labels = NULL;
    int rc;
    if ((own && (rc = slinky_workload__map_copy(meta, "annotations", wl_meta(r, "annotations")))) ||
        (own && (rc = slinky_workload__map_copy(meta, "labels", wl_meta(r, "labels")))) ||
        (rc = slinky_workload__map_copy(meta, "annotations", slinky_doc_value_get(extra, "annotations"))) ||
        (rc = slinky_workload__map_copy(meta, "labels", slinky_doc_value_get(extra, "labels"))) ||
        (rc = slinky_workload__obj(&labels, meta, "labels")))
        return rc;
    return slinky_workload__labels(labels, SLINKY_WL_APP_RESTAPI, slinky_model_object_get_name(r),
                                   SLINKY_WL_COMP_RESTAPI);
}

/* restapi_service.go: the Service's metadata is spec.service.metadata + WithRestapiLabels. */
static int service_meta(slinky_doc_value *meta, const slinky_model_object *r,
                        const slinky_doc_value *extra)
{
    return restapi_meta(meta, r, extra, false);
}

static int slurmrestd_container(slinky_doc_value *containers, const slinky_model_restapi *r,
                                bool accounting)
{
    slinky_doc_value *ct = NULL, *env = NULL, *e = NULL, *args = NULL, *ports = NULL, *p = NULL,
                     *mounts = NULL;
    char listen[32];
    int rc;
    if ((rc = slinky_workload__push_obj(&ct, containers)) ||
        (rc = slinky_doc_value_object_set_string(ct, "name", SLINKY_WL_APP_RESTAPI)) ||
        (rc = slinky_workload__arr(&env, ct, "env")) || (rc = slinky_workload__push_obj(&e, env)) ||
        (rc = slinky_doc_value_object_set_string(e, "name", "SLURM_JWT")) ||
        (rc = slinky_doc_value_object_set_string(e, "value", "daemon")) ||
        (rc = slinky_workload__push_obj(&e, env)) ||
        (rc = slinky_doc_value_object_set_string(e, "name", "SLURMRESTD_SECURITY")) ||
        (rc = slinky_doc_value_object_set_string(e, "value",
                                                 "disable_unshare_files,disable_unshare_sysv")) ||
        (rc = slinky_workload__arr(&args, ct, "args")))
        return rc;
    /* without accounting only the slurmctld plugin is loaded */
    if (!accounting && ((rc = slinky_workload__push_str(args, "-s")) ||
                        (rc = slinky_workload__push_str(args, "openapi/slurmctld"))))
        return rc;
    if ((rc = slinky_workload__arr(&ports, ct, "ports")) ||
        (rc = slinky_workload__push_obj(&p, ports)) ||
        (rc = slinky_doc_value_object_set_string(p, "name", SLINKY_WL_APP_RESTAPI)) ||
        (rc = slinky_doc_value_object_set_int(p, "containerPort", SLINKY_WL_SLURMRESTD_PORT)) ||
        (rc = slinky_doc_value_object_set_string(p, "protocol", "TCP")) ||
        (rc = slinky_workload__probe(ct, "startupProbe", NULL, NULL, SLINKY_WL_SLURMRESTD_PORT, 6, 10)) ||
        (rc = slinky_workload__probe(ct, "livenessProbe", NULL, NULL, SLINKY_WL_SLURMRESTD_PORT, 6, 10)) ||
        (rc = slinky_workload__probe(ct, "readinessProbe", NULL, NULL, SLINKY_WL_SLURMRESTD_PORT, 0, 0)) ||
        (rc = slinky_workload__run_as(ct, "securityContext", SLURMRESTD_UID, false)) ||
        (rc = slinky_workload__arr(&mounts, ct, "volumeMounts")) ||
        (rc = slinky_workload__mount(mounts, SLINKY_WL_ETC_VOLUME, SLINKY_WL_ETC_DIR, true)) ||
        (rc = slinky_workload__merge_container(ct, slinky_doc_value_get(wl_spec(r), "slurmrestd"))))
        return rc;
    /* the listen address goes after the user's args (upstream appends it last) */
    snprintf(listen, sizeof(listen), "0.0.0.0:%d", SLINKY_WL_SLURMRESTD_PORT);
    return slinky_workload__push_str(slinky_doc_value_get(ct, "args"), listen);
}

static int deployment(slinky_workload *w, const slinky_model_restapi *r,
                      const slinky_model_controller *c, const char *name)
{
    const slinky_doc_value *s = wl_spec(r), *tm = slinky_doc_value_path(s, "template.metadata");
    const char *nsn = slinky_model_object_get_namespace(r);
    slinky_doc *doc = NULL;
    slinky_doc_value *root, *meta, *spec = NULL, *sel = NULL, *ml = NULL, *tmpl = NULL,
                     *tmeta = NULL, *pspec = NULL, *containers = NULL, *vols = NULL, *src = NULL;
    char *cm = slinky__sprintf("%s-config", slinky_model_object_get_name(c));
    int rc = cm ? 0 : SLINKY_ENOMEM;
    bool accounting = slinky_doc_value_path(wl_spec(c), "accountingRef") &&
                      !slinky_doc_value_is_null(slinky_doc_value_path(wl_spec(c), "accountingRef"));
    if (rc || (rc = slinky_workload__object_new(&doc, &root, &meta, "apps/v1", "Deployment", nsn, name)) ||
        (rc = restapi_meta(meta, r, tm, true)) ||
        (rc = slinky_workload__obj(&spec, root, "spec")))
        goto done;
    const slinky_doc_value *replicas = slinky_doc_value_get(s, "replicas");
    if (slinky_doc_value_type(replicas) == SLINKY_DOC_INT &&
        (rc = slinky_doc_value_object_set_int(spec, "replicas", slinky_doc_value_get_int(replicas))))
        goto done;
    if ((rc = slinky_doc_value_object_set_int(spec, "revisionHistoryLimit", 0)) ||
        (rc = slinky_workload__obj(&sel, spec, "selector")) ||
        (rc = slinky_workload__obj(&ml, sel, "matchLabels")) ||
        (rc = slinky_workload__labels(ml, SLINKY_WL_APP_RESTAPI, slinky_model_object_get_name(r), NULL)) ||
        (rc = slinky_workload__obj(&tmpl, spec, "template")) ||
        (rc = slinky_workload__obj(&tmeta, tmpl, "metadata")) ||
        (rc = slinky_doc_value_object_set_string(tmeta, "name", name)) ||
        (nsn && *nsn && (rc = slinky_doc_value_object_set_string(tmeta, "namespace", nsn))) ||
        (rc = restapi_meta(tmeta, r, tm, true)) ||
        (rc = slinky_workload__map_put(tmeta, "annotations", SLINKY_WL_ANN_DEFAULT_CONTAINER,
                                       SLINKY_WL_APP_RESTAPI)) ||
        (rc = slinky_workload__obj(&pspec, tmpl, "spec")) ||
        (rc = slinky_doc_value_object_set_bool(pspec, "automountServiceAccountToken", false)) ||
        (rc = slinky_workload__arr(&containers, pspec, "containers")) ||
        (rc = slurmrestd_container(containers, r, accounting)) ||
        (rc = slinky_workload__run_as(pspec, "securityContext", SLURMRESTD_UID, true)) ||
        (rc = slinky_workload__arr(&vols, pspec, "volumes")) ||
        (rc = slinky_workload__projected(&src, vols, SLINKY_WL_ETC_VOLUME, 0600)) ||
        (rc = slinky_workload__projection(src, false, cm, "slurm.conf", "slurm.conf")) ||
        (rc = slinky_workload__projection(
             src, true, slinky_doc_value_path_string(wl_spec(c), "slurmKeyRef.name", ""),
             slinky_doc_value_path_string(wl_spec(c), "slurmKeyRef.key", ""),
             SLINKY_WL_SLURM_KEY_FILE)) ||
        (rc = slinky_workload__merge_pod_spec(pspec, slinky_doc_value_path(s, "template.spec"))) ||
        (rc = slinky_workload__set_controller_ref(meta, r)))
        goto done;
    slinky_workload__meta_prune(meta);
done:
    rc = slinky_workload__push_done(w, doc, rc);
    free(cm);
    return rc;
}

SLINKY_API slinky_status slinky_workload_build_restapi(slinky_workload *into,
                                                       const slinky_model_restapi *r,
                                                       const slinky_workload_input *in)
{
    const slinky_model_controller *c = NULL;
    int rc = slinky_workload__builder_args(into, r, in, SLINKY_MODEL_KIND_RESTAPI);
    if (rc)
        return rc;
    if ((rc = slinky_workload__ref(&c, in, r, "spec.controllerRef.name", SLINKY_MODEL_KIND_CONTROLLER,
                                   slinky_doc_value_path_string(wl_spec(r), "controllerRef.name", ""))))
        return rc;
    char *name = slinky__sprintf("%s-restapi", slinky_model_object_get_name(r));
    if (!name)
        return SLINKY_ENOMEM;
    slinky_workload tmp = {0};
    if (!(rc = slinky_workload__owner_service(&tmp, r, name, SLINKY_WL_APP_RESTAPI,
                                              SLINKY_WL_SLURMRESTD_PORT, service_meta, NULL, NULL)))
        rc = deployment(&tmp, r, c, name);
    rc = slinky_workload__commit(into, &tmp, rc);
    free(name);
    return rc;
}
