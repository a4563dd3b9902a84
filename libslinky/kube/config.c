/*
 * kube: the config object and kubeconfig loading (KUBECONFIG lists merged as
 * kubectl does). In-cluster configuration: config_in_cluster.c; credentials
 * (token, tokenFile, exec plugins) and their cache: config_creds.c.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kube_internal.h"


SLINKY_KUBE__OPTIONS_INIT_FN(slinky_kube_config_options, SLINKY_KUBE_CONFIG_OPTIONS_VERSION)

/* ---------------------------------------------------------------- config object */

slinky_kube_config *slinky_kube__config_alloc(void)
{
    slinky_kube_config *cfg = slinky__calloc(1, sizeof(*cfg));
    if (cfg == NULL)
        return NULL;
    cfg->refs = 1;
    pthread_mutex_init(&cfg->lock, NULL);
    return cfg;
}

void slinky_kube__exec_free(slinky_kube__exec *ex)
{
    if (ex == NULL)
        return;
    free(ex->command);
    for (char **p = ex->args; p && *p; p++)
        free(*p);
    free(ex->args);
    for (char **p = ex->env; p && *p; p++)
        free(*p);
    free(ex->env);
    free(ex->api_version);
    free(ex->install_hint);
    free(ex);
}

void slinky_kube__config_ref(slinky_kube_config *cfg)
{
    pthread_mutex_lock(&cfg->lock);
    cfg->refs++;
    pthread_mutex_unlock(&cfg->lock);
}

void slinky_kube_config_free(slinky_kube_config *cfg)
{
    if (cfg == NULL)
        return;
    pthread_mutex_lock(&cfg->lock);
    int left = --cfg->refs;
    pthread_mutex_unlock(&cfg->lock);
    if (left > 0)
        return;
    free(cfg->context);
    free(cfg->cluster);
    free(cfg->user);
    free(cfg->ns);
    free(cfg->server);
    free(cfg->ca);
    free(cfg->tls_server_name);
    free(cfg->proxy_url);
    free(cfg->cert);
    if (cfg->key)
        explicit_bzero(cfg->key, cfg->key_len);
    free(cfg->key);
    if (cfg->token)
        explicit_bzero(cfg->token, strlen(cfg->token));
    free(cfg->token);
    free(cfg->token_file);
    free(cfg->file_token);
    slinky_kube__exec_free(cfg->exec);
    slinky_kube__creds_dispose(&cfg->exec_creds);
    pthread_mutex_destroy(&cfg->lock);
    free(cfg);
}

#define GETTER(field)                                                                          \
    const char *slinky_kube_config_get_##field(const slinky_kube_config *cfg)                  \
    {                                                                                          \
        return (cfg && cfg->field) ? cfg->field : "";                                          \
    }
GETTER(server)
GETTER(context)
GETTER(cluster)
GETTER(user)

const char *slinky_kube_config_get_namespace(const slinky_kube_config *cfg)
{
    return (cfg && cfg->ns && *cfg->ns) ? cfg->ns : "default";
}

bool slinky_kube_config_is_in_cluster(const slinky_kube_config *cfg)
{
    return cfg && cfg->in_cluster;
}

/* ---------------------------------------------------------------- helpers */

static char *path_join(const char *dir, const char *p)
{
    if (p[0] == '/' || dir == NULL || *dir == '\0')
        return slinky__strdup(p);
    return slinky__sprintf("%s/%s", dir, p);
}

/* Absolute folder of a file path. */
static char *dir_of(const char *path)
{
    char *abs;
    if (path[0] == '/') {
        abs = slinky__strdup(path);
    } else {
        char cwd[PATH_MAX];
        if (getcwd(cwd, sizeof(cwd)) == NULL)
            return slinky__strdup(".");
        abs = slinky__sprintf("%s/%s", cwd, path);
    }
    if (abs == NULL)
        return NULL;
    char *slash = strrchr(abs, '/');
    if (slash == abs)
        slash[1] = '\0';
    else if (slash)
        *slash = '\0';
    return abs;
}

