/*
 * slinkyctl status [CONTROLLER]: one screen for a Controller: its conditions,
 * its NodeSets (with the Slurm node counts they report), their pods and the
 * totals. slinkyctl logs TYPE/NAME | TYPE NAME: the logs of a pod, or of the
 * pods of a NodeSet (its status.selector).
 */
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "kctl.h"

static int usage_status(FILE *f)
{
    return kctl_usage(f, "usage: slinkyctl status [CONTROLLER] [options]\n"
               "A Controller (the only one of the namespace when none is named) with its\n"
               "conditions, NodeSets, pods and Slurm node counts.\n\n",
                      "\nexit codes: 0 shown, 1 failure (not found), 2 usage\n");
}

static int usage_logs(FILE *f)
{
    return kctl_usage(f, "usage: slinkyctl logs POD | TYPE/NAME | TYPE NAME [--tail N] [-c CONTAINER] [options]\n"
               "Print the logs of a pod, or of every pod of a NodeSet (each line prefixed\n"
               "with [pod/NAME]).\n\n",
                      "\nexit codes: 0 printed, 1 failure (no such object, no logs served), 2 usage\n");
}

static const slinky_kube_resource controllers = {"slinky.slurm.net", "v1beta1", "controllers", true};
static const slinky_kube_resource nodesets = {"slinky.slurm.net", "v1beta1", "nodesets", true};
static const slinky_kube_resource pods = {"", "v1", "pods", true};

static void kind_of(kctl_kind *kk, const slinky_kube_resource *r, const char *singular,
                    const char *kind)
{
    memset(kk, 0, sizeof(*kk));
    snprintf(kk->group, sizeof(kk->group), "%s", r->group);
    snprintf(kk->version, sizeof(kk->version), "%s", r->version);
    snprintf(kk->plural, sizeof(kk->plural), "%s", r->resource);
    snprintf(kk->singular, sizeof(kk->singular), "%s", singular);
    snprintf(kk->kind, sizeof(kk->kind), "%s", kind);
    kk->namespaced = true;
}

/* The NodeSets whose spec.controllerRef names the Controller, as an array document. */
static slinky_doc *owned_nodesets(kctl *k, const char *name)
{
    slinky_doc *list = NULL, *mine = NULL;
    if (slinky_kube_list(&list, k->client, &nodesets, k->ns, NULL) < 0 || slinky_doc_new(&mine) < 0) {
        slinky_doc_free(list);
        return NULL;
    }
    slinky_doc_value_set_array(slinky_doc_root(mine));
    const slinky_doc_value *items = slinky_doc_value_get(slinky_doc_root(list), "items");
    for (size_t i = 0; i < slinky_doc_value_size(items); i++) {
        const slinky_doc_value *o = slinky_doc_value_at(items, i);
        if (strcmp(slinky_doc_value_path_string(o, "spec.controllerRef.name", ""), name))
            continue;
        slinky_doc_value *e = NULL;
        slinky_doc_value_array_append(&e, slinky_doc_root(mine));
        slinky_doc_value_set_copy(e, o);
    }
    slinky_doc_free(list);
    return mine;
}

/* The pods of one NodeSet (status.selector, else the instance label), appended to `into`. */
static void nodeset_pods(kctl *k, const slinky_doc_value *ns_obj, slinky_doc_value *into)
{
    char sel[512];
    const char *s = slinky_doc_value_path_string(ns_obj, "status.selector", NULL);
    if (!s || !*s) {
        snprintf(sel, sizeof(sel), "app.kubernetes.io/instance=%s",
                 slinky_doc_value_path_string(ns_obj, "metadata.name", ""));
        s = sel;
    }
    slinky_kube_list_options lo = SLINKY_KUBE_LIST_OPTIONS_INIT;
    lo.label_selector = s;
    slinky_doc *list = NULL;
    if (slinky_kube_list(&list, k->client, &pods, k->ns, &lo) == 0) {
        const slinky_doc_value *items = slinky_doc_value_get(slinky_doc_root(list), "items");
        for (size_t i = 0; i < slinky_doc_value_size(items); i++) {
            slinky_doc_value *e = NULL;
            slinky_doc_value_array_append(&e, into);
            slinky_doc_value_set_copy(e, slinky_doc_value_at(items, i));
        }
    }
    slinky_error_clear();
    slinky_doc_free(list);
}

static void conditions(const slinky_doc_value *ctl)
{
    const slinky_doc_value *c = slinky_doc_value_path(ctl, "status.conditions");
    printf("Conditions:\n");
    if (slinky_doc_value_size(c) == 0) {
        printf("  <none> (the operator has not reconciled it yet)\n");
        return;
    }
    printf("  %-16s %-7s %-22s %-8s %s\n", "TYPE", "STATUS", "REASON", "AGE", "MESSAGE");
    for (size_t i = 0; i < slinky_doc_value_size(c); i++) {
        const slinky_doc_value *e = slinky_doc_value_at(c, i);
        char age[32];
        kctl_age(age, sizeof(age), slinky_doc_value_path_string(e, "lastTransitionTime", NULL));
        printf("  %-16s %-7s %-22s %-8s %s\n", slinky_doc_value_path_string(e, "type", ""),
               slinky_doc_value_path_string(e, "status", ""),
               slinky_doc_value_path_string(e, "reason", ""), age,
               slinky_doc_value_path_string(e, "message", ""));
    }
}

