/*
 * slinkyctl's kubectl habits, shared by the cluster commands (kctl.c,
 * kctl_print.c, jsonpath.c): the cluster options, the client, resource
 * names resolved through discovery (plural, singular, kind, short names),
 * and the output formats (table, wide, json, yaml, name, jsonpath=...).
 */
#ifndef SLINKYCTL_KCTL_H
#define SLINKYCTL_KCTL_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "slinky.h"

/* What completion offers for cluster commands, -o and resource names. */
#define KCTL_CLUSTER_WORDS                                                                         \
    "--kubeconfig --context -n --namespace -A --all-namespaces -l --selector -o --output -w "     \
    "--watch"
#define KCTL_OUTPUT_WORDS "table wide json yaml name jsonpath="
#define KCTL_RESOURCE_WORDS                                                                        \
    "controllers nodesets loginsets accountings restapis tokens pods services configmaps "         \
    "secrets statefulsets deployments leases events namespaces nodes customresourcedefinitions"

/* -v N from the command line (set by main.c). */
extern int kctl_verbosity;

typedef struct kctl_cluster_opts {
    const char *kubeconfig, *context, *ns, *selector, *output;
    bool all_namespaces, watch;
} kctl_cluster_opts;

static inline void kctl_cluster_opts_init(kctl_cluster_opts *o)
{
    o->kubeconfig = o->context = o->ns = o->selector = o->output = NULL;
    o->all_namespaces = o->watch = false;
}

/* getopt pieces every cluster command takes; ids >= 256 for the long-only ones */
enum { KCTL_OPT_KUBECONFIG = 256, KCTL_OPT_CONTEXT, KCTL_OPT_FIRST_FREE };
#define KCTL_SHORTOPTS "n:Al:o:wv:qh"
#define KCTL_LONGOPTS                                                                              \
    {"kubeconfig", required_argument, 0, KCTL_OPT_KUBECONFIG},                                     \
        {"context", required_argument, 0, KCTL_OPT_CONTEXT},                                       \
        {"namespace", required_argument, 0, 'n'}, {"all-namespaces", no_argument, 0, 'A'},        \
        {"selector", required_argument, 0, 'l'}, {"output", required_argument, 0, 'o'},           \
        {"watch", no_argument, 0, 'w'}, {"verbose", required_argument, 0, 'v'},                   \
        {"quiet", no_argument, 0, 'q'}, {"help", no_argument, 0, 'h'}
#define KCTL_OPTIONS_HELP                                                                          \
    "  --kubeconfig FILE      kubeconfig (default $KUBECONFIG, ~/.kube/config)\n"                  \
    "  --context NAME         context of the kubeconfig\n"                                        \
    "  -n, --namespace NS     namespace (default: the context's)\n"                               \
    "  -A, --all-namespaces   every namespace\n"                                                  \
    "  -l, --selector SEL     label selector (a=b,c!=d,e in (f,g))\n"                             \
    "  -o, --output FORMAT    table (default), wide, json, yaml, name, jsonpath=TEMPLATE\n"        \
    "  -w, --watch            after the list, print changes as they happen\n"                     \
    "  -v, --verbose N        library log level on stderr (0-3); -q, --quiet: errors only\n"

/* 1 when `c` is a common option (applied to `o`), 0 when not, -1 on a bad value. */
int kctl_common_opt(kctl_cluster_opts *o, int c, const char *arg);

/* A client for the options. */
typedef struct kctl {
    kctl_cluster_opts o;
    slinky_kube_config *cfg;
    slinky_kube_client *client;
    const char *ns; /* -n, else the context's namespace */
} kctl;

int kctl_connect(kctl *k, const kctl_cluster_opts *o); /* 0, or 1 with a message */
void kctl_close(kctl *k);
/* GET a path; the parsed body when the server answers 200, else NULL (error cleared). */
slinky_doc *kctl_get_json(kctl *k, const char *path);
/* Print "slinkyctl: WHAT: message (Reason, HTTP n)" and the causes; returns 1. */
int kctl_fail(const char *what);

/* A resource type as discovery names it. */
typedef struct kctl_kind {
    char group[128], version[64], plural[128], singular[128], kind[128];
    bool namespaced;
} kctl_kind;

/* Resolve plural, singular, Kind, a short name or plural.group (discovery,
 * then the built-in list). 0, or 1 with kubectl's message for an unknown name. */
