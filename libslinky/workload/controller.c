/* workload: Controller -> ConfigMap, Services, StatefulSet and ServiceMonitor,
 * as upstream's internal/builder/controllerbuilder (controller_app.go,
 * controller_config.go, controller_service.go, controller_service_internal.go,
 * controller_servicemonitor.go). slurm.conf and cgroup.conf come from the
 * conf module's renderer, fed from the model objects here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "slinky/conf.h"
#include "workload/workload_internal.h"

#define ANN_SLURM_CONFIG_HASH "slinky.slurm.net/slurm-config-hash"
#define LABEL_CONTROLLER_ACTIVE "controller.slinky.slurm.net/active"
#define SLURMCTLD_SPOOL "/var/spool/slurmctld"
#define SLURMCTLD_LOG_PATH SLINKY_WL_LOG_DIR "/slurmctld.log"

/* The five ConfigMap reference lists, in upstream's order. */
static const char *const ref_lists[] = {"configFileRefs", "prologScriptRefs", "epilogScriptRefs",
                                        "prologSlurmctldScriptRefs", "epilogSlurmctldScriptRefs"};

/* ------------------------------------------------------------ objects */

/* metadata.labels = controller labels + extra + WithControllerLabels; annotations likewise. */
static int controller_meta(slinky_doc_value *meta, const slinky_model_object *c,
                           const slinky_doc_value *extra)
{
    int rc;
    slinky_doc_value *labels = NULL;
    if ((rc = slinky_workload__map_copy(meta, "annotations", wl_meta(c, "annotations"))) ||
        (rc = slinky_workload__map_copy(meta, "labels", wl_meta(c, "labels"))) ||
        (extra && (rc = slinky_workload__map_copy(meta, "annotations",
                                                  slinky_doc_value_get(extra, "annotations")))) ||
        (extra && (rc = slinky_workload__map_copy(meta, "labels",
                                                  slinky_doc_value_get(extra, "labels")))) ||
        (rc = slinky_workload__obj(&labels, meta, "labels")))
        return rc;
    return slinky_workload__labels(labels, SLINKY_WL_APP_CONTROLLER,
                                   slinky_model_object_get_name(c), SLINKY_WL_COMP_CONTROLLER);
}

static int selector_doc(slinky_doc **out, const slinky_model_object *o, const char *app)
{
    int rc = slinky_doc_new(out);
    if (!rc && !(rc = slinky_doc_value_set_object(slinky_doc_root(*out))))
        rc = slinky_workload__labels(slinky_doc_root(*out), app, slinky_model_object_get_name(o),
                                     NULL);
    return rc;
}

