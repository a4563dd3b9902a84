/* /openapi/v3 -- stub. */
#include "apiserver.h"

int as_openapi(as_server *s, as_resp *resp, const char *path)
{
    (void)s; (void)path;
    return as_resp_status(resp, 404, "NotFound", "the server could not find the requested resource", NULL);
}
