/*
 * slinkyctl get / describe, the way kubectl does them:
 *   get TYPE [NAME...] | TYPE/NAME...  [-o FORMAT] [-l SEL] [-A] [-n NS] [-w]
 *   describe TYPE [NAME...] | TYPE/NAME...
 * TYPE is any name discovery knows (plural, singular, Kind, short name such
 * as nss or slurmctld, plural.group).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "kctl.h"

static int usage_get(FILE *f)
{
    return kctl_usage(f, "usage: slinkyctl get TYPE [NAME...] | TYPE/NAME... [options]\n"
               "Display resources (a table by default, like kubectl get).\n\n",
                      "\nexit codes: 0 success, 1 failure (an object not found, the server), 2 usage\n");
}

static int usage_describe(FILE *f)
{
    return kctl_usage(f, "usage: slinkyctl describe TYPE [NAME...] | TYPE/NAME... [options]\n"
               "Show resources in detail: metadata, spec, status (conditions) and events.\n\n",
                      "\nexit codes: 0 success, 1 failure, 2 usage\n");
}

/* Collect the objects: the named ones or the list; *items_doc is an array. */
static int fetch(slinky_doc **out, char **rv_out, kctl *k, const kctl_kind *kk, const kctl_target *t)
{
    slinky_kube_resource r = kctl_resource(kk);
    const char *ns = k->o.all_namespaces && t->nnames == 0 ? NULL : k->ns;
    int rc = 0;
    if (t->nnames == 0) {
        slinky_doc *list = NULL;
        slinky_kube_list_options lo = SLINKY_KUBE_LIST_OPTIONS_INIT;
        lo.label_selector = k->o.selector;
        if (slinky_kube_list(&list, k->client, &r, ns, &lo) < 0)
            return kctl_server_error(kk, NULL);
        if (rv_out)
            *rv_out = strdup(slinky_doc_value_path_string(slinky_doc_root(list),
                                                          "metadata.resourceVersion", ""));
        slinky_doc *items = NULL;
        rc = slinky_doc_new_copy(&items, slinky_doc_value_get(slinky_doc_root(list), "items")) < 0;
        slinky_doc_free(list);
        if (rc == 0 && slinky_doc_value_type(slinky_doc_root(items)) != SLINKY_DOC_ARRAY)
            slinky_doc_value_set_array(slinky_doc_root(items));
        *out = items;
        return rc;
    }
    slinky_doc *arr = NULL;
    if (slinky_doc_new(&arr) < 0)
        return 1;
    slinky_doc_value_set_array(slinky_doc_root(arr));
    for (int i = 0; i < t->nnames; i++) {
        slinky_doc *obj = NULL;
        if (slinky_kube_get(&obj, k->client, &r, ns, t->names[i], NULL) < 0) {
            rc = kctl_server_error(kk, t->names[i]);
            continue; /* kubectl prints the others */
        }
        slinky_doc_value *e = NULL;
        slinky_doc_value_array_append(&e, slinky_doc_root(arr));
        slinky_doc_value_set_copy(e, slinky_doc_root(obj));
        slinky_doc_free(obj);
    }
    *out = arr;
    return rc;
}

static int watch(kctl *k, const kctl_kind *kk, kctl_printer *p, const char *rv, const kctl_target *t)
{
    slinky_kube_resource r = kctl_resource(kk);
    slinky_kube_watch_options wo = SLINKY_KUBE_WATCH_OPTIONS_INIT;
    char fsel[300];
    wo.label_selector = k->o.selector;
    wo.resource_version = rv && *rv ? rv : NULL;
    wo.hide_bookmarks = true;
    if (t->nnames == 1) {
        snprintf(fsel, sizeof(fsel), "metadata.name=%s", t->names[0]);
        wo.field_selector = fsel;
    }
    slinky_kube_watch *w = NULL;
    if (slinky_kube_watch_new(&w, k->client, &r, k->o.all_namespaces ? NULL : k->ns, &wo) < 0)
        return kctl_fail("watch");
    int rc = 0;
    for (;;) {
        slinky_kube_event_type type;
        slinky_doc *obj = NULL;
        if (slinky_kube_watch_next(&type, &obj, w, -1) < 0) {
            rc = kctl_fail("watch");
            break;
        }
        rc = kctl_print_event(p, stdout, slinky_doc_root(obj));
        slinky_doc_free(obj);
        if (rc)
            break;
    }
    slinky_kube_watch_free(w);
    return rc;
}