static int cmp_cstr(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool has_word(char *const *v, size_t n, const char *w, size_t len)
{
    for (size_t i = 0; i < n; i++)
        if (strlen(v[i]) == len && !strncasecmp(v[i], w, len))
            return true;
    return false;
}

/*
 * Better than upstream (slurm-operator#191, nodes registering with
 * Gres=(null)): when the Controller's NodeSets give Gres in spec.extraConf
 * (it reaches slurmd's --conf), slurmctld must know the GRES types, so
 * "GresTypes=<names, sorted>" is appended to the Controller's extraConf for
 * slurm.conf, unless that already sets GresTypes. *out NULL when not needed.
 */
static int gres_types(char **out, const slinky_model_controller *c, const slinky_workload_input *in)
{
    char *names[64];
    size_t n = 0;
    int rc = 0;
    *out = NULL;
    for (size_t i = 0; i < in->object_count && n < 64; i++) {
        const slinky_model_object *o = in->objects[i];
        const char *ons = slinky_model_object_get_namespace(o), *cns = slinky_model_object_get_namespace(c);
        if (slinky_model_object_get_kind(o) != SLINKY_MODEL_KIND_NODESET ||
            strcmp(ons ? ons : "", cns ? cns : "") ||
            strcmp(slinky_doc_value_path_string(wl_spec(o), "controllerRef.name", ""),
                   slinky_model_object_get_name(c)))
            continue;
        const char *p = slinky_doc_value_path_string(wl_spec(o), "extraConf", "");
        while (*p && n < 64) { /* tokens Gres=name[:type][:count][,...] */
            p += strspn(p, " \t\n\r\v\f");
            size_t tl = strcspn(p, " \t\n\r\v\f");
            if (tl > 5 && !strncasecmp(p, "gres=", 5)) {
                const char *v = p + 5, *end = p + tl;
                while (v < end && n < 64) {
                    size_t il = strcspn(v, ",");
                    if (v + il > end)
                        il = (size_t)(end - v);
                    size_t nl = strcspn(v, ":(,");
                    if (nl > il)
                        nl = il;
                    if (nl && !has_word(names, n, v, nl)) {
                        if (!(names[n] = slinky__strndup(v, nl))) {
                            rc = SLINKY_ENOMEM;
                            goto done;
                        }
                        n++;
                    }
                    v += il + (v + il < end);
                }
            }
            p += tl;
        }
    }
    const char *extra = slinky_doc_value_path_string(wl_spec(c), "extraConf", "");
    bool set = false;
    for (const char *l = extra; *l && !set; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] != 0)) {
        l += strspn(l, " \t");
        set = !strncasecmp(l, "grestypes=", 10);
        if (!*l)
            break;
    }
    if (!n || set)
        goto done;
    qsort(names, n, sizeof(*names), cmp_cstr);
    slinky__buf b = SLINKY__BUF_INIT;
    slinky__buf_printf(&b, "%s%sGresTypes=", extra, *extra && extra[strlen(extra) - 1] != '\n' ? "\n" : "");
    for (size_t i = 0; i < n; i++)
        slinky__buf_printf(&b, "%s%s", i ? "," : "", names[i]);
    rc = slinky__buf_finish(out, NULL, &b);
done:
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    return rc;
}

static int config_map(slinky_workload *w, char hash[65], const slinky_model_controller *c,
                      const slinky_workload_input *in)
{
    slinky_conf_models *models = NULL;
    slinky_doc *doc = NULL;
    slinky_doc_value *root, *meta, *data = NULL;
    char *slurm = NULL, *cgroup = NULL, *name = NULL, *extra = NULL;
    bool external = slinky_doc_value_path_bool(wl_spec(c), "external", false);
    const slinky_doc_value *ev = slinky_doc_value_get(wl_spec(c), "extraConf");
    int rc = 0;
    /* extraConf is appended as lines (upstream): only a NUL cannot be written */
    if (memchr(slinky_doc_value_get_string(ev) ? slinky_doc_value_get_string(ev) : "", '\0',
               slinky_doc_value_get_string_len(ev))) {
        rc = slinky__error_set(SLINKY_EINVALID, "workload: %s: spec.extraConf: a NUL byte",
                               slinky_workload__describe(c));
        goto done;
    }
    /* the conf module gathers NodeSets, Accounting and ConfigMaps as upstream and checks the values */
    if ((rc = slinky_conf_models_new(&models, c, in->objects, in->object_count))) {
        slinky__error_prefix("workload: ");
        goto done;
    }
    slinky_conf_cluster cluster = *slinky_conf_models_cluster(models);
    const slinky_conf_cluster *cl = &cluster;
    if (!external && (rc = gres_types(&extra, c, in)))
        goto done;
    if (extra)
        cluster.extra_conf = extra;
    if ((rc = slinky_conf_render_slurm(&slurm, cl, NULL))) {
        slinky__error_prefix("workload: %s: ", slinky_workload__describe(c));
        goto done;
    }
    if (!external && !cl->has_cgroup_conf && (rc = slinky_conf_render_cgroup(&cgroup, NULL)))
        goto done;
    if (!(name = slinky__sprintf("%s-config", slinky_model_object_get_name(c)))) {
        rc = SLINKY_ENOMEM;
        goto done;
    }
    if ((rc = slinky_workload__object_new(&doc, &root, &meta, "v1", "ConfigMap",
                                          slinky_model_object_get_namespace(c), name)))
        goto done;
    if (external) {
        /* BuildControllerConfigExternal: the template metadata + controller labels */
        slinky_doc_value *labels = NULL;
        const slinky_doc_value *tm = slinky_doc_value_path(wl_spec(c), "template.metadata");
        if ((rc = slinky_workload__map_copy(meta, "annotations", slinky_doc_value_get(tm, "annotations"))) ||
            (rc = slinky_workload__map_copy(meta, "labels", slinky_doc_value_get(tm, "labels"))) ||
            (rc = slinky_workload__obj(&labels, meta, "labels")) ||
            (rc = slinky_workload__labels(labels, SLINKY_WL_APP_CONTROLLER,
                                          slinky_model_object_get_name(c), SLINKY_WL_COMP_CONTROLLER)))
            goto done;
    } else if ((rc = controller_meta(meta, c, NULL))) {
        goto done;
    }
    slinky_workload__meta_prune(meta);
    if ((rc = slinky_workload__set_controller_ref(meta, c)) ||
        (rc = slinky_workload__obj(&data, root, "data")) ||
        (cgroup && (rc = slinky_doc_value_object_set_string(data, "cgroup.conf", cgroup))) ||
        (rc = slinky_doc_value_object_set_string(data, "slurm.conf", slurm)) ||
        (rc = slinky_doc_value_object_set_bool(root, "immutable", false)) ||
        (rc = slinky_workload__checksum_map(hash, data, false)))
        goto done;
done:
    rc = slinky_workload__push_done(w, doc, rc);
    slinky_free(slurm);
    slinky_free(cgroup);
    free(name);
    free(extra);
    slinky_conf_models_free(models);
    return rc;
}

