/* workload: NodeSet -> the workers Service, the PDB and the Pods, as upstream's
 * internal/builder/workerbuilder (worker_app.go, worker_service.go,
 * worker_pdb.go) and internal/controller/nodeset/utils/utils.go. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doc/doc_internal.h"
#include "workload/workload_internal.h"

#define LABEL_POD_NAME "nodeset.slinky.slurm.net/pod-name"
#define LABEL_POD_INDEX "nodeset.slinky.slurm.net/pod-index"
#define LABEL_POD_HOSTNAME "nodeset.slinky.slurm.net/pod-hostname"
#define LABEL_SCALING_MODE "nodeset.slinky.slurm.net/scaling-mode"
#define LABEL_REVISION "controller-revision-hash"
#define ANN_TOPOLOGY "topology.slinky.slurm.net/spec"
#define ANN_SSHD_HASH "slinky.slurm.net/sshd-conf-hash"
#define ANN_SSSD_HASH "slinky.slurm.net/sssd-conf-hash"
#define TAINT_WORKER "nodeset.slinky.slurm.net/worker"
#define SLURMD_LOG_PATH SLINKY_WL_LOG_DIR "/slurmd.log"
#define PRESTOP_CMD \
    "scontrol update nodename=$(hostname) state=down reason='slurm-operator: Pod is terminating';"

static const char *controller_ref(const slinky_model_nodeset *ns)
{
    return slinky_doc_value_path_string(wl_spec(ns), "controllerRef.name", "");
}

static bool is_daemonset(const slinky_model_nodeset *ns)
{
    const char *m = slinky_doc_value_path_string(wl_spec(ns), "scalingMode", "StatefulSet");
    return !strcmp(m, "DaemonSet");
}

/* ------------------------------------------------------------ --conf */

typedef struct conf_item {
    char *key;   /* title-cased */
    slinky__buf vals; /* comma-joined values in order */
    bool any;
} conf_item;

typedef struct conf_map {
    conf_item *items;
    size_t n, cap;
} conf_map;

static void conf_map_free(conf_map *m)
{
    for (size_t i = 0; i < m->n; i++) {
        free(m->items[i].key);
        slinky__buf_dispose(&m->items[i].vals);
    }
    free(m->items);
}

static conf_item *conf_get(conf_map *m, const char *key, size_t klen)
{
    for (size_t i = 0; i < m->n; i++)
        if (strlen(m->items[i].key) == klen && !memcmp(m->items[i].key, key, klen))
            return &m->items[i];
    if (m->n == m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 8;
        conf_item *it = slinky__realloc(m->items, cap * sizeof(*it));
        if (!it)
            return NULL;
        m->items = it;
        m->cap = cap;
    }
    conf_item *it = &m->items[m->n];
    memset(it, 0, sizeof(*it));
    if (!(it->key = slinky__strndup(key, klen)))
        return NULL;
    m->n++;
    return it;
}

static bool is_word_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '\'' || c >= 0x80;
}

/* cases.Title(language.English): the first letter of each word upper, the rest lower. */
static void title_case(char *s)
{
    bool start = true;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (!is_word_char(c)) {
            start = true;
            continue;
        }
        if (start && c >= 'a' && c <= 'z')
            *s = (char)(c - 'a' + 'A');
        else if (!start && c >= 'A' && c <= 'Z')
            *s = (char)(c - 'A' + 'a');
        start = false;
    }
}

static int cmp_cstr(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* GetSlurmNodeSetName: the hostname's first word trimmed of '-', else the name. */
static char *slurm_nodeset_name(const slinky_model_nodeset *ns)
{
    const char *h = slinky_doc_value_path_string(wl_spec(ns), "template.spec.hostname", "");
    while (*h == ' ' || *h == '\t' || *h == '\n')
        h++;
    if (!*h)
        return slinky__strdup(slinky_model_object_get_name(ns));
    size_t n = strcspn(h, " \t\n\r\v\f");
    while (n && h[0] == '-') {
        h++;
        n--;
    }
    while (n && h[n - 1] == '-')
        n--;
    return slinky__strndup(h, n);
}

/* Parse extraConf into the map; 1 for a malformed token (upstream's error). */
static int parse_extra_conf(conf_map *m, const char *extra)
{
    const char *p = extra;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\v' || *p == '\f')
            p++;
        if (!*p)
            return 0;
        size_t n = strcspn(p, " \t\n\r\v\f");
        const char *eq = memchr(p, '=', n);
        if (!eq)
            return 1;
        char *key = slinky__strndup(p, (size_t)(eq - p));
        if (!key)
            return SLINKY_ENOMEM;
        title_case(key);
        conf_item *it = conf_get(m, key, strlen(key));
        free(key);
        if (!it)
            return SLINKY_ENOMEM;
        if (it->any)
            slinky__buf_putc(&it->vals, ',');
        slinky__buf_put(&it->vals, eq + 1, (size_t)(p + n - eq - 1));
        slinky__buf_puts(&it->vals, "");
        it->any = true;
        if (it->vals.failed)
            return slinky__error_oom();
        p += n;
    }
}

/* Append each comma-separated feature of `v`, trimmed, to feats. */
static int add_features(char ***feats, size_t *n, size_t *cap, const char *v)
{
    while (v) {
        const char *comma = strchr(v, ',');
        size_t len = comma ? (size_t)(comma - v) : strlen(v);
        const char *s = v;
        while (len && (*s == ' ' || *s == '\t')) {
            s++;
            len--;
        }
        while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
            len--;
        if (len) {
            if (*n == *cap) {
                size_t c = *cap ? *cap * 2 : 8;
                char **f = slinky__realloc(*feats, c * sizeof(*f));
                if (!f)
                    return SLINKY_ENOMEM;
                *feats = f;
                *cap = c;
            }
            if (!((*feats)[*n] = slinky__strndup(s, len)))
                return SLINKY_ENOMEM;
            (*n)++;
        }
        v = comma ? comma + 1 : NULL;
    }
    return 0;
}

