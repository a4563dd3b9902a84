/*
 * libslinky umbrella header: includes every public header.
 * Link with `pkg-config --cflags --libs libslinky` or CMake's slinky::slinky.
 */
#ifndef SLINKY_H
#define SLINKY_H

#include "slinky/common.h"
#include "slinky/error.h"
#include "slinky/version.h"
#include "slinky/core.h"
#include "slinky/doc.h"
#include "slinky/kube.h"
#include "slinky/model.h"
#include "slinky/conf.h"
#include "slinky/workload.h"
#include "slinky/ledger.h"
#include "slinky/jail.h"
#include "slinky/slurm.h"

#endif