/* The headless <name>-controller-internal (every replica), then <name>-controller (the active one). */
static int services(slinky_workload *w, const slinky_model_controller *c)
{
    const char *nsn = slinky_model_object_get_namespace(c);
    slinky_doc *doc = NULL, *sel = NULL;
    slinky_doc_value *root, *meta;
    char *n1 = slinky__sprintf("%s-controller", slinky_model_object_get_name(c));
    char *n2 = slinky__sprintf("%s-controller-internal", slinky_model_object_get_name(c));
    int rc = n1 && n2 ? 0 : SLINKY_ENOMEM;
    slinky_workload__port p = {SLINKY_WL_APP_CONTROLLER, SLINKY_WL_SLURMCTLD_PORT, 0};
    if (rc || (rc = selector_doc(&sel, c, SLINKY_WL_APP_CONTROLLER)) ||
        (rc = slinky_workload__object_new(&doc, &root, &meta, "v1", "Service", nsn, n2)) ||
        (rc = controller_meta(meta, c, NULL)) ||
        (rc = slinky_workload__service_spec(root, NULL, slinky_doc_root(sel), &p, true, c, "spec")) ||
        (rc = slinky_workload__set_controller_ref(meta, c)))
        goto done;
    slinky_workload__meta_prune(meta);
done:
    rc = slinky_workload__push_done(w, doc, rc);
    if (!rc)
        rc = slinky_workload__owner_service(w, c, n1, SLINKY_WL_APP_CONTROLLER,
                                            SLINKY_WL_SLURMCTLD_PORT, controller_meta,
                                            LABEL_CONTROLLER_ACTIVE, "true");
    slinky_doc_free(sel);
    free(n1);
    free(n2);
    return rc;
}

/* The reconfigure sidecar: poll the config files' checksum, run scontrol reconfigure on change. */
static const char reconfigure_script[] =
    "set -euo pipefail\n"
    "dir=/etc/slurm\n"
    "sum() { find \"$dir\" -path '*/..*' -prune -o \\( -type f -o -type l \\) -exec sha256sum {} \\; "
    "| sort -k2 | sha256sum; }\n"
    "last=\"$(sum)\"\n"
    "while :; do\n"
    "  now=\"$(sum)\"\n"
    "  if [ \"$now\" != \"$last\" ]; then\n"
    "    until scontrol reconfigure; do sleep 2; done\n"
    "    last=\"$now\"\n"
    "  fi\n"
    "  sleep 5\n"
    "done\n";

