/* conf: the renderer's input taken from parsed Slinky resources (doc values). */
#include <stdlib.h>
#include <string.h>

#include "conf/conf_internal.h"
#include "slinky/doc.h"

static const char *str(const slinky_doc_value *v, const char *path)
{
    return slinky_doc_value_path_string(v, path, NULL);
}

static int kind_is(const slinky_doc_value *v, const char *kind)
{
    const char *k = str(v, "kind");
    return k && !strcmp(k, kind);
}

slinky_status slinky_conf_cluster_from_docs(slinky_conf_nodeset **nodesets_out,
                                            slinky_conf_cluster *c,
                                            const slinky_doc_value *controller,
                                            const slinky_doc_value *const *nodesets,
                                            size_t nodeset_count,
                                            const slinky_doc_value *accounting)
{
    if (!nodesets_out || !c || !controller || (nodeset_count && !nodesets))
        return slinky__error_set(SLINKY_EINVALID, "conf: cluster_from_docs: NULL argument");
    if (!kind_is(controller, "Controller"))
        return slinky__error_set(SLINKY_EINVALID, "conf: expected a Controller, got kind %s",
                                 str(controller, "kind") ? str(controller, "kind") : "(none)");
    const char *name = str(controller, "metadata.name");
    if (!name || !*name)
        return slinky__error_set(SLINKY_EINVALID, "conf: Controller: metadata.name is required");
    slinky_conf_nodeset *ns = slinky__calloc(nodeset_count ? nodeset_count : 1, sizeof(*ns));
    if (!ns)
        return SLINKY_ENOMEM;
    for (size_t i = 0; i < nodeset_count; i++) {
        const slinky_doc_value *v = nodesets[i];
        if (!kind_is(v, "NodeSet") || !str(v, "metadata.name")) {
            free(ns);
            return slinky__error_set(SLINKY_EINVALID,
                                     "conf: NodeSet %zu: expected kind NodeSet with metadata.name",
                                     i);
        }
        ns[i].name = str(v, "metadata.name");
        ns[i].hostname = str(v, "spec.template.spec.hostname");
        ns[i].partition_enabled = slinky_doc_value_path_bool(v, "spec.partition.enabled", false);
        ns[i].partition_config = str(v, "spec.partition.config");
        int64_t gpus = slinky_doc_value_path_int(v, "spec.slurmd.resources.limits[\"nvidia.com/gpu\"]", 0);
        ns[i].gpus = gpus > 0 ? (unsigned)gpus : 0;
    }
    slinky_conf_cluster d = SLINKY_CONF_CLUSTER_INIT;
    d.name = name;
    d.namespace_ = str(controller, "metadata.namespace");
    if (!d.namespace_)
        d.namespace_ = "";
    d.cluster_name = str(controller, "spec.clusterName");
    d.external = slinky_doc_value_path_bool(controller, "spec.external", false);
    d.external_host = str(controller, "spec.externalConfig.host");
    d.external_port = (int)slinky_doc_value_path_int(controller, "spec.externalConfig.port", 6817);
    d.ha_enabled = slinky_doc_value_path_bool(controller, "spec.ha.enabled", false);
    d.ha_backups = (int)slinky_doc_value_path_int(controller, "spec.ha.backups", -1);
    d.metrics_enabled = slinky_doc_value_path_bool(controller, "spec.metrics.enabled", false);
    d.jwks = str(controller, "spec.jwksKeyRef.name") != NULL;
    d.extra_conf = str(controller, "spec.extraConf");
    const char *aref = str(controller, "spec.accountingRef.name");
    if (accounting && kind_is(accounting, "Accounting"))
        d.accounting_name = str(accounting, "metadata.name");
    else if (aref && *aref && accounting)
        d.accounting_name = aref;
    d.nodesets = ns;
    d.nodeset_count = nodeset_count;
    *c = d;
    *nodesets_out = ns;
    return 0;
}