int slinkyctl_cmd_get(int argc, char **argv)
{
    kctl_cluster_opts o;
    kctl_target t;
    kctl k;
    kctl_kind kk;
    kctl_printer *p = NULL;
    slinky_doc *items = NULL;
    char *rv = NULL;
    int rc;
    if (!kctl_start(&o, &t, &k, &rc, argc, argv, "get", usage_get, NULL))
        return rc;
    /* TYPE may list several ("controllers,nodesets"): one table each, names as TYPE/NAME */
    bool several = strchr(t.type, ',') != NULL;
    char *types = strdup(t.type), *save = NULL;
    int printed = 0;
    for (char *ty = strtok_r(types, ",", &save); ty && rc == 0; ty = strtok_r(NULL, ",", &save)) {
        rc = kctl_resolve(&kk, &k, ty);
        if (rc == 0)
            rc = kctl_printer_new(&p, &k, &kk, o.output);
        if (rc)
            break;
        if (several)
            kctl_printer_show_kind(p);
        int frc = fetch(&items, &rv, &k, &kk, &t);
        const slinky_doc_value *arr = items ? slinky_doc_root(items) : NULL;
        size_t n = slinky_doc_value_size(arr);
        bool single = t.nnames == 1 && n == 1 && !several;
        bool table = kctl_printer_format(p) == KCTL_TABLE || kctl_printer_format(p) == KCTL_WIDE;
        if (table && n && printed++)
            fputc('\n', stdout);
        if (arr && (n || !table))
            rc = kctl_print_items(p, stdout, arr, !single);
        if (arr && n == 0 && t.nnames == 0 && table && !several) {
            if (o.all_namespaces || !kk.namespaced)
                fprintf(stderr, "No resources found\n");
            else
                fprintf(stderr, "No resources found in %s namespace.\n", k.ns);
        }
        rc = rc ? rc : frc;
        if (rc == 0 && o.watch && !several)
            rc = watch(&k, &kk, p, rv, &t);
        free(rv);
        rv = NULL;
        slinky_doc_free(items);
        items = NULL;
        kctl_printer_free(p);
        p = NULL;
    }
    free(types);
    free(rv);
    slinky_doc_free(items);
    kctl_printer_free(p);
    kctl_close(&k);
    free(t.names);
    return rc;
}

/* ---------------------------------------------------------------- describe */

/* "clusterName" -> "Cluster Name" (kubectl's describe of unstructured objects) */
static void human_key(char *out, size_t len, const char *key)
{
    size_t o = 0;
    for (size_t i = 0; key[i] && o + 2 < len; i++) {
        char ch = key[i];
        if (i == 0)
            ch = (char)toupper((unsigned char)ch);
        else if (isupper((unsigned char)ch) && islower((unsigned char)key[i - 1]))
            out[o++] = ' ';
        out[o++] = ch;
    }
    out[o] = '\0';
}

static void scalar(FILE *f, const slinky_doc_value *v)
{
    char *s = kctl_jsonpath_values("$", v, ",");
    fprintf(f, "%s\n", s ? s : "");
    free(s);
}

static void describe_value(FILE *f, const slinky_doc_value *v, int indent);

static void describe_member(FILE *f, const char *key, const slinky_doc_value *v, int indent)
{
    char hk[256];
    human_key(hk, sizeof(hk), key);
    slinky_doc_type t = slinky_doc_value_type(v);
    if (t == SLINKY_DOC_OBJECT || t == SLINKY_DOC_ARRAY) {
        if (slinky_doc_value_size(v) == 0)
            return;
        fprintf(f, "%*s%s:\n", indent, "", hk);
        describe_value(f, v, indent + 2);
    } else {
        int pad = 14 - indent - (int)strlen(hk) - 1;
        fprintf(f, "%*s%s:%*s", indent, "", hk, pad > 2 ? pad : 2, "");
        scalar(f, v);
    }
}

static void describe_value(FILE *f, const slinky_doc_value *v, int indent)
{
    if (slinky_doc_value_type(v) == SLINKY_DOC_OBJECT) {
        for (size_t i = 0; i < slinky_doc_value_size(v); i++)
            describe_member(f, slinky_doc_value_key_at(v, i), slinky_doc_value_member_at(v, i),
                            indent);
    } else {
        for (size_t i = 0; i < slinky_doc_value_size(v); i++) {
            const slinky_doc_value *e = slinky_doc_value_at(v, i);
            if (slinky_doc_value_type(e) == SLINKY_DOC_OBJECT)
                describe_value(f, e, indent);
            else {
                fprintf(f, "%*s", indent, "");
                scalar(f, e);
            }
        }
    }
}

static void labels(FILE *f, const char *title, const slinky_doc_value *m)
{
    fprintf(f, "%-14s", title);
    if (slinky_doc_value_size(m) == 0)
        fprintf(f, "<none>\n");
    for (size_t i = 0; i < slinky_doc_value_size(m); i++)
        fprintf(f, "%*s%s=%s\n", i ? 14 : 0, "", slinky_doc_value_key_at(m, i),
                slinky_doc_value_get_string(slinky_doc_value_member_at(m, i)) ? slinky_doc_value_get_string(slinky_doc_value_member_at(m, i)) : "");
}