SLINKY_API slinky_status slinky_workload_slurmd_conf(char **out, const slinky_model_nodeset *ns,
                                                     unsigned flags)
{
    if (!out || !ns)
        return slinky__error_set(SLINKY_EINVALID, "workload: NULL argument");
    if (slinky_model_object_get_kind(ns) != SLINKY_MODEL_KIND_NODESET)
        return slinky__error_set(SLINKY_EINVALID, "workload: slurmd_conf: %s is not a NodeSet",
                                 slinky_workload__describe(ns));
    bool upstream = flags & SLINKY_WORKLOAD_CONF_UPSTREAM;
    const slinky_doc_value *ev = slinky_doc_value_get(wl_spec(ns), "extraConf");
    const char *extra = slinky_doc_value_get_string(ev);
    const char *hostname =
        slinky_doc_value_path_string(wl_spec(ns), "template.spec.hostname", "");
    int rc;
    if (extra && (rc = slinky_workload__check_line_value(ns, "spec.extraConf", extra,
                                                         slinky_doc_value_get_string_len(ev))))
        return rc;
    if ((rc = slinky_workload__check_line_value(ns, "spec.template.spec.hostname", hostname,
                                                strlen(hostname))))
        return rc;
    if (extra && strchr(extra, '\'') && !upstream)
        return slinky__error_set(SLINKY_EINVALID,
                                 "workload: %s: spec.extraConf: a single quote would break "
                                 "slurmd's --conf argument",
                                 slinky_workload__describe(ns));

    conf_map m = {0};
    char **feats = NULL, **list = NULL;
    size_t nf = 0, fcap = 0, nl = 0;
    slinky__buf b = SLINKY__BUF_INIT;
    char *base = slurm_nodeset_name(ns);
    if (!base) {
        rc = SLINKY_ENOMEM;
        goto done;
    }
    rc = add_features(&feats, &nf, &fcap, base);
    int bad = 0;
    if (!rc && extra) {
        bad = parse_extra_conf(&m, extra);
        if (bad < 0) {
            rc = bad;
            goto done;
        }
        if (bad && !upstream) {
            rc = slinky__error_set(SLINKY_EINVALID,
                                   "workload: %s: spec.extraConf: malformed --conf item: "
                                   "expected space-separated Key=Value",
                                   slinky_workload__describe(ns));
            goto done;
        }
        if (bad) { /* upstream degrades to the baseline */
            conf_map_free(&m);
            memset(&m, 0, sizeof(m));
        }
    }
    for (size_t i = 0; !rc && i < m.n; i++)
        if (!strcmp(m.items[i].key, "Feature") || !strcmp(m.items[i].key, "Features"))
            rc = add_features(&feats, &nf, &fcap, m.items[i].vals.data);
    if (rc)
        goto done;
    qsort(feats, nf, sizeof(*feats), cmp_cstr);
    list = slinky__calloc(m.n + 2, sizeof(*list));
    if (!list) {
        rc = SLINKY_ENOMEM;
        goto done;
    }
    /* Features */
    slinky__buf_puts(&b, "Features=");
    for (size_t i = 0, w = 0; i < nf; i++) {
        if (i && !strcmp(feats[i], feats[i - 1]))
            continue;
        if (w++)
            slinky__buf_putc(&b, ',');
        slinky__buf_puts(&b, feats[i]);
    }
    list[nl++] = slinky__buf_detach(&b, NULL);
    bool topology = false;
    for (size_t i = 0; i < m.n; i++) {
        const char *k = m.items[i].key, *v = m.items[i].vals.data ? m.items[i].vals.data : "";
        if (!strcmp(k, "Feature") || !strcmp(k, "Features"))
            continue;
        if (!strcmp(k, "Topology"))
            topology = upstream || *v;
        if (!upstream && !*v)
            continue; /* no empty Key= tokens */
        list[nl++] = slinky__sprintf("%s=%s", k, v);
    }
    if (!topology)
        list[nl++] = slinky__strdup(upstream ? "Topology='\"$SLINKY_TOPOLOGY\"'"
                                             : "Topology=\x01'\"${SLINKY_TOPOLOGY:+Topology="
                                               "$SLINKY_TOPOLOGY}\"'");
    for (size_t i = 0; i < nl; i++)
        if (!list[i]) {
            rc = SLINKY_ENOMEM;
            goto done;
        }
    qsort(list, nl, sizeof(*list), cmp_cstr);
    slinky__buf_putc(&b, '\'');
    for (size_t i = 0; i < nl; i++) {
        char *marker = strchr(list[i], '\x01');
        if (i)
            slinky__buf_putc(&b, ' ');
        /* the shell-expanded topology token sorts as "Topology=" */
        slinky__buf_puts(&b, marker ? marker + 1 : list[i]);
    }
    slinky__buf_putc(&b, '\'');
    rc = slinky__buf_finish(out, NULL, &b);
done:
    slinky__buf_dispose(&b);
    for (size_t i = 0; i < nf; i++)
        free(feats[i]);
    free(feats);
    for (size_t i = 0; list && i < nl; i++)
        free(list[i]);
    free(list);
    free(base);
    conf_map_free(&m);
    return rc;
}

/* ------------------------------------------------------------ shared objects */

static int find_controller(const slinky_model_controller **out, const slinky_workload_input *in,
                           const slinky_model_nodeset *ns)
{
    return slinky_workload__ref(out, in, ns, "spec.controllerRef.name",
                                SLINKY_MODEL_KIND_CONTROLLER, controller_ref(ns));
}

static int workers_service(slinky_workload *w, const slinky_model_nodeset *ns)
{
    const char *cref = controller_ref(ns);
    char *name = slinky__sprintf("slurm-workers-%s", cref);
    slinky_doc *doc = NULL, *sel = NULL;
    slinky_doc_value *root;
    int rc = name ? 0 : SLINKY_ENOMEM;
    if (!rc)
        rc = slinky_workload__object_new(&doc, &root, NULL, "v1", "Service",
                                         slinky_model_object_get_namespace(ns), name);
    if (!rc && !(rc = slinky_doc_new(&sel)) &&
        !(rc = slinky_doc_value_set_object(slinky_doc_root(sel))) &&
        !(rc = slinky_doc_value_object_set_string(slinky_doc_root(sel), SLINKY_WL_LABEL_APP,
                                                  SLINKY_WL_APP_WORKER)) &&
        !(rc = slinky_doc_value_object_set_string(slinky_doc_root(sel), SLINKY_WL_LABEL_CLUSTER,
                                                  cref))) {
        slinky_workload__port port = {SLINKY_WL_APP_WORKER, SLINKY_WL_SLURMD_PORT, 0};
        rc = slinky_workload__service_spec(root, NULL, slinky_doc_root(sel), &port, true, ns,
                                           "spec");
    }
    slinky_doc_free(sel);
    free(name);
    if (rc) {
        slinky_doc_free(doc);
        return rc;
    }
    return slinky_workload__push(w, doc);
}

static int workers_pdb(slinky_workload *w, const slinky_model_nodeset *ns)
{
    const char *cref = controller_ref(ns);
    char *name = slinky__sprintf("slurm-workers-pdb-%s", cref);
    slinky_doc *doc = NULL;
    slinky_doc_value *root, *spec = NULL, *sel = NULL, *ml = NULL;
    int rc = name ? 0 : SLINKY_ENOMEM;
    if (!rc)
        rc = slinky_workload__object_new(&doc, &root, NULL, "policy/v1", "PodDisruptionBudget",
                                         slinky_model_object_get_namespace(ns), name);
    free(name);
    if (rc)
        return rc;
    if ((rc = slinky_workload__obj(&spec, root, "spec")) ||
        (rc = slinky_workload__obj(&sel, spec, "selector")) ||
        (rc = slinky_workload__obj(&ml, sel, "matchLabels")) ||
        (rc = slinky_doc_value_object_set_string(ml, SLINKY_WL_LABEL_POD_PROTECT, "true")) ||
        (rc = slinky_doc_value_object_set_string(ml, SLINKY_WL_LABEL_CLUSTER, cref)) ||
        (rc = slinky_doc_value_object_set_int(spec, "maxUnavailable", 0))) {
        slinky_doc_free(doc);
        return rc;
    }
    return slinky_workload__push(w, doc);
}

