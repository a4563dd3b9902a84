/* Persistence -- stub. */
#include "apiserver.h"

int as_wal_open(as_server *s, const char *dir)
{
    (void)s; (void)dir;
    return slinky__error_set(SLINKY_EUNSUPPORTED, "--data-dir is not supported yet");
}

int as_wal_append(as_server *s, int type, const as_rtype *rt, const as_obj *obj)
{
    (void)s; (void)type; (void)rt; (void)obj;
    return 0;
}

void as_wal_close(as_server *s)
{
    (void)s;
}
