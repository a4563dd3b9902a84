/* Kubernetes sink: one Secret (default "slinky-identity") holding passwd,
 * group and authorized_keys.<user> for login and worker pods, written through
 * the kube client. Looks first: an equal Secret is left alone; a Secret of
 * that name not labelled as the ledger's is a conflict (never overwritten). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ledger/sink.h"
#include "slinky/kube.h"

#define MANAGED_BY "slinky-ledger"

static const slinky_kube_resource secrets = {"", "v1", "secrets", true};

static int put_data(slinky_doc_value *data, const char *key, slinky__buf *text)
{
    char *e = NULL;
    int rc = slinky_base64_encode(&e, text->data ? text->data : "", text->len, 0);
    if (rc == 0)
        rc = slinky_doc_value_object_set_string(data, key, e);
    free(e);
    return rc;
}

/* The wanted Secret (labels + data) for the state. */
static int build(slinky_doc **out, const slinky_ledger__state *st, const char *name)
{
    slinky_doc *d = NULL;
    int rc = slinky_doc_new(&d);
    if (rc < 0)
        return rc;
    slinky_doc_value *r = slinky_doc_root(d), *md = NULL, *labels = NULL, *data = NULL;
    slinky__buf pw = SLINKY__BUF_INIT, gr = SLINKY__BUF_INIT, k = SLINKY__BUF_INIT;
    if ((rc = slinky_doc_value_set_object(r)) < 0 ||
        (rc = slinky_doc_value_object_set_string(r, "apiVersion", "v1")) < 0 ||
        (rc = slinky_doc_value_object_set_string(r, "kind", "Secret")) < 0 ||
        (rc = slinky_doc_value_object_set_string(r, "type", "Opaque")) < 0 ||
        (rc = slinky_doc_value_path_put(&md, r, "metadata")) < 0 ||
        (rc = slinky_doc_value_set_object(md)) < 0 ||
        (rc = slinky_doc_value_object_set_string(md, "name", name)) < 0 ||
        (rc = slinky_doc_value_path_put(&labels, md, "labels")) < 0 ||
        (rc = slinky_doc_value_set_object(labels)) < 0 ||
        (rc = slinky_doc_value_object_set_string(labels, "app.kubernetes.io/managed-by",
                                                 MANAGED_BY)) < 0 ||
        (rc = slinky_doc_value_path_put(&data, r, "data")) < 0 ||
        (rc = slinky_doc_value_set_object(data)) < 0)
        goto out;
    /* groups and user private groups by gid, as the POSIX sink writes them */
    size_t ui = 0, gi = 0;
    while (ui < st->nusers || gi < st->ngroups) {
        bool user = gi >= st->ngroups ||
                    (ui < st->nusers && st->users[ui].uid < st->groups[gi].gid);
        if (user) {
            const slinky_ledger__user *u = &st->users[ui++];
            if (strcmp(u->state, "deleted") != 0)
                slinky__buf_printf(&gr, "%s:x:%u:\n", u->name, u->gid);
            continue;
        }
        const slinky_ledger__group *g = &st->groups[gi++];
        if (strcmp(g->state, "deleted") == 0)
            continue;
        slinky__buf_printf(&gr, "%s:x:%u:", g->name, g->gid);
        size_t n = 0;
        for (size_t m = 0; m < g->nmembers; m++) {
            const slinky_ledger__user *u = slinky_ledger__state_user(st, g->members[m]);
            if (u && strcmp(u->state, "deleted") != 0)
                slinky__buf_printf(&gr, "%s%s", n++ ? "," : "", u->name);
        }
        slinky__buf_putc(&gr, '\n');
    }
    for (size_t i = 0; rc == 0 && i < st->nusers; i++) {
        const slinky_ledger__user *u = &st->users[i];
        if (!strcmp(u->state, "deleted"))
            continue;
        slinky__buf_printf(&pw, "%s:x:%u:%u:%s:%s:%s\n", u->name, u->uid, u->gid, u->gecos,
                           u->home, u->shell);
        if (strcmp(u->state, "active") != 0 || !u->nkeys)
            continue;
        slinky__buf_clear(&k);
        for (size_t j = 0; j < u->nkeys; j++)
            slinky__buf_printf(&k, "%s\n", u->keys[j].key);
        char *key = slinky__sprintf("authorized_keys.%s", u->name);
        rc = key ? put_data(data, key, &k) : SLINKY_ENOMEM;
        free(key);
    }
    if (rc == 0 && (pw.failed || gr.failed || k.failed))
        rc = slinky__error_oom();
    if (rc == 0 && (rc = put_data(data, "passwd", &pw)) == 0)
        rc = put_data(data, "group", &gr);
out:
    slinky__buf_dispose(&pw);
    slinky__buf_dispose(&gr);
    slinky__buf_dispose(&k);
    if (rc < 0) {
        slinky_doc_free(d);
        return rc;
    }
    *out = d;
    return 0;
}