static int reconfigure_container(slinky_doc_value *inits, const slinky_model_controller *c)
{
    static const char *const cmd[] = {"tini", "-g", "--", "bash", "-c", reconfigure_script};
    slinky_doc_value *ct = NULL, *command = NULL, *mounts = NULL;
    int rc;
    if ((rc = slinky_workload__push_obj(&ct, inits)) ||
        (rc = slinky_doc_value_object_set_string(ct, "name", "reconfigure")) ||
        (rc = slinky_workload__arr(&command, ct, "command")))
        return rc;
    for (size_t i = 0; i < SLINKY__ARRAY_SIZE(cmd); i++)
        if ((rc = slinky_workload__push_str(command, cmd[i])))
            return rc;
    if ((rc = slinky_doc_value_object_set_string(ct, "restartPolicy", "Always")) ||
        (rc = slinky_workload__arr(&mounts, ct, "volumeMounts")) ||
        (rc = slinky_workload__mount(mounts, SLINKY_WL_ETC_VOLUME, SLINKY_WL_ETC_DIR, true)) ||
        (rc = slinky_workload__mount(mounts, "slurm-authsocket", "/run/slurmctld", true)))
        return rc;
    return slinky_workload__merge_container(ct, slinky_doc_value_get(wl_spec(c), "reconfigure"));
}

static int slurmctld_container(slinky_doc_value *containers, const slinky_model_controller *c,
                               const char *cluster_name, int64_t replicas)
{
    slinky_doc_value *ct = NULL, *ports = NULL, *p = NULL, *mounts = NULL;
    char *spool = slinky__sprintf("%s/%s", SLURMCTLD_SPOOL, cluster_name);
    int rc = spool ? 0 : SLINKY_ENOMEM;
    if (rc)
        return rc;
    /* HA: the standby never answers /readyz, so readiness uses /livez (upstream) */
    if ((rc = slinky_workload__push_obj(&ct, containers)) ||
        (rc = slinky_doc_value_object_set_string(ct, "name", SLINKY_WL_APP_CONTROLLER)) ||
        (rc = slinky_workload__arr(&ports, ct, "ports")) ||
        (rc = slinky_workload__push_obj(&p, ports)) ||
        (rc = slinky_doc_value_object_set_string(p, "name", SLINKY_WL_APP_CONTROLLER)) ||
        (rc = slinky_doc_value_object_set_int(p, "containerPort", SLINKY_WL_SLURMCTLD_PORT)) ||
        (rc = slinky_doc_value_object_set_string(p, "protocol", "TCP")) ||
        (rc = slinky_workload__probe(ct, "startupProbe", SLINKY_WL_LIVEZ, SLINKY_WL_APP_CONTROLLER,
                                     0, 6, 10)) ||
        (rc = slinky_workload__probe(ct, "readinessProbe",
                                     replicas > 1 ? SLINKY_WL_LIVEZ : SLINKY_WL_READYZ,
                                     SLINKY_WL_APP_CONTROLLER, 0, 0, 0)) ||
        (rc = slinky_workload__probe(ct, "livenessProbe", SLINKY_WL_LIVEZ, SLINKY_WL_APP_CONTROLLER,
                                     0, 6, 10)) ||
        (rc = slinky_workload__run_as(ct, "securityContext", SLINKY_WL_SLURM_UID, false)) ||
        (rc = slinky_workload__arr(&mounts, ct, "volumeMounts")) ||
        (rc = slinky_workload__mount(mounts, SLINKY_WL_ETC_VOLUME, SLINKY_WL_ETC_DIR, true)) ||
        (rc = slinky_workload__mount(mounts, SLINKY_WL_PID_VOLUME, SLINKY_WL_PID_DIR, false)) ||
        (rc = slinky_workload__mount(mounts, "statesave", spool, false)) ||
        (rc = slinky_workload__mount(mounts, "slurm-authsocket", "/run/slurmctld", false)) ||
        (rc = slinky_workload__mount(mounts, SLINKY_WL_LOG_VOLUME, SLINKY_WL_LOG_DIR, false)))
        goto done;
    rc = slinky_workload__merge_container(ct, slinky_doc_value_get(wl_spec(c), "slurmctld"));
done:
    free(spool);
    return rc;
}

