/*
 * slinkyctl render: Slinky resources in, every Kubernetes object the
 * workload builders make out, ready for `kubectl apply -f -`.
 *
 *   slinkyctl render [-o yaml|json] [--kind KIND]... [--now UNIX] [--seamless-ssh]
 *                    [--keys-command CMD] FILE...
 *   slinkyctl render --diff [--kubeconfig F] [--context C] [--kind KIND]... FILE...
 *
 * FILE: YAML or JSON, several documents, Lists, "-" for standard input; the
 * Controllers, NodeSets, LoginSets, RestApis, Accountings and Tokens in them
 * are built, the ConfigMaps and Secrets they reference are read. Built
 * objects carry controller ownerReferences, so the resources need their
 * metadata.uid (as `kubectl get -o yaml` prints them).
 * Exit codes: 0 ok (--diff: no differences), 1 failure (--diff: differences
 * found), 2 usage error, 3 (--diff) the cluster could not be read.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "commands.h"
#include "resources.h"
#include "slinky.h"

static int usage(FILE *f)
{
    fprintf(f,
            "usage: slinkyctl render [-o yaml|json] [--kind KIND]... [--now UNIX]\n"
            "                        [--seamless-ssh [--keys-command CMD]] FILE...\n"
            "       slinkyctl render --diff [--kubeconfig F] [--context C] [--kind KIND]... FILE...\n"
            "Build every object of the Slinky resources in FILE (\"-\": stdin): the\n"
            "Controllers' ConfigMaps, Services, StatefulSets; NodeSet Services, PDBs and\n"
            "Pods; RestApi and Accounting objects; LoginSet host keys, ssh config, Service\n"
            "and Deployment; Token Secrets (JWTs issued at --now, default the clock).\n"
            "  -o yaml|json     a YAML stream (default) or one JSON List\n"
            "  --kind KIND      only objects of this kind (StatefulSet, secrets, ...)\n"
            "  --seamless-ssh   LoginSet sshd_config with the identity ledger's keys command\n"
            "  --diff           compare with the live objects: what an apply would change\n"
            "exit: 0 ok / no differences, 1 failure / differences, 2 usage, 3 cluster unreadable\n");
    return 2;
}

typedef struct opts {
    bool json, diff;
    const char **kinds;
    size_t nkinds;
    int64_t now;
    slinky_workload_loginset_options login;
    const char *kubeconfig, *context;
} opts;

static bool kind_wanted(const opts *o, const char *kind)
{
    if (!o->nkinds)
        return true;
    for (size_t i = 0; i < o->nkinds; i++) {
        const char *k = o->kinds[i];
        size_t n = strlen(kind);
        if (!strcasecmp(k, kind) ||
            (!strncasecmp(k, kind, n) && (!strcasecmp(k + n, "s") || !strcasecmp(k + n, "es"))))
            return true;
    }
    return false;
}

/* Build everything: build_all (Accounting, Controller, NodeSet, RestApi), then each LoginSet
 * and Token, in input order. */
static int build(slinky_workload *w, const slinkyctl_resources *r, const opts *o)
{
    slinky_workload_input in;
    slinky_workload_input_init(&in, SLINKY_WORKLOAD_INPUT_VERSION);
    in.objects = (const slinky_model_object *const *)r->objs;
    in.object_count = r->n;
    in.now = o->now;
    if (slinky_workload_build_all(w, &in))
        return 1;
    for (size_t i = 0; i < r->n; i++) {
        slinky_model_kind k = slinky_model_object_get_kind(r->objs[i]);
        if (k == SLINKY_MODEL_KIND_LOGINSET &&
            slinky_workload_build_loginset(w, r->objs[i], &in, &o->login))
            return 1;
        if (k == SLINKY_MODEL_KIND_TOKEN && slinky_workload_build_token(w, r->objs[i], &in))
            return 1;
    }
    return 0;
}

static int print(const slinky_workload *w, const opts *o)
{
    slinky_workload *sel = NULL;
    char *out = NULL;
    if (slinky_workload_new(&sel))
        return 1;
    int rc = 0;
    for (size_t i = 0; i < slinky_workload_count(w) && !rc; i++) {
        if (!kind_wanted(o, slinky_workload_kind_at(w, i)))
            continue;
        slinky_doc *copy = NULL;
        rc = slinky_doc_new_copy(&copy, slinky_doc_root(slinky_workload_at(w, i))) ||
             slinky_workload_add(sel, copy);
    }
    if (!rc)
        rc = o->json ? slinky_workload_dump_json(&out, NULL, sel, SLINKY_DOC_DUMP_PRETTY)
                     : slinky_workload_dump_yaml(&out, NULL, sel);
    if (!rc) {
        fputs(out, stdout);
        if (o->json)
            fputc('\n', stdout);
    }
    slinky_free(out);
    slinky_workload_free(sel);
    return rc ? 1 : 0;
}

