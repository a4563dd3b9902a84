/* http.c: the libmicrohttpd server. */
#ifndef SLINKY_APISERVER_HTTP_H
#define SLINKY_APISERVER_HTTP_H

#include "handle.h"

typedef struct as_http as_http;

/** Listen on 127.0.0.1:port (0 = any free port; s->port gets the real one). TLS when cert_pem. */
int as_http_start(as_http **out, as_server *s, int port, const char *cert_pem,
                  const char *key_pem);
/** Wake every watch and stop serving. */
void as_http_stop(as_http *h, as_server *s);

#endif