int slinky_kube__read_file_or(char **out, size_t *len, const char *path, const char *what)
{
    int err = slinky__read_file(out, len, path);
    if (err)
        slinky__error_prefix("%s: ", what);
    return err;
}

/* A string field: NULL when absent; EINVALID when present and not a string. */
static int str_field(const char **out, const slinky_doc_value *obj, const char *key,
                     const char *where)
{
    const slinky_doc_value *v = slinky_doc_value_get(obj, key);
    *out = NULL;
    if (v == NULL || slinky_doc_value_is_null(v))
        return 0;
    if (slinky_doc_value_type(v) != SLINKY_DOC_STRING)
        return slinky__error_set(SLINKY_EINVALID, "%s.%s: expected a string, got %s", where, key,
                                 slinky_doc_type_name(slinky_doc_value_type(v)));
    *out = slinky_doc_value_get_string(v);
    return 0;
}

static int bool_field(bool *out, const slinky_doc_value *obj, const char *key, const char *where)
{
    const slinky_doc_value *v = slinky_doc_value_get(obj, key);
    *out = false;
    if (v == NULL || slinky_doc_value_is_null(v))
        return 0;
    if (slinky_doc_value_type(v) != SLINKY_DOC_BOOL)
        return slinky__error_set(SLINKY_EINVALID, "%s.%s: expected a boolean", where, key);
    *out = slinky_doc_value_get_bool(v);
    return 0;
}

/* Resolve a relative path member in place. */
static int resolve_member(slinky_doc_value *obj, const char *key, const char *dir, bool only_if_slash)
{
    slinky_doc_value *v = slinky_doc_value_get(obj, key);
    const char *s = slinky_doc_value_get_string(v);
    if (s == NULL || *s == '\0' || s[0] == '/')
        return 0;
    if (only_if_slash && strchr(s, '/') == NULL)
        return 0;
    char *abs = path_join(dir, s);
    if (abs == NULL)
        return SLINKY_ENOMEM;
    int err = slinky_doc_value_set_string(v, abs);
    free(abs);
    return err;
}

/* ---------------------------------------------------------------- merging */

typedef struct merged {
    slinky_doc **docs;
    size_t ndocs;
    const slinky_doc_value *current_context; /* string value */
    slinky_kube__map clusters, users, contexts; /* name -> entry (inner object) */
    slinky_kube__map origin;                    /* "c:name" -> file name (unused values) */
} merged;

static void merged_dispose(merged *m)
{
    for (size_t i = 0; i < m->ndocs; i++)
        slinky_doc_free(m->docs[i]);
    free(m->docs);
    slinky_kube__map_dispose(&m->clusters, NULL);
    slinky_kube__map_dispose(&m->users, NULL);
    slinky_kube__map_dispose(&m->contexts, NULL);
}

static int merge_list(merged *m, slinky_kube__map *map, slinky_doc_value *root, const char *list,
                      const char *inner, const char *dir, const char *file)
{
    slinky_doc_value *arr = slinky_doc_value_get(root, list);
    if (arr == NULL || slinky_doc_value_is_null(arr))
        return 0;
    if (slinky_doc_value_type(arr) != SLINKY_DOC_ARRAY)
        return slinky__error_set(SLINKY_EINVALID, "%s: %s: expected a list", file, list);
    for (size_t i = 0; i < slinky_doc_value_size(arr); i++) {
        slinky_doc_value *e = slinky_doc_value_at(arr, i);
        if (slinky_doc_value_type(e) != SLINKY_DOC_OBJECT)
            return slinky__error_set(SLINKY_EINVALID, "%s: %s[%zu]: expected a mapping", file, list, i);
        const char *name = slinky_doc_value_path_string(e, "name", NULL);
        if (name == NULL || *name == '\0')
            return slinky__error_set(SLINKY_EINVALID, "%s: %s[%zu].name: missing", file, list, i);
        slinky_doc_value *in = slinky_doc_value_get(e, inner);
        if (in != NULL && !slinky_doc_value_is_null(in) &&
            slinky_doc_value_type(in) != SLINKY_DOC_OBJECT)
            return slinky__error_set(SLINKY_EINVALID, "%s: %s[%zu].%s: expected a mapping", file,
                                     list, i, inner);
        if (in && slinky_doc_value_type(in) == SLINKY_DOC_OBJECT) {
            int err = 0;
            if (strcmp(list, "clusters") == 0) {
                err = resolve_member(in, "certificate-authority", dir, false);
            } else if (strcmp(list, "users") == 0) {
                if (err == 0)
                    err = resolve_member(in, "client-certificate", dir, false);
                if (err == 0)
                    err = resolve_member(in, "client-key", dir, false);
                if (err == 0)
                    err = resolve_member(in, "tokenFile", dir, false);
                slinky_doc_value *ex = slinky_doc_value_get(in, "exec");
                if (err == 0 && slinky_doc_value_type(ex) == SLINKY_DOC_OBJECT)
                    err = resolve_member(ex, "command", dir, true);
            }
            if (err)
                return err;
        }
        if (slinky_kube__map_get(map, name) != NULL)
            continue; /* the first file to define a name wins */
        if (slinky_kube__map_put(map, name, in ? in : e, NULL) != 0)
            return SLINKY_ENOMEM;
    }
    return 0;
}

