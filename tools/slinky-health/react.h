/* react: drain on failure, undrain what slinky-health drained (see react.c). */
#ifndef SLINKY_HEALTH_REACT_H
#define SLINKY_HEALTH_REACT_H

#include <slinky.h>

#include "health.h"

/* 0, or -1 when Slurm could not be read or changed; `said` tells what happened */
int react(slinky_slurm_client *cl, const char *node, const config *cfg, const result *res,
          char *said, size_t said_len);

#endif
