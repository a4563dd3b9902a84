/*
 * slinky-apiserver: a local Kubernetes API server for development and tests.
 * See README.md beside this file for flags and endpoints.
 */
#include "http.h"
#include "server.h"
#include "tls.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include <slinky/core.h>

static void usage(FILE *f)
{
    fprintf(f,
            "usage: slinky-apiserver [options]\n"
            "  --port N               listen on 127.0.0.1:N (default 0: a free port)\n"
            "  --port-file F          write the port to F once serving\n"
            "  --token-file F         bearer tokens, one per line (token[,user,...]);\n"
            "                         created with a random token when missing\n"
            "  --kubeconfig F         write a ready-to-use kubeconfig to F\n"
            "  --ca-file F            write the CA certificate (PEM) to F\n"
            "  --insecure-http        plain HTTP, no authentication (loopback only)\n"
            "  --tls-cert F --tls-key F [--tls-ca F]\n"
            "                         serve this certificate instead of a generated one\n"
            "  --crd-dir DIR          register every CRD file (*.yaml, *.yml, *.json) in DIR\n"
            "  --data-dir DIR         keep objects across restarts (fsync'd write-ahead log)\n"
            "  --history N            watch history window in events (default 10000)\n"
            "  --bookmark-interval MS interval of watch BOOKMARK events (default 5000)\n"
            "  --enable-faults        serve the fault-injection admin endpoint /admin/faults\n"
            "  --log-requests         log one line per request (method, path, query, status)\n"
            "  --admin-token-file F   its bearer token (created when missing)\n"
            "  --max-body-bytes N     largest request body and stored object (default 3 MiB)\n"
            "  --read-timeout S       drop a connection idle S seconds, watches excepted\n"
            "                         (default 20; 0: never)\n"
            "  --max-requests-per-client N\n"
            "                         requests in flight per token, 429 beyond (default 1000;\n"
            "                         0: no cap)\n"
            "  --wal-compact-bytes N  compact the log (new snapshot) once it is bigger than N\n"
            "                         and than the live data (default 64 KiB)\n"
            "  --authorization-mode M AlwaysAllow (default) or RBAC: ServiceAccount tokens may\n"
            "                         do what their (Cluster)RoleBindings allow, others 403\n");
}

/* A non-negative decimal without overflow; -1 when it is not one. */
static long parse_count(const char *text)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || end == text || *end || v < 0)
        return -1;
    return v;
}

static char *read_all(const char *path)
{
    char *data = NULL;
    size_t len = 0;
    if (as_read_file(&data, &len, path) != 0)
        return NULL;
    return data;
}

static char *random_token(void)
{
    unsigned char b[24];
    if (getrandom(b, sizeof(b), 0) != (ssize_t)sizeof(b))
        return NULL;
    char *t = as_malloc(sizeof(b) * 2 + 1);
    if (!t)
        return NULL;
    for (size_t i = 0; i < sizeof(b); i++)
        snprintf(t + 2 * i, 3, "%02x", b[i]);
    return t;
}

/* token file: one token per line, optionally followed by ",user,uid,..." */
static int load_tokens(as_server *s, const char *path, char ***tokens, size_t *n)
{
    char *data = read_all(path);
    if (!data) {
        if (slinky_error_last()->code != SLINKY_ENOTFOUND)
            return SLINKY_EIO;
        char *t = random_token();
        if (!t)
            return SLINKY_EIO;
        char *line = as_sprintf("%s\n", t);
        int rc = as_write_file_atomic(path, line, strlen(line), 0600);
        free(line);
        if (rc) {
            free(t);
            return rc;
        }
        *tokens = as_calloc(1, sizeof(char *));
        (*tokens)[0] = t;
        *n = 1;
        return 0;
    }
    (void)s;
    char *save = NULL;
    for (char *line = strtok_r(data, "\r\n", &save); line; line = strtok_r(NULL, "\r\n", &save)) {
        while (*line == ' ' || *line == '\t')
            line++;
        if (!*line || *line == '#')
            continue;
        char *comma = strchr(line, ',');
        if (comma)
            *comma = '\0';
        size_t l = strlen(line);
        while (l && (line[l - 1] == ' ' || line[l - 1] == '\t'))
            line[--l] = '\0';
        char **nt = realloc(*tokens, (*n + 1) * sizeof(*nt));
        if (!nt)
            break;
        *tokens = nt;
        (*tokens)[(*n)++] = as_strdup(line);
    }
    free(data);
    if (*n == 0)
        return slinky_error_set(SLINKY_EINVALID, "%s: no token in the token file", path);
    return 0;
}