static int merge_doc(merged *m, slinky_doc *d, const char *file)
{
    slinky_doc **nd = slinky__realloc(m->docs, (m->ndocs + 1) * sizeof(*nd));
    if (nd == NULL) {
        slinky_doc_free(d);
        return SLINKY_ENOMEM;
    }
    m->docs = nd;
    m->docs[m->ndocs++] = d;
    slinky_doc_value *root = slinky_doc_root(d);
    if (slinky_doc_value_is_null(root))
        return 0; /* empty file */
    if (slinky_doc_value_type(root) != SLINKY_DOC_OBJECT)
        return slinky__error_set(SLINKY_EINVALID, "%s: a kubeconfig must be a mapping", file);
    char *dir = dir_of(file);
    if (dir == NULL)
        return SLINKY_ENOMEM;
    int err = merge_list(m, &m->clusters, root, "clusters", "cluster", dir, file);
    if (err == 0)
        err = merge_list(m, &m->users, root, "users", "user", dir, file);
    if (err == 0)
        err = merge_list(m, &m->contexts, root, "contexts", "context", dir, file);
    free(dir);
    if (err)
        return err;
    const slinky_doc_value *cc = slinky_doc_value_get(root, "current-context");
    if (cc && !slinky_doc_value_is_null(cc) && slinky_doc_value_type(cc) != SLINKY_DOC_STRING)
        return slinky__error_set(SLINKY_EINVALID, "%s: current-context: expected a string", file);
    if (m->current_context == NULL && slinky_doc_value_get_string(cc) && *slinky_doc_value_get_string(cc))
        m->current_context = cc;
    return 0;
}

static int merge_data(merged *m, const char *data, size_t len, const char *file)
{
    slinky_doc *d = NULL;
    int err = slinky_doc_parse_yaml(&d, data, len);
    if (err) {
        slinky__error_prefix("%s: ", file);
        return err;
    }
    return merge_doc(m, d, file);
}

static int merge_file(merged *m, const char *path, bool must_exist, bool *loaded)
{
    char *data = NULL;
    size_t len = 0;
    int err = slinky__read_file(&data, &len, path);
    if (err == SLINKY_ENOTFOUND && !must_exist) {
        slinky_error_clear();
        return 0;
    }
    if (err)
        return err;
    err = merge_data(m, data, len, path);
    free(data);
    if (err == 0)
        *loaded = true;
    return err;
}

/* ---------------------------------------------------------------- building */

static int set_str(char **dst, const char *s)
{
    if (s == NULL)
        return 0;
    *dst = slinky__strdup(s);
    return *dst ? 0 : SLINKY_ENOMEM;
}

