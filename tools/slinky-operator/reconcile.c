/* One reconcile of a Controller: resources -> slurm.conf -> checks -> ConfigMap -> Slurm. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "operator.h"

const slinky_kube_resource op_res_controllers = {"slinky.slurm.net", "v1beta1", "controllers",
                                                 true};
const slinky_kube_resource op_res_nodesets = {"slinky.slurm.net", "v1beta1", "nodesets", true};
const slinky_kube_resource op_res_accountings = {"slinky.slurm.net", "v1beta1", "accountings",
                                                 true};
const slinky_kube_resource op_res_configmaps = {"", "v1", "configmaps", true};
const slinky_kube_resource op_res_events = {"", "v1", "events", true};

static void logf_(const char *level, const char *key, const char *fmt, ...)
    SLINKY_PRINTF(3, 4);
static void logf_(const char *level, const char *key, const char *fmt, ...)
{
    if (op_verbosity < 0 && strcmp(level, "error") != 0)
        return; /* --quiet */
    char ts[32];
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(ts, sizeof(ts), "%H:%M:%S", &tm);
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s %-5s %s: ", ts, level, key);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* A new core-group (v1) object document with metadata.name and namespace. */
static slinky_status new_v1_object(slinky_doc **out, const char *kind, const char *ns,
                                   const char *name)
{
    slinky_doc *d = NULL;
    slinky_doc_value *root, *v;
    slinky_status rc = slinky_doc_new(&d);
    if (rc < 0)
        return rc;
    root = slinky_doc_root(d);
    if ((rc = slinky_doc_value_set_object(root)) < 0 ||
        (rc = slinky_doc_value_object_set_string(root, "apiVersion", "v1")) < 0 ||
        (rc = slinky_doc_value_object_set_string(root, "kind", kind)) < 0 ||
        (rc = slinky_doc_value_path_put(&v, root, "metadata")) < 0 ||
        (rc = slinky_doc_value_set_object(v)) < 0 ||
        (rc = slinky_doc_value_object_set_string(v, "name", name)) < 0 ||
        (rc = slinky_doc_value_object_set_string(v, "namespace", ns)) < 0) {
        slinky_doc_free(d);
        return rc;
    }
    *out = d;
    return 0;
}

/* Record a v1 Event on the Controller (best effort). */
static void record_event(op_state *st, const slinky_doc_value *ctl, const char *type,
                         const char *reason, const char *message)
{
    slinky_doc *ev = NULL;
    slinky_doc_value *root, *v;
    char ts[32], name[256];
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
    const char *cname = slinky_doc_value_path_string(ctl, "metadata.name", "");
    const char *ns = slinky_doc_value_path_string(ctl, "metadata.namespace", st->o.namespace_);
    snprintf(name, sizeof(name), "%s.%lx%04x", cname, (long)t, (unsigned)(rand() & 0xffff));
    if (new_v1_object(&ev, "Event", ns, name) < 0)
        return;
    root = slinky_doc_root(ev);
    slinky_doc_value_path_put(&v, root, "involvedObject");
    slinky_doc_value_set_object(v);
    slinky_doc_value_object_set_string(v, "apiVersion", "slinky.slurm.net/v1beta1");
    slinky_doc_value_object_set_string(v, "kind", "Controller");
    slinky_doc_value_object_set_string(v, "name", cname);
    slinky_doc_value_object_set_string(v, "namespace", ns);
    slinky_doc_value_object_set_string(
        v, "uid", slinky_doc_value_path_string(ctl, "metadata.uid", ""));
    slinky_doc_value_object_set_string(root, "type", type);
    slinky_doc_value_object_set_string(root, "reason", reason);
    slinky_doc_value_object_set_string(root, "message", message);
    slinky_doc_value_object_set_string(root, "firstTimestamp", ts);
    slinky_doc_value_object_set_string(root, "lastTimestamp", ts);
    slinky_doc_value_object_set_int(root, "count", 1);
    slinky_doc_value_path_put(&v, root, "source.component");
    slinky_doc_value_set_string(v, "slinky-operator");
    if (slinky_kube_create(NULL, st->client, &op_res_events, ns, root, NULL) < 0)
        logf_("warn", cname, "could not record event: %s", slinky_error_last()->message);
    slinky_doc_free(ev);
}