/* buildWorkerSshdConfig (worker_config.go): sshd for pam_slurm_adopt plus spec.ssh.extraSshdConfig. */
static char *worker_sshd_config(const slinky_model_nodeset *ns)
{
    return slinky__sprintf("#\n### GENERAL ###\n"
                           "Include /etc/ssh/sshd_config.d/*.conf\n"
                           "UsePAM yes\n"
                           "Subsystem sftp internal-sftp\n"
                           "AuthenticationMethods publickey password\n"
                           "#\n### EXTRA CONFIG ###\n%s\n",
                           slinky_doc_value_path_string(wl_spec(ns), "ssh.extraSshdConfig", ""));
}

/* BuildWorkerSshConfig: the ConfigMap <nodeset>-ssh-config (only with spec.ssh.enabled). */
static int worker_ssh_config(slinky_workload *w, const slinky_model_nodeset *ns)
{
    slinky_doc *doc = NULL;
    slinky_doc_value *root, *meta, *labels = NULL, *data = NULL;
    char *name = slinky__sprintf("%s-ssh-config", slinky_model_object_get_name(ns));
    char *conf = worker_sshd_config(ns);
    int rc = name && conf ? 0 : SLINKY_ENOMEM;
    if (rc || (rc = slinky_workload__object_new(&doc, &root, &meta, "v1", "ConfigMap",
                                                slinky_model_object_get_namespace(ns), name)) ||
        (rc = slinky_workload__map_copy(meta, "annotations", wl_meta(ns, "annotations"))) ||
        (rc = slinky_workload__map_copy(meta, "labels", wl_meta(ns, "labels"))) ||
        (rc = slinky_workload__obj(&labels, meta, "labels")) ||
        (rc = slinky_workload__labels(labels, SLINKY_WL_APP_WORKER, slinky_model_object_get_name(ns),
                                      SLINKY_WL_COMP_WORKER)) ||
        (rc = slinky_doc_value_object_set_string(labels, SLINKY_WL_LABEL_CLUSTER, controller_ref(ns))) ||
        (rc = slinky_workload__set_controller_ref(meta, ns)) ||
        (rc = slinky_workload__obj(&data, root, "data")) ||
        (rc = slinky_doc_value_object_set_string(data, "sshd_config", conf)))
        goto done;
    slinky_workload__meta_prune(meta);
    rc = slinky_doc_value_object_set_bool(root, "immutable", false);
done:
    free(name);
    free(conf);
    return slinky_workload__push_done(w, doc, rc);
}

SLINKY_API slinky_status slinky_workload_build_nodeset(slinky_workload *into,
                                                       const slinky_model_nodeset *ns,
                                                       const slinky_workload_input *in)
{
    const slinky_model_controller *c = NULL;
    int rc = slinky_workload__builder_args(into, ns, in, SLINKY_MODEL_KIND_NODESET);
    if (rc)
        return rc;
    if ((rc = find_controller(&c, in, ns)))
        return rc;
    slinky_workload tmp = {0};
    if (!(rc = workers_service(&tmp, ns)) && !(rc = workers_pdb(&tmp, ns)) &&
        slinky_doc_value_path_bool(wl_spec(ns), "ssh.enabled", false))
        rc = worker_ssh_config(&tmp, ns);
    return slinky_workload__commit(into, &tmp, rc);
}

/* ------------------------------------------------------------ pod template */

static int add_volumes(slinky_doc_value *vols, const slinky_model_nodeset *ns,
                       const slinky_model_controller *c, bool ssh)
{
    slinky_doc_value *src = NULL;
    const char *kname = slinky_doc_value_path_string(wl_spec(c), "slurmKeyRef.name", "");
    const char *kkey = slinky_doc_value_path_string(wl_spec(c), "slurmKeyRef.key", "");
    int rc;
    if ((rc = slinky_workload__projected(&src, vols, SLINKY_WL_ETC_VOLUME, 0600)) ||
        (rc = slinky_workload__projection(src, true, kname, kkey, SLINKY_WL_SLURM_KEY_FILE)) ||
        (rc = slinky_workload__empty_dir(vols, SLINKY_WL_LOG_VOLUME, true)))
        return rc;
    if (!ssh)
        return 0;
    char *cm = slinky__sprintf("%s-ssh-config", slinky_model_object_get_name(ns));
    if (!cm)
        return SLINKY_ENOMEM;
    slinky_doc_value *items = NULL;
    /* ssh-config: the NodeSet's sshd_config, mode 0600 */
    if (!(rc = slinky_workload__projected(&src, vols, "ssh-config", 0600)) &&
        !(rc = slinky_workload__projection(src, false, cm, "sshd_config", "sshd_config"))) {
        items = slinky_doc_value_path(slinky_doc_value_at(src, 0), "configMap.items[0]");
        rc = slinky_doc_value_object_set_int(items, "mode", 0600);
    }
    free(cm);
    const char *sn = slinky_doc_value_path_string(wl_spec(ns), "ssh.sssdConfRef.name", "");
    const char *sk = slinky_doc_value_path_string(wl_spec(ns), "ssh.sssdConfRef.key", "");
    if (!rc && !(rc = slinky_workload__projected(&src, vols, "sssd-conf", 0600)) &&
        !(rc = slinky_workload__projection(src, true, sn, sk, "sssd.conf"))) {
        items = slinky_doc_value_path(slinky_doc_value_at(src, 0), "secret.items[0]");
        rc = slinky_doc_value_object_set_int(items, "mode", 0600);
    }
    return rc;
}

/* getResourceLimits: pod-level limits, overridden by the slurmd container's; memory in MiB. */
static int resource_limits(int64_t *cpus, int64_t *mem, const slinky_model_nodeset *ns)
{
    const slinky_doc_value *s = wl_spec(ns);
    int64_t pc = 0, pm = 0, cc = 0, cmem = 0;
    int rc;
    if ((rc = slinky_workload__quantity(
             &pc, slinky_doc_value_path(s, "template.spec.resources.limits.cpu"))) ||
        (rc = slinky_workload__quantity(
             &pm, slinky_doc_value_path(s, "template.spec.resources.limits.memory"))) ||
        (rc = slinky_workload__quantity(&cc, slinky_doc_value_path(s, "slurmd.resources.limits.cpu"))) ||
        (rc = slinky_workload__quantity(&cmem,
                                        slinky_doc_value_path(s, "slurmd.resources.limits.memory")))) {
        slinky__error_prefix("workload: %s: resources.limits: ", slinky_workload__describe(ns));
        return rc;
    }
    *cpus = cc ? cc : pc;
    *mem = (cmem ? cmem : pm) / 1024 / 1024;
    return 0;
}

