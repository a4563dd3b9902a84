/*
 * libslinky jail module (public API). See ../shared/DESIGN.md.
 * (Being written: the declarations below are the whole public surface so far.)
 */
#ifndef SLINKY_JAIL_H
#define SLINKY_JAIL_H

#include "common.h"
#include "doc.h"

SLINKY_BEGIN_DECLS

SLINKY_END_DECLS

#endif
