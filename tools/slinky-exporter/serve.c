/* serve: /metrics over HTTP with libmicrohttpd (one scrape per request, serialized). */
#include "serve.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <microhttpd.h>

static const char index_page[] =
    "<html><head><title>slinky-exporter</title></head><body><h1>slinky-exporter</h1>"
    "<p><a href=\"/metrics\">/metrics</a></p></body></html>\n";

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned code, const char *type,
                             void *data, size_t len, enum MHD_ResponseMemoryMode mode)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(len, data, mode);
    if (r == NULL)
        return MHD_NO;
    MHD_add_response_header(r, "Content-Type", type);
    enum MHD_Result ret = MHD_queue_response(conn, code, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn, const char *url,
                              const char *method, const char *version, const char *upload,
                              size_t *upload_size, void **ctx)
{
    exporter *e = cls;
    if (strcmp(method, "GET") && strcmp(method, "HEAD"))
        return reply(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain", "only GET\n", 9,
                     MHD_RESPMEM_PERSISTENT);
    if (!strcmp(url, "/"))
        return reply(conn, MHD_HTTP_OK, "text/html", (void *)index_page, sizeof(index_page) - 1,
                     MHD_RESPMEM_PERSISTENT);
    if (strcmp(url, "/metrics"))
        return reply(conn, MHD_HTTP_NOT_FOUND, "text/plain", "not found\n", 10,
                     MHD_RESPMEM_PERSISTENT);
    mbuf b = {0};
    exporter_scrape(e, &b);
    if (b.failed) {
        mbuf_dispose(&b);
        return reply(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "text/plain", "out of memory\n", 14,
                     MHD_RESPMEM_PERSISTENT);
    }
    /* MHD frees the buffer with free() */
    return reply(conn, MHD_HTTP_OK, "text/plain; version=0.0.4; charset=utf-8",
                 b.data ? b.data : strdup(""), b.len, MHD_RESPMEM_MUST_FREE);
}

struct MHD_Daemon *serve_start(exporter *e, const char *host, unsigned port, unsigned *port_out)
{
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)port);
    if (inet_pton(AF_INET, host, &sa.sin_addr) != 1) {
        fprintf(stderr, "slinky-exporter: --listen: '%s' is not an IPv4 address\n", host);
        return NULL;
    }
    struct MHD_Daemon *d =
        MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG, (uint16_t)port, NULL,
                         NULL, handle, e, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
                         MHD_OPTION_CONNECTION_TIMEOUT, 30u, MHD_OPTION_END);
    if (d == NULL) {
        fprintf(stderr, "slinky-exporter: cannot listen on %s:%u\n", host, port);
        return NULL;
    }
    *port_out = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT)->port;
    return d;
}