static int slurmd_container(slinky_doc_value *containers, const slinky_model_nodeset *ns,
                            const slinky_model_controller *c, bool ssh)
{
    const slinky_doc_value *cs = wl_spec(c);
    char *server = NULL, *conf = NULL, *ann = NULL;
    char num[32];
    int64_t cpus = 0, mem = 0;
    slinky_doc_value *ct = NULL, *args, *env, *e, *ports, *p, *sc, *caps, *add, *life, *cmd,
                     *mounts;
    int rc = resource_limits(&cpus, &mem, ns);
    if (rc)
        return rc;
    if (slinky_doc_value_path_bool(cs, "external", false))
        server = slinky__sprintf("%s:%lld",
                                 slinky_doc_value_path_string(cs, "externalConfig.host", ""),
                                 (long long)slinky_doc_value_path_int(cs, "externalConfig.port", 0));
    else
        server = slinky__sprintf("%s-controller.%s:%d", slinky_model_object_get_name(c),
                                 slinky_model_object_get_namespace(c)
                                     ? slinky_model_object_get_namespace(c)
                                     : "",
                                 SLINKY_WL_SLURMCTLD_PORT);
    ann = slinky__sprintf("metadata.annotations['%s']", ANN_TOPOLOGY);
    if (!server || !ann) {
        rc = SLINKY_ENOMEM;
        goto done;
    }
    if ((rc = slinky_workload_slurmd_conf(&conf, ns, SLINKY_WORKLOAD_CONF_DEFAULT)))
        goto done;
    if ((rc = slinky_workload__push_obj(&ct, containers)) ||
        (rc = slinky_doc_value_object_set_string(ct, "name", SLINKY_WL_APP_WORKER)) ||
        (rc = slinky_workload__arr(&args, ct, "args")) ||
        (rc = slinky_workload__push_str(args, "-Z")) ||
        (rc = slinky_workload__push_str(args, "--conf-server")) ||
        (rc = slinky_workload__push_str(args, server)) ||
        (rc = slinky_workload__push_str(args, "--conf")) ||
        (rc = slinky_workload__push_str(args, conf)) ||
        (rc = slinky_workload__arr(&env, ct, "env")) || (rc = slinky_workload__push_obj(&e, env)) ||
        (rc = slinky_doc_value_object_set_string(e, "name", "SLINKY_TOPOLOGY")))
        goto done;
    slinky_doc_value *vf = NULL, *fr = NULL;
    if ((rc = slinky_workload__obj(&vf, e, "valueFrom")) ||
        (rc = slinky_workload__obj(&fr, vf, "fieldRef")) ||
        (rc = slinky_doc_value_object_set_string(fr, "fieldPath", ann)))
        goto done;
    snprintf(num, sizeof(num), "%lld", (long long)cpus);
    if ((rc = slinky_workload__push_obj(&e, env)) ||
        (rc = slinky_doc_value_object_set_string(e, "name", "POD_CPUS")) ||
        (rc = slinky_doc_value_object_set_string(e, "value", num)))
        goto done;
    snprintf(num, sizeof(num), "%lld", (long long)mem);
    if ((rc = slinky_workload__push_obj(&e, env)) ||
        (rc = slinky_doc_value_object_set_string(e, "name", "POD_MEMORY")) ||
        (rc = slinky_doc_value_object_set_string(e, "value", num)) ||
        (rc = slinky_workload__arr(&ports, ct, "ports")) ||
        (rc = slinky_workload__push_obj(&p, ports)) ||
        (rc = slinky_doc_value_object_set_string(p, "name", SLINKY_WL_APP_WORKER)) ||
        (rc = slinky_doc_value_object_set_int(p, "containerPort", SLINKY_WL_SLURMD_PORT)) ||
        (rc = slinky_doc_value_object_set_string(p, "protocol", "TCP")))
        goto done;
    if (ssh && ((rc = slinky_workload__push_obj(&p, ports)) ||
                (rc = slinky_doc_value_object_set_string(p, "name", "ssh")) ||
                (rc = slinky_doc_value_object_set_int(p, "containerPort", 22)) ||
                (rc = slinky_doc_value_object_set_string(p, "protocol", "TCP"))))
        goto done;
    if ((rc = slinky_workload__probe(ct, "startupProbe", SLINKY_WL_LIVEZ, SLINKY_WL_APP_WORKER, 0,
                                     6, 10)) ||
        (rc = slinky_workload__probe(ct, "livenessProbe", SLINKY_WL_LIVEZ, SLINKY_WL_APP_WORKER,
                                     0, 6, 10)) ||
        (rc = slinky_workload__probe(ct, "readinessProbe", SLINKY_WL_READYZ,
                                     SLINKY_WL_APP_WORKER, 0, 0, 0)) ||
        (rc = slinky_workload__obj(&sc, ct, "securityContext")) ||
        (rc = slinky_doc_value_object_set_bool(sc, "privileged", true)) ||
        (rc = slinky_workload__obj(&caps, sc, "capabilities")) ||
        (rc = slinky_workload__arr(&add, caps, "add")) ||
        (rc = slinky_workload__push_str(add, "BPF")) ||
        (rc = slinky_workload__push_str(add, "NET_ADMIN")) ||
        (rc = slinky_workload__push_str(add, "SYS_ADMIN")) ||
        (rc = slinky_workload__push_str(add, "SYS_NICE")) ||
        (rc = slinky_doc_value_path_put(&life, ct, "lifecycle.preStop.exec")) ||
        (rc = slinky_doc_value_set_object(life)) ||
        (rc = slinky_workload__arr(&cmd, life, "command")) ||
        (rc = slinky_workload__push_str(cmd, "/usr/bin/sh")) ||
        (rc = slinky_workload__push_str(cmd, "-c")) ||
        (rc = slinky_workload__push_str(cmd, PRESTOP_CMD)) ||
        (rc = slinky_workload__arr(&mounts, ct, "volumeMounts")) ||
        (rc = slinky_workload__mount(mounts, SLINKY_WL_ETC_VOLUME, SLINKY_WL_ETC_DIR, true)) ||
        (rc = slinky_workload__mount(mounts, SLINKY_WL_LOG_VOLUME, SLINKY_WL_LOG_DIR, false)))
        goto done;
    if (ssh) {
        slinky_doc_value *m = NULL;
        if ((rc = slinky_workload__mount(mounts, "ssh-config", "/etc/ssh/sshd_config", true)) ||
            (rc = slinky_workload__mount(mounts, "sssd-conf", "/etc/sssd/sssd.conf", true)))
            goto done;
        m = slinky_doc_value_at(mounts, 2);
        if ((rc = slinky_doc_value_object_set_string(m, "subPath", "sshd_config")))
            goto done;
        m = slinky_doc_value_at(mounts, 3);
        if ((rc = slinky_doc_value_object_set_string(m, "subPath", "sssd.conf")))
            goto done;
    }
    rc = slinky_workload__merge_container(ct, slinky_doc_value_path(wl_spec(ns), "slurmd"));
done:
    free(server);
    free(ann);
    slinky_free(conf);
    return rc;
}

