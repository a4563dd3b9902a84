/*
 * slinkyctl kube: a small kubectl over the kube module.
 *   slinkyctl kube [--kubeconfig F] [--context C] [-n NS] [-o json|yaml] COMMAND ...
 *     get RESOURCE NAME
 *     list RESOURCE [-l SELECTOR] [--all-namespaces]
 *     watch RESOURCE [--count N] [--rv RV]
 *     apply-file FILE [--field-manager M] [--force]   (server-side apply of every document)
 *     delete RESOURCE NAME
 * RESOURCE: a name slinky_kube_resource_lookup knows (configmaps, NodeSet,
 * nodesets.slinky.slurm.net, ...) or GROUP/VERSION/PLURAL ("v1/pods" for the
 * core group); add --cluster-scoped for unknown cluster-scoped ones.
 */
#include <ctype.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "slinky.h"

static char res_buf[3][256];

static int parse_resource(slinky_kube_resource *r, const char *s, bool cluster_scoped)
{
    if (slinky_kube_resource_lookup(r, s) == 0)
        return 0;
    const char *a = strchr(s, '/');
    if (a == NULL) {
        fprintf(stderr, "slinkyctl kube: unknown resource '%s' (use GROUP/VERSION/PLURAL)\n", s);
        return -1;
    }
    const char *b = strchr(a + 1, '/');
    if (b == NULL) { /* VERSION/PLURAL: core group */
        snprintf(res_buf[0], sizeof(res_buf[0]), "%s", "");
        snprintf(res_buf[1], sizeof(res_buf[1]), "%.*s", (int)(a - s), s);
        snprintf(res_buf[2], sizeof(res_buf[2]), "%s", a + 1);
    } else {
        snprintf(res_buf[0], sizeof(res_buf[0]), "%.*s", (int)(a - s), s);
        snprintf(res_buf[1], sizeof(res_buf[1]), "%.*s", (int)(b - a - 1), a + 1);
        snprintf(res_buf[2], sizeof(res_buf[2]), "%s", b + 1);
    }
    r->group = res_buf[0];
    r->version = res_buf[1];
    r->resource = res_buf[2];
    r->namespaced = !cluster_scoped;
    return 0;
}

static int fail(const char *what)
{
    const slinky_error *e = slinky_error_last();
    fprintf(stderr, "slinkyctl kube: %s: %s (%s", what, e->message, slinky_error_name(e->code));
    if (e->http_status)
        fprintf(stderr, ", HTTP %d %s", e->http_status, slinky_kube_status_last()->reason);
    fprintf(stderr, ")\n");
    for (size_t i = 0; i < slinky_kube_status_last()->ncauses; i++)
        fprintf(stderr, "  %s: %s\n", slinky_kube_status_last()->causes[i].field,
                slinky_kube_status_last()->causes[i].message);
    return 1;
}

static int print_value(const slinky_doc_value *v, bool yaml)
{
    char *text = NULL;
    int err = yaml ? slinky_doc_value_dump_yaml(&text, NULL, v, 0)
                   : slinky_doc_value_dump_json(&text, NULL, v, SLINKY_DOC_DUMP_PRETTY);
    if (err)
        return fail("output");
    fputs(text, stdout);
    if (!yaml)
        fputc('\n', stdout);
    slinky_free(text);
    return 0;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: slinkyctl kube [--kubeconfig F] [--context C] [-n NS] [-o json|yaml] COMMAND ...\n"
               "  get RESOURCE NAME\n"
               "  list RESOURCE [-l SELECTOR] [-A]\n"
               "  watch RESOURCE [--count N] [--rv RV]\n"
               "  apply-file FILE [--field-manager M] [--force]\n"
               "  delete RESOURCE NAME\n"
               "RESOURCE: a known plural or kind (configmaps, leases, nodesets, Controller, ...)\n"
               "or GROUP/VERSION/PLURAL (VERSION/PLURAL for the core group).\n");
}