/* ---------------------------------------------------------------- --diff */

/* The object's resource: the well-known table, else apiVersion + lower-case plural kind. */
static int resource_of(slinky_kube_resource *r, char *buf, size_t n, const char *api_version,
                       const char *kind)
{
    if (!slinky_kube_resource_for_kind(r, api_version, kind))
        return 0;
    slinky_error_clear();
    const char *slash = strchr(api_version, '/');
    size_t gl = slash ? (size_t)(slash - api_version) : 0;
    size_t kl = strlen(kind);
    if (gl + kl + 16 > n)
        return -1;
    memcpy(buf, api_version, gl);
    buf[gl] = '\0';
    char *plural = buf + gl + 1;
    for (size_t i = 0; i < kl; i++)
        plural[i] = (char)(kind[i] >= 'A' && kind[i] <= 'Z' ? kind[i] + 32 : kind[i]);
    strcpy(plural + kl, kind[kl - 1] == 's' ? "es" : "s");
    r->group = buf;
    r->version = slash ? slash + 1 : api_version;
    r->resource = plural;
    r->namespaced = true;
    return 0;
}

/* live restricted to the members `want` has: objects recursively, arrays of the same length
 * element by element (fields the server defaults are not changes), other values whole. */
static int project(slinky_doc_value *dst, const slinky_doc_value *live, const slinky_doc_value *want)
{
    slinky_doc_type wt = slinky_doc_value_type(want), lt = slinky_doc_value_type(live);
    if (wt == SLINKY_DOC_ARRAY && lt == SLINKY_DOC_ARRAY &&
        slinky_doc_value_size(want) == slinky_doc_value_size(live)) {
        int rc = slinky_doc_value_set_array(dst);
        for (size_t i = 0; i < slinky_doc_value_size(want) && !rc; i++) {
            slinky_doc_value *e = NULL;
            if (!(rc = slinky_doc_value_array_append(&e, dst)))
                rc = project(e, slinky_doc_value_at(live, i), slinky_doc_value_at(want, i));
        }
        return rc;
    }
    if (wt != SLINKY_DOC_OBJECT || lt != SLINKY_DOC_OBJECT)
        return slinky_doc_value_set_copy(dst, live);
    int rc = slinky_doc_value_set_object(dst);
    for (size_t i = 0; i < slinky_doc_value_size(want) && !rc; i++) {
        const char *k = slinky_doc_value_key_at(want, i);
        const slinky_doc_value *lv = slinky_doc_value_get(live, k);
        slinky_doc_value *d = NULL;
        if (!lv)
            continue;
        if (!(rc = slinky_doc_value_object_put(&d, dst, k)))
            rc = project(d, lv, slinky_doc_value_member_at(want, i));
    }
    return rc;
}

/* A Secret's stringData as the API server stores it: base64 under data. */
static int fold_string_data(slinky_doc_value *root)
{
    slinky_doc_value *sd = slinky_doc_value_get(root, "stringData"), *data = NULL;
    if (!sd || strcmp(slinky_doc_value_path_string(root, "kind", ""), "Secret"))
        return 0;
    int rc = slinky_doc_value_object_put(&data, root, "data");
    if (!rc && slinky_doc_value_type(data) != SLINKY_DOC_OBJECT)
        rc = slinky_doc_value_set_object(data);
    for (size_t i = 0; i < slinky_doc_value_size(sd) && !rc; i++) {
        const slinky_doc_value *v = slinky_doc_value_member_at(sd, i);
        char *b = NULL;
        if (!(rc = slinky_base64_encode(&b, slinky_doc_value_get_string(v),
                                        slinky_doc_value_get_string_len(v), 0)))
            rc = slinky_doc_value_object_set_string(data, slinky_doc_value_key_at(sd, i), b);
        slinky_free(b);
    }
    return rc ? rc : slinky_doc_value_object_remove(root, "stringData");
}

/* Lines of a text (pointers into a copy; *n_out lines). */
static char **split_lines(char **copy, size_t *n_out, const char *text)
{
    *copy = strdup(text);
    size_t cap = 16, n = 0;
    char **v = malloc(cap * sizeof(*v));
    for (char *p = *copy; v && p && *p;) {
        char *nl = strchr(p, '\n');
        if (nl)
            *nl = '\0';
        if (n == cap) {
            char **nv = realloc(v, (cap *= 2) * sizeof(*v));
            if (!nv) {
                free(v);
                return NULL;
            }
            v = nv;
        }
        v[n++] = p;
        p = nl ? nl + 1 : NULL;
    }
    *n_out = n;
    return v;
}