/* The sshd-conf-hash and sssd-conf-hash annotations (CheckSum of the file, "" data included). */
static int worker_hashes(slinky_doc_value *meta, const slinky_model_nodeset *ns,
                         const slinky_workload_input *in)
{
    const slinky_model_object *o = NULL;
    const char *nsn = slinky_model_object_get_namespace(ns);
    char h[65], *cm = slinky__sprintf("%s-ssh-config", slinky_model_object_get_name(ns));
    const char *data = "";
    size_t len = 0;
    int rc;
    char *built = NULL;
    if (!cm)
        return SLINKY_ENOMEM;
    if (slinky_doc_value_path_bool(wl_spec(ns), "ssh.enabled", false)) {
        /* the ConfigMap build_nodeset makes (upstream reads it back from the cluster) */
        if (!(built = worker_sshd_config(ns))) {
            free(cm);
            return SLINKY_ENOMEM;
        }
        data = built;
        len = strlen(built);
    } else if (!slinky_workload_input_find(&o, in, SLINKY_MODEL_KIND_CONFIGMAP, nsn, cm)) {
        const slinky_doc_value *v =
            slinky_doc_value_path(slinky_model_object_get_value(o), "data.sshd_config");
        if (slinky_doc_value_get_string(v)) {
            data = slinky_doc_value_get_string(v);
            len = slinky_doc_value_get_string_len(v);
        }
    }
    free(cm);
    slinky_workload__sha256_hex(h, data, len); /* crypto.CheckSum: "" hashes too */
    free(built);
    if ((rc = slinky_workload__map_put(meta, "annotations", ANN_SSHD_HASH, h)))
        return rc;
    const char *sn = slinky_doc_value_path_string(wl_spec(ns), "ssh.sssdConfRef.name", "");
    const char *sk = slinky_doc_value_path_string(wl_spec(ns), "ssh.sssdConfRef.key", "");
    char *sv = NULL;
    len = 0;
    if (*sn && !slinky_workload_input_find(&o, in, SLINKY_MODEL_KIND_SECRET, nsn, sn) &&
        slinky_workload__secret_value(&sv, &len, in, ns, "spec.ssh.sssdConfRef", sn, sk))
        len = 0; /* a missing key hashes as empty, as upstream */
    slinky_workload__sha256_hex(h, sv ? sv : "", len);
    free(sv);
    return slinky_workload__map_put(meta, "annotations", ANN_SSSD_HASH, h);
}

/*
 * BuildWorkerPodTemplate into tmpl (an object): metadata {name, namespace,
 * labels, annotations} and spec.
 */
static int pod_template(slinky_doc_value *tmpl, const slinky_model_nodeset *ns,
                        const slinky_model_controller *c, const slinky_workload_input *in)
{
    const slinky_doc_value *root = slinky_model_object_get_value(ns), *s = wl_spec(ns);
    const char *cref = controller_ref(ns), *nsn = slinky_model_object_get_namespace(ns);
    bool ssh = slinky_doc_value_path_bool(s, "ssh.enabled", false);
    slinky_doc_value *meta = NULL, *labels = NULL, *spec = NULL, *dns = NULL, *search = NULL,
                     *vols = NULL, *tol = NULL, *t = NULL, *containers = NULL, *inits = NULL;
    char *sub = slinky__sprintf("slurm-workers-%s", cref);
    char *fq = sub ? slinky_workload__fqdn(in, sub, nsn) : NULL;
    int rc = fq ? 0 : SLINKY_ENOMEM;
    if (rc)
        goto done;
    if ((rc = slinky_workload__obj(&meta, tmpl, "metadata")) ||
        (rc = slinky_doc_value_object_set_string(meta, "name", slinky_model_object_get_name(ns))) ||
        (nsn && *nsn && (rc = slinky_doc_value_object_set_string(meta, "namespace", nsn))) ||
        (rc = slinky_workload__map_copy(meta, "annotations",
                                        slinky_doc_value_path(root, "metadata.annotations"))) ||
        (rc = slinky_workload__map_copy(meta, "labels",
                                        slinky_doc_value_path(root, "metadata.labels"))) ||
        (rc = slinky_workload__map_copy(meta, "annotations",
                                        slinky_doc_value_path(s, "template.metadata.annotations"))) ||
        (rc = slinky_workload__map_copy(meta, "labels",
                                        slinky_doc_value_path(s, "template.metadata.labels"))) ||
        (rc = slinky_workload__obj(&labels, meta, "labels")) ||
        (rc = slinky_workload__labels(labels, SLINKY_WL_APP_WORKER,
                                      slinky_model_object_get_name(ns), SLINKY_WL_COMP_WORKER)) ||
        (rc = slinky_doc_value_object_set_string(labels, SLINKY_WL_LABEL_CLUSTER, cref)) ||
        (rc = worker_hashes(meta, ns, in)) ||
        (rc = slinky_workload__map_put(meta, "annotations", SLINKY_WL_ANN_DEFAULT_CONTAINER,
                                       SLINKY_WL_APP_WORKER)))
        goto done;
    if ((rc = slinky_workload__obj(&spec, tmpl, "spec")) ||
        (rc = slinky_doc_value_object_set_bool(spec, "automountServiceAccountToken", false)) ||
        (rc = slinky_doc_value_object_set_bool(spec, "enableServiceLinks", false)) ||
        (rc = slinky_workload__arr(&containers, spec, "containers")) ||
        (rc = slurmd_container(containers, ns, c, ssh)) ||
        (rc = slinky_doc_value_object_set_string(spec, "subdomain", sub)) ||
        (rc = slinky_workload__obj(&dns, spec, "dnsConfig")) ||
        (rc = slinky_workload__arr(&search, dns, "searches")) ||
        (rc = slinky_workload__push_str(search, fq)) ||
        (rc = slinky_workload__arr(&inits, spec, "initContainers")) ||
        (rc = slinky_workload__logfile_container(inits, slinky_doc_value_get(s, "logfile"),
                                                 SLURMD_LOG_PATH)) ||
        (rc = slinky_workload__arr(&vols, spec, "volumes")) ||
        (rc = add_volumes(vols, ns, c, ssh)) ||
        (rc = slinky_workload__arr(&tol, spec, "tolerations")) ||
        (rc = slinky_workload__push_obj(&t, tol)) ||
        (rc = slinky_doc_value_object_set_string(t, "key", TAINT_WORKER)) ||
        (rc = slinky_doc_value_object_set_string(t, "operator", "Equal")) ||
        (rc = slinky_doc_value_object_set_string(t, "effect", "NoExecute")))
        goto done;
    rc = slinky_workload__merge_pod_spec(spec, slinky_doc_value_path(s, "template.spec"));
done:
    free(sub);
    free(fq);
    return rc;
}

