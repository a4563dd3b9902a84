/* kube: well-known resources (built-in kinds the Slinky operator uses and the Slinky CRDs). */
#include <string.h>
#include <strings.h>

#include "kube_internal.h"

typedef struct known {
    const char *kind, *plural, *group, *version;
    bool namespaced;
} known;

static const known table[] = {
    {"ConfigMap", "configmaps", "", "v1", true},
    {"Secret", "secrets", "", "v1", true},
    {"Namespace", "namespaces", "", "v1", false},
    {"Pod", "pods", "", "v1", true},
    {"Service", "services", "", "v1", true},
    {"ServiceAccount", "serviceaccounts", "", "v1", true},
    {"Event", "events", "", "v1", true},
    {"Node", "nodes", "", "v1", false},
    {"Lease", "leases", "coordination.k8s.io", "v1", true},
    {"StatefulSet", "statefulsets", "apps", "v1", true},
    {"Deployment", "deployments", "apps", "v1", true},
    {"CustomResourceDefinition", "customresourcedefinitions", "apiextensions.k8s.io", "v1", false},
    {"NodeSet", "nodesets", "slinky.slurm.net", "v1beta1", true},
    {"Controller", "controllers", "slinky.slurm.net", "v1beta1", true},
    {"LoginSet", "loginsets", "slinky.slurm.net", "v1beta1", true},
    {"Accounting", "accountings", "slinky.slurm.net", "v1beta1", true},
    {"RestApi", "restapis", "slinky.slurm.net", "v1beta1", true},
    {"Token", "tokens", "slinky.slurm.net", "v1beta1", true},
};

static void fill(slinky_kube_resource *out, const known *k)
{
    out->group = k->group;
    out->version = k->version;
    out->resource = k->plural;
    out->namespaced = k->namespaced;
}

slinky_status slinky_kube_resource_lookup(slinky_kube_resource *out, const char *name)
{
    if (out == NULL || name == NULL)
        return slinky__error_set(SLINKY_EINVALID, "slinky_kube_resource_lookup: NULL argument");
    for (size_t i = 0; i < SLINKY__ARRAY_SIZE(table); i++) {
        if (strcmp(name, table[i].plural) == 0 || strcasecmp(name, table[i].kind) == 0 ||
            (strncasecmp(name, table[i].plural, strlen(table[i].plural)) == 0 &&
             name[strlen(table[i].plural)] == '.' &&
             strcmp(name + strlen(table[i].plural) + 1, table[i].group) == 0)) {
            fill(out, &table[i]);
            return 0;
        }
    }
    return slinky__error_set(SLINKY_ENOTFOUND, "unknown resource \"%s\"", name);
}

slinky_status slinky_kube_resource_for_kind(slinky_kube_resource *out, const char *api_version,
                                            const char *kind)
{
    if (out == NULL || api_version == NULL || kind == NULL)
        return slinky__error_set(SLINKY_EINVALID, "slinky_kube_resource_for_kind: NULL argument");
    const char *slash = strchr(api_version, '/');
    for (size_t i = 0; i < SLINKY__ARRAY_SIZE(table); i++) {
        const known *k = &table[i];
        if (strcmp(k->kind, kind) != 0)
            continue;
        size_t gl = slash ? (size_t)(slash - api_version) : 0;
        const char *ver = slash ? slash + 1 : api_version;
        if (strlen(k->group) == gl && strncmp(k->group, api_version, gl) == 0 &&
            strcmp(k->version, ver) == 0) {
            fill(out, k);
            return 0;
        }
    }
    return slinky__error_set(SLINKY_ENOTFOUND, "unknown kind %s %s", api_version, kind);
}
