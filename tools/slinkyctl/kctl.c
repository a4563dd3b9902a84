/* slinkyctl: cluster options, the client, and resource names from discovery. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "kctl.h"

/* -v N after the command: the library's log on stderr, as the global -v does */
static void log_line(slinky_log_level level, const char *module, const char *message, void *payload)
{
    (void)payload;
    fprintf(stderr, "slinkyctl: %s: %s: %s\n", module, slinky_log_level_name(level), message);
}

int kctl_common_opt(kctl_cluster_opts *o, int c, const char *arg)
{
    switch (c) {
    case KCTL_OPT_KUBECONFIG: o->kubeconfig = arg; return 1;
    case KCTL_OPT_CONTEXT: o->context = arg; return 1;
    case 'n': o->ns = arg; return 1;
    case 'A': o->all_namespaces = true; return 1;
    case 'l': o->selector = arg; return 1;
    case 'o': o->output = arg; return 1;
    case 'w': o->watch = true; return 1;
    case 'q': slinky_log_set_callback(log_line, SLINKY_LOG_ERROR, NULL); return 1;
    case 'v':
        if (strlen(arg) != 1 || !isdigit((unsigned char)arg[0])) {
            fprintf(stderr, "slinkyctl: -v wants a level from 0 to 9, not '%s'\n", arg);
            return -1;
        }
        kctl_verbosity = arg[0] - '0';
        slinky_log_set_callback(log_line,
                                (slinky_log_level)(SLINKY_LOG_WARNING + kctl_verbosity > SLINKY_LOG_TRACE
                                                       ? SLINKY_LOG_TRACE
                                                       : SLINKY_LOG_WARNING + kctl_verbosity),
                                NULL);
        return 1;
    default: return 0;
    }
}

int kctl_fail(const char *what)
{
    const slinky_error *e = slinky_error_last();
    const slinky_kube_status *st = slinky_kube_status_last();
    fprintf(stderr, "slinkyctl: %s: %s", what, e->message);
    if (e->http_status)
        fprintf(stderr, " (%s, HTTP %d)", st->reason && *st->reason ? st->reason : "error",
                e->http_status);
    fputc('\n', stderr);
    for (size_t i = 0; i < st->ncauses; i++)
        fprintf(stderr, "  %s: %s\n", st->causes[i].field, st->causes[i].message);
    return 1;
}

int kctl_connect(kctl *k, const kctl_cluster_opts *o)
{
    memset(k, 0, sizeof(*k));
    k->o = *o;
    slinky_kube_config_options co = SLINKY_KUBE_CONFIG_OPTIONS_INIT;
    co.kubeconfig = o->kubeconfig;
    co.context = o->context;
    co.ns = o->ns;
    if (slinky_kube_config_load(&k->cfg, &co) < 0)
        return kctl_fail("kubeconfig");
    if (slinky_kube_client_new(&k->client, k->cfg, NULL) < 0) {
        int rc = kctl_fail("client");
        kctl_close(k);
        return rc;
    }
    k->ns = slinky_kube_config_get_namespace(k->cfg);
    return 0;
}

void kctl_close(kctl *k)
{
    slinky_kube_client_free(k->client);
    slinky_kube_config_free(k->cfg);
    k->client = NULL;
    k->cfg = NULL;
}

/* ---------------------------------------------------------------- discovery */

slinky_doc *kctl_get_json(kctl *k, const char *path)
{
    char *body = NULL;
    size_t len = 0;
    int status = 0;
    slinky_doc *d = NULL;
    if (slinky_kube_request(&body, &len, &status, k->client, "GET", path, NULL, NULL, 0) == 0 &&
        status == 200)
        slinky_doc_parse_json(&d, body, len);
    slinky_free(body);
    slinky_error_clear();
    return d;
}

static void fill(kctl_kind *out, const char *gv, const slinky_doc_value *r)
{
    const char *slash = strchr(gv, '/');
    memset(out, 0, sizeof(*out));
    if (slash) {
        snprintf(out->group, sizeof(out->group), "%.*s", (int)(slash - gv), gv);
        snprintf(out->version, sizeof(out->version), "%s", slash + 1);
    } else {
        snprintf(out->version, sizeof(out->version), "%s", gv);
    }
    snprintf(out->plural, sizeof(out->plural), "%s", slinky_doc_value_path_string(r, "name", ""));
    snprintf(out->singular, sizeof(out->singular), "%s",
             slinky_doc_value_path_string(r, "singularName", ""));
    snprintf(out->kind, sizeof(out->kind), "%s", slinky_doc_value_path_string(r, "kind", ""));
    if (!out->singular[0]) /* older servers leave it empty: kubectl lower-cases the kind */
        for (size_t i = 0; out->kind[i] && i + 1 < sizeof(out->singular); i++)
            out->singular[i] = (char)tolower((unsigned char)out->kind[i]);
    out->namespaced = slinky_doc_value_path_bool(r, "namespaced", false);
}