/* ------------------------------------------------------------ pods */

typedef struct pod_ctx {
    const slinky_model_nodeset *ns;
    const slinky_model_controller *c;
    slinky_doc *tmpl;  /* the built template: {metadata, spec} */
    slinky_doc *proto; /* Pod 0, copied for every ordinal (build_nodeset_pods) */
    size_t proto_bytes; /* arena bytes a copy of proto takes */
    char hash[17];     /* the template hash: FNV-1a 64 of the template, hex */
    const char *name, *nsn;
    int64_t padding;
    bool oversubscribe;
} pod_ctx;

static void pod_ctx_dispose(pod_ctx *x)
{
    slinky_doc_free(x->proto);
    x->proto = NULL;
    slinky_doc_free(x->tmpl);
    x->tmpl = NULL;
}

static int pod_ctx_init(pod_ctx *x, const slinky_model_nodeset *ns,
                        const slinky_workload_input *in)
{
    memset(x, 0, sizeof(*x));
    int rc = slinky_workload__builder_args(x, ns, in, SLINKY_MODEL_KIND_NODESET);
    if (rc || (rc = find_controller(&x->c, in, ns)))
        return rc;
    x->ns = ns;
    x->name = slinky_model_object_get_name(ns);
    x->nsn = slinky_model_object_get_namespace(ns);
    x->padding = slinky_doc_value_path_int(wl_spec(ns), "ordinalPadding", 0);
    if (x->padding < 0 || x->padding > 20)
        return slinky__error_set(SLINKY_EINVALID, "workload: %s: spec.ordinalPadding: %lld is out of range",
                                 slinky_workload__describe(ns), (long long)x->padding);
    x->oversubscribe = slinky_doc_value_path_bool(wl_spec(ns), "oversubscribeNode", false);
    if ((rc = slinky_doc_new(&x->tmpl)) ||
        (rc = slinky_doc_value_set_object(slinky_doc_root(x->tmpl))) ||
        (rc = pod_template(slinky_doc_root(x->tmpl), ns, x->c, in)) ||
        (rc = slinky_workload__value_fnv(x->hash, slinky_doc_root(x->tmpl)))) {
        pod_ctx_dispose(x);
        return rc;
    }
    return 0;
}

/* updateNodeSetPodAntiAffinity: one NodeSet pod per Kubernetes node. */
static int anti_affinity(slinky_doc_value *spec)
{
    slinky_doc_value *paa = NULL, *req = NULL, *term = NULL, *ls = NULL, *me = NULL, *r = NULL,
                     *vals = NULL;
    int rc;
    if ((rc = slinky_doc_value_path_put(&paa, spec, "affinity.podAntiAffinity")) ||
        (slinky_doc_value_type(paa) != SLINKY_DOC_OBJECT && (rc = slinky_doc_value_set_object(paa))) ||
        (rc = slinky_workload__arr(&req, paa, "requiredDuringSchedulingIgnoredDuringExecution")) ||
        (rc = slinky_workload__push_obj(&term, req)) ||
        (rc = slinky_workload__obj(&ls, term, "labelSelector")) ||
        (rc = slinky_workload__arr(&me, ls, "matchExpressions")) ||
        (rc = slinky_workload__push_obj(&r, me)) ||
        (rc = slinky_doc_value_object_set_string(r, "key", SLINKY_WL_LABEL_APP)) ||
        (rc = slinky_doc_value_object_set_string(r, "operator", "In")) ||
        (rc = slinky_workload__arr(&vals, r, "values")) ||
        (rc = slinky_workload__push_str(vals, SLINKY_WL_APP_WORKER)))
        return rc;
    return slinky_doc_value_object_set_string(term, "topologyKey", "kubernetes.io/hostname");
}

/* UpdateStorage: a PVC volume per volumeClaimTemplate first, then the other volumes. */
static int update_storage(slinky_doc_value *spec, const pod_ctx *x, const char *suffix)
{
    const slinky_doc_value *tmpls = slinky_doc_value_path(wl_spec(x->ns), "volumeClaimTemplates");
    size_t n = slinky_doc_value_size(tmpls);
    if (!n)
        return 0;
    slinky_doc_value *vols = NULL;
    int rc = slinky_workload__arr(&vols, spec, "volumes");
    for (size_t i = 0; i < n && !rc; i++) {
        const char *cn = slinky_doc_value_path_string(slinky_doc_value_at(tmpls, i),
                                                      "metadata.name", "");
        /* drop a pod volume of the same name, then put the claim first */
        for (size_t j = 0; j < slinky_doc_value_size(vols); j++)
            if (!strcmp(slinky_doc_value_path_string(slinky_doc_value_at(vols, j), "name", ""), cn)) {
                slinky_doc_value_array_remove(vols, j);
                break;
            }
        slinky_doc_value *v = NULL, *pvc = NULL;
        char *claim = slinky__sprintf("%s-%s-%s", cn, x->name, suffix);
        if (!claim)
            return SLINKY_ENOMEM;
        if (!(rc = slinky_doc_value_array_insert(&v, vols, i)) &&
            !(rc = slinky_doc_value_set_object(v)) &&
            !(rc = slinky_doc_value_object_set_string(v, "name", cn)) &&
            !(rc = slinky_workload__obj(&pvc, v, "persistentVolumeClaim")))
            rc = slinky_doc_value_object_set_string(pvc, "claimName", claim);
        free(claim);
    }
    return rc;
}

/* A new Pod doc from the template: metadata from the template (GetPodFromTemplate). */
static int pod_from_template(slinky_doc **out, slinky_doc_value **meta_out,
                             slinky_doc_value **spec_out, const pod_ctx *x)
{
    slinky_doc *doc = NULL;
    slinky_doc_value *root, *meta, *spec = NULL;
    const slinky_doc_value *tm = slinky_doc_value_get(slinky_doc_root(x->tmpl), "metadata");
    char *gen = slinky__sprintf("%s-", x->name);
    int rc = gen ? 0 : SLINKY_ENOMEM;
    if (!rc)
        rc = slinky_workload__object_new(&doc, &root, &meta, "v1", "Pod", x->nsn, "");
    if (!rc) {
        slinky_doc_value_object_remove(meta, "name");
        if (!(rc = slinky_doc_value_object_set_string(meta, "generateName", gen)) &&
            !(rc = slinky_doc_value_object_set(meta, "labels", slinky_doc_value_get(tm, "labels"))) &&
            !(rc = slinky_doc_value_object_set(meta, "annotations",
                                               slinky_doc_value_get(tm, "annotations"))) &&
            !(rc = slinky_workload__set_controller_ref(meta, x->ns)) &&
            !(rc = slinky_doc_value_object_put(&spec, root, "spec")))
            rc = slinky_doc_value_set_copy(spec, slinky_doc_value_get(slinky_doc_root(x->tmpl), "spec"));
    }
    free(gen);
    if (rc) {
        slinky_doc_free(doc);
        return rc;
    }
    *out = doc;
    *meta_out = meta;
    *spec_out = spec;
    return 0;
}