static int load_exec(slinky_kube_config *cfg, const slinky_doc_value *ex, const char *where)
{
    slinky_kube__exec *e = slinky__calloc(1, sizeof(*e));
    if (e == NULL)
        return SLINKY_ENOMEM;
    cfg->exec = e;
    const char *s;
    int err;
    if ((err = str_field(&s, ex, "command", where)) != 0)
        return err;
    if (s == NULL || *s == '\0')
        return slinky__error_set(SLINKY_EINVALID, "%s.command: missing", where);
    if ((err = set_str(&e->command, s)) != 0)
        return err;
    if ((err = str_field(&s, ex, "apiVersion", where)) != 0)
        return err;
    if (s == NULL)
        s = "client.authentication.k8s.io/v1";
    if (strcmp(s, "client.authentication.k8s.io/v1") != 0 &&
        strcmp(s, "client.authentication.k8s.io/v1beta1") != 0)
        return slinky__error_set(SLINKY_EINVALID, "%s.apiVersion: unsupported \"%s\"", where, s);
    if ((err = set_str(&e->api_version, s)) != 0)
        return err;
    if ((err = str_field(&s, ex, "installHint", where)) != 0 || (err = set_str(&e->install_hint, s)))
        return err;
    if ((err = bool_field(&e->provide_cluster_info, ex, "provideClusterInfo", where)) != 0)
        return err;
    const slinky_doc_value *args = slinky_doc_value_get(ex, "args");
    size_t na = slinky_doc_value_size(args);
    if (args && !slinky_doc_value_is_null(args) && slinky_doc_value_type(args) != SLINKY_DOC_ARRAY)
        return slinky__error_set(SLINKY_EINVALID, "%s.args: expected a list", where);
    e->args = slinky__calloc(na + 1, sizeof(char *));
    if (e->args == NULL)
        return SLINKY_ENOMEM;
    for (size_t i = 0; i < na; i++) {
        const char *a = slinky_doc_value_get_string(slinky_doc_value_at(args, i));
        if (a == NULL)
            return slinky__error_set(SLINKY_EINVALID, "%s.args[%zu]: expected a string", where, i);
        if ((err = set_str(&e->args[i], a)) != 0)
            return err;
    }
    const slinky_doc_value *env = slinky_doc_value_get(ex, "env");
    size_t ne = slinky_doc_value_size(env);
    if (env && !slinky_doc_value_is_null(env) && slinky_doc_value_type(env) != SLINKY_DOC_ARRAY)
        return slinky__error_set(SLINKY_EINVALID, "%s.env: expected a list", where);
    e->env = slinky__calloc(ne + 1, sizeof(char *));
    if (e->env == NULL)
        return SLINKY_ENOMEM;
    for (size_t i = 0; i < ne; i++) {
        const slinky_doc_value *it = slinky_doc_value_at(env, i);
        const char *n = slinky_doc_value_path_string(it, "name", NULL);
        const char *v = slinky_doc_value_path_string(it, "value", NULL);
        if (n == NULL || *n == '\0' || strchr(n, '=') || v == NULL)
            return slinky__error_set(SLINKY_EINVALID, "%s.env[%zu]: needs a name and a value", where, i);
        e->env[i] = slinky__sprintf("%s=%s", n, v);
        if (e->env[i] == NULL)
            return SLINKY_ENOMEM;
    }
    return 0;
}

static int load_data_or_file(char **out, size_t *len, const slinky_doc_value *obj,
                             const char *data_key, const char *file_key, const char *where)
{
    const char *data, *file;
    int err;
    if ((err = str_field(&data, obj, data_key, where)) != 0 ||
        (err = str_field(&file, obj, file_key, where)) != 0)
        return err;
    if (data && *data) {
        char what[128];
        snprintf(what, sizeof(what), "%s.%s", where, data_key);
        return slinky_kube__base64_decode(out, len, data, what);
    }
    if (file && *file) {
        char what[128];
        snprintf(what, sizeof(what), "%s.%s", where, file_key);
        return slinky_kube__read_file_or(out, len, file, what);
    }
    return 0;
}

