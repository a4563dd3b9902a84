/* Fault injection -- stub. */
#include "apiserver.h"

int as_fault_admin(as_server *s, const as_req *req, as_resp *resp)
{
    (void)s; (void)req;
    return as_resp_status(resp, 404, "NotFound", "fault injection not built", NULL);
}

bool as_fault_check(as_server *s, const as_req *req, as_resp *resp, unsigned *delay_ms)
{
    (void)s; (void)req; (void)resp; (void)delay_ms;
    return false;
}
