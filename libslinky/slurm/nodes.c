/* slurm: nodes (list, get, update, delete). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slurm_internal.h"

struct slinky_slurm_nodes {
    slinky_slurm__list l;
};

#define NODES(x) ((slinky_slurm_node *)(x)->l.items)

static int decode_node(slinky_slurm_node *n, slinky_slurm__list *l, const slinky_doc_value *o)
{
    n->name = slinky_slurm__str(o, "name");
    n->address = slinky_slurm__str(o, "address");
    n->hostname = slinky_slurm__str(o, "hostname");
    n->reason = slinky_slurm__str(o, "reason");
    n->reason_set_by_user = slinky_slurm__str(o, "reason_set_by_user");
    n->reason_changed_at = slinky_slurm__num(o, "reason_changed_at");
    n->comment = slinky_slurm__str(o, "comment");
    n->slurmd_version = slinky_slurm__str(o, "version");
    if (*n->slurmd_version == '\0')
        n->slurmd_version = slinky_slurm__str(o, "slurmd_version"); /* v0.0.38 */
    n->cpus = slinky_slurm__num(o, "cpus");
    n->alloc_cpus = slinky_slurm__num(o, "alloc_cpus");
    n->real_memory = slinky_slurm__num(o, "real_memory");
    n->alloc_memory = slinky_slurm__num(o, "alloc_memory");
    n->boot_time = slinky_slurm__num(o, "boot_time");
    n->last_busy = slinky_slurm__num(o, "last_busy");
    n->features = slinky_slurm__joined(l, o, "features", ",");
    n->active_features = slinky_slurm__joined(l, o, "active_features", ",");
    n->partitions = slinky_slurm__joined(l, o, "partitions", ",");
    /* v0.0.40+: "state": ["MIXED", "DRAIN"]; v0.0.38: "state": "mixed", "state_flags": ["DRAIN"] */
    slinky_doc_value *st = slinky_doc_value_get(o, "state");
    slinky_doc_value *fl = slinky_doc_value_get(o, "state_flags");
    slinky__buf b = SLINKY__BUF_INIT;
    uint32_t bits = 0;
    for (int part = 0; part < 2; part++) {
        slinky_doc_value *v = part ? fl : st;
        size_t cnt = slinky_doc_value_type(v) == SLINKY_DOC_ARRAY ? slinky_doc_value_size(v)
                     : slinky_doc_value_type(v) == SLINKY_DOC_STRING ? 1 : 0;
        for (size_t i = 0; i < cnt; i++) {
            const char *w = slinky_doc_value_type(v) == SLINKY_DOC_ARRAY
                                ? slinky_doc_value_get_string(slinky_doc_value_at(v, i))
                                : slinky_doc_value_get_string(v);
            if (w == NULL || *w == '\0')
                continue;
            bits |= slinky_slurm__state_word(w, strlen(w));
            if (b.len)
                slinky__buf_putc(&b, '+');
            for (const char *p = w; *p; p++)
                slinky__buf_putc(&b, (char)(*p >= 'a' && *p <= 'z' ? *p - 32 : *p));
        }
    }
    n->state = slinky_slurm__state_derive(bits);
    char *text = NULL;
    if (b.len == 0) {
        slinky__buf_dispose(&b);
        n->state_text = "";
    } else if (slinky__buf_finish(&text, NULL, &b) != 0) {
        return SLINKY_ENOMEM;
    } else if ((n->state_text = slinky_slurm__keep(l, text)) == NULL) {
        return SLINKY_ENOMEM;
    }
    if (!n->features || !n->active_features || !n->partitions)
        return SLINKY_ENOMEM;
    return 0;
}

int slinky_slurm__nodes_from_reply(slinky_slurm_nodes **out, slinky_slurm__reply *r)
{
    slinky_slurm_nodes *ns = slinky__calloc(1, sizeof(*ns));
    if (ns == NULL) {
        slinky_doc_free(r->doc);
        return SLINKY_ENOMEM;
    }
    ns->l.doc = r->doc;
    slinky_doc_value *root = slinky_doc_root(r->doc);
    ns->l.changed = r->status != 304;
    ns->l.update_time = slinky_slurm__num(root, "last_update");
    slinky_doc_value *arr = slinky_doc_value_get(root, "nodes");
    size_t n = slinky_doc_value_type(arr) == SLINKY_DOC_ARRAY ? slinky_doc_value_size(arr) : 0;
    if (ns->l.changed && slinky_doc_value_type(arr) != SLINKY_DOC_ARRAY && !slinky_doc_value_is_null(arr)) {
        slinky_slurm_nodes_free(ns);
        return slinky__error_set(SLINKY_EPARSE, "slurmrestd nodes reply: \"nodes\" is not an array");
    }
    if (n && (ns->l.items = slinky__calloc(n, sizeof(slinky_slurm_node))) == NULL) {
        slinky_slurm_nodes_free(ns);
        return SLINKY_ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        if (decode_node(&NODES(ns)[i], &ns->l, slinky_doc_value_at(arr, i)) != 0) {
            slinky_slurm_nodes_free(ns);
            return slinky__error_oom();
        }
        ns->l.count++;
    }
    *out = ns;
    return 0;
}

