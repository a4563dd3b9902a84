/* libFuzzer: kubeconfig parsing (YAML, merge rules, base64 data, exec settings). No plugin is run. */
#include <stddef.h>
#include <stdint.h>

#include "slinky.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    slinky_kube_config *cfg = NULL;
    if (slinky_kube_config_parse(&cfg, (const char *)data, size, "/nonexistent", NULL) == 0) {
        (void)slinky_kube_config_get_server(cfg);
        (void)slinky_kube_config_get_namespace(cfg);
        slinky_kube_config_free(cfg);
    }
    return 0;
}