struct cond_args {
    const char *type, *status, *reason, *message;
    int64_t generation;
};

/* True when obj already carries this exact condition. */
static bool condition_current(const slinky_model_object *m, const struct cond_args *a)
{
    const slinky_doc_value *c = NULL;
    if (slinky_model_condition_get(&c, m, a->type) < 0)
        return false;
    return !strcmp(slinky_doc_value_path_string(c, "status", ""), a->status) &&
           !strcmp(slinky_doc_value_path_string(c, "reason", ""), a->reason) &&
           !strcmp(slinky_doc_value_path_string(c, "message", ""), a->message) &&
           slinky_doc_value_path_int(c, "observedGeneration", -1) == a->generation;
}

static slinky_status set_condition_cb(slinky_doc_value *obj, void *payload)
{
    struct cond_args *a = payload;
    slinky_model_object *m = NULL;
    slinky_status rc = slinky_model_object_new_from_value(&m, obj);
    if (rc < 0)
        return rc;
    if (condition_current(m, a)) {
        slinky_model_object_free(m);
        return 1; /* nothing to write */
    }
    rc = slinky_model_condition_set(m, a->type, a->status, a->reason, a->message, a->generation,
                                    NULL);
    if (rc == 0)
        rc = slinky_doc_value_set_copy(obj, slinky_model_object_get_value(m));
    slinky_model_object_free(m);
    return rc;
}

/* Set a status condition on the Controller (PUT status, retried on conflict). */
static void set_condition(op_state *st, const char *ns, const char *name, int64_t generation,
                          const char *status, const char *reason, const char *message)
{
    struct cond_args a = {"ConfigApplied", status, reason, message, generation};
    slinky_doc *cur = NULL;
    for (int attempt = 0; attempt < 5; attempt++) {
        slinky_kube_get_options go;
        slinky_kube_get_options_init(&go, SLINKY_KUBE_GET_OPTIONS_VERSION);
        if (slinky_kube_get(&cur, st->client, &op_res_controllers, ns, name, &go) < 0)
            break;
        slinky_doc_value *obj = slinky_doc_root(cur);
        slinky_status crc = set_condition_cb(obj, &a);
        if (crc != 0) {
            slinky_doc_free(cur);
            if (crc > 0)
                return; /* already current */
            break;
        }
        slinky_status rc = slinky_kube_update_status(NULL, st->client, &op_res_controllers, ns,
                                                     obj, NULL);
        slinky_doc_free(cur);
        cur = NULL;
        if (rc == 0)
            return;
        if (rc != SLINKY_ECONFLICT)
            break;
    }
    logf_("warn", name, "could not update status: %s", slinky_error_last()->message);
}

