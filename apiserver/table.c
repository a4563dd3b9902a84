/*
 * Table output (meta.k8s.io/v1 Table) for `kubectl get`: custom resources use
 * the CRD's additionalPrinterColumns (simple JSONPath: .a.b, [n], [*] first
 * element, [?(@.k=="v")]); built-in kinds get kubectl's usual columns. Date
 * columns are rendered as ages ("5m", "2d3h") the way kube-apiserver does.
 */
#include "verbs.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

bool as_table_full(const as_req *req)
{
    const char *v = as_req_query(req, "includeObject");
    return v && !strcmp(v, "Object");
}

bool as_wants_table(const as_req *req)
{
    return req->accept && strstr(req->accept, "as=Table") != NULL;
}

static time_t parse_time(const char *s)
{
    struct tm tm;
    memset(&tm, 0, sizeof(tm));
    if (!s || !strptime(s, "%Y-%m-%dT%H:%M:%S", &tm))
        return 0;
    return timegm(&tm);
}

static void age(char *buf, size_t len, const char *ts)
{
    time_t t = parse_time(ts);
    if (!t) {
        snprintf(buf, len, "<unknown>");
        return;
    }
    as_human_duration(buf, len, (long long)(time(NULL) - t));
}

typedef struct column {
    const char *name, *type, *format, *path, *desc;
    int priority;
} column;

static const column k_name = {"Name", "string", "name", NULL,
                              "Name must be unique within a namespace.", 0};
static const column k_age = {"Age", "string", "", ".metadata.creationTimestamp",
                             "CreationTimestamp is a timestamp representing the server time when "
                             "this object was created.",
                             0};

static size_t builtin_columns(const as_rtype *rt, column *cols)
{
    size_t n = 0;
    cols[n++] = k_name;
    const char *p = rt->plural;
    if (*rt->group == '\0') {
        if (!strcmp(p, "namespaces")) {
            cols[n++] = (column){"Status", "string", "", ".status.phase", "phase", 0};
        } else if (!strcmp(p, "configmaps")) {
            cols[n++] = (column){"Data", "integer", "", "#data", "number of data keys", 0};
        } else if (!strcmp(p, "secrets")) {
            cols[n++] = (column){"Type", "string", "", ".type", "secret type", 0};
            cols[n++] = (column){"Data", "integer", "", "#data", "number of data keys", 0};
        } else if (!strcmp(p, "pods")) {
            cols[n++] = (column){"Ready", "string", "", "#ready", "ready containers", 0};
            cols[n++] = (column){"Status", "string", "", ".status.phase", "phase", 0};
            cols[n++] = (column){"Restarts", "string", "", "#restarts", "restarts", 0};
        } else if (!strcmp(p, "services")) {
            cols[n++] = (column){"Type", "string", "", ".spec.type", "type", 0};
            cols[n++] = (column){"Cluster-IP", "string", "", ".spec.clusterIP", "cluster ip", 0};
        } else if (!strcmp(p, "events")) {
            cols[n - 1] = (column){"Last Seen", "string", "", "#lastseen", "last seen", 0};
            cols[n++] = (column){"Type", "string", "", ".type", "type", 0};
            cols[n++] = (column){"Reason", "string", "", ".reason", "reason", 0};
            cols[n++] = (column){"Object", "string", "", "#object", "object", 0};
            cols[n++] = (column){"Message", "string", "", ".message", "message", 0};
            return n;
        }
    } else if (!strcmp(p, "leases")) {
        cols[n++] = (column){"Holder", "string", "", ".spec.holderIdentity", "holder", 0};
    } else if (!strcmp(p, "customresourcedefinitions")) {
        cols[n++] = (column){"Created At", "date", "", ".metadata.creationTimestamp#raw",
                             "created", 0};
        return n;
    }
    cols[n++] = k_age;
    return n;
}

