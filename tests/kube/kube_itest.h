/* kube integration tests: start slinky-apiserver on loopback (TLS + token) and run kubectl. */
#ifndef SLINKY_KUBE_ITEST_H
#define SLINKY_KUBE_ITEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "slinky.h"

/* Fail the cmocka test with the library's message unless x returns 0. */
#define OK(x)                                                                                  \
    do {                                                                                       \
        int _e = (x);                                                                          \
        if (_e != 0)                                                                           \
            fail_msg("%s: %d %s", #x, _e, slinky_error_last()->message);                     \
    } while (0)

typedef struct itest_server {
    char dir[256];
    slinky_kube_client *client;
    slinky_kube_config *cfg;
} itest_server;

static inline const char *itest_env(const char *name, const char *fallback)
{
    const char *v = getenv(name);
    return (v && *v) ? v : fallback;
}

/* Start a server with extra flags (may be ""). Returns 0 or -1 (message on stderr). */
static inline int itest_server_start(itest_server *s, const char *flags)
{
    memset(s, 0, sizeof(*s));
    snprintf(s->dir, sizeof(s->dir), "/tmp/slinky-kube-itest-XXXXXX");
    if (mkdtemp(s->dir) == NULL)
        return -1;
    char cmd[4096];
    snprintf(cmd, sizeof(cmd), "sh '%s/tests/apiserver/start-apiserver.sh' '%s' --crd-dir '%s/upstream/slinky/crds' %s",
             itest_env("SLINKY_SOURCE_DIR", "."), s->dir, itest_env("SLINKY_SHARED_DIR", "../shared"),
             flags ? flags : "");
    if (system(cmd) != 0) {
        fprintf(stderr, "itest: could not start slinky-apiserver: %s\n", cmd);
        return -1;
    }
    char kc[512];
    snprintf(kc, sizeof(kc), "%s/kubeconfig", s->dir);
    slinky_kube_config_options o = SLINKY_KUBE_CONFIG_OPTIONS_INIT;
    o.kubeconfig = kc;
    if (slinky_kube_config_load(&s->cfg, &o) != 0 || slinky_kube_client_new(&s->client, s->cfg, NULL) != 0) {
        fprintf(stderr, "itest: client: %s\n", slinky_error_last()->message);
        return -1;
    }
    return 0;
}

static inline void itest_server_stop(itest_server *s)
{
    slinky_kube_client_free(s->client);
    slinky_kube_config_free(s->cfg);
    s->client = NULL;
    s->cfg = NULL;
    char cmd[1024];
    snprintf(cmd, sizeof(cmd), "sh '%s/tests/apiserver/stop-apiserver.sh' '%s'; rm -rf '%s'",
             itest_env("SLINKY_SOURCE_DIR", "."), s->dir, s->dir);
    if (system(cmd) != 0)
        fprintf(stderr, "itest: stop failed\n");
}

/* Run kubectl against the server; returns its exit status. */
static inline int itest_kubectl(itest_server *s, const char *args)
{
    char cmd[8192];
    snprintf(cmd, sizeof(cmd), "/usr/bin/kubectl --kubeconfig '%s/kubeconfig' --cache-dir '%s/cache' %s >>'%s/kubectl.log' 2>&1",
             s->dir, s->dir, args, s->dir);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* kubectl apply -f - of a JSON manifest (no single quotes in it). kubectl's
 * create subcommands send protobuf, which slinky-apiserver does not read. */
static inline int itest_kubectl_apply(itest_server *s, const char *json)
{
    char cmd[8192];
    snprintf(cmd, sizeof(cmd), "printf '%%s' '%s' | /usr/bin/kubectl --kubeconfig '%s/kubeconfig' --cache-dir '%s/cache' apply -f - >>'%s/kubectl.log' 2>&1",
             json, s->dir, s->dir, s->dir);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Parse JSON text into a document (aborts the test on failure). */
static inline slinky_doc *itest_json(const char *json)
{
    slinky_doc *d = NULL;
    if (slinky_doc_parse_json(&d, json, strlen(json)) != 0) {
        fprintf(stderr, "bad test JSON: %s\n", slinky_error_last()->message);
        abort();
    }
    return d;
}

#endif