/* Does `name` ("nss", "NodeSet", "nodesets.slinky.slurm.net") name resource r of gv? */
static bool matches(const char *name, const char *gv, const slinky_doc_value *r)
{
    const char *plural = slinky_doc_value_path_string(r, "name", "");
    if (strchr(plural, '/'))
        return false; /* a subresource */
    const char *dot = strchr(name, '.');
    if (dot) { /* plural.group or singular.group */
        const char *slash = strchr(gv, '/');
        size_t glen = slash ? (size_t)(slash - gv) : 0;
        if (strlen(dot + 1) != glen || strncmp(dot + 1, gv, glen) != 0)
            return false;
        size_t n = (size_t)(dot - name);
        const char *singular = slinky_doc_value_path_string(r, "singularName", "");
        const char *kind = slinky_doc_value_path_string(r, "kind", "");
        return (strlen(plural) == n && !strncmp(plural, name, n)) ||
               (strlen(singular) == n && !strncmp(singular, name, n)) ||
               (strlen(kind) == n && !strncasecmp(kind, name, n));
    }
    if (!strcmp(plural, name) || !strcasecmp(slinky_doc_value_path_string(r, "kind", ""), name) ||
        !strcmp(slinky_doc_value_path_string(r, "singularName", ""), name))
        return true;
    const slinky_doc_value *sn = slinky_doc_value_get(r, "shortNames");
    for (size_t i = 0; i < slinky_doc_value_size(sn); i++)
    {
        const char *s = slinky_doc_value_get_string(slinky_doc_value_at(sn, i));
        if (s && !strcmp(s, name))
            return true;
    }
    return false;
}

/* Search one group version; true when found. */
static bool search_gv(kctl_kind *out, kctl *k, const char *gv, const char *name,
                      const char *kind_only)
{
    char path[300];
    snprintf(path, sizeof(path), strchr(gv, '/') ? "/apis/%s" : "/api/%s", gv);
    slinky_doc *d = kctl_get_json(k, path);
    const slinky_doc_value *res = d ? slinky_doc_value_get(slinky_doc_root(d), "resources") : NULL;
    bool found = false;
    for (size_t i = 0; !found && i < slinky_doc_value_size(res); i++) {
        const slinky_doc_value *r = slinky_doc_value_at(res, i);
        bool hit = kind_only ? !strchr(slinky_doc_value_path_string(r, "name", "/"), '/') &&
                                   !strcmp(slinky_doc_value_path_string(r, "kind", ""), kind_only)
                             : matches(name, gv, r);
        if (hit) {
            fill(out, gv, r);
            found = true;
        }
    }
    slinky_doc_free(d);
    return found;
}

int kctl_resolve(kctl_kind *out, kctl *k, const char *name)
{
    if (search_gv(out, k, "v1", name, NULL))
        return 0;
    slinky_doc *groups = kctl_get_json(k, "/apis");
    const slinky_doc_value *gl = groups ? slinky_doc_value_get(slinky_doc_root(groups), "groups")
                                        : NULL;
    bool found = false;
    for (size_t i = 0; !found && i < slinky_doc_value_size(gl); i++) {
        const char *gv = slinky_doc_value_path_string(slinky_doc_value_at(gl, i),
                                                      "preferredVersion.groupVersion", NULL);
        found = gv && search_gv(out, k, gv, name, NULL);
    }
    slinky_doc_free(groups);
    if (found)
        return 0;
    slinky_kube_resource r;
    if (slinky_kube_resource_lookup(&r, name) == 0) { /* discovery unavailable: built-in names */
        memset(out, 0, sizeof(*out));
        snprintf(out->group, sizeof(out->group), "%s", r.group ? r.group : "");
        snprintf(out->version, sizeof(out->version), "%s", r.version);
        snprintf(out->plural, sizeof(out->plural), "%s", r.resource);
        snprintf(out->singular, sizeof(out->singular), "%.*s", (int)strlen(r.resource) - 1,
                 r.resource);
        out->namespaced = r.namespaced;
        return 0;
    }
    slinky_error_clear();
    fprintf(stderr, "error: the server doesn't have a resource type \"%s\"\n", name);
    return 1; /* kubectl's words and exit code */
}

int kctl_resolve_object(kctl_kind *out, kctl *k, const char *api_version, const char *kind)
{
    if (search_gv(out, k, api_version, NULL, kind))
        return 0;
    fprintf(stderr, "slinkyctl: no kind \"%s\" in version \"%s\"\n", kind, api_version);
    return 2;
}

void kctl_kind_ref(char *buf, size_t len, const kctl_kind *kk)
{
    snprintf(buf, len, "%s%s%s", kk->singular, kk->group[0] ? "." : "", kk->group);
}

/* ---------------------------------------------------------------- version */