/* A multi-line value changed: its lines as a diff (longest common subsequence). */
static void print_text_diff(const char *old, const char *new_)
{
    char *ca = NULL, *cb = NULL;
    size_t na = 0, nb = 0;
    char **a = split_lines(&ca, &na, old), **b = split_lines(&cb, &nb, new_);
    unsigned *t = a && b && na < 4000 && nb < 4000 ? calloc((na + 1) * (nb + 1), sizeof(*t)) : NULL;
    if (t) {
        for (size_t i = na; i-- > 0;)
            for (size_t j = nb; j-- > 0;)
                t[i * (nb + 1) + j] = !strcmp(a[i], b[j]) ? t[(i + 1) * (nb + 1) + j + 1] + 1
                                      : t[(i + 1) * (nb + 1) + j] > t[i * (nb + 1) + j + 1]
                                          ? t[(i + 1) * (nb + 1) + j]
                                          : t[i * (nb + 1) + j + 1];
        size_t i = 0, j = 0;
        while (i < na || j < nb) {
            if (i < na && j < nb && !strcmp(a[i], b[j])) {
                i++;
                j++;
            } else if (j < nb && (i == na || t[i * (nb + 1) + j + 1] >= t[(i + 1) * (nb + 1) + j])) {
                printf("      + %s\n", b[j++]);
            } else {
                printf("      - %s\n", a[i++]);
            }
        }
    }
    free(t);
    free(a);
    free(b);
    free(ca);
    free(cb);
}

/* One object: "= unchanged", "+ new" or "~ changed" with the JSON patch ops; 1 when it differs. */
static int diff_one(slinky_kube_client *cl, const slinky_doc_value *built, int *err)
{
    const char *api = slinky_doc_value_path_string(built, "apiVersion", "");
    const char *kind = slinky_doc_value_path_string(built, "kind", "");
    const char *ns = slinky_doc_value_path_string(built, "metadata.namespace", NULL);
    const char *name = slinky_doc_value_path_string(built, "metadata.name", "");
    char buf[256];
    slinky_kube_resource r;
    slinky_doc *live = NULL, *want = NULL, *proj = NULL, *patch = NULL;
    int differs = 0;
    if (resource_of(&r, buf, sizeof(buf), api, kind)) {
        fprintf(stderr, "slinkyctl render --diff: %s: no resource for %s\n", name, kind);
        *err = 1;
        return 0;
    }
    int rc = slinky_kube_get(&live, cl, &r, ns, name, NULL);
    if (rc == SLINKY_ENOTFOUND) {
        printf("+ %s %s%s%s (new)\n", kind, ns ? ns : "", ns ? "/" : "", name);
        return 1;
    }
    if (rc) {
        fprintf(stderr, "slinkyctl render --diff: %s %s: %s\n", kind, name,
                slinky_error_last()->message);
        *err = 1;
        return 0;
    }
    /* both sides with stringData folded into data (a server that kept it is read the same) */
    if ((rc = slinky_doc_new_copy(&want, built)) || (rc = fold_string_data(slinky_doc_root(want))) ||
        (rc = fold_string_data(slinky_doc_root(live))) ||
        (rc = slinky_doc_new(&proj)) ||
        (rc = project(slinky_doc_root(proj), slinky_doc_root(live), slinky_doc_root(want))) ||
        (rc = slinky_doc_json_patch_create(&patch, slinky_doc_root(proj), slinky_doc_root(want)))) {
        fprintf(stderr, "slinkyctl render --diff: %s %s: %s\n", kind, name,
                slinky_error_last()->message);
        *err = 1;
    } else if (slinky_doc_value_size(slinky_doc_root(patch)) == 0) {
        printf("= %s %s%s%s\n", kind, ns ? ns : "", ns ? "/" : "", name);
    } else {
        differs = 1;
        printf("~ %s %s%s%s\n", kind, ns ? ns : "", ns ? "/" : "", name);
        const slinky_doc_value *ops = slinky_doc_root(patch);
        for (size_t i = 0; i < slinky_doc_value_size(ops); i++) {
            const slinky_doc_value *op = slinky_doc_value_at(ops, i);
            char *v = NULL;
            const slinky_doc_value *val = slinky_doc_value_get(op, "value");
            if (val)
                slinky_doc_value_dump_json(&v, NULL, val, 0);
            /* Secret values are not printed; a multi-line text is shown line by line */
            bool secret = !strcmp(kind, "Secret");
            const char *path = slinky_doc_value_path_string(op, "path", "");
            const char *was = slinky_doc_value_get_string(
                slinky_doc_value_pointer(slinky_doc_root(proj), path));
            const char *now = slinky_doc_value_get_string(val);
            bool text = !secret && was && now && (strchr(was, '\n') || strchr(now, '\n'));
            printf("    %s %s%s%s\n", slinky_doc_value_path_string(op, "op", ""), path,
                   v && !text ? " " : "", v && !text ? (secret ? "(secret value)" : v) : "");
            if (text)
                print_text_diff(was, now);
            slinky_free(v);
        }
    }
    slinky_doc_free(live);
    slinky_doc_free(want);
    slinky_doc_free(proj);
    slinky_doc_free(patch);
    return differs;
}