int slinky_slurm__nodes_from_stream(slinky_slurm_nodes **out, slinky_slurm__nstream *st)
{
    slinky_slurm_nodes *ns = slinky__calloc(1, sizeof(*ns));
    if (ns == NULL || slinky_slurm__nstream_take(&ns->l, st) != 0) {
        slinky_slurm_nodes_free(ns);
        return slinky__error_oom();
    }
    *out = ns;
    return 0;
}

/* GET nodes (or node/NAME): decoded while it arrives when the answer is a plain 200 */
static int fetch(slinky_slurm_nodes **out, slinky_slurm__reply *r, slinky_slurm_client *c, const char *tmpl,
                 const char *rel)
{
    slinky_slurm__nstream *st = NULL;
    int err = slinky_slurm__nstream_new(&st);
    if (err)
        return err;
    slinky_slurm__sink sink = {slinky_slurm__nstream_feed, slinky_slurm__nstream_usable, st};
    err = slinky_slurm__call_sink(r, c, "GET", tmpl, rel, NULL, &sink);
    if (err == 0 && r->doc == NULL) {
        err = slinky_slurm__nodes_from_stream(out, st);
    } else if (err == 0) {
        err = slinky_slurm__nodes_from_reply(out, r);
    }
    slinky_slurm__nstream_free(st);
    return err;
}

slinky_status slinky_slurm_nodes_list(slinky_slurm_nodes **out, slinky_slurm_client *c, int64_t update_time)
{
    if (out == NULL || c == NULL)
        return slinky__error_set(SLINKY_EINVALID, "slinky_slurm_nodes_list: NULL argument");
    char rel[64];
    if (update_time > 0)
        snprintf(rel, sizeof(rel), "nodes?update_time=%lld", (long long)update_time);
    else
        snprintf(rel, sizeof(rel), "nodes");
    slinky_slurm__reply r;
    int err = fetch(out, &r, c, "nodes", rel);
    if (err == SLINKY_ERROR && update_time > 0) {
        /* 24.11 answers some incremental queries with "Unable to query partitions" (error -1):
           ask for the whole table then */
        slinky__log(SLINKY_LOG_DEBUG, "slurm", "nodes?update_time failed (%s); full list",
                    slinky_error_last()->message);
        update_time = 0;
        err = fetch(out, &r, c, "nodes", "nodes");
    }
    if (err == 0 && r.status == 304)
        (*out)->l.update_time = update_time;
    return err;
}

static int check_name(const char *fn, const char *name)
{
    if (name == NULL || *name == '\0')
        return slinky__error_set(SLINKY_EINVALID, "%s: empty node name", fn);
    return 0;
}

slinky_status slinky_slurm_node_get(slinky_slurm_nodes **out, slinky_slurm_client *c, const char *name)
{
    if (out == NULL || c == NULL)
        return slinky__error_set(SLINKY_EINVALID, "slinky_slurm_node_get: NULL argument");
    int err = check_name("slinky_slurm_node_get", name);
    char *rel = err ? NULL : slinky_slurm__rel("node", name);
    if (rel == NULL)
        return err ? err : SLINKY_ENOMEM;
    slinky_slurm__reply r;
    slinky_slurm_nodes *ns = NULL;
    err = fetch(&ns, &r, c, "node/{node_name}", rel);
    free(rel);
    if (err)
        return err;
    if (slinky_slurm_nodes_find(ns, name) == NULL) {
        slinky_slurm_nodes_free(ns);
        return slinky__error_set(SLINKY_ENOTFOUND, "slurm node \"%s\" not found", name);
    }
    *out = ns;
    return 0;
}

slinky_status slinky_slurm_node_change_init(slinky_slurm_node_change *u, unsigned int version)
{
    if (u == NULL || version != SLINKY_SLURM_NODE_CHANGE_VERSION)
        return slinky__error_set(SLINKY_EINVALID, "slinky_slurm_node_update: unknown version %u", version);
    memset(u, 0, sizeof(*u));
    u->version = version;
    return 0;
}