static int build_from_merged(slinky_kube_config **out, merged *m,
                             const slinky_kube_config_options *o)
{
    const char *ctxname = (o && o->context && *o->context)
                              ? o->context
                              : slinky_doc_value_get_string(m->current_context);
    if (ctxname == NULL || *ctxname == '\0')
        return slinky__error_set(SLINKY_ENOTFOUND, "kubeconfig: current-context is not set");
    const slinky_doc_value *ctx = slinky_kube__map_get(&m->contexts, ctxname);
    if (ctx == NULL)
        return slinky__error_set(SLINKY_ENOTFOUND, "kubeconfig: context \"%s\" not found", ctxname);
    char where[300];
    snprintf(where, sizeof(where), "contexts[%s].context", ctxname);
    const char *clname, *uname, *ns;
    int err;
    if ((err = str_field(&clname, ctx, "cluster", where)) != 0 ||
        (err = str_field(&uname, ctx, "user", where)) != 0 ||
        (err = str_field(&ns, ctx, "namespace", where)) != 0)
        return err;
    if (clname == NULL || *clname == '\0')
        return slinky__error_set(SLINKY_EINVALID, "%s.cluster: missing", where);
    const slinky_doc_value *cl = slinky_kube__map_get(&m->clusters, clname);
    if (cl == NULL)
        return slinky__error_set(SLINKY_ENOTFOUND, "kubeconfig: cluster \"%s\" (context \"%s\") not found",
                                 clname, ctxname);
    const slinky_doc_value *us = NULL;
    if (uname && *uname) {
        us = slinky_kube__map_get(&m->users, uname);
        if (us == NULL)
            return slinky__error_set(SLINKY_ENOTFOUND, "kubeconfig: user \"%s\" (context \"%s\") not found",
                                     uname, ctxname);
    }
    slinky_kube_config *cfg = slinky_kube__config_alloc();
    if (cfg == NULL)
        return SLINKY_ENOMEM;
    const char *s;
    snprintf(where, sizeof(where), "clusters[%s].cluster", clname);
    if ((err = set_str(&cfg->context, ctxname)) || (err = set_str(&cfg->cluster, clname)) ||
        (err = set_str(&cfg->user, uname ? uname : "")))
        goto fail;
    if ((err = set_str(&cfg->ns, (o && o->ns && *o->ns) ? o->ns : (ns ? ns : ""))) != 0)
        goto fail;
    if ((err = str_field(&s, cl, "server", where)) != 0)
        goto fail;
    if (s == NULL || *s == '\0') {
        err = slinky__error_set(SLINKY_EINVALID, "%s.server: missing", where);
        goto fail;
    }
    if (strncmp(s, "https://", 8) != 0 && strncmp(s, "http://", 7) != 0) {
        err = slinky__error_set(SLINKY_EINVALID, "%s.server: \"%s\" is not an http(s) URL", where, s);
        goto fail;
    }
    if ((err = set_str(&cfg->server, s)) != 0)
        goto fail;
    while (cfg->server[0] && cfg->server[strlen(cfg->server) - 1] == '/')
        cfg->server[strlen(cfg->server) - 1] = '\0';
    if ((err = bool_field(&cfg->insecure, cl, "insecure-skip-tls-verify", where)) != 0)
        goto fail;
    if ((err = str_field(&s, cl, "tls-server-name", where)) || (err = set_str(&cfg->tls_server_name, s)))
        goto fail;
    if ((err = str_field(&s, cl, "proxy-url", where)) || (err = set_str(&cfg->proxy_url, s)))
        goto fail;
    if ((err = load_data_or_file(&cfg->ca, &cfg->ca_len, cl, "certificate-authority-data",
                                 "certificate-authority", where)) != 0)
        goto fail;
    if (us) {
        snprintf(where, sizeof(where), "users[%s].user", uname);
        if ((err = load_data_or_file(&cfg->cert, &cfg->cert_len, us, "client-certificate-data",
                                     "client-certificate", where)) != 0 ||
            (err = load_data_or_file(&cfg->key, &cfg->key_len, us, "client-key-data",
                                     "client-key", where)) != 0)
            goto fail;
        if ((cfg->cert == NULL) != (cfg->key == NULL)) {
            err = slinky__error_set(SLINKY_EINVALID, "%s: client certificate and key must be given together",
                                    where);
            goto fail;
        }
        if ((err = str_field(&s, us, "token", where)) || (err = set_str(&cfg->token, s)))
            goto fail;
        if ((err = str_field(&s, us, "tokenFile", where)) || (err = set_str(&cfg->token_file, s)))
            goto fail;
        const slinky_doc_value *ex = slinky_doc_value_get(us, "exec");
        if (ex && !slinky_doc_value_is_null(ex)) {
            char w2[320];
            snprintf(w2, sizeof(w2), "%s.exec", where);
            if (slinky_doc_value_type(ex) != SLINKY_DOC_OBJECT) {
                err = slinky__error_set(SLINKY_EINVALID, "%s: expected a mapping", w2);
                goto fail;
            }
            if ((err = load_exec(cfg, ex, w2)) != 0)
                goto fail;
        }
    }
    *out = cfg;
    return 0;
fail:
    slinky_kube_config_free(cfg);
    return err;
}