static void put_cell(as_buf *b, const column *c, const slinky_doc_value *root)
{
    char tmp[128];
    if (!c->path) {
        as_json_str(b, slinky_doc_value_path_string(root, "metadata.name", ""));
        return;
    }
    if (c->path[0] == '#') {
        if (!strcmp(c->path, "#data")) {
            size_t n = slinky_doc_value_size(slinky_doc_value_get(root, "data")) +
                       slinky_doc_value_size(slinky_doc_value_get(root, "binaryData"));
            as_buf_printf(b, "%zu", n);
        } else if (!strcmp(c->path, "#ready")) {
            const slinky_doc_value *cs = slinky_doc_value_path(root, "status.containerStatuses");
            size_t total = slinky_doc_value_size(slinky_doc_value_path(root, "spec.containers"));
            size_t ready = 0;
            for (size_t i = 0; i < slinky_doc_value_size(cs); i++)
                ready += slinky_doc_value_path_bool(slinky_doc_value_at(cs, i), "ready", false);
            snprintf(tmp, sizeof(tmp), "%zu/%zu", ready, total);
            as_json_str(b, tmp);
        } else if (!strcmp(c->path, "#restarts")) {
            const slinky_doc_value *cs = slinky_doc_value_path(root, "status.containerStatuses");
            long long r = 0;
            for (size_t i = 0; i < slinky_doc_value_size(cs); i++)
                r += slinky_doc_value_path_int(slinky_doc_value_at(cs, i), "restartCount", 0);
            snprintf(tmp, sizeof(tmp), "%lld", r);
            as_json_str(b, tmp);
        } else if (!strcmp(c->path, "#lastseen")) {
            const char *ts = slinky_doc_value_path_string(root, "lastTimestamp", NULL);
            if (!ts)
                ts = slinky_doc_value_path_string(root, "eventTime", NULL);
            if (!ts)
                ts = slinky_doc_value_path_string(root, "metadata.creationTimestamp", "");
            age(tmp, sizeof(tmp), ts);
            as_json_str(b, tmp);
        } else if (!strcmp(c->path, "#object")) {
            snprintf(tmp, sizeof(tmp), "%s/%s",
                     slinky_doc_value_path_string(root, "involvedObject.kind", ""),
                     slinky_doc_value_path_string(root, "involvedObject.name", ""));
            for (char *q = tmp; *q && *q != '/'; q++)
                *q = (char)(*q >= 'A' && *q <= 'Z' ? *q + 32 : *q);
            as_json_str(b, tmp);
        } else {
            as_buf_puts(b, "null");
        }
        return;
    }
    char path[512];
    snprintf(path, sizeof(path), "%s", c->path);
    char *raw = strstr(path, "#raw");
    if (raw)
        *raw = '\0';
    const slinky_doc_value *v = as_jsonpath(root, path);
    if (!v) {
        as_buf_puts(b, "null");
        return;
    }
    if (!raw && !strcmp(c->type, "date") && slinky_doc_value_get_string(v)) {
        age(tmp, sizeof(tmp), slinky_doc_value_get_string(v));
        as_json_str(b, tmp);
        return;
    }
    if (c == &k_age || (!strcmp(c->name, "Age") && slinky_doc_value_get_string(v))) {
        age(tmp, sizeof(tmp), slinky_doc_value_get_string(v));
        as_json_str(b, tmp);
        return;
    }
    slinky_doc_type t = slinky_doc_value_type(v);
    if (t == SLINKY_DOC_OBJECT || t == SLINKY_DOC_ARRAY) {
        char *json = NULL;
        if (slinky_doc_value_dump_json(&json, NULL, v, 0) == 0) {
            as_json_str(b, json);
            slinky_free(json);
        } else {
            as_buf_puts(b, "null");
        }
        return;
    }
    char *json = NULL;
    size_t len = 0;
    if (slinky_doc_value_dump_json(&json, &len, v, 0) == 0) {
        as_buf_put(b, json, len);
        slinky_free(json);
    } else {
        as_buf_puts(b, "null");
    }
}

int as_table_render(as_buf *out, as_server *s, as_rtype *rt, const char *version, bool full,
                    as_obj **items, size_t n, const char *list_meta_json)
{
    (void)s;
    column cols[32];
    size_t nc = 0;
    const as_version *ver = NULL;
    for (size_t i = 0; i < rt->n_versions; i++)
        if (!strcmp(rt->versions[i].name, version))
            ver = &rt->versions[i];
    if (!rt->builtin) {
        cols[nc++] = k_name;
        const slinky_doc_value *pc = ver && ver->columns ? slinky_doc_root(ver->columns) : NULL;
        for (size_t i = 0; i < slinky_doc_value_size(pc) && nc < 32; i++) {
            const slinky_doc_value *c = slinky_doc_value_at(pc, i);
            cols[nc++] = (column){slinky_doc_value_path_string(c, "name", ""),
                                  slinky_doc_value_path_string(c, "type", "string"),
                                  slinky_doc_value_path_string(c, "format", ""),
                                  slinky_doc_value_path_string(c, "jsonPath", ".x"),
                                  slinky_doc_value_path_string(c, "description", ""),
                                  (int)slinky_doc_value_path_int(c, "priority", 0)};
        }
        if (!pc)
            cols[nc++] = k_age;
    } else {
        nc = builtin_columns(rt, cols);
    }
    as_buf_puts(out, "{\"kind\":\"Table\",\"apiVersion\":\"meta.k8s.io/v1\",\"metadata\":");
    as_buf_puts(out, list_meta_json ? list_meta_json : "{}");
    as_buf_puts(out, ",\"columnDefinitions\":[");
    for (size_t i = 0; i < nc; i++) {
        as_buf_puts(out, i ? ",{\"name\":" : "{\"name\":");
        as_json_str(out, cols[i].name);
        as_buf_puts(out, ",\"type\":");
        as_json_str(out, !strcmp(cols[i].type, "date") ? "string" : cols[i].type);
        as_buf_puts(out, ",\"format\":");
        as_json_str(out, cols[i].format);
        as_buf_puts(out, ",\"description\":");
        as_json_str(out, cols[i].desc);
        as_buf_printf(out, ",\"priority\":%d}", cols[i].priority);
    }
    as_buf_puts(out, "],\"rows\":[");
    for (size_t i = 0; i < n; i++) {
        slinky_doc *d = NULL;
        if (as_obj_doc(&d, items[i]) != 0)
            continue;
        const slinky_doc_value *root = slinky_doc_root(d);
        as_buf_puts(out, i ? ",{\"cells\":[" : "{\"cells\":[");
        for (size_t j = 0; j < nc; j++) {
            if (j)
                as_buf_putc(out, ',');
            put_cell(out, &cols[j], root);
        }
        if (full) {
            /* includeObject=Object (kubectl --sort-by): the whole object */
            as_buf_puts(out, "],\"object\":");
            as_buf_put(out, items[i]->json, items[i]->json_len);
            as_buf_putc(out, '}');
            slinky_doc_free(d);
            continue;
        }
        as_buf_puts(out, "],\"object\":{\"kind\":\"PartialObjectMetadata\",\"apiVersion\":"
                              "\"meta.k8s.io/v1\",\"metadata\":");
        char *md = NULL;
        size_t mdl = 0;
        if (slinky_doc_value_dump_json(&md, &mdl, slinky_doc_value_get(root, "metadata"), 0) == 0) {
            as_buf_put(out, md, mdl);
            slinky_free(md);
        } else {
            as_buf_puts(out, "{}");
        }
        as_buf_puts(out, "}}");
        slinky_doc_free(d);
    }
    as_buf_puts(out, "]}");
    return 0;
}