/* Write the ConfigMap <name>-config with slurm.conf (server-side apply, owned by the Controller). */
static slinky_status write_configmap(op_state *st, const slinky_doc_value *ctl,
                                     const char *text)
{
    slinky_doc *cm = NULL, *owner = NULL;
    slinky_doc_value *root, *v;
    slinky_model_object *mctl = NULL;
    char cmname[300];
    const char *name = slinky_doc_value_path_string(ctl, "metadata.name", "");
    const char *ns = slinky_doc_value_path_string(ctl, "metadata.namespace", "");
    slinky_status rc;

    snprintf(cmname, sizeof(cmname), "%s-config", name);
    if ((rc = new_v1_object(&cm, "ConfigMap", ns, cmname)) < 0)
        return rc;
    root = slinky_doc_root(cm);
    slinky_doc_value_path_put(&v, root, "metadata.labels[\"app.kubernetes.io/managed-by\"]");
    slinky_doc_value_set_string(v, "slinky-operator");
    if (slinky_model_object_new_from_value(&mctl, ctl) == 0 &&
        slinky_model_owner_reference_new(&owner, mctl, true) == 0) {
        slinky_doc_value_path_put(&v, root, "metadata.ownerReferences");
        slinky_doc_value_set_array(v);
        slinky_doc_value *item;
        slinky_doc_value_array_append(&item, v);
        slinky_doc_value_set_copy(item, slinky_doc_root(owner));
    }
    slinky_doc_value_path_put(&v, root, "data[\"slurm.conf\"]");
    slinky_doc_value_set_string(v, text);

    slinky_kube_patch_options po;
    slinky_kube_patch_options_init(&po, SLINKY_KUBE_PATCH_OPTIONS_VERSION);
    po.field_manager = st->o.field_manager;
    po.force = true;
    rc = slinky_kube_patch(NULL, st->client, &op_res_configmaps, ns, cmname,
                           SLINKY_KUBE_PATCH_APPLY, root, &po);
    if (rc == SLINKY_EUNSUPPORTED || rc == SLINKY_EHTTP) {
        /* a server without server-side apply: create, or replace */
        rc = slinky_kube_create(NULL, st->client, &op_res_configmaps, ns, root, NULL);
        if (rc == SLINKY_EEXISTS)
            rc = slinky_kube_update(NULL, st->client, &op_res_configmaps, ns, root, NULL);
    }
    slinky_doc_free(owner);
    slinky_model_object_free(mctl);
    slinky_doc_free(cm);
    return rc;
}

/* The Controller's NodeSets (spec.controllerRef.name == name, same namespace). */
static slinky_status controller_nodesets(slinky_doc **out, op_state *st, const char *ns,
                                         const char *name)
{
    slinky_doc *all = NULL, *mine = NULL;
    slinky_status rc = slinky_kube_informer_list(&all, st->nodesets, ns, NULL);
    if (rc < 0)
        return rc;
    if ((rc = slinky_doc_new(&mine)) < 0) {
        slinky_doc_free(all);
        return rc;
    }
    slinky_doc_value *arr = slinky_doc_root(mine);
    slinky_doc_value_set_array(arr);
    slinky_doc_value *src = slinky_doc_root(all);
    for (size_t i = 0; i < slinky_doc_value_size(src); i++) {
        const slinky_doc_value *ns_obj = slinky_doc_value_at(src, i);
        const char *ref = slinky_doc_value_path_string(ns_obj, "spec.controllerRef.name", "");
        const char *refns = slinky_doc_value_path_string(ns_obj, "spec.controllerRef.namespace", ns);
        if (strcmp(ref, name) != 0 || (*refns && strcmp(refns, ns) != 0))
            continue;
        slinky_doc_value *item;
        slinky_doc_value_array_append(&item, arr);
        slinky_doc_value_set_copy(item, ns_obj);
    }
    slinky_doc_free(all);
    *out = mine;
    return 0;
}

static int problems_report(char *buf, size_t len, const slinky_model_problems *p)
{
    size_t off = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < slinky_model_problems_count(p) && off + 2 < len; i++) {
        if (slinky_model_problems_get_severity(p, i) != SLINKY_MODEL_ERROR)
            continue;
        off += (size_t)snprintf(buf + off, len - off, "%s%s: %s", off ? "; " : "",
                                slinky_model_problems_get_path(p, i),
                                slinky_model_problems_get_message(p, i));
    }
    return (int)slinky_model_problems_error_count(p);
}

/* The Controller's fields that name ConfigMaps feeding slurm.conf. */
static const char *const cm_ref_fields[] = {"configFileRefs", "prologScriptRefs",
                                            "epilogScriptRefs", "prologSlurmctldScriptRefs",
                                            "epilogSlurmctldScriptRefs"};