static int write_kubeconfig(const char *path, const as_server *s, const char *token)
{
    as_buf b = AS_BUF_INIT;
    as_buf_printf(&b,
                       "apiVersion: v1\nkind: Config\nclusters:\n- name: slinky\n  cluster:\n"
                       "    server: %s://127.0.0.1:%d\n",
                       s->insecure ? "http" : "https", s->port);
    if (s->ca_pem) {
        char *ca = as_base64(s->ca_pem, strlen(s->ca_pem), false);
        as_buf_printf(&b, "    certificate-authority-data: %s\n", ca ? ca : "");
        free(ca);
    }
    as_buf_printf(&b,
                       "contexts:\n- name: slinky\n  context:\n    cluster: slinky\n"
                       "    user: slinky\n    namespace: default\ncurrent-context: slinky\n"
                       "users:\n- name: slinky\n  user:\n    token: %s\npreferences: {}\n",
                       token ? token : "");
    int rc = as_write_file_atomic(path, b.data, b.len, 0600);
    as_buf_dispose(&b);
    return rc;
}

/* POST a document through the normal request path (startup objects, --crd-dir) */
static int post_object(as_server *s, const char *path, const slinky_doc_value *obj)
{
    char *json = NULL;
    size_t len = 0;
    if (slinky_doc_value_dump_json(&json, &len, obj, 0) != 0)
        return -1;
    as_req req = {0};
    req.method = "POST";
    req.path = path;
    req.content_type = "application/json";
    req.body = json;
    req.body_len = len;
    as_resp resp = {0};
    as_handle(s, &req, &resp);
    int code = resp.status;
    if (code != 201 && code != 409)
        fprintf(stderr, "slinky-apiserver: POST %s: %d %s\n", path, code,
                resp.body.data ? resp.body.data : "");
    as_buf_dispose(&resp.body);
    as_resp_items_release(&resp);
    free(resp.warning);
    slinky_free(json);
    return code == 201 || code == 409 ? 0 : -1;
}