int slinky_ledger__sink_kube(slinky_ledger__run *run)
{
    const slinky_ledger_replay_options *o = run->opts;
    const char *name = o->kube_secret ? o->kube_secret : "slinky-identity";
    slinky_kube_config_options co = SLINKY_KUBE_CONFIG_OPTIONS_INIT;
    co.kubeconfig = o->kubeconfig;
    co.ns = o->kube_namespace;
    slinky_kube_config *cfg = NULL;
    slinky_kube_client *c = NULL;
    slinky_doc *want = NULL, *have = NULL;
    int rc = slinky_kube_config_load(&cfg, &co);
    if (rc == 0)
        rc = slinky_kube_client_new(&c, cfg, NULL);
    slinky_kube_config_free(cfg);
    const char *ns = c ? slinky_kube_config_get_namespace(slinky_kube_client_get_config(c)) : NULL;
    if (rc == 0)
        rc = build(&want, run->st, name);
    if (rc == 0) {
        run->total = 1;
        int g = slinky_kube_get(&have, c, &secrets, ns, name, NULL);
        if (g == SLINKY_ENOTFOUND) {
            slinky_error_clear();
            slinky_ledger__run_step(run, true, "create secret %s/%s", ns ? ns : "", name);
            if (!o->dry_run)
                rc = slinky_kube_create(NULL, c, &secrets, ns, slinky_doc_root(want), NULL);
        } else if (g < 0) {
            rc = g;
        } else {
            slinky_doc_value *h = slinky_doc_root(have);
            const char *mb = slinky_doc_value_get_string(slinky_doc_value_get(
                slinky_doc_value_path(h, "metadata.labels"), "app.kubernetes.io/managed-by"));
            if (!mb || strcmp(mb, MANAGED_BY) != 0) {
                rc = slinky__error_set(SLINKY_ECONFLICT,
                                       "secret %s/%s exists and is not managed by the ledger "
                                       "(label app.kubernetes.io/managed-by=" MANAGED_BY
                                       " missing): not overwriting",
                                       ns ? ns : "", name);
            } else if (slinky_doc_value_equal(slinky_doc_value_get(h, "data"),
                                              slinky_doc_value_get(slinky_doc_root(want), "data"))) {
                slinky_ledger__run_step(run, false, "secret %s/%s", ns ? ns : "", name);
            } else {
                slinky_ledger__run_step(run, true, "update secret %s/%s", ns ? ns : "", name);
                slinky_doc_value *rv = slinky_doc_value_path(h, "metadata.resourceVersion");
                slinky_doc_value *md = slinky_doc_value_get(slinky_doc_root(want), "metadata");
                if (rv && (rc = slinky_doc_value_object_set(md, "resourceVersion", rv)) < 0)
                    goto out;
                if (!o->dry_run)
                    rc = slinky_kube_update(NULL, c, &secrets, ns, slinky_doc_root(want), NULL);
            }
        }
    }
out:
    if (rc < 0)
        slinky__error_prefix("kube sink: ");
    slinky_doc_free(want);
    slinky_doc_free(have);
    slinky_kube_client_free(c);
    return rc;
}

/* "[NAMESPACE/]NAME/KEY" of a Secret (the kube sink's kubeconfig and
 * namespace) -> the decoded value. */
int slinky_ledger__kube_secret_value(char **out, const slinky_ledger_replay_options *o,
                                     const char *ref)
{
    const char *s1 = strchr(ref, '/'), *s2 = s1 ? strchr(s1 + 1, '/') : NULL;
    if (!s1 || !s1[1] || (s2 && (!s2[1] || strchr(s2 + 1, '/'))))
        return slinky__error_set(SLINKY_EINVALID,
                                 "secret reference '%s' is not [NAMESPACE/]NAME/KEY", ref);
    char *ns = s2 ? slinky__strndup(ref, (size_t)(s1 - ref)) : NULL;
    char *name = s2 ? slinky__strndup(s1 + 1, (size_t)(s2 - s1 - 1))
                    : slinky__strndup(ref, (size_t)(s1 - ref));
    const char *key = s2 ? s2 + 1 : s1 + 1;
    slinky_kube_config_options co = SLINKY_KUBE_CONFIG_OPTIONS_INIT;
    co.kubeconfig = o->kubeconfig;
    co.ns = ns ? ns : o->kube_namespace;
    slinky_kube_config *cfg = NULL;
    slinky_kube_client *c = NULL;
    slinky_doc *have = NULL;
    int rc = name && (ns || !s2) ? slinky_kube_config_load(&cfg, &co) : SLINKY_ENOMEM;
    if (rc == 0)
        rc = slinky_kube_client_new(&c, cfg, NULL);
    slinky_kube_config_free(cfg);
    if (rc == 0)
        rc = slinky_kube_get(&have, c, &secrets,
                             slinky_kube_config_get_namespace(slinky_kube_client_get_config(c)),
                             name, NULL);
    if (rc == 0) {
        const char *v = slinky_doc_value_get_string(
            slinky_doc_value_get(slinky_doc_value_get(slinky_doc_root(have), "data"), key));
        if (!v)
            rc = slinky__error_set(SLINKY_ENOTFOUND, "secret %s has no key '%s'", ref, key);
        else
            rc = slinky_base64_decode(out, NULL, v, 0);
    }
    if (rc < 0)
        slinky__error_prefix("ldap bind password from secret %s: ", ref);
    slinky_doc_free(have);
    slinky_kube_client_free(c);
    free(ns);
    free(name);
    return rc;
}
