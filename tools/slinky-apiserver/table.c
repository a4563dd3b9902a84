/* Table output (meta.k8s.io/v1 Table) -- stub until the table renderer lands. */
#include "apiserver.h"

bool as_wants_table(const as_req *req)
{
    (void)req;
    return false;
}

int as_table_render(slinky__buf *out, as_server *s, as_rtype *rt, const char *version,
                    as_obj **items, size_t n, const char *list_meta_json)
{
    (void)out; (void)s; (void)rt; (void)version; (void)items; (void)n; (void)list_meta_json;
    return 0;
}
