/*
 * slinky-health: node, storage and fabric checks, each with a result
 * (pass/warn/fail/skip/timeout), a measured value and the threshold it was
 * held to, configured one check per line (config.c). Each check runs in a
 * child process killed at its timeout (run.c); failures drain the node
 * through the slurm client and a clean pass undrains only what slinky-health
 * drained (react.c).
 */
#ifndef SLINKY_HEALTH_H_
#define SLINKY_HEALTH_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum { R_PASS, R_WARN, R_FAIL, R_SKIP, R_TIMEOUT } result_kind;

typedef enum {
    K_NODE_CPUS,
    K_NODE_MEMORY,
    K_NODE_GPUS,
    K_NODE_LOAD,
    K_STORAGE_MOUNTED,
    K_STORAGE_WRITABLE,
    K_STORAGE_FREE,
    K_STORAGE_INODES,
    K_STORAGE_LATENCY,
    K_FABRIC_IB,
    K_FABRIC_TCP,
    K_EXEC,
    K_COUNT
} check_kind;

/* a threshold as written ("10G", "5%", "50ms") and its value (bytes, fraction, ms or a count) */
typedef struct threshold {
    bool set;
    bool percent;
    double v;
    char text[32];
} threshold;

typedef struct check {
    check_kind kind;
    char name[96];     /* "storage_free:/tmp" unless name= */
    char path[256];    /* path= / target= / command= */
    threshold fail_at; /* min_free, max, count, min_rate (by kind) */
    threshold warn_at;
    double timeout_ms; /* timeout= (default 10 s) */
    int line;
} check;

typedef struct config {
    check *v;
    size_t n;
} config;

typedef struct result {
    result_kind kind;
    double value; /* NaN when none */
    char value_text[64];
    char limit_text[64];
    char detail[192];
    double duration_s;
} result;

/* what slurmd registered for the node (node checks), from the slurm client */
typedef struct node_facts {
    bool known;
    int64_t cpus, real_memory_mb;
} node_facts;

const char *result_name(result_kind k);
/* CLOCK_MONOTONIC in ms */
double health_now_ms(void);
const char *check_kind_name(check_kind k);

/* config.c: parse FILE; on error print "FILE:LINE: why" to stderr and return -1 (nothing kept) */
int config_load(config *out, const char *file);
void config_dispose(config *c);

/* checks.c: run one check in this process */
void check_run(const check *c, const node_facts *facts, result *r);

/* run.c: run one check in a child killed at its timeout */
void check_run_guarded(const check *c, const node_facts *facts, result *r);

#endif