/* The Pod for an ordinal, built from the template (NewNodeSetStatefulSetPod). */
static int ordinal_pod_slow(slinky_doc **out, const pod_ctx *x, int64_t ordinal)
{
    slinky_doc *doc = NULL;
    slinky_doc_value *meta, *spec, *labels;
    char padded[48], *name = NULL, *host = NULL;
    snprintf(padded, sizeof(padded), "%0*lld", (int)x->padding, (long long)ordinal);
    int rc = pod_from_template(&doc, &meta, &spec, x);
    if (rc)
        return rc;
    name = slinky__sprintf("%s-%s", x->name, padded);
    const char *h = slinky_doc_value_path_string(spec, "hostname", "");
    host = *h ? slinky__sprintf("%s%s", h, padded) : slinky__strdup(name ? name : "");
    if (!name || !host) {
        rc = SLINKY_ENOMEM;
        goto done;
    }
    labels = slinky_doc_value_get(meta, "labels");
    /* pod-hostname: upstream's GetSlurmNodeName runs before the scaling-mode
     * label is set, so it is the hostname (also with hostNetwork) */
    if ((rc = slinky_doc_value_object_set_string(meta, "name", name)) ||
        (rc = slinky_doc_value_object_set_string(spec, "hostname", host)) ||
        (rc = slinky_doc_value_object_set_string(labels, LABEL_POD_INDEX, padded)) ||
        (rc = slinky_doc_value_object_set_string(labels, LABEL_POD_NAME, name)) ||
        (rc = slinky_doc_value_object_set_string(labels, LABEL_POD_HOSTNAME, host)) ||
        (rc = slinky_doc_value_object_set_string(labels, LABEL_SCALING_MODE, "StatefulSet")) ||
        (rc = slinky_doc_value_object_set_string(labels, LABEL_REVISION, x->hash)) ||
        (rc = update_storage(spec, x, padded)) ||
        (!x->oversubscribe && (rc = anti_affinity(spec))))
        goto done;
    if (slinky_doc_value_get(spec, "nodeName"))
        slinky_doc_value_object_remove(spec, "nodeName");
done:
    free(name);
    free(host);
    return slinky_workload__hand_out(out, doc, rc);
}

/* Arena bytes a copy of v needs (values, member and item arrays, strings). */
static size_t doc_bytes(const slinky_doc_value *v)
{
    size_t n = sizeof(slinky_doc_value);
    switch (slinky_doc_value_type(v)) {
    case SLINKY_DOC_STRING: return n + slinky_doc_value_get_string_len(v) + 8;
    case SLINKY_DOC_DOUBLE: return n + 40;
    case SLINKY_DOC_ARRAY:
        for (size_t i = 0; i < slinky_doc_value_size(v); i++)
            n += sizeof(slinky_doc_value *) + doc_bytes(slinky_doc_value_at(v, i));
        return n;
    case SLINKY_DOC_OBJECT:
        for (size_t i = 0; i < slinky_doc_value_size(v); i++)
            n += sizeof(slinky_doc__member) + strlen(slinky_doc_value_key_at(v, i)) + 8 +
                 doc_bytes(slinky_doc_value_member_at(v, i));
        return n;
    default: return n;
    }
}

/*
 * The Pod for an ordinal, fast: a copy of Pod 0 (one arena chunk of the
 * right size) with the per-ordinal fields set in place; the same document
 * ordinal_pod_slow makes (test_nodeset checks). `last`: hand out Pod 0
 * itself (edited) instead of a copy; no later ordinal may follow.
 */
static int ordinal_pod(slinky_doc **out, pod_ctx *x, int64_t ordinal, bool last)
{
    int rc;
    if (!x->proto) {
        if ((rc = ordinal_pod_slow(&x->proto, x, 0)))
            return rc;
        x->proto_bytes = doc_bytes(slinky_doc_root(x->proto)) + 256;
    }
    slinky_doc *doc = NULL;
    if (last) { /* the last Pod is Pod 0 itself, edited: one copy fewer */
        doc = x->proto;
        x->proto = NULL;
    } else {
        if ((rc = slinky_doc__create(&doc, x->proto_bytes)))
            return rc;
        slinky_doc_value *c = slinky_doc__copy(doc, slinky_doc_root(x->proto));
        if (!c) {
            slinky_doc_free(doc);
            return SLINKY_ENOMEM;
        }
        *doc->root = *c;
    }
    if (ordinal == 0)
        return slinky_workload__hand_out(out, doc, 0);
    slinky_doc_value *root = slinky_doc_root(doc), *meta = slinky_doc_value_get(root, "metadata"),
                     *spec = slinky_doc_value_get(root, "spec"),
                     *labels = slinky_doc_value_get(meta, "labels");
    /* names are at most 253 bytes (the API server refuses longer ones): stack buffers */
    char padded[32], name[600], host[600], claim[900];
    int pl = snprintf(padded, sizeof(padded), "%0*lld", (int)x->padding, (long long)ordinal);
    const char *h = slinky_doc_value_path_string(slinky_doc_root(x->tmpl), "spec.hostname", "");
    size_t nl = strlen(x->name), hl = strlen(h);
    rc = nl + 1 + (size_t)pl < sizeof(name) && hl + (size_t)pl < sizeof(host)
             ? 0
             : slinky__error_set(SLINKY_EINVALID, "workload: %s: name too long",
                                 slinky_workload__describe(x->ns));
    if (!rc) {
        memcpy(name, x->name, nl);
        name[nl] = '-';
        memcpy(name + nl + 1, padded, (size_t)pl + 1);
        if (hl) {
            memcpy(host, h, hl);
            memcpy(host + hl, padded, (size_t)pl + 1);
        } else {
            memcpy(host, name, nl + 1 + (size_t)pl + 1);
        }
    }
    if (rc || (rc = slinky_doc_value_set_string(slinky_doc_value_get(meta, "name"), name)) ||
        (rc = slinky_doc_value_set_string(slinky_doc_value_get(spec, "hostname"), host)) ||
        (rc = slinky_doc_value_set_string(slinky_doc_value_get(labels, LABEL_POD_INDEX), padded)) ||
        (rc = slinky_doc_value_set_string(slinky_doc_value_get(labels, LABEL_POD_NAME), name)) ||
        (rc = slinky_doc_value_set_string(slinky_doc_value_get(labels, LABEL_POD_HOSTNAME), host)))
        goto done;
    /* the claim volumes come first (update_storage) */
    const slinky_doc_value *tmpls = slinky_doc_value_path(wl_spec(x->ns), "volumeClaimTemplates");
    slinky_doc_value *vols = slinky_doc_value_get(spec, "volumes");
    for (size_t i = 0; i < slinky_doc_value_size(tmpls) && !rc; i++) {
        const char *cn = slinky_doc_value_path_string(slinky_doc_value_at(tmpls, i),
                                                      "metadata.name", "");
        if ((size_t)snprintf(claim, sizeof(claim), "%s-%s", cn, name) >= sizeof(claim)) {
            rc = slinky__error_set(SLINKY_EINVALID, "workload: %s: spec.volumeClaimTemplates[%zu]: "
                                   "claim name too long", slinky_workload__describe(x->ns), i);
            break;
        }
        rc = slinky_doc_value_set_string(
            slinky_doc_value_path(slinky_doc_value_at(vols, i), "persistentVolumeClaim.claimName"),
            claim);
    }
done:
    return slinky_workload__hand_out(out, doc, rc);
}

