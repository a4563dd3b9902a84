/* conf module: key catalogue types (internal). */
#ifndef SLINKY_CONF_CATALOG_H
#define SLINKY_CONF_CATALOG_H

#include <stddef.h>

#include "slinky/conf.h"

typedef struct slinky_conf__key {
    int kind;          /* slinky_conf_kind */
    const char *scope; /* "global", "NodeName", "PartitionName", ... */
    const char *name;
} slinky_conf__key;

typedef struct slinky_conf__restart {
    int kind;
    const char *scope;
    const char *name;     /* "*" = any change of such a record */
    const char *option;   /* "" = the parameter itself, else a sub-option */
    int klass;            /* slinky_conf_change_class */
    const char *sentence; /* the man page's own words */
} slinky_conf__restart;

extern const slinky_conf__key slinky_conf__keys_2205[];
extern const size_t slinky_conf__keys_2205_count;
extern const slinky_conf__restart slinky_conf__restarts_2205[];
extern const size_t slinky_conf__restarts_2205_count;

#endif
