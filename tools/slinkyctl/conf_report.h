/* slinkyctl conf: the static-check report printed for people (conf_report.c). */
#ifndef SLINKYCTL_CONF_REPORT_H
#define SLINKYCTL_CONF_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "slinky.h"

/* How findings are named: lines [first_line, first_line + line_count) of the
 * checked file are reported as lines of fragment_name (spec.extraConf inside
 * a rendered slurm.conf); the others under file_name when it is set. */
typedef struct slinkyctl_report_map {
    slinky_conf_kind kind;
    unsigned version;
    const char *file_name;
    const char *fragment_name;
    long first_line, line_count;
} slinkyctl_report_map;

/* Print `report` (slinky_conf_check's) sorted and cleaned; the error count, -1 on OOM. */
int slinkyctl_conf_report(FILE *out, const char *report, const slinkyctl_report_map *map);
/* Parse `text` as `filename`, check it and print the report; the error count. */
int slinkyctl_conf_check_text(FILE *out, const char *text, const char *filename,
                              const slinkyctl_report_map *map);
/* A known key one edit away from `key` into `out`; false when there is none. */
bool slinkyctl_conf_suggest(char *out, size_t outlen, slinky_conf_kind kind, const char *key,
                            unsigned version);
/* What makes a value unwritable on one slurm.conf line ("a line break"), or NULL. */
const char *slinkyctl_conf_bad_value(const char *value, size_t len);

/* Exit code of a set refused by the static check. */
#define SLINKYCTL_EXIT_INVALID 4

#endif