int slinkyctl_cmd_kube(int argc, char **argv)
{
    static const struct option opts[] = {
        {"kubeconfig", required_argument, NULL, 'k'}, {"context", required_argument, NULL, 'c'},
        {"namespace", required_argument, NULL, 'n'},  {"output", required_argument, NULL, 'o'},
        {"selector", required_argument, NULL, 'l'},   {"all-namespaces", no_argument, NULL, 'A'},
        {"count", required_argument, NULL, 'N'},      {"rv", required_argument, NULL, 'r'},
        {"field-manager", required_argument, NULL, 'm'}, {"force", no_argument, NULL, 'f'},
        {"cluster-scoped", no_argument, NULL, 'C'},   {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    slinky_kube_config_options co = SLINKY_KUBE_CONFIG_OPTIONS_INIT;
    const char *output = "json", *selector = NULL, *rv = NULL, *manager = "slinkyctl";
    bool all = false, force = false, cluster_scoped = false;
    long count = -1;
    int c;
    optind = 0; /* GNU: reinitialise; options may come before or after the subcommand */
    while ((c = getopt_long(argc, argv, "k:c:n:o:l:Ah", opts, NULL)) != -1) {
        switch (c) {
        case 'k': co.kubeconfig = optarg; break;
        case 'c': co.context = optarg; break;
        case 'n': co.ns = optarg; break;
        case 'o': output = optarg; break;
        case 'l': selector = optarg; break;
        case 'A': all = true; break;
        case 'N': count = atol(optarg); break;
        case 'r': rv = optarg; break;
        case 'm': manager = optarg; break;
        case 'f': force = true; break;
        case 'C': cluster_scoped = true; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    char **args = argv + optind;
    int nargs = argc - optind;
    if (nargs < 1) {
        usage(stderr);
        return 2;
    }
    bool yaml = strcmp(output, "yaml") == 0;
    if (!yaml && strcmp(output, "json") != 0) {
        fprintf(stderr, "slinkyctl kube: -o must be json or yaml\n");
        return 2;
    }
    slinky_kube_config *cfg = NULL;
    slinky_kube_client *cl = NULL;
    if (slinky_kube_config_load(&cfg, &co) != 0)
        return fail("config");
    if (slinky_kube_client_new(&cl, cfg, NULL) != 0) {
        slinky_kube_config_free(cfg);
        return fail("client");
    }
    const char *ns = slinky_kube_config_get_namespace(cfg);
    const char *cmd = args[0];
    slinky_kube_resource r;
    int rc = 0;
    slinky_doc *d = NULL;
    if ((strcmp(cmd, "get") == 0 || strcmp(cmd, "delete") == 0) && nargs == 3) {
        if (parse_resource(&r, args[1], cluster_scoped) != 0) {
            rc = 2;
        } else if (strcmp(cmd, "get") == 0) {
            rc = slinky_kube_get(&d, cl, &r, ns, args[2], NULL) ? fail("get") : print_value(slinky_doc_root(d), yaml);
        } else {
            rc = slinky_kube_delete(NULL, cl, &r, ns, args[2], NULL) ? fail("delete") : 0;
            if (rc == 0)
                printf("%s \"%s\" deleted\n", r.resource, args[2]);
        }
    } else if (strcmp(cmd, "list") == 0 && nargs == 2) {
        slinky_kube_list_options lo = SLINKY_KUBE_LIST_OPTIONS_INIT;
        lo.label_selector = selector;
        if (parse_resource(&r, args[1], cluster_scoped) != 0)
            rc = 2;
        else
            rc = slinky_kube_list(&d, cl, &r, all ? NULL : ns, &lo) ? fail("list") : print_value(slinky_doc_root(d), yaml);
    } else if (strcmp(cmd, "watch") == 0 && nargs == 2) {
        slinky_kube_watch_options wo = SLINKY_KUBE_WATCH_OPTIONS_INIT;
        wo.label_selector = selector;
        wo.resource_version = rv;
        wo.hide_bookmarks = true;
        slinky_kube_watch *w = NULL;
        if (parse_resource(&r, args[1], cluster_scoped) != 0) {
            rc = 2;
        } else if (slinky_kube_watch_new(&w, cl, &r, all ? NULL : ns, &wo) != 0) {
            rc = fail("watch");
        } else {
            for (long i = 0; count < 0 || i < count; i++) {
                slinky_kube_event_type t;
                slinky_doc *obj = NULL;
                if (slinky_kube_watch_next(&t, &obj, w, -1) != 0) {
                    rc = fail("watch");
                    break;
                }
                char *line = NULL;
                slinky_doc_value_dump_json(&line, NULL, slinky_doc_root(obj), SLINKY_DOC_DUMP_COMPACT);
                printf("%s %s\n", slinky_kube_event_type_name(t), line ? line : "");
                fflush(stdout);
                slinky_free(line);
                slinky_doc_free(obj);
            }
            slinky_kube_watch_free(w);
        }
    } else if (strcmp(cmd, "apply-file") == 0 && nargs == 2) {
        char *text = NULL;
        FILE *f = fopen(args[1], "rb");
        size_t len = 0;
        if (f) {
            fseek(f, 0, SEEK_END);
            long n = ftell(f);
            fseek(f, 0, SEEK_SET);
            text = malloc(n > 0 ? (size_t)n + 1 : 1);
            len = text ? fread(text, 1, n > 0 ? (size_t)n : 0, f) : 0;
            fclose(f);
        }
        if (text == NULL) {
            fprintf(stderr, "slinkyctl kube: cannot read %s\n", args[1]);
            rc = 1;
        } else if (slinky_doc_parse_yaml_all(&d, text, len) != 0) {
            rc = fail(args[1]);
        } else {
            slinky_kube_patch_options po = SLINKY_KUBE_PATCH_OPTIONS_INIT;
            po.field_manager = manager;
            po.force = force;
            const slinky_doc_value *docs = slinky_doc_root(d);
            for (size_t i = 0; rc == 0 && i < slinky_doc_value_size(docs); i++) {
                const slinky_doc_value *o = slinky_doc_value_at(docs, i);
                const char *av = slinky_doc_value_path_string(o, "apiVersion", "");
                const char *kind = slinky_doc_value_path_string(o, "kind", "");
                const char *name = slinky_doc_value_path_string(o, "metadata.name", "");
                const char *ons = slinky_doc_value_path_string(o, "metadata.namespace", ns);
                slinky_kube_resource kr;
                if (slinky_kube_resource_for_kind(&kr, av, kind) != 0) {
                    fprintf(stderr, "slinkyctl kube: document %zu: unknown kind %s %s\n", i, av, kind);
                    rc = 1;
                    break;
                }
                if (slinky_kube_patch(NULL, cl, &kr, ons, name, SLINKY_KUBE_PATCH_APPLY, o, &po) != 0)
                    rc = fail(name);
                else
                    printf("%s/%s serverside-applied\n", kr.resource, name);
            }
        }
        free(text);
    } else {
        usage(stderr);
        rc = 2;
    }
    slinky_doc_free(d);
    slinky_kube_client_free(cl);
    slinky_kube_config_free(cfg);
    return rc;
}