static int controller_volumes(slinky_doc_value *vols, const slinky_model_controller *c)
{
    const slinky_doc_value *s = wl_spec(c);
    slinky_doc_value *src = NULL;
    const char *jn, *jk;
    char *cm = slinky__sprintf("%s-config", slinky_model_object_get_name(c));
    int rc = cm ? 0 : SLINKY_ENOMEM;
    slinky_workload__jwt_ref(&jn, &jk, c);
    if (rc || (rc = slinky_workload__projected(&src, vols, SLINKY_WL_ETC_VOLUME, 0610)) ||
        (rc = slinky_workload__projection(src, false, cm, NULL, NULL)) ||
        (rc = slinky_workload__projection(src, true,
                                          slinky_doc_value_path_string(s, "slurmKeyRef.name", ""),
                                          slinky_doc_value_path_string(s, "slurmKeyRef.key", ""),
                                          SLINKY_WL_SLURM_KEY_FILE)) ||
        (rc = slinky_workload__projection(src, true, jn, jk, SLINKY_WL_JWT_KEY_FILE)))
        goto done;
    /* every referenced ConfigMap, names sorted */
    size_t n = 0;
    for (size_t l = 0; l < SLINKY__ARRAY_SIZE(ref_lists); l++)
        n += slinky_doc_value_size(slinky_doc_value_get(s, ref_lists[l]));
    const char **names = slinky__calloc(n ? n : 1, sizeof(*names));
    if (!names) {
        rc = SLINKY_ENOMEM;
        goto done;
    }
    n = 0;
    for (size_t l = 0; l < SLINKY__ARRAY_SIZE(ref_lists); l++) {
        const slinky_doc_value *refs = slinky_doc_value_get(s, ref_lists[l]);
        for (size_t i = 0; i < slinky_doc_value_size(refs); i++)
            names[n++] = slinky_doc_value_path_string(slinky_doc_value_at(refs, i), "name", "");
    }
    qsort(names, n, sizeof(*names), cmp_cstr);
    for (size_t i = 0; i < n && !rc; i++)
        rc = slinky_workload__projection(src, false, names[i], NULL, NULL);
    free(names);
    if (!rc && slinky_doc_value_path_string(s, "jwksKeyRef.name", NULL))
        rc = slinky_workload__projection(src, false,
                                         slinky_doc_value_path_string(s, "jwksKeyRef.name", ""),
                                         slinky_doc_value_path_string(s, "jwksKeyRef.key", ""),
                                         SLINKY_WL_JWKS_KEY_FILE);
    if (rc || (rc = slinky_workload__empty_dir(vols, SLINKY_WL_LOG_VOLUME, true)) ||
        (rc = slinky_workload__empty_dir(vols, SLINKY_WL_PID_VOLUME, true)))
        goto done;
    rc = slinky_workload__empty_dir(vols, "slurm-authsocket", false);
done:
    free(cm);
    return rc;
}

/* controllerHAAntiAffinity: the user's affinity plus a required hostname anti-affinity term. */
static int ha_anti_affinity(slinky_doc_value *spec, const slinky_model_controller *c)
{
    slinky_doc_value *aff = NULL, *paa = NULL, *req = NULL, *term = NULL, *ls = NULL, *ml = NULL;
    const slinky_doc_value *ua = slinky_doc_value_path(wl_spec(c), "template.spec.affinity");
    int rc;
    if ((rc = slinky_workload__obj(&aff, spec, "affinity")) ||
        (slinky_doc_value_type(ua) == SLINKY_DOC_OBJECT && (rc = slinky_doc_value_set_copy(aff, ua))) ||
        (rc = slinky_workload__obj(&paa, aff, "podAntiAffinity")) ||
        (rc = slinky_workload__arr(&req, paa, "requiredDuringSchedulingIgnoredDuringExecution")) ||
        (rc = slinky_workload__push_obj(&term, req)) ||
        (rc = slinky_workload__obj(&ls, term, "labelSelector")) ||
        (rc = slinky_workload__obj(&ml, ls, "matchLabels")) ||
        (rc = slinky_workload__labels(ml, SLINKY_WL_APP_CONTROLLER, slinky_model_object_get_name(c),
                                      NULL)))
        return rc;
    return slinky_doc_value_object_set_string(term, "topologyKey", "kubernetes.io/hostname");
}

