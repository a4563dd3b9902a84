/*
 * collect: one scrape. Asks slurmrestd (through the slurm client) for ping,
 * diag, nodes, partitions and jobs, reads the health-check result files, and
 * writes every family in the Prometheus text format. A failed call leaves its
 * families out, counts slinky_exporter_scrape_errors_total{call} and sets
 * slinky_slurm_up 0; the rest of the scrape still goes out.
 *
 * Cardinality: node and partition labels are bounded by the cluster; users
 * beyond max_users (ranked by their job count, then by name) are folded into
 * user="other"; the job state label is the base state word (RUNNING,
 * PENDING...), never the flags. Free text (reasons, comments) is never a label.
 *
 * Threads: scrapes are serialized by the exporter's mutex.
 */
#ifndef SLINKY_EXPORTER_COLLECT_H
#define SLINKY_EXPORTER_COLLECT_H

#include <pthread.h>
#include <stdint.h>

#include <slinky.h>

#include "metrics.h"

enum { CALL_PING, CALL_DIAG, CALL_NODES, CALL_PARTITIONS, CALL_JOBS, CALL_HEALTH, CALL_COUNT };

typedef struct exporter {
    slinky_slurm_client *client;
    int max_users;          /* users with their own label (default 50) */
    const char *health_dir; /* slinky-health result files (<node>.tsv), or NULL */
    pthread_mutex_t mu;
    uint64_t scrapes;
    uint64_t errors[CALL_COUNT];
} exporter;

/* One scrape into `out` (appended). Returns the number of failed calls. */
int exporter_scrape(exporter *e, mbuf *out);

/* health: append the slinky_health_* families read from dir/<node>.tsv (0, or -1: unreadable dir)
 */
int health_results_collect(mbuf *out, const char *dir);

#endif
