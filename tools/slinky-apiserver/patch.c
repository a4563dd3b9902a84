/* Strategic merge patch for built-in kinds -- stub: JSON merge patch semantics. */
#include "apiserver.h"

int as_strategic_merge(slinky_doc_value *target, const slinky_doc_value *patch)
{
    return slinky_doc_merge_patch_apply(target, patch);
}