static int stateful_set(slinky_workload *w, const slinky_model_controller *c,
                        const slinky_workload_input *in, const char *config_hash)
{
    const slinky_doc_value *s = wl_spec(c);
    const char *nsn = slinky_model_object_get_namespace(c);
    slinky_doc *doc = NULL;
    slinky_doc_value *root, *meta, *spec = NULL, *sel = NULL, *ml = NULL, *tmpl = NULL, *tmeta = NULL,
                     *pspec = NULL, *containers = NULL, *inits = NULL, *vols = NULL;
    char *name = slinky__sprintf("%s-controller", slinky_model_object_get_name(c));
    char *svc = slinky__sprintf("%s-controller-internal", slinky_model_object_get_name(c));
    char *cluster = NULL;
    bool ha = slinky_doc_value_path_bool(s, "ha.enabled", false);
    bool persist = slinky_doc_value_path_bool(s, "persistence.enabled", true);
    const char *claim = slinky_doc_value_path_string(s, "persistence.existingClaim", "");
    int64_t replicas = 1 + (ha ? slinky_doc_value_path_int(s, "ha.backups", 1) : 0);
    int rc = name && svc ? 0 : SLINKY_ENOMEM;
    if (rc)
        goto done;
    if (ha && !persist) {
        rc = slinky__error_set(SLINKY_EINVALID,
                               "workload: %s: spec.ha.enabled: HA is enabled but "
                               "spec.persistence.enabled is false",
                               slinky_workload__describe(c));
        goto done;
    }
    if (ha && !*claim) {
        rc = slinky__error_set(SLINKY_EINVALID,
                               "workload: %s: spec.persistence.existingClaim: HA requires an "
                               "existing claim",
                               slinky_workload__describe(c));
        goto done;
    }
    if ((rc = slinky_model_controller_cluster_name(&cluster, c)))
        goto done;
    if ((rc = slinky_workload__object_new(&doc, &root, &meta, "apps/v1", "StatefulSet", nsn, name)) ||
        (rc = controller_meta(meta, c, slinky_doc_value_path(s, "template.metadata"))) ||
        (rc = slinky_workload__obj(&spec, root, "spec")) ||
        (rc = slinky_doc_value_object_set_int(spec, "replicas", replicas)) ||
        (rc = slinky_doc_value_object_set_int(spec, "revisionHistoryLimit", 0)) ||
        (rc = slinky_workload__obj(&sel, spec, "selector")) ||
        (rc = slinky_workload__obj(&ml, sel, "matchLabels")) ||
        (rc = slinky_workload__labels(ml, SLINKY_WL_APP_CONTROLLER, slinky_model_object_get_name(c),
                                      NULL)) ||
        (rc = slinky_doc_value_object_set_string(spec, "serviceName", svc)) ||
        (rc = slinky_workload__obj(&tmpl, spec, "template")) ||
        (rc = slinky_workload__obj(&tmeta, tmpl, "metadata")) ||
        (rc = slinky_doc_value_object_set_string(tmeta, "name", name)) ||
        (nsn && *nsn && (rc = slinky_doc_value_object_set_string(tmeta, "namespace", nsn))) ||
        (rc = controller_meta(tmeta, c, slinky_doc_value_path(s, "template.metadata"))) ||
        (rc = slinky_workload__auth_hashes(tmeta, in, c)))
        goto done;
    if (!slinky_doc_value_path_bool(s, "inplaceReconfigure", false) &&
        (rc = slinky_workload__map_put(tmeta, "annotations", ANN_SLURM_CONFIG_HASH, config_hash)))
        goto done;
    if ((rc = slinky_workload__map_put(tmeta, "annotations", SLINKY_WL_ANN_DEFAULT_CONTAINER,
                                       SLINKY_WL_APP_CONTROLLER)) ||
        (rc = slinky_workload__obj(&pspec, tmpl, "spec")) ||
        (rc = slinky_doc_value_object_set_bool(pspec, "automountServiceAccountToken", false)) ||
        (rc = ha_anti_affinity(pspec, c)) ||
        (rc = slinky_workload__arr(&containers, pspec, "containers")) ||
        (rc = slurmctld_container(containers, c, cluster, replicas)) ||
        (rc = slinky_workload__arr(&inits, pspec, "initContainers")) ||
        (slinky_doc_value_path_bool(s, "inplaceReconfigure", false) &&
         (rc = reconfigure_container(inits, c))) ||
        (rc = slinky_workload__logfile_container(inits, slinky_doc_value_get(s, "logfile"),
                                                 SLURMCTLD_LOG_PATH)) ||
        (rc = slinky_workload__run_as(pspec, "securityContext", SLINKY_WL_SLURM_UID, true)) ||
        (rc = slinky_workload__arr(&vols, pspec, "volumes")) ||
        (rc = controller_volumes(vols, c)) ||
        (rc = slinky_workload__merge_pod_spec(pspec, slinky_doc_value_path(s, "template.spec"))))
        goto done;
    slinky_workload__meta_prune(meta);
    /* the state save volume, after the user's volumes (upstream appends it last) */
    vols = slinky_doc_value_get(pspec, "volumes");
    slinky_doc_value *v = NULL, *src = NULL;
    if ((persist && *claim) || ha) {
        if ((rc = slinky_workload__push_obj(&v, vols)) ||
            (rc = slinky_doc_value_object_set_string(v, "name", "statesave")) ||
            (rc = slinky_workload__obj(&src, v, "persistentVolumeClaim")) ||
            (rc = slinky_doc_value_object_set_string(src, "claimName", claim)))
            goto done;
    } else if (persist) {
        slinky_doc_value *vcts = NULL, *vct = NULL, *vm = NULL, *vs = NULL;
        const slinky_doc_value *pers = slinky_doc_value_get(s, "persistence");
        if ((rc = slinky_workload__arr(&vcts, spec, "volumeClaimTemplates")) ||
            (rc = slinky_workload__push_obj(&vct, vcts)) ||
            (rc = slinky_workload__obj(&vm, vct, "metadata")) ||
            (rc = slinky_doc_value_object_set_string(vm, "name", "statesave")) ||
            (nsn && *nsn && (rc = slinky_doc_value_object_set_string(vm, "namespace", nsn))) ||
            (rc = slinky_workload__obj(&vs, vct, "spec")))
            goto done;
        for (size_t i = 0; i < slinky_doc_value_size(pers) && !rc; i++) {
            const char *k = slinky_doc_value_key_at(pers, i);
            const slinky_doc_value *pv = slinky_doc_value_member_at(pers, i);
            if (!strcmp(k, "enabled") || !strcmp(k, "existingClaim") || slinky_doc_value_is_null(pv))
                continue;
            rc = slinky_doc_value_object_set(vs, k, pv);
        }
        if (rc)
            goto done;
    } else if ((rc = slinky_workload__empty_dir(vols, "statesave", false))) {
        goto done;
    }
    if ((rc = slinky_workload__set_controller_ref(meta, c)))
        goto done;
done:
    rc = slinky_workload__push_done(w, doc, rc);
    free(name);
    free(svc);
    slinky_free(cluster);
    return rc;
}