static int pick_controller(char *name, size_t len, kctl *k)
{
    slinky_doc *list = NULL;
    if (slinky_kube_list(&list, k->client, &controllers, k->ns, NULL) < 0)
        return kctl_fail("list controllers");
    const slinky_doc_value *items = slinky_doc_value_get(slinky_doc_root(list), "items");
    size_t n = slinky_doc_value_size(items);
    if (n == 1)
        snprintf(name, len, "%s",
                 slinky_doc_value_path_string(slinky_doc_value_at(items, 0), "metadata.name", ""));
    else
        fprintf(stderr, "slinkyctl status: %zu Controllers in namespace %s: name one\n", n, k->ns);
    slinky_doc_free(list);
    return n == 1 ? 0 : 1;
}

int slinkyctl_cmd_status(int argc, char **argv)
{
    kctl_cluster_opts o;
    kctl_target t;
    kctl k;
    kctl_extra ex = {NULL, NULL, NULL, NULL, true};
    int rc;
    if (!kctl_start(&o, &t, &k, &rc, argc, argv, "status", usage_status, &ex))
        return rc;
    char name[256] = "";
    slinky_doc *ctl = NULL, *sets = NULL, *podlist = NULL;
    kctl_printer *ps = NULL, *pp = NULL;
    kctl_kind ksets, kpods;
    if (t.nnames > 0) {
        usage_status(stderr);
        rc = 2;
        goto out;
    }
    if (t.type[0])
        snprintf(name, sizeof(name), "%s", strchr(t.type, '/') ? strchr(t.type, '/') + 1 : t.type);
    else if ((rc = pick_controller(name, sizeof(name), &k)) != 0)
        goto out;
    kind_of(&ksets, &nodesets, "nodeset", "NodeSet");
    kind_of(&kpods, &pods, "pod", "Pod");
    if (slinky_kube_get(&ctl, k.client, &controllers, k.ns, name, NULL) < 0) {
        kctl_kind kc;
        kind_of(&kc, &controllers, "controller", "Controller");
        rc = kctl_server_error(&kc, name);
        goto out;
    }
    const slinky_doc_value *c = slinky_doc_root(ctl);
    char age[32];
    kctl_age(age, sizeof(age), slinky_doc_value_path_string(c, "metadata.creationTimestamp", NULL));
    const char *cluster = slinky_doc_value_path_string(c, "spec.clusterName", NULL);
    printf("Controller:  %s/%s (age %s)\n", k.ns, name, age);
    if (cluster && *cluster)
        printf("Cluster:     %s\n", cluster);
    else
        printf("Cluster:     %s_%s\n", k.ns, name);
    conditions(c);

    sets = owned_nodesets(&k, name);
    if (!sets || slinky_doc_new(&podlist) < 0) {
        rc = kctl_fail("nodesets");
        goto out;
    }
    slinky_doc_value_set_array(slinky_doc_root(podlist));
    const slinky_doc_value *sv = slinky_doc_root(sets);
    long long want = 0, ready = 0, idle = 0, alloc = 0, down = 0, drain = 0;
    for (size_t i = 0; i < slinky_doc_value_size(sv); i++) {
        const slinky_doc_value *s = slinky_doc_value_at(sv, i);
        want += slinky_doc_value_path_int(s, "spec.replicas", 0);
        ready += slinky_doc_value_path_int(s, "status.readyReplicas", 0);
        idle += slinky_doc_value_path_int(s, "status.slurmIdle", 0);
        alloc += slinky_doc_value_path_int(s, "status.slurmAllocated", 0);
        down += slinky_doc_value_path_int(s, "status.slurmDown", 0);
        drain += slinky_doc_value_path_int(s, "status.slurmDrain", 0);
        nodeset_pods(&k, s, slinky_doc_root(podlist));
    }
    printf("\nNodeSets:\n");
    if (slinky_doc_value_size(sv) == 0)
        printf("  <none>\n");
    else if ((rc = kctl_printer_new(&ps, &k, &ksets, "wide")) == 0)
        rc = kctl_print_items(ps, stdout, sv, true);
    printf("\nPods:\n");
    if (slinky_doc_value_size(slinky_doc_root(podlist)) == 0)
        printf("  <none>\n");
    else if (rc == 0 && (rc = kctl_printer_new(&pp, &k, &kpods, NULL)) == 0)
        rc = kctl_print_items(pp, stdout, slinky_doc_root(podlist), true);
    printf("\nSlurm nodes: %lld wanted, %lld pods ready; %lld idle, %lld allocated, %lld down, "
           "%lld drain\n", want, ready, idle, alloc, down, drain);
out:
    kctl_printer_free(ps);
    kctl_printer_free(pp);
    slinky_doc_free(ctl);
    slinky_doc_free(sets);
    slinky_doc_free(podlist);
    kctl_close(&k);
    free(t.names);
    return rc;
}