void kctl_server_version(char *buf, size_t len, const kctl_cluster_opts *o)
{
    kctl k;
    slinky_kube_config_options co = SLINKY_KUBE_CONFIG_OPTIONS_INIT;
    slinky_kube_client_options clo = SLINKY_KUBE_CLIENT_OPTIONS_INIT;
    co.kubeconfig = o->kubeconfig;
    co.context = o->context;
    clo.timeout_ms = 3000;
    clo.connect_timeout_ms = 2000;
    clo.max_retries = 0;
    memset(&k, 0, sizeof(k));
    if (slinky_kube_config_load(&k.cfg, &co) < 0 ||
        slinky_kube_client_new(&k.client, k.cfg, &clo) < 0) {
        snprintf(buf, len, "not reachable: %s", slinky_error_last()->message);
        kctl_close(&k);
        return;
    }
    char *body = NULL;
    size_t blen = 0;
    int status = 0;
    slinky_doc *d = NULL;
    if (slinky_kube_request(&body, &blen, &status, k.client, "GET", "/version", NULL, NULL, 0) < 0)
        snprintf(buf, len, "not reachable: %s", slinky_error_last()->message);
    else if (status != 200 || slinky_doc_parse_json(&d, body, blen) < 0)
        snprintf(buf, len, "not reachable: GET /version answered HTTP %d", status);
    else
        snprintf(buf, len, "%s", slinky_doc_value_path_string(slinky_doc_root(d), "gitVersion", "?"));
    slinky_doc_free(d);
    slinky_free(body);
    kctl_close(&k);
}

/* ---------------------------------------------------------------- commands */

static int parse_targets(kctl_target *t, int argc, char **argv, const char *verb, bool optional)
{
    t->names = calloc((size_t)argc + 1, sizeof(char *));
    if (!t->names)
        return 1;
    if (argc < 1) {
        if (optional)
            return 0;
        fprintf(stderr, "slinkyctl %s: name a resource type (e.g. controllers, nodesets, pods)\n",
                verb);
        return 2;
    }
    const char *slash = strchr(argv[0], '/');
    if (!slash) {
        snprintf(t->type, sizeof(t->type), "%s", argv[0]);
        for (int i = 1; i < argc; i++)
            t->names[t->nnames++] = argv[i];
        return 0;
    }
    size_t tl = (size_t)(slash - argv[0]);
    snprintf(t->type, sizeof(t->type), "%.*s", (int)tl, argv[0]);
    for (int i = 0; i < argc; i++) {
        const char *s = strchr(argv[i], '/');
        if (!s || (size_t)(s - argv[i]) != tl || strncmp(argv[i], t->type, tl)) {
            fprintf(stderr, "slinkyctl %s: give TYPE/NAME of one type, or TYPE NAME...\n", verb);
            return 2;
        }
        t->names[t->nnames++] = (char *)s + 1;
    }
    return 0;
}

int kctl_server_error(const kctl_kind *kk, const char *name)
{
    const slinky_error *e = slinky_error_last();
    const slinky_kube_status *st = slinky_kube_status_last();
    if (e->http_status)
        fprintf(stderr, "Error from server (%s): %s\n",
                st->reason && *st->reason ? st->reason : "Error", e->message);
    else
        fprintf(stderr, "slinkyctl: %s%s%s %s: %s\n", kk->plural, kk->group[0] ? "." : "",
                kk->group, name ? name : "", e->message);
    return 1;
}

/* The common options plus the command's own (`x`), getopt over both. */
static int parse_opts(kctl_cluster_opts *o, int *first, int argc, char **argv,
                      int (*usage)(FILE *), const kctl_extra *x)
{
    struct option lo[32] = {KCTL_LONGOPTS};
    size_t n = 0;
    while (lo[n].name)
        n++;
    char shortopts[64];
    snprintf(shortopts, sizeof(shortopts), "%s%s", KCTL_SHORTOPTS, x && x->shortopts ? x->shortopts : "");
    for (size_t i = 0; x && x->longopts && x->longopts[i].name && n + 1 < 32; i++)
        lo[n++] = x->longopts[i];
    lo[n] = (struct option){0, 0, 0, 0};
    kctl_cluster_opts_init(o);
    int c;
    optind = 0; /* GNU: reinitialise (main parsed with "+") */
    while ((c = getopt_long(argc, argv, shortopts, lo, NULL)) != -1) {
        if (c == 'h')
            return usage(stdout) == 0 ? -1 : 2;
        int r = kctl_common_opt(o, c, optarg);
        if (r == 0 && x && x->on_option)
            r = x->on_option(c, optarg, x->payload);
        if (r < 0)
            return 2;
        if (r == 0) {
            usage(stderr);
            return 2;
        }
    }
    *first = optind;
    return 0;
}

bool kctl_start(kctl_cluster_opts *o, kctl_target *t, kctl *k, int *exit_code, int argc,
                char **argv, const char *verb, int (*usage)(FILE *), const kctl_extra *x)
{
    int first = 0, rc = parse_opts(o, &first, argc, argv, usage, x);
    memset(t, 0, sizeof(*t));
    if (rc == 0)
        rc = parse_targets(t, argc - first, argv + first, verb, x && x->targets_optional);
    if (rc == 0)
        rc = kctl_connect(k, o);
    if (rc) {
        free(t->names);
        t->names = NULL;
    }
    *exit_code = rc < 0 ? 0 : rc;
    return rc == 0;
}

int kctl_usage(FILE *f, const char *text, const char *exit_codes)
{
    fprintf(f, "%s" KCTL_OPTIONS_HELP "%s", text, exit_codes);
    return f == stdout ? 0 : 2;
}