slinky_status slinky_kube_config_parse(slinky_kube_config **out, const char *data, size_t len,
                                       const char *base_dir, const char *context)
{
    if (out == NULL || (data == NULL && len))
        return slinky__error_set(SLINKY_EINVALID, "slinky_kube_config_parse: NULL argument");
    merged m = {0};
    char *fake = NULL;
    if (base_dir)
        fake = slinky__sprintf("%s/kubeconfig", base_dir);
    int err = merge_data(&m, data ? data : "", len, fake ? fake : "kubeconfig");
    free(fake);
    if (err == 0) {
        slinky_kube_config_options o = {SLINKY_KUBE_CONFIG_OPTIONS_VERSION};
        o.context = context;
        err = build_from_merged(out, &m, &o);
    }
    merged_dispose(&m);
    return err;
}

/* ---------------------------------------------------------------- load */

slinky_status slinky_kube_config_load(slinky_kube_config **out, const slinky_kube_config_options *o)
{
    if (out == NULL)
        return slinky__error_set(SLINKY_EINVALID, "slinky_kube_config_load: NULL out");
    if (o && o->version != SLINKY_KUBE_CONFIG_OPTIONS_VERSION)
        return slinky__error_set(SLINKY_EINVALID, "kube config options: unknown version %u", o->version);
    if (o && o->in_cluster)
        return slinky_kube__config_in_cluster(out, o);
    merged m = {0};
    bool loaded = false;
    int err = 0;
    if (o && o->kubeconfig && *o->kubeconfig) {
        err = merge_file(&m, o->kubeconfig, true, &loaded);
    } else {
        const char *env = (o && o->kubeconfig_env) ? o->kubeconfig_env : getenv("KUBECONFIG");
        if (env && *env) {
            char *list = slinky__strdup(env);
            if (list == NULL) {
                err = SLINKY_ENOMEM;
            } else {
                /* dedupe: the same path twice counts once */
                char *seen[256];
                size_t nseen = 0;
                char *save = NULL;
                for (char *p = strtok_r(list, ":", &save); p && err == 0;
                     p = strtok_r(NULL, ":", &save)) {
                    bool dup = false;
                    for (size_t i = 0; i < nseen; i++)
                        if (strcmp(seen[i], p) == 0)
                            dup = true;
                    if (dup || *p == '\0')
                        continue;
                    if (nseen < SLINKY__ARRAY_SIZE(seen))
                        seen[nseen++] = p;
                    err = merge_file(&m, p, false, &loaded);
                }
                free(list);
            }
        } else {
            const char *home = (o && o->home) ? o->home : getenv("HOME");
            if (home && *home) {
                char *p = slinky__sprintf("%s/.kube/config", home);
                if (p == NULL)
                    err = SLINKY_ENOMEM;
                else
                    err = merge_file(&m, p, false, &loaded);
                free(p);
            }
        }
    }
    if (err == 0) {
        if (!loaded || (m.contexts.count == 0 && m.current_context == NULL)) {
            const char *host = getenv("KUBERNETES_SERVICE_HOST");
            if (host && *host && !(o && o->kubeconfig && *o->kubeconfig))
                err = slinky_kube__config_in_cluster(out, o);
            else
                err = slinky__error_set(SLINKY_ENOTFOUND,
                                        "no kubeconfig found (KUBECONFIG, ~/.kube/config) and not in a cluster");
        } else {
            err = build_from_merged(out, &m, o);
        }
    }
    merged_dispose(&m);
    return err;
}