/* ---------------------------------------------------------------- logs */

typedef struct logopts {
    const char *container;
    long tail;
} logopts;

static int on_log_opt(int c, const char *arg, void *payload)
{
    logopts *l = payload;
    if (c == 'c') {
        l->container = arg;
        return 1;
    }
    if (c == KCTL_OPT_FIRST_FREE) {
        char *e = NULL;
        l->tail = strtol(arg, &e, 10);
        return *arg && !*e && l->tail >= 0 ? 1 : -1;
    }
    return 0;
}

static int pod_log(kctl *k, const char *pod, const logopts *l, const char *prefix)
{
    char *path = NULL, *body = NULL, q[300] = "";
    size_t len = 0;
    int status = 0;
    slinky_kube_resource r = pods;
    if (slinky_kube_path(&path, &r, k->ns, pod, "log") < 0)
        return kctl_fail("logs");
    if (l->container)
        snprintf(q, sizeof(q), "?container=%s", l->container);
    if (l->tail >= 0)
        snprintf(q + strlen(q), sizeof(q) - strlen(q), "%ctailLines=%ld", q[0] ? '&' : '?', l->tail);
    char full[1200];
    snprintf(full, sizeof(full), "%s%s", path, q);
    slinky_free(path);
    int rc = 0;
    if (slinky_kube_request(&body, &len, &status, k->client, "GET", full, NULL, NULL, 0) < 0) {
        rc = kctl_fail("logs");
    } else if (status != 200) {
        fprintf(stderr, "Error from server: pod %s: no logs (HTTP %d)\n", pod, status);
        rc = 1;
    } else if (!prefix) {
        fwrite(body, 1, len, stdout);
    } else {
        for (const char *line = body; *line;) {
            size_t n = strcspn(line, "\n");
            printf("[pod/%s] %.*s\n", prefix, (int)n, line);
            line += n + (line[n] == '\n');
        }
    }
    slinky_free(body);
    return rc;
}

int slinkyctl_cmd_logs(int argc, char **argv)
{
    static const struct option lo[] = {{"container", required_argument, 0, 'c'},
                                       {"tail", required_argument, 0, KCTL_OPT_FIRST_FREE},
                                       {0, 0, 0, 0}};
    logopts l = {NULL, -1};
    kctl_extra ex = {"c:", lo, on_log_opt, &l, false};
    kctl_cluster_opts o;
    kctl_target t;
    kctl k;
    int rc;
    if (!kctl_start(&o, &t, &k, &rc, argc, argv, "logs", usage_logs, &ex))
        return rc;
    kctl_kind kk;
    const char *name = t.nnames == 1 ? t.names[0] : NULL;
    if (t.nnames == 0) { /* "logs POD" */
        name = t.type;
        snprintf(t.type, sizeof(t.type), "%s", "pods");
        name = argv[argc - 1];
    }
    if (!name || t.nnames > 1) {
        usage_logs(stderr);
        rc = 2;
    } else if ((rc = kctl_resolve(&kk, &k, t.type)) == 0) {
        if (!strcmp(kk.plural, "pods") && !kk.group[0]) {
            rc = pod_log(&k, name, &l, NULL);
        } else if (!strcmp(kk.plural, "nodesets")) {
            slinky_doc *obj = NULL, *list = NULL;
            slinky_kube_resource r = kctl_resource(&kk);
            if (slinky_kube_get(&obj, k.client, &r, k.ns, name, NULL) < 0 || slinky_doc_new(&list) < 0) {
                rc = kctl_server_error(&kk, name);
            } else {
                slinky_doc_value_set_array(slinky_doc_root(list));
                nodeset_pods(&k, slinky_doc_root(obj), slinky_doc_root(list));
                const slinky_doc_value *pl = slinky_doc_root(list);
                if (slinky_doc_value_size(pl) == 0)
                    fprintf(stderr, "slinkyctl logs: NodeSet %s has no pods\n", name);
                for (size_t i = 0; i < slinky_doc_value_size(pl); i++) {
                    const char *pn = slinky_doc_value_path_string(slinky_doc_value_at(pl, i),
                                                                  "metadata.name", "");
                    rc |= pod_log(&k, pn, &l, pn);
                }
            }
            slinky_doc_free(obj);
            slinky_doc_free(list);
        } else {
            fprintf(stderr, "slinkyctl logs: %s have no pods of their own: name a pod or a NodeSet\n",
                    kk.plural);
            rc = 2;
        }
    }
    kctl_close(&k);
    free(t.names);
    return rc;
}