static int put_nonempty(slinky_doc_value *obj, const char *key, const char *v)
{
    return v && *v ? slinky_doc_value_object_set_string(obj, key, v) : 0;
}

static int service_monitor(slinky_workload *w, const slinky_model_controller *c)
{
    const slinky_doc_value *sm = slinky_doc_value_path(wl_spec(c), "metrics.serviceMonitor");
    const char *nsn = slinky_model_object_get_namespace(c);
    slinky_doc *doc = NULL;
    slinky_doc_value *root, *meta, *spec = NULL, *sel = NULL, *ml = NULL, *nss = NULL, *mn = NULL,
                     *eps = NULL;
    char *name = slinky__sprintf("%s-controller", slinky_model_object_get_name(c));
    int rc = name ? 0 : SLINKY_ENOMEM;
    if (rc || (rc = slinky_workload__object_new(&doc, &root, &meta, "monitoring.coreos.com/v1",
                                                "ServiceMonitor", nsn, name)) ||
        (rc = controller_meta(meta, c, sm)) ||
        (rc = slinky_workload__obj(&spec, root, "spec")) ||
        (rc = slinky_workload__obj(&sel, spec, "selector")) ||
        (rc = slinky_workload__obj(&ml, sel, "matchLabels")) ||
        (rc = slinky_workload__labels(ml, SLINKY_WL_APP_CONTROLLER, slinky_model_object_get_name(c),
                                      NULL)) ||
        (rc = slinky_workload__obj(&nss, spec, "namespaceSelector")) ||
        (rc = slinky_workload__arr(&mn, nss, "matchNames")) ||
        (rc = slinky_workload__push_str(mn, nsn ? nsn : "")) ||
        (rc = slinky_workload__arr(&eps, spec, "endpoints")))
        goto done;
    slinky_workload__meta_prune(meta);
    static const char *const defaults[] = {"/metrics/jobs", "/metrics/nodes",
                                           "/metrics/partitions", "/metrics/scheduler"};
    const slinky_doc_value *given = slinky_doc_value_get(sm, "endpoints");
    size_t n = slinky_doc_value_size(given);
    const char *interval = slinky_doc_value_path_string(sm, "interval", "");
    const char *timeout = slinky_doc_value_path_string(sm, "scrapeTimeout", "");
    for (size_t i = 0; i < (n ? n : SLINKY__ARRAY_SIZE(defaults)) && !rc; i++) {
        const slinky_doc_value *g = n ? slinky_doc_value_at(given, i) : NULL;
        const char *iv = slinky_doc_value_path_string(g, "interval", "");
        const char *to = slinky_doc_value_path_string(g, "scrapeTimeout", "");
        slinky_doc_value *ep = NULL;
        if (!(rc = slinky_workload__push_obj(&ep, eps)) &&
            !(rc = put_nonempty(ep, "path", n ? slinky_doc_value_path_string(g, "path", "") : defaults[i])) &&
            !(rc = slinky_doc_value_object_set_string(ep, "port", SLINKY_WL_APP_CONTROLLER)) &&
            !(rc = slinky_doc_value_object_set_string(ep, "scheme", "http")) &&
            !(rc = put_nonempty(ep, "interval", *iv ? iv : interval)))
            rc = put_nonempty(ep, "scrapeTimeout", *to ? to : timeout);
    }
    if (rc || (rc = slinky_workload__set_controller_ref(meta, c)))
        goto done;
done:
    rc = slinky_workload__push_done(w, doc, rc);
    free(name);
    return rc;
}

SLINKY_API slinky_status slinky_workload_build_controller(slinky_workload *into,
                                                          const slinky_model_controller *c,
                                                          const slinky_workload_input *in)
{
    int rc = slinky_workload__builder_args(into, c, in, SLINKY_MODEL_KIND_CONTROLLER);
    if (rc)
        return rc;
    const slinky_doc_value *s = wl_spec(c);
    bool external = slinky_doc_value_path_bool(s, "external", false);
    char hash[65];
    slinky_workload tmp = {0};
    /* upstream's sync order: internal Service, Service, ConfigMap, StatefulSet, ServiceMonitor */
    if (!(rc = external ? 0 : services(&tmp, c)) && !(rc = config_map(&tmp, hash, c, in)) &&
        !(rc = external ? 0 : stateful_set(&tmp, c, in, hash)) &&
        slinky_doc_value_path_bool(s, "metrics.enabled", false) &&
        slinky_doc_value_path_bool(s, "metrics.serviceMonitor.enabled", false))
        rc = service_monitor(&tmp, c);
    rc = slinky_workload__commit(into, &tmp, rc);
    return rc;
}
