/* model: the CRD manifests generated from the schema source. */
#include <string.h>

#include "model/internal.h"

SLINKY_API slinky_status slinky_model_crd_dump(char **yaml_out, const char *kind)
{
    slinky__buf b = SLINKY__BUF_INIT;
    if (!yaml_out)
        return slinky__error_set(SLINKY_EINVALID, "model: NULL argument");
    if (kind) {
        const slinky_model__kind_info *k =
            slinky_model__kind_info_of(slinky_model_kind_lookup(kind));
        if (!k || !k->crd_yaml)
            return slinky__error_set(SLINKY_ENOTFOUND, "model: no Slinky CRD for \"%s\"", kind);
        slinky__buf_puts(&b, k->crd_yaml);
    } else {
        for (size_t i = 0; i < slinky_model__n_kinds; i++)
            if (slinky_model__kinds[i].crd_yaml)
                slinky__buf_puts(&b, slinky_model__kinds[i].crd_yaml);
    }
    return slinky__buf_finish(yaml_out, NULL, &b);
}