slinky_status slinky_slurm_node_update(slinky_slurm_client *c, const char *name, const slinky_slurm_node_change *u)
{
    if (c == NULL || u == NULL)
        return slinky__error_set(SLINKY_EINVALID, "slinky_slurm_node_update: NULL argument");
    if (u->version != SLINKY_SLURM_NODE_CHANGE_VERSION)
        return slinky__error_set(SLINKY_EINVALID, "slinky_slurm_node_update: unknown version %u", u->version);
    int err = check_name("slinky_slurm_node_update", name);
    if (err)
        return err;
    static const char *const actions[] = {NULL, "DRAIN", "RESUME", "UNDRAIN", "DOWN"};
    if ((unsigned)u->action >= SLINKY__ARRAY_SIZE(actions))
        return slinky__error_set(SLINKY_EINVALID, "slurm node %s: action %d is not a slinky_slurm_node_action", name,
                                 (int)u->action);
    if ((u->action == SLINKY_SLURM_NODE_SET_DRAIN || u->action == SLINKY_SLURM_NODE_SET_DOWN) &&
        (u->reason == NULL || *u->reason == '\0'))
        return slinky__error_set(SLINKY_EINVALID, "slurm node %s: %s needs a reason", name, actions[u->action]);
    if (u->action == SLINKY_SLURM_NODE_KEEP && !u->reason && !u->comment && !u->features && !u->active_features)
        return slinky__error_set(SLINKY_EINVALID, "slurm node %s: nothing to update", name);
    slinky_doc *d = NULL;
    char *body = NULL, *rel = NULL;
    if ((err = slinky_doc_new(&d)) != 0)
        return err;
    slinky_doc_value *o = slinky_doc_root(d);
    err = slinky_doc_value_set_object(o);
    if (err == 0 && u->action != SLINKY_SLURM_NODE_KEEP)
        err = slinky_slurm__put_csv(o, "state", actions[u->action]);
    if (err == 0 && u->reason)
        err = slinky_doc_value_object_set_string(o, "reason", u->reason);
    if (err == 0 && u->comment)
        err = slinky_doc_value_object_set_string(o, "comment", u->comment);
    if (err == 0 && u->features)
        err = slinky_slurm__put_csv(o, "features", u->features);
    if (err == 0 && u->active_features)
        err = slinky_slurm__put_csv(o, "features_act", u->active_features);
    if (err == 0)
        err = slinky_doc_value_dump_json(&body, NULL, o, 0);
    slinky_doc_free(d);
    if (err == 0 && (rel = slinky_slurm__rel("node", name)) == NULL)
        err = SLINKY_ENOMEM;
    if (err == 0) {
        slinky_slurm__reply r;
        err = slinky_slurm__call(&r, c, "POST", "node/{node_name}", rel, body);
        if (err == 0)
            slinky_doc_free(r.doc);
    }
    free(rel);
    slinky_free(body);
    return err;
}

slinky_status slinky_slurm_node_drain(slinky_slurm_client *c, const char *name, const char *reason)
{
    slinky_slurm_node_change u = SLINKY_SLURM_NODE_CHANGE_INIT;
    u.action = SLINKY_SLURM_NODE_SET_DRAIN;
    u.reason = reason;
    return slinky_slurm_node_update(c, name, &u);
}

slinky_status slinky_slurm_node_resume(slinky_slurm_client *c, const char *name)
{
    slinky_slurm_node_change u = SLINKY_SLURM_NODE_CHANGE_INIT;
    u.action = SLINKY_SLURM_NODE_SET_RESUME;
    return slinky_slurm_node_update(c, name, &u);
}

slinky_status slinky_slurm_node_delete(slinky_slurm_client *c, const char *name)
{
    if (c == NULL)
        return slinky__error_set(SLINKY_EINVALID, "slinky_slurm_node_delete: NULL client");
    int err = check_name("slinky_slurm_node_delete", name);
    char *rel = err ? NULL : slinky_slurm__rel("node", name);
    if (rel == NULL)
        return err ? err : SLINKY_ENOMEM;
    slinky_slurm__reply r;
    err = slinky_slurm__call(&r, c, "DELETE", "node/{node_name}", rel, NULL);
    free(rel);
    if (err == 0)
        slinky_doc_free(r.doc);
    return err;
}

size_t slinky_slurm_nodes_count(const slinky_slurm_nodes *l)
{
    return l ? l->l.count : 0;
}

const slinky_slurm_node *slinky_slurm_nodes_at(const slinky_slurm_nodes *l, size_t i)
{
    return l && i < l->l.count ? &NODES(l)[i] : NULL;
}

const slinky_slurm_node *slinky_slurm_nodes_find(const slinky_slurm_nodes *l, const char *name)
{
    for (size_t i = 0; l && name && i < l->l.count; i++)
        if (strcmp(NODES(l)[i].name, name) == 0)
            return &NODES(l)[i];
    return NULL;
}

int64_t slinky_slurm_nodes_update_time(const slinky_slurm_nodes *l)
{
    return l ? l->l.update_time : 0;
}

bool slinky_slurm_nodes_changed(const slinky_slurm_nodes *l)
{
    return l && l->l.changed;
}

void slinky_slurm_nodes_free(slinky_slurm_nodes *l)
{
    if (l == NULL)
        return;
    slinky_slurm__list_dispose(&l->l);
    free(l);
}