SLINKY_API slinky_status slinky_workload_nodeset_pod(slinky_doc **out,
                                                     const slinky_model_nodeset *ns,
                                                     int64_t ordinal,
                                                     const slinky_workload_input *in)
{
    pod_ctx x;
    if (!out)
        return slinky__error_set(SLINKY_EINVALID, "workload: NULL argument");
    if (ordinal < 0)
        return slinky__error_set(SLINKY_EINVALID, "workload: pod ordinal %lld is negative",
                                 (long long)ordinal);
    int rc = pod_ctx_init(&x, ns, in);
    if (rc)
        return rc;
    rc = ordinal_pod_slow(out, &x, ordinal);
    pod_ctx_dispose(&x);
    return rc;
}

SLINKY_API slinky_status slinky_workload_build_nodeset_pods(slinky_workload *into,
                                                            const slinky_model_nodeset *ns,
                                                            const slinky_workload_input *in)
{
    pod_ctx x;
    if (!into)
        return slinky__error_set(SLINKY_EINVALID, "workload: NULL argument");
    int rc = pod_ctx_init(&x, ns, in);
    if (rc)
        return rc;
    if (is_daemonset(ns)) {
        pod_ctx_dispose(&x);
        return slinky__error_set(SLINKY_EINVALID,
                                 "workload: %s: spec.scalingMode is DaemonSet: pods are built "
                                 "per node (slinky_workload_nodeset_pod_for_node)",
                                 slinky_workload__describe(ns));
    }
    int64_t replicas = slinky_doc_value_path_int(wl_spec(ns), "replicas", 1);
    if (replicas < 0) {
        pod_ctx_dispose(&x);
        return slinky__error_set(SLINKY_EINVALID, "workload: %s: spec.replicas is negative",
                                 slinky_workload__describe(ns));
    }
    slinky_workload tmp = {0};
    for (int64_t i = 0; i < replicas && !rc; i++) {
        slinky_doc *pod = NULL;
        if (!(rc = ordinal_pod(&pod, &x, i, i == replicas - 1)))
            rc = slinky_workload__push(&tmp, pod);
    }
    rc = slinky_workload__commit(into, &tmp, rc);
    pod_ctx_dispose(&x);
    return rc;
}

SLINKY_API slinky_status slinky_workload_nodeset_pod_for_node(slinky_doc **out,
                                                              const slinky_model_nodeset *ns,
                                                              const char *node_name,
                                                              const slinky_workload_input *in)
{
    pod_ctx x;
    if (!out || !node_name || !*node_name)
        return slinky__error_set(SLINKY_EINVALID, "workload: pod_for_node: node name is required");
    int rc = pod_ctx_init(&x, ns, in);
    if (rc)
        return rc;
    slinky_doc *doc = NULL;
    slinky_doc_value *meta, *spec, *labels, *na = NULL, *terms = NULL, *term = NULL, *mf = NULL,
                     *r = NULL, *vals = NULL;
    /* GetDaemonSetPodHostname: the node name up to the first dot */
    char *host = slinky__strndup(node_name, strcspn(node_name, "."));
    if (!host) {
        rc = SLINKY_ENOMEM;
        goto done;
    }
    if ((rc = pod_from_template(&doc, &meta, &spec, &x)))
        goto done;
    labels = slinky_doc_value_get(meta, "labels");
    if ((rc = slinky_doc_value_object_set_string(spec, "hostname", host)) ||
        (rc = slinky_doc_value_object_set_string(labels, LABEL_POD_NAME, "")) ||
        (rc = slinky_doc_value_object_set_string(labels, LABEL_POD_HOSTNAME, host)) ||
        (rc = slinky_doc_value_object_set_string(labels, LABEL_SCALING_MODE, "DaemonSet")) ||
        (rc = slinky_doc_value_object_set_string(labels, LABEL_REVISION, x.hash)) ||
        (rc = update_storage(spec, &x, host)) ||
        (!x.oversubscribe && (rc = anti_affinity(spec))))
        goto done;
    if (slinky_doc_value_get(spec, "nodeName"))
        slinky_doc_value_object_remove(spec, "nodeName");
    /* ReplaceDaemonSetPodNodeNameNodeAffinity: one term matching metadata.name */
    if ((rc = slinky_doc_value_path_put(&na, spec, "affinity.nodeAffinity")) ||
        (slinky_doc_value_type(na) != SLINKY_DOC_OBJECT && (rc = slinky_doc_value_set_object(na))) ||
        (rc = slinky_doc_value_path_put(&terms, na,
                                        "requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms")) ||
        (rc = slinky_doc_value_set_array(terms)) || (rc = slinky_workload__push_obj(&term, terms)) ||
        (rc = slinky_workload__arr(&mf, term, "matchFields")) ||
        (rc = slinky_workload__push_obj(&r, mf)) ||
        (rc = slinky_doc_value_object_set_string(r, "key", "metadata.name")) ||
        (rc = slinky_doc_value_object_set_string(r, "operator", "In")) ||
        (rc = slinky_workload__arr(&vals, r, "values")) ||
        (rc = slinky_workload__push_str(vals, node_name)))
        goto done;
done:
    free(host);
    pod_ctx_dispose(&x);
    return slinky_workload__hand_out(out, doc, rc);
}

SLINKY_API slinky_status slinky_workload_nodeset_template_hash(char **out,
                                                               const slinky_model_nodeset *ns,
                                                               const slinky_workload_input *in)
{
    pod_ctx x;
    if (!out)
        return slinky__error_set(SLINKY_EINVALID, "workload: NULL argument");
    int rc = pod_ctx_init(&x, ns, in);
    if (rc)
        return rc;
    char *h = slinky__strdup(x.hash);
    pod_ctx_dispose(&x);
    if (!h)
        return SLINKY_ENOMEM;
    *out = h;
    return 0;
}