static int diff(const slinky_workload *w, const opts *o)
{
    if (slinky_global_init() < 0) {
        fprintf(stderr, "slinkyctl render: %s\n", slinky_error_last()->message);
        return 3;
    }
    slinky_kube_config_options co;
    slinky_kube_config_options_init(&co, SLINKY_KUBE_CONFIG_OPTIONS_VERSION);
    co.kubeconfig = o->kubeconfig;
    co.context = o->context;
    slinky_kube_config *cfg = NULL;
    slinky_kube_client *cl = NULL;
    int rc = 0;
    if (slinky_kube_config_load(&cfg, &co) || slinky_kube_client_new(&cl, cfg, NULL)) {
        fprintf(stderr, "slinkyctl render --diff: %s\n", slinky_error_last()->message);
        rc = 3;
    }
    int differs = 0, err = 0;
    for (size_t i = 0; !rc && i < slinky_workload_count(w) && !err; i++)
        if (kind_wanted(o, slinky_workload_kind_at(w, i)))
            differs |= diff_one(cl, slinky_doc_root(slinky_workload_at(w, i)), &err);
    slinky_kube_client_free(cl);
    slinky_kube_config_free(cfg);
    slinky_global_shutdown();
    return rc ? rc : err ? 3 : differs ? 1 : 0;
}

int slinkyctl_cmd_render(int argc, char **argv)
{
    opts o;
    memset(&o, 0, sizeof(o));
    slinky_workload_loginset_options_init(&o.login, SLINKY_WORKLOAD_LOGINSET_OPTIONS_VERSION);
    o.now = (int64_t)time(NULL);
    const char **files = calloc((size_t)argc + 1, sizeof(*files));
    o.kinds = calloc((size_t)argc + 1, sizeof(*o.kinds));
    size_t nfiles = 0;
    int rc = files && o.kinds ? 0 : 1;
    /* arguments first, before any file is read */
    for (int i = 1; !rc && i < argc; i++) {
        const char *a = argv[i];
        bool more = i + 1 < argc;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            free(files);
            free(o.kinds);
            return 0;
        } else if (!strcmp(a, "-o") && more) {
            const char *f = argv[++i];
            if (!strcmp(f, "json"))
                o.json = true;
            else if (strcmp(f, "yaml"))
                rc = usage(stderr);
        } else if (!strcmp(a, "--kind") && more)
            o.kinds[o.nkinds++] = argv[++i];
        else if (!strcmp(a, "--now") && more) {
            char *end = NULL;
            o.now = strtoll(argv[++i], &end, 10);
            if (!end || *end || o.now <= 0)
                rc = usage(stderr);
        } else if (!strcmp(a, "--seamless-ssh"))
            o.login.seamless_ssh = true;
        else if (!strcmp(a, "--keys-command") && more)
            o.login.keys_command = argv[++i];
        else if (!strcmp(a, "--diff"))
            o.diff = true;
        else if (!strcmp(a, "--kubeconfig") && more)
            o.kubeconfig = argv[++i];
        else if (!strcmp(a, "--context") && more)
            o.context = argv[++i];
        else if (a[0] == '-' && a[1])
            rc = usage(stderr);
        else
            files[nfiles++] = a;
    }
    if (!rc && !nfiles)
        rc = usage(stderr);
    slinkyctl_resources r;
    memset(&r, 0, sizeof(r));
    slinky_workload *w = NULL;
    for (size_t i = 0; !rc && i < nfiles; i++)
        rc = slinkyctl_resources_load(&r, files[i], "slinkyctl render");
    if (!rc && slinky_workload_new(&w))
        rc = 1;
    if (!rc && build(w, &r, &o)) {
        fprintf(stderr, "slinkyctl render: %s\n", slinky_error_last()->message);
        rc = 1;
    }
    if (!rc)
        rc = o.diff ? diff(w, &o) : print(w, &o);
    slinky_workload_free(w);
    slinkyctl_resources_free(&r);
    free(files);
    free(o.kinds);
    return rc;
}