int kctl_resolve(kctl_kind *out, kctl *k, const char *name);
/* The same from an object's apiVersion and kind. */
int kctl_resolve_object(kctl_kind *out, kctl *k, const char *api_version, const char *kind);
/* kubectl's "TYPE/NAME" prefix: singular.group ("nodeset.slinky.slurm.net"), or "pod". */
void kctl_kind_ref(char *buf, size_t len, const kctl_kind *kk);
static inline slinky_kube_resource kctl_resource(const kctl_kind *kk)
{
    slinky_kube_resource r = {kk->group, kk->version, kk->plural, kk->namespaced};
    return r;
}

/* ---------------------------------------------------------------- a command's start */

/* The operands: "TYPE NAME..." or "TYPE/NAME..." (names borrowed from argv). */
typedef struct kctl_target {
    char type[256];
    char **names; /* free() the array */
    int nnames;
} kctl_target;

/* A command's own options next to the common ones. on_option returns 1 when it
 * took `c`, 0 when it does not know it, -1 for a bad value. */
typedef struct kctl_extra {
    const char *shortopts;
    const struct option *longopts; /* ends with a zero entry */
    int (*on_option)(int c, const char *arg, void *payload);
    void *payload;
    bool targets_optional; /* apply -f FILE needs no TYPE */
} kctl_extra;

/* Parse the options and operands, connect. True to go on; false with the exit
 * code in *exit_code (0 after --help). */
bool kctl_start(kctl_cluster_opts *o, kctl_target *t, kctl *k, int *exit_code, int argc,
                char **argv, const char *verb, int (*usage)(FILE *), const kctl_extra *x);
/* A command's --help: its text, the cluster options, its exit codes; 0 on stdout, else 2. */
int kctl_usage(FILE *f, const char *text, const char *exit_codes);
/* kubectl's "Error from server (NotFound): ..." for the last error; returns 1. */
int kctl_server_error(const kctl_kind *kk, const char *name);

/* ---------------------------------------------------------------- output (kctl_print.c) */

typedef enum kctl_format {
    KCTL_TABLE, KCTL_WIDE, KCTL_JSON, KCTL_YAML, KCTL_NAME, KCTL_JSONPATH
} kctl_format;

typedef struct kctl_printer kctl_printer;

/* Parse -o; NULL is "table". 2 with a message for an unknown format. */
int kctl_printer_new(kctl_printer **out, kctl *k, const kctl_kind *kk, const char *output);
void kctl_printer_free(kctl_printer *p);
kctl_format kctl_printer_format(const kctl_printer *p);
/* Tables name objects TYPE/NAME (several types in one get). */
void kctl_printer_show_kind(kctl_printer *p);
/* Print a list's items (the whole List for json/yaml/jsonpath when `as_list`). */
int kctl_print_items(kctl_printer *p, FILE *f, const slinky_doc_value *items, bool as_list);
/* Print one row for a watch event (table formats: no header after the first). */
int kctl_print_event(kctl_printer *p, FILE *f, const slinky_doc_value *obj);

/* kubectl's human duration ("45s", "5m10s", "3h", "2d5h", "400d", "3y10d"). */
void kctl_age(char *buf, size_t len, const char *rfc3339);

/* ---------------------------------------------------------------- jsonpath.c */

/* Render a kubectl JSONPath template ("{.metadata.name}", "{range .items[*]}...{end}",
 * "{\"\\n\"}") over `root` into a string freed with free(); NULL with a message in
 * `err` (len errlen) when the template is malformed. */
char *kctl_jsonpath(const char *tmpl, const slinky_doc_value *root, char *err, size_t errlen);
/* The values one expression (".status.conditions[?(@.type==\"Ready\")].status")
 * selects, joined with `sep`; "" when none. Freed with free(). */
char *kctl_jsonpath_values(const char *expr, const slinky_doc_value *root, const char *sep);

/* ---------------------------------------------------------------- version */

/* "v1.32.0 (https://127.0.0.1:6443)" or "not reachable: why" (weak: kube module). */
void kctl_server_version(char *buf, size_t len, const kctl_cluster_opts *o) __attribute__((weak));
/* "22.05.8 (slurmctld)", "22.05.8 (scontrol; slurmctld not reachable)" or "not installed". */
void kctl_slurm_version(char *buf, size_t len);

#endif