slinky_kube_result op_reconcile(long *requeue_after_ms, const char *key, void *payload)
{
    op_state *st = payload;
    slinky_doc *ctl_doc = NULL, *nodesets = NULL, *acct_doc = NULL;
    slinky_model_object *model = NULL;
    slinky_model_problems *problems = NULL;
    slinky_conf_models *cmodels = NULL;
    slinky_model_object **objs = NULL; /* the NodeSets, then the Accounting */
    size_t nobjs = 0;
    slinky_conf *parsed = NULL;
    char *text = NULL, *report = NULL, *summary = NULL, *vmsg = NULL;
    char ns[256], name[256], path[4096], candidate[4096], msg[4096];
    slinky_kube_result result = SLINKY_KUBE_RESULT_DONE;
    slinky_status rc;
    (void)requeue_after_ms;

    const char *slash = strchr(key, '/');
    if (!slash) {
        snprintf(ns, sizeof(ns), "%s", "");
        snprintf(name, sizeof(name), "%s", key);
    } else {
        snprintf(ns, sizeof(ns), "%.*s", (int)(slash - key), key);
        snprintf(name, sizeof(name), "%s", slash + 1);
    }
    pthread_mutex_lock(&st->lock);
    st->reconciles++;
    pthread_mutex_unlock(&st->lock);

    rc = slinky_kube_informer_get(&ctl_doc, st->controllers, ns, name);
    if (rc == SLINKY_ENOTFOUND) {
        logf_("info", key, "Controller is gone; slurm.conf is left as it is");
        goto out;
    }
    if (rc < 0)
        goto error;
    const slinky_doc_value *ctl = slinky_doc_root(ctl_doc);
    int64_t generation = slinky_doc_value_path_int(ctl, "metadata.generation", -1);

    /* 1. the resource itself must be valid */
    if ((rc = slinky_model_object_new_from_value(&model, ctl)) < 0 ||
        (rc = slinky_model_validate(&problems, model)) < 0)
        goto error;
    if (problems_report(msg, sizeof(msg), problems) > 0) {
        logf_("error", key, "invalid Controller: %s", msg);
        set_condition(st, ns, name, generation, "False", "InvalidController", msg);
        record_event(st, ctl, "Warning", "InvalidController", msg);
        goto rejected;
    }

    /* 2. gather NodeSets and the Accounting, render */
    if ((rc = controller_nodesets(&nodesets, st, ns, name)) < 0)
        goto error;
    size_t nn = slinky_doc_value_size(slinky_doc_root(nodesets)), nrefs = 0;
    for (size_t f = 0; f < sizeof(cm_ref_fields) / sizeof(*cm_ref_fields); f++)
        nrefs += slinky_doc_value_size(
            slinky_doc_value_get(slinky_doc_value_get(ctl, "spec"), cm_ref_fields[f]));
    objs = calloc(nn + 1 + nrefs, sizeof(*objs));
    if (!objs) {
        snprintf(msg, sizeof(msg), "out of memory");
        goto error_msg;
    }
    for (size_t i = 0; i < nn; i++, nobjs++)
        if ((rc = slinky_model_object_new_from_value_kind(
                 &objs[i], SLINKY_MODEL_KIND_NODESET, slinky_doc_value_at(slinky_doc_root(nodesets), i))) < 0)
            goto error;
    const char *acct = slinky_doc_value_path_string(ctl, "spec.accountingRef.name", NULL);
    if (acct && *acct) {
        const char *acct_ns = slinky_doc_value_path_string(ctl, "spec.accountingRef.namespace", ns);
        rc = slinky_kube_informer_get(&acct_doc, st->accountings, *acct_ns ? acct_ns : ns, acct);
        if (rc == SLINKY_ENOTFOUND) {
            snprintf(msg, sizeof(msg), "spec.accountingRef: Accounting %s/%s not found", acct_ns,
                     acct);
            logf_("warn", key, "%s (waiting for it)", msg);
            set_condition(st, ns, name, generation, "False", "AccountingNotFound", msg);
            goto rejected;
        }
        if (rc < 0)
            goto error;
    }
    if (acct_doc && (rc = slinky_model_object_new_from_value_kind(
                         &objs[nobjs], SLINKY_MODEL_KIND_ACCOUNTING, slinky_doc_root(acct_doc))) < 0)
        goto error;
    if (acct_doc)
        nobjs++;
    /* the ConfigMaps it references (their file names become Prolog=... lines); not
     * watched, so a missing one is an error the work queue retries */
    for (size_t f = 0; f < sizeof(cm_ref_fields) / sizeof(*cm_ref_fields); f++) {
        const slinky_doc_value *refs =
            slinky_doc_value_get(slinky_doc_value_get(ctl, "spec"), cm_ref_fields[f]);
        for (size_t i = 0; i < slinky_doc_value_size(refs); i++) {
            const char *cm = slinky_doc_value_path_string(slinky_doc_value_at(refs, i), "name", "");
            slinky_doc *cm_doc = NULL;
            rc = slinky_kube_get(&cm_doc, st->client, &op_res_configmaps, ns, cm, NULL);
            if (rc == SLINKY_ENOTFOUND) {
                snprintf(msg, sizeof(msg), "spec.%s[%zu]: ConfigMap %s/%s not found",
                         cm_ref_fields[f], i, ns, cm);
                goto error_msg;
            }
            if (rc == 0)
                rc = slinky_model_object_new_from_value_kind(&objs[nobjs], SLINKY_MODEL_KIND_CONFIGMAP,
                                                             slinky_doc_root(cm_doc));
            slinky_doc_free(cm_doc);
            if (rc < 0)
                goto error;
            nobjs++;
        }
    }
    /* slurm.conf's input from the typed resources (schema defaults only) */
    if ((rc = slinky_conf_models_new(&cmodels, model, (const slinky_model_object *const *)objs,
                                     nobjs)) < 0)
        goto error;
    slinky_conf_profile profile;
    slinky_conf_profile_init(&profile, SLINKY_CONF_PROFILE_VERSION);
    profile.slurm_version = st->o.slurm_version;
    profile.local = true;
    profile.local_dir = st->o.slurm_dir;
    profile.slurmctld_port = st->o.slurmctld_port;
    profile.slurmd_port = st->o.slurmd_port;
    profile.slurmdbd_port = st->o.slurmdbd_port;
    profile.munge_socket = st->o.munge_socket;
    if ((rc = slinky_conf_render_slurm(&text, slinky_conf_models_cluster(cmodels), &profile)) < 0)
        goto error;

    /* 3. static check: a broken extraConf never reaches Slurm */
    snprintf(path, sizeof(path), "%s/etc/slurm.conf", st->o.slurm_dir);
    if ((rc = slinky_conf_parse(&parsed, text, strlen(text), path, NULL)) < 0 ||
        (rc = slinky_conf_check(&report, parsed, st->o.slurm_version)) < 0) {
        snprintf(msg, sizeof(msg), "rendered slurm.conf rejected: %s",
                 report && *report ? report : slinky_error_last()->message);
        logf_("error", key, "%s", msg);
        set_condition(st, ns, name, generation, "False", "InvalidConfig", msg);
        record_event(st, ctl, "Warning", "InvalidConfig", msg);
        goto rejected;
    }

    /* 4. unchanged? */
    struct stat sb;
    char *cur = NULL;
    size_t cur_len = 0;
    FILE *f = fopen(path, "rb");
    if (f && fstat(fileno(f), &sb) == 0) {
        cur = malloc((size_t)sb.st_size + 1);
        cur_len = cur ? fread(cur, 1, (size_t)sb.st_size, f) : 0;
        if (cur)
            cur[cur_len] = '\0';
    }
    if (f)
        fclose(f);
    bool same = cur && strcmp(cur, text) == 0;
    free(cur);
    if (same) {
        logf_("info", key, "slurm.conf up to date");
        write_configmap(st, ctl, text);
        set_condition(st, ns, name, generation, "True", "UpToDate", "slurm.conf is up to date");
        op_update_nodeset_status(st, slinky_doc_root(nodesets), path);
        goto out;
    }

    /* 5. the real Slurm must accept it */
    if (st->o.validate) {
        snprintf(candidate, sizeof(candidate), "%s/etc/slurm.conf.candidate", st->o.slurm_dir);
        FILE *cf = fopen(candidate, "wb");
        if (!cf || fputs(text, cf) < 0 || fclose(cf) != 0) {
            snprintf(msg, sizeof(msg), "cannot write %s", candidate);
            goto error_msg;
        }
        slinky_conf_validate_options vo;
        slinky_conf_validate_options_init(&vo, SLINKY_CONF_VALIDATE_OPTIONS_VERSION);
        vo.munge_socket = st->o.munge_socket;
        rc = slinky_conf_validate_slurm(&vmsg, candidate, &vo);
        unlink(candidate);
        if (rc == SLINKY_EINVALID) {
            snprintf(msg, sizeof(msg), "slurmctld rejects the rendered slurm.conf: %s",
                     vmsg && *vmsg ? vmsg : slinky_error_last()->message);
            logf_("error", key, "%s", msg);
            set_condition(st, ns, name, generation, "False", "SlurmRejected", msg);
            record_event(st, ctl, "Warning", "SlurmRejected", msg);
            goto rejected;
        }
        if (rc < 0)
            goto error;
    }

    /* 6. key files, then publish, install, apply */
    if ((rc = op_write_keys(msg, sizeof(msg), st, ctl)) < 0) {
        logf_("error", key, "%s", msg);
        set_condition(st, ns, name, generation, "False", "SecretNotReady", msg);
        record_event(st, ctl, "Warning", "SecretNotReady", msg);
        result = SLINKY_KUBE_RESULT_REQUEUE;
        goto out;
    }
    if ((rc = write_configmap(st, ctl, text)) < 0) {
        snprintf(msg, sizeof(msg), "writing ConfigMap %s-config: %s", name,
                 slinky_error_last()->message);
        goto error_msg;
    }
    slinky_conf_change_class klass = SLINKY_CONF_CLASS_NONE;
    rc = op_install_and_apply(&klass, &summary, &st->o, path, text);
    if (rc < 0) {
        snprintf(msg, sizeof(msg), "applying slurm.conf failed (old file kept): %s",
                 op_last_error());
        goto error_msg;
    }
    static const char *reasons[] = {"UpToDate", "Reconfigured", "RestartedSlurmctld",
                                    "RestartedAll", "RestartedAll"};
    snprintf(msg, sizeof(msg), "slurm.conf applied by %s:\n%s",
             slinky_conf_change_class_name(klass), summary ? summary : "");
    logf_("info", key, "%s", msg);
    set_condition(st, ns, name, generation, "True", reasons[klass], msg);
    record_event(st, ctl, "Normal", reasons[klass], msg);
    op_update_nodeset_status(st, slinky_doc_root(nodesets), path);
    pthread_mutex_lock(&st->lock);
    st->applied++;
    pthread_mutex_unlock(&st->lock);
    goto out;

rejected:
    pthread_mutex_lock(&st->lock);
    st->rejected++;
    pthread_mutex_unlock(&st->lock);
    goto out; /* nothing to retry until the resources change */
error:
    snprintf(msg, sizeof(msg), "%s", slinky_error_last()->message);
error_msg:
    logf_("error", key, "%s", msg);
    if (ctl_doc)
        set_condition(st, ns, name, slinky_doc_value_path_int(slinky_doc_root(ctl_doc),
                                                              "metadata.generation", -1),
                      "False", "ReconcileError", msg);
    result = SLINKY_KUBE_RESULT_ERROR;
out:
    free(text);
    free(report);
    free(summary);
    free(vmsg);
    for (size_t i = 0; i < nobjs; i++)
        slinky_model_object_free(objs[i]);
    free(objs);
    slinky_conf_models_free(cmodels);
    slinky_conf_free(parsed);
    slinky_model_problems_free(problems);
    slinky_model_object_free(model);
    slinky_doc_free(acct_doc);
    slinky_doc_free(nodesets);
    slinky_doc_free(ctl_doc);
    return result;
}