static void events(FILE *f, kctl *k, const slinky_doc_value *obj)
{
    slinky_kube_resource ev = {"", "v1", "events", true};
    slinky_doc *list = NULL;
    const char *uid = slinky_doc_value_path_string(obj, "metadata.uid", "");
    const char *name = slinky_doc_value_path_string(obj, "metadata.name", "");
    const char *ns = slinky_doc_value_path_string(obj, "metadata.namespace", k->ns);
    fprintf(f, "Events:");
    int shown = 0;
    if (slinky_kube_list(&list, k->client, &ev, *ns ? ns : k->ns, NULL) == 0) {
        const slinky_doc_value *items = slinky_doc_value_get(slinky_doc_root(list), "items");
        for (size_t i = 0; i < slinky_doc_value_size(items); i++) {
            const slinky_doc_value *e = slinky_doc_value_at(items, i);
            const char *iuid = slinky_doc_value_path_string(e, "involvedObject.uid", "");
            if (strcmp(slinky_doc_value_path_string(e, "involvedObject.name", ""), name) ||
                (*iuid && *uid && strcmp(iuid, uid)))
                continue;
            if (!shown++)
                fprintf(f, "\n  %-8s %-20s %-8s %-20s %s\n  %-8s %-20s %-8s %-20s %s\n", "Type",
                        "Reason", "Age", "From", "Message", "----", "------", "----", "----",
                        "-------");
            char age[32];
            const char *ts = slinky_doc_value_path_string(e, "lastTimestamp", NULL);
            kctl_age(age, sizeof(age),
                     ts ? ts : slinky_doc_value_path_string(e, "metadata.creationTimestamp", ""));
            fprintf(f, "  %-8s %-20s %-8s %-20s %s\n", slinky_doc_value_path_string(e, "type", ""),
                    slinky_doc_value_path_string(e, "reason", ""), age,
                    slinky_doc_value_path_string(e, "source.component", ""),
                    slinky_doc_value_path_string(e, "message", ""));
        }
    }
    slinky_error_clear();
    if (!shown)
        fprintf(f, "  <none>\n");
    slinky_doc_free(list);
}

static void describe_one(FILE *f, kctl *k, const slinky_doc_value *obj)
{
    const slinky_doc_value *md = slinky_doc_value_get(obj, "metadata");
    fprintf(f, "%-14s%s\n", "Name:", slinky_doc_value_path_string(md, "name", ""));
    if (slinky_doc_value_path_string(md, "namespace", NULL))
        fprintf(f, "%-14s%s\n", "Namespace:", slinky_doc_value_path_string(md, "namespace", ""));
    labels(f, "Labels:", slinky_doc_value_get(md, "labels"));
    labels(f, "Annotations:", slinky_doc_value_get(md, "annotations"));
    fprintf(f, "%-14s%s\n", "API Version:", slinky_doc_value_path_string(obj, "apiVersion", ""));
    fprintf(f, "%-14s%s\n", "Kind:", slinky_doc_value_path_string(obj, "kind", ""));
    char age[32];
    kctl_age(age, sizeof(age), slinky_doc_value_path_string(md, "creationTimestamp", NULL));
    fprintf(f, "%-14s%s (%s)\n", "Created:", slinky_doc_value_path_string(md, "creationTimestamp", ""),
            age);
    for (size_t i = 0; i < slinky_doc_value_size(obj); i++) {
        const char *key = slinky_doc_value_key_at(obj, i);
        if (!strcmp(key, "apiVersion") || !strcmp(key, "kind") || !strcmp(key, "metadata"))
            continue;
        describe_member(f, key, slinky_doc_value_member_at(obj, i), 0);
    }
    events(f, k, obj);
}

int slinkyctl_cmd_describe(int argc, char **argv)
{
    kctl_cluster_opts o;
    kctl_target t;
    kctl k;
    kctl_kind kk;
    slinky_doc *items = NULL;
    int rc;
    if (!kctl_start(&o, &t, &k, &rc, argc, argv, "describe", usage_describe, NULL))
        return rc;
    rc = kctl_resolve(&kk, &k, t.type);
    if (rc == 0) {
        rc = fetch(&items, NULL, &k, &kk, &t);
        const slinky_doc_value *arr = items ? slinky_doc_root(items) : NULL;
        for (size_t i = 0; i < slinky_doc_value_size(arr); i++) {
            if (i)
                fputs("\n\n", stdout);
            describe_one(stdout, &k, slinky_doc_value_at(arr, i));
        }
        if (arr && slinky_doc_value_size(arr) == 0 && t.nnames == 0)
            fprintf(stderr, "No resources found in %s namespace.\n", k.ns);
    }
    slinky_doc_free(items);
    kctl_close(&k);
    free(t.names);
    return rc;
}