static int load_crd_dir(as_server *s, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "slinky-apiserver: --crd-dir %s: %s\n", dir, strerror(errno));
        return -1;
    }
    struct dirent *e;
    int rc = 0;
    char **names = NULL;
    size_t n = 0;
    while ((e = readdir(d))) {
        const char *dot = strrchr(e->d_name, '.');
        if (!dot || (strcmp(dot, ".yaml") && strcmp(dot, ".yml") && strcmp(dot, ".json")))
            continue;
        char **nn = realloc(names, (n + 1) * sizeof(*nn));
        if (!nn)
            break;
        names = nn;
        names[n++] = as_strdup(e->d_name);
    }
    closedir(d);
    for (size_t i = 0; i < n; i++) {
        char *path = as_sprintf("%s/%s", dir, names[i]);
        char *data = path ? read_all(path) : NULL;
        slinky_doc *doc = NULL;
        if (!data || slinky_doc_parse_yaml_all(&doc, data, strlen(data)) != 0) {
            fprintf(stderr, "slinky-apiserver: %s: %s\n", path, slinky_error_last()->message);
            rc = -1;
        } else {
            const slinky_doc_value *root = slinky_doc_root(doc);
            for (size_t j = 0; j < slinky_doc_value_size(root); j++) {
                const slinky_doc_value *o = slinky_doc_value_at(root, j);
                if (strcmp(slinky_doc_value_path_string(o, "kind", ""),
                           "CustomResourceDefinition") != 0)
                    continue;
                if (post_object(s, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", o))
                    rc = -1;
            }
        }
        slinky_doc_free(doc);
        free(data);
        free(path);
        free(names[i]);
    }
    free(names);
    return rc;
}

static int create_namespaces(as_server *s)
{
    static const char *const names[] = {"default", "kube-system", "kube-public",
                                        "kube-node-lease"};
    for (size_t i = 0; i < AS_ARRAY_SIZE(names); i++) {
        slinky_doc *d = NULL;
        char *json = as_sprintf("{\"apiVersion\":\"v1\",\"kind\":\"Namespace\","
                                     "\"metadata\":{\"name\":\"%s\"}}",
                                     names[i]);
        if (!json || slinky_doc_parse_json(&d, json, strlen(json)) != 0) {
            free(json);
            return -1;
        }
        free(json);
        as_rtype *nrt = as_registry_find_gr(s, "", "namespaces");
        bool exists = nrt && as_store_get(nrt, "", names[i]);
        int rc = exists ? 0 : post_object(s, "/api/v1/namespaces", slinky_doc_root(d));
        slinky_doc_free(d);
        if (rc)
            return rc;
    }
    return 0;
}

static int write_port_file(const char *path, int port)
{
    char b[32];
    int n = snprintf(b, sizeof(b), "%d\n", port);
    return as_write_file_atomic(path, b, (size_t)n, 0644);
}

int main(int argc, char **argv)
{
    enum {
        O_PORT = 1000, O_PORT_FILE, O_TOKEN_FILE, O_KUBECONFIG, O_INSECURE, O_CERT, O_KEY,
        O_CA, O_CRD_DIR, O_DATA_DIR, O_HISTORY, O_BOOKMARK, O_FAULTS, O_ADMIN_TOKEN, O_HELP, O_CA_FILE, O_LOG,
        O_MAX_BODY, O_READ_TIMEOUT, O_MAX_PER_CLIENT, O_COMPACT, O_AUTHZ
    };
    static const struct option opts[] = {
        {"port", required_argument, NULL, O_PORT},
        {"port-file", required_argument, NULL, O_PORT_FILE},
        {"token-file", required_argument, NULL, O_TOKEN_FILE},
        {"kubeconfig", required_argument, NULL, O_KUBECONFIG},
        {"insecure-http", no_argument, NULL, O_INSECURE},
        {"tls-cert", required_argument, NULL, O_CERT},
        {"tls-key", required_argument, NULL, O_KEY},
        {"tls-ca", required_argument, NULL, O_CA},
        {"crd-dir", required_argument, NULL, O_CRD_DIR},
        {"data-dir", required_argument, NULL, O_DATA_DIR},
        {"history", required_argument, NULL, O_HISTORY},
        {"bookmark-interval", required_argument, NULL, O_BOOKMARK},
        {"enable-faults", no_argument, NULL, O_FAULTS},
        {"admin-token-file", required_argument, NULL, O_ADMIN_TOKEN},
        {"help", no_argument, NULL, O_HELP},
        {"ca-file", required_argument, NULL, O_CA_FILE},
        {"log-requests", no_argument, NULL, O_LOG},
        {"max-body-bytes", required_argument, NULL, O_MAX_BODY},
        {"read-timeout", required_argument, NULL, O_READ_TIMEOUT},
        {"max-requests-per-client", required_argument, NULL, O_MAX_PER_CLIENT},
        {"wal-compact-bytes", required_argument, NULL, O_COMPACT},
        {"authorization-mode", required_argument, NULL, O_AUTHZ},
        {NULL, 0, NULL, 0}};
    int port = 0;
    const char *port_file = NULL, *token_file = NULL, *kubeconfig = NULL, *cert_file = NULL;
    const char *key_file = NULL, *ca_file = NULL, *crd_dir = NULL, *data_dir = NULL;
    const char *admin_token_file = NULL, *ca_out = NULL;
    bool insecure = false, faults = false, log_requests = false;
    long history = 10000, bookmark = 5000;
    long max_body = 3L * 1024 * 1024, read_timeout = 20, max_per_client = 1000;
    long compact = 64L * 1024;
    bool rbac = false;
    int c;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case O_PORT:
            port = atoi(optarg);
            break;
        case O_PORT_FILE:
            port_file = optarg;
            break;
        case O_TOKEN_FILE:
            token_file = optarg;
            break;
        case O_KUBECONFIG:
            kubeconfig = optarg;
            break;
        case O_INSECURE:
            insecure = true;
            break;
        case O_CERT:
            cert_file = optarg;
            break;
        case O_KEY:
            key_file = optarg;
            break;
        case O_CA:
            ca_file = optarg;
            break;
        case O_CRD_DIR:
            crd_dir = optarg;
            break;
        case O_DATA_DIR:
            data_dir = optarg;
            break;
        case O_HISTORY:
            history = atol(optarg);
            break;
        case O_BOOKMARK:
            bookmark = atol(optarg);
            break;
        case O_FAULTS:
            faults = true;
            break;
        case O_ADMIN_TOKEN:
            admin_token_file = optarg;
            break;
        case O_LOG:
            log_requests = true;
            break;
        case O_MAX_BODY:
            max_body = parse_count(optarg);
            break;
        case O_READ_TIMEOUT:
            read_timeout = parse_count(optarg);
            break;
        case O_MAX_PER_CLIENT:
            max_per_client = parse_count(optarg);
            break;
        case O_COMPACT:
            compact = parse_count(optarg);
            break;
        case O_AUTHZ:
            if (strcmp(optarg, "RBAC") && strcmp(optarg, "AlwaysAllow")) {
                usage(stderr);
                return 2;
            }
            rbac = !strcmp(optarg, "RBAC");
            break;
        case O_CA_FILE:
            ca_out = optarg;
            break;
        case O_HELP:
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (optind < argc || (cert_file && !key_file) || (!cert_file && key_file) || history < 10 ||
        bookmark < 10 || port < 0 || port > 65535 || max_body < 1024 || history < 0 || read_timeout < 0 ||
        read_timeout > 86400 || max_per_client < 0 || max_per_client > 1000000 || compact < 0) {
        usage(stderr);
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    slinky_global_init();
    as_server s;
    if (as_server_init(&s, (size_t)history) != 0) {
        fprintf(stderr, "slinky-apiserver: init failed\n");
        return 1;
    }
    s.insecure = insecure;
    s.bookmark_interval_ms = (unsigned)bookmark;
    s.faults_enabled = faults;
    s.log_requests = log_requests;
    s.max_body = (size_t)max_body;
    s.read_timeout_s = (unsigned)read_timeout;
    s.max_per_client = (unsigned)max_per_client;
    s.compact_bytes = (size_t)compact;
    s.rbac = rbac;
    if (token_file && load_tokens(&s, token_file, &s.tokens, &s.n_tokens) != 0) {
        fprintf(stderr, "slinky-apiserver: --token-file %s: %s\n", token_file,
                slinky_error_last()->message);
        return 1;
    }
    if (!token_file && !insecure) {
        s.tokens = as_calloc(1, sizeof(char *));
        s.tokens[0] = random_token();
        s.n_tokens = 1;
    }
    s.inflight = as_calloc(s.n_tokens ? s.n_tokens : 1, sizeof(*s.inflight));
    if (faults) {
        if (admin_token_file) {
            char **t = NULL;
            size_t n = 0;
            if (load_tokens(&s, admin_token_file, &t, &n) != 0) {
                fprintf(stderr, "slinky-apiserver: --admin-token-file %s: %s\n",
                        admin_token_file, slinky_error_last()->message);
                return 1;
            }
            s.admin_token = t[0];
            for (size_t i = 1; i < n; i++)
                free(t[i]);
            free(t);
        } else {
            s.admin_token = random_token();
            fprintf(stderr, "slinky-apiserver: admin token %s\n", s.admin_token);
        }
    }
    char *cert = NULL, *key = NULL;
    if (!insecure) {
        if (cert_file) {
            cert = read_all(cert_file);
            key = read_all(key_file);
            s.ca_pem = ca_file ? read_all(ca_file) : NULL;
            if (!cert || !key || (ca_file && !s.ca_pem)) {
                fprintf(stderr, "slinky-apiserver: reading the TLS files: %s\n",
                        slinky_error_last()->message);
                return 1;
            }
        } else if (as_tls_generate(&s.ca_pem, &cert, &key) != 0) {
            fprintf(stderr, "slinky-apiserver: generating certificates: %s\n",
                    slinky_error_last()->message);
            return 1;
        }
    }
    if (data_dir && as_server_open_data(&s, data_dir) != 0) {
        fprintf(stderr, "slinky-apiserver: --data-dir %s: %s\n", data_dir,
                slinky_error_last()->message);
        return 1;
    }
    if (create_namespaces(&s) != 0)
        return 1;
    if (crd_dir && load_crd_dir(&s, crd_dir) != 0)
        return 1;
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    as_http *http = NULL;
    if (as_http_start(&http, &s, port, cert, key) != 0) {
        fprintf(stderr, "slinky-apiserver: %s\n", slinky_error_last()->message);
        return 1;
    }
    if (kubeconfig && write_kubeconfig(kubeconfig, &s, s.n_tokens ? s.tokens[0] : NULL) != 0) {
        fprintf(stderr, "slinky-apiserver: --kubeconfig %s: %s\n", kubeconfig,
                slinky_error_last()->message);
        return 1;
    }
    if (ca_out && s.ca_pem &&
        as_write_file_atomic(ca_out, s.ca_pem, strlen(s.ca_pem), 0644) != 0) {
        fprintf(stderr, "slinky-apiserver: --ca-file %s: %s\n", ca_out,
                slinky_error_last()->message);
        return 1;
    }
    if (port_file && write_port_file(port_file, s.port) != 0) {
        fprintf(stderr, "slinky-apiserver: --port-file %s: %s\n", port_file,
                slinky_error_last()->message);
        return 1;
    }
    fprintf(stderr, "slinky-apiserver: serving %s://127.0.0.1:%d\n", insecure ? "http" : "https",
            s.port);
    int sig = 0;
    sigwait(&set, &sig);
    fprintf(stderr, "slinky-apiserver: signal %d, stopping\n", sig);
    as_http_stop(http, &s);
    as_fault_free_all(&s);
    as_server_dispose(&s);
    free(cert);
    free(key);
    slinky_global_shutdown();
    return 0;
}
