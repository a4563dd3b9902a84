/* kube: the in-cluster configuration (the pod's service account, as client-go's rest.InClusterConfig). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kube_internal.h"

#define SA_DIR "/var/run/secrets/kubernetes.io/serviceaccount"

int slinky_kube__config_in_cluster(slinky_kube_config **out, const slinky_kube_config_options *o)
{
    const char *host = getenv("KUBERNETES_SERVICE_HOST");
    const char *port = getenv("KUBERNETES_SERVICE_PORT");
    if (host == NULL || *host == '\0' || port == NULL || *port == '\0')
        return slinky__error_set(SLINKY_ENOTFOUND,
                                 "in-cluster config: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be set");
    const char *dir = (o && o->service_account_dir) ? o->service_account_dir : SA_DIR;
    slinky_kube_config *cfg = slinky_kube__config_alloc();
    if (cfg == NULL)
        return SLINKY_ENOMEM;
    int err = 0;
    cfg->in_cluster = true;
    cfg->server = strchr(host, ':') ? slinky__sprintf("https://[%s]:%s", host, port)
                                    : slinky__sprintf("https://%s:%s", host, port);
    cfg->token_file = slinky__sprintf("%s/token", dir);
    char *ca_path = slinky__sprintf("%s/ca.crt", dir);
    char *ns_path = slinky__sprintf("%s/namespace", dir);
    cfg->context = slinky__strdup("");
    cfg->cluster = slinky__strdup("");
    cfg->user = slinky__strdup("");
    if (!cfg->server || !cfg->token_file || !ca_path || !ns_path || !cfg->context ||
        !cfg->cluster || !cfg->user) {
        err = SLINKY_ENOMEM;
        goto done;
    }
    if (access(cfg->token_file, R_OK) != 0) {
        err = slinky__error_set_errno(SLINKY_ENOTFOUND, errno, "in-cluster config: %s", cfg->token_file);
        goto done;
    }
    if ((err = slinky_kube__read_file_or(&cfg->ca, &cfg->ca_len, ca_path, "in-cluster config")) != 0)
        goto done;
    char *nsdata = NULL;
    if (o && o->ns && *o->ns) {
        cfg->ns = slinky__strdup(o->ns);
    } else if (slinky__read_file(&nsdata, NULL, ns_path) == 0) {
        size_t n = strlen(nsdata);
        while (n && (nsdata[n - 1] == '\n' || nsdata[n - 1] == ' ' || nsdata[n - 1] == '\r'))
            nsdata[--n] = '\0';
        cfg->ns = nsdata;
    } else {
        slinky_error_clear();
        cfg->ns = slinky__strdup("default");
    }
    if (cfg->ns == NULL)
        err = SLINKY_ENOMEM;
done:
    free(ca_path);
    free(ns_path);
    if (err) {
        slinky_kube_config_free(cfg);
        return err;
    }
    *out = cfg;
    return 0;
}
