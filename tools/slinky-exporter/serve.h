/* serve: the HTTP side (GET /metrics, GET /) on one IPv4 address and port. */
#ifndef SLINKY_EXPORTER_SERVE_H
#define SLINKY_EXPORTER_SERVE_H

#include "collect.h"

struct MHD_Daemon;
/* Start serving (port 0: any free port; the bound port in *port_out); NULL after printing why. */
struct MHD_Daemon *serve_start(exporter *e, const char *host, unsigned port, unsigned *port_out);

#endif
