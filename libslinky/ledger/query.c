/* Reading the ledger: show, get, keys, history, export/import, verify. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <git2/sys/mempack.h>
#include <git2/sys/odb_backend.h>

#include "ledger_internal.h"

static int tip_tree(git_tree **out, git_oid *commit_out, slinky_ledger *l)
{
    git_commit *tip = NULL;
    int rc = slinky_ledger__tip(&tip, l->repo);
    if (rc < 0)
        return rc;
    if (commit_out)
        git_oid_cpy(commit_out, git_commit_id(tip));
    if (git_commit_tree(out, tip) < 0)
        rc = slinky_ledger__git_error(SLINKY_EGIT, "read tip tree");
    git_commit_free(tip);
    return rc;
}

int slinky_ledger__each_blob(git_repository *repo, git_tree *root, const char *dir,
                             int (*fn)(void *ctx, const char *data, size_t len), void *ctx)
{
    git_tree_entry *e = NULL;
    if (git_tree_entry_bypath(&e, root, dir) < 0) {
        git_error_clear();
        return 0;
    }
    git_tree *t = NULL;
    int rc = 0;
    if (git_tree_lookup(&t, repo, git_tree_entry_id(e)) < 0)
        rc = slinky_ledger__git_error(SLINKY_EGIT, dir);
    git_tree_entry_free(e);
    for (size_t i = 0; rc == 0 && t && i < git_tree_entrycount(t); i++) {
        const git_tree_entry *se = git_tree_entry_byindex(t, i);
        git_tree *st = NULL;
        if (git_tree_entry_type(se) != GIT_OBJECT_TREE)
            continue;
        if (git_tree_lookup(&st, repo, git_tree_entry_id(se)) < 0) {
            rc = slinky_ledger__git_error(SLINKY_EGIT, dir);
            break;
        }
        for (size_t j = 0; rc == 0 && j < git_tree_entrycount(st); j++) {
            git_blob *blob = NULL;
            if (git_blob_lookup(&blob, repo, git_tree_entry_id(git_tree_entry_byindex(st, j))) <
                0) {
                rc = slinky_ledger__git_error(SLINKY_EGIT, dir);
                break;
            }
            rc = fn(ctx, git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob));
            git_blob_free(blob);
        }
        git_tree_free(st);
    }
    git_tree_free(t);
    return rc;
}

typedef struct dump_ctx {
    slinky__buf *b;
    bool first;
} dump_ctx;

static int dump_one(void *ctx, const char *data, size_t len)
{
    dump_ctx *d = ctx;
    if (!d->first)
        slinky__buf_putc(d->b, ',');
    d->first = false;
    slinky__buf_put(d->b, data, len);
    return 0;
}

/* Append every record blob under dir/<shard>/ to b, comma separated. */
static int dump_records(slinky__buf *b, git_repository *repo, git_tree *root, const char *dir)
{
    dump_ctx d = {b, true};
    return slinky_ledger__each_blob(repo, root, dir, dump_one, &d);
}

slinky_status slinky_ledger_show(char **json_out, slinky_ledger *ledger)
{
    if (!json_out || !ledger)
        return slinky__error_set(SLINKY_EINVALID, "slinky_ledger_show: bad arguments");
    git_tree *tree = NULL;
    git_oid cid;
    int rc = tip_tree(&tree, &cid, ledger);
    if (rc < 0)
        return rc;
    char *lj = NULL;
    slinky__buf b = SLINKY__BUF_INIT;
    char hex[GIT_OID_HEXSZ + 1];
    git_oid_tostr(hex, sizeof(hex), &cid);
    if ((rc = slinky_ledger__tree_read(&lj, NULL, ledger->repo, tree, "ledger.json")) == 0) {
        slinky__buf_printf(&b, "{\"commit\":\"%s\",\"ledger\":%s,\"users\":[", hex, lj);
        rc = dump_records(&b, ledger->repo, tree, "users");
        slinky__buf_puts(&b, "],\"groups\":[");
        if (rc == 0)
            rc = dump_records(&b, ledger->repo, tree, "groups");
        slinky__buf_puts(&b, "],\"accounts\":[");
        if (rc == 0)
            rc = dump_records(&b, ledger->repo, tree, "accounts");
        slinky__buf_puts(&b, "]}\n");
    }
    free(lj);
    git_tree_free(tree);
    if (rc < 0) {
        slinky__buf_dispose(&b);
        return rc;
    }
    return slinky__buf_finish(json_out, NULL, &b);
}

slinky_status slinky_ledger_get(char **json_out, slinky_ledger *ledger, const char *kind,
                                const char *name)
{
    if (!json_out || !ledger || !kind || !name)
        return slinky__error_set(SLINKY_EINVALID, "slinky_ledger_get: bad arguments");
    if (strcmp(kind, "user") && strcmp(kind, "group") && strcmp(kind, "account"))
        return slinky__error_set(SLINKY_EINVALID, "record kind '%s' is not user, group or account",
                                 kind);
    if (!slinky_ledger_name_is_valid(name))
        return slinky__error_set(SLINKY_EINVALID, "'%s' is not a valid name", name);
    git_tree *tree = NULL;
    int rc = tip_tree(&tree, NULL, ledger);
    if (rc < 0)
        return rc;
    char *path = slinky_ledger__record_path(kind, name);
    char *d = NULL;
    rc = path ? slinky_ledger__tree_read(&d, NULL, ledger->repo, tree, path) : SLINKY_ENOMEM;
    if (rc == SLINKY_ENOTFOUND)
        rc = slinky__error_set(SLINKY_ENOTFOUND, "%s '%s' is not in the ledger", kind, name);
    free(path);
    git_tree_free(tree);
    if (rc == 0)
        *json_out = d;
    return rc;
}

slinky_status slinky_ledger_keys(char **out, slinky_ledger *ledger, const char *user)
{
    if (!out)
        return slinky__error_set(SLINKY_EINVALID, "slinky_ledger_keys: out is required");
    if (slinky_ledger_name_is_reserved(user))
        return slinky__error_set(SLINKY_ENOTFOUND,
                                 "'%s' is a system account: the ledger serves no keys for it",
                                 user);
    char *json = NULL;
    int rc = slinky_ledger_get(&json, ledger, "user", user);
    if (rc < 0)
        return rc;
    slinky_doc *d = NULL;
    rc = slinky_doc_parse_json(&d, json, strlen(json));
    free(json);
    if (rc < 0)
        return rc;
    slinky__buf b = SLINKY__BUF_INIT;
    slinky_doc_value *r = slinky_doc_root(d);
    if (!strcmp(slinky_doc_value_path_string(r, "state", ""), "active")) {
        slinky_doc_value *keys = slinky_doc_value_get(r, "keys");
        for (size_t i = 0; i < slinky_doc_value_size(keys); i++) {
            const char *k = slinky_doc_value_path_string(slinky_doc_value_at(keys, i), "key", NULL);
            if (k && slinky_ledger__ssh_key_check(k) == 0)
                slinky__buf_printf(&b, "%s\n", k);
        }
    }
    slinky_doc_free(d);
    slinky__buf_puts(&b, "");
    return slinky__buf_finish(out, NULL, &b);
}

/* ------------------------------------------------------------------ */
/* History walk                                                       */
/* ------------------------------------------------------------------ */

/* First-parent chain from the tip (or start), oldest first; it ends before
 * `stop` when stop is met (*stopped_out true), else at the root commit. */
static int chain(git_oid **out, size_t *n_out, bool *stopped_out, git_repository *repo,
                 const git_oid *start, const git_oid *stop, char **bad_out)
{
    git_commit *c = NULL;
    int rc = 0;
    if (!start)
        rc = slinky_ledger__tip(&c, repo);
    else if (git_commit_lookup(&c, repo, start) < 0)
        rc = slinky_ledger__git_error(SLINKY_EGIT, "read commit");
    if (rc < 0)
        return rc;
    git_oid *v = NULL;
    size_t n = 0, cap = 0;
    bool stopped = false;
    while (c) {
        if (stop && git_oid_equal(git_commit_id(c), stop)) {
            stopped = true;
            break;
        }
        if (n == cap) {
            cap = cap ? cap * 2 : 256;
            git_oid *nv = slinky__realloc(v, cap * sizeof(*v));
            if (!nv) {
                rc = SLINKY_ENOMEM;
                break;
            }
            v = nv;
        }
        git_oid_cpy(&v[n++], git_commit_id(c));
        unsigned pc = git_commit_parentcount(c);
        if (pc > 1) {
            char hex[GIT_OID_HEXSZ + 1];
            git_oid_tostr(hex, sizeof(hex), git_commit_id(c));
            rc = slinky__error_set(SLINKY_ECONFLICT,
                                   "commit %s has %u parents: the ledger history must be linear",
                                   hex, pc);
            if (bad_out)
                *bad_out = slinky__strdup(hex);
            break;
        }
        git_commit *p = NULL;
        if (pc == 1 && git_commit_parent(&p, c, 0) < 0) {
            rc = slinky_ledger__git_error(SLINKY_EGIT, "read parent commit");
            break;
        }
        git_commit_free(c);
        c = p;
    }
    git_commit_free(c);
    if (rc < 0) {
        free(v);
        return rc;
    }
    for (size_t i = 0; i < n / 2; i++) {
        git_oid t = v[i];
        v[i] = v[n - 1 - i];
        v[n - 1 - i] = t;
    }
    *out = v;
    *n_out = n;
    if (stopped_out)
        *stopped_out = stopped;
    return 0;
}

/* One exported line for commit c (without newline) into b. */
static int export_line(slinky__buf *b, const git_commit *c, const slinky_ledger__event *ev)
{
    char *json = NULL;
    int rc = slinky_ledger__event_json(&json, ev);
    if (rc < 0)
        return rc;
    char hex[GIT_OID_HEXSZ + 1];
    git_oid_tostr(hex, sizeof(hex), git_commit_id(c));
    slinky__buf_put(b, json, strlen(json) - 1);
    slinky__buf_puts(b, ",\"actor\":");
    slinky_ledger__json_str(b, ev->actor);
    slinky__buf_puts(b, ",\"request_id\":");
    slinky_ledger__json_str(b, ev->request_id);
    slinky__buf_printf(b, ",\"commit\":\"%s\",\"time\":%lld,\"schema\":%d}\n", hex,
                       (long long)git_commit_time(c), SLINKY_LEDGER_FORMAT);
    free(json);
    return 0;
}

static bool concerns(const slinky_ledger__event *ev, const char *subject)
{
    if (!subject)
        return true;
    const char *slash = strchr(subject, '/');
    if (!slash)
        return (ev->name && !strcmp(ev->name, subject)) ||
               (ev->target && !strcmp(ev->target, subject));
    char *s = slinky_ledger__event_subject(ev);
    bool r = s && !strcmp(s, subject);
    free(s);
    if (!r && strncmp(subject, "user/", 5) != 0)
        r = ev->target && !strcmp(ev->target, slash + 1);
    return r;
}

static int walk_export(char **out, slinky_ledger *l, const char *subject)
{
    git_oid *v = NULL;
    size_t n = 0;
    int rc = chain(&v, &n, NULL, l->repo, NULL, NULL, NULL);
    if (rc < 0)
        return rc;
    slinky__buf b = SLINKY__BUF_INIT;
    slinky__buf_puts(&b, "");
    for (size_t i = 0; rc == 0 && i < n; i++) {
        git_commit *c = NULL;
        if (git_commit_lookup(&c, l->repo, &v[i]) < 0) {
            rc = slinky_ledger__git_error(SLINKY_EGIT, "read commit");
            break;
        }
        slinky_ledger__event ev;
        rc = slinky_ledger__event_from_message(&ev, git_commit_message(c));
        if (rc == 0) {
            if (ev.kind != SLINKY_LEDGER__INIT && concerns(&ev, subject))
                rc = export_line(&b, c, &ev);
            slinky_ledger__event_dispose(&ev);
        }
        git_commit_free(c);
    }
    free(v);
    if (rc < 0) {
        slinky__buf_dispose(&b);
        return rc;
    }
    return slinky__buf_finish(out, NULL, &b);
}

slinky_status slinky_ledger_history(char **jsonl_out, slinky_ledger *ledger, const char *subject)
{
    if (!jsonl_out || !ledger)
        return slinky__error_set(SLINKY_EINVALID, "slinky_ledger_history: bad arguments");
    return walk_export(jsonl_out, ledger, subject);
}

slinky_status slinky_ledger_export(char **jsonl_out, slinky_ledger *ledger)
{
    if (!jsonl_out || !ledger)
        return slinky__error_set(SLINKY_EINVALID, "slinky_ledger_export: bad arguments");
    return walk_export(jsonl_out, ledger, NULL);
}

slinky_status slinky_ledger_import(size_t *applied_out, slinky_ledger *ledger, const char *data,
                                   size_t len)
{
    if (!ledger || (!data && len))
        return slinky__error_set(SLINKY_EINVALID, "slinky_ledger_import: bad arguments");
    size_t applied = 0, line = 0;
    const char *p = data, *end = data + len;
    int rc = 0;
    while (p && p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *e = nl ? nl : end;
        line++;
        const char *q = p;
        while (q < e && (*q == ' ' || *q == '\t' || *q == '\r'))
            q++;
        if (q < e) {
            char *res = NULL;
            rc = slinky_ledger_append_json(&res, ledger, p, (size_t)(e - p));
            if (rc < 0) {
                slinky__error_prefix("line %zu: ", line);
                break;
            }
            if (!strstr(res, "\"duplicate\":true"))
                applied++;
            free(res);
        }
        p = nl ? nl + 1 : end;
    }
    if (applied_out)
        *applied_out = applied;
    return rc;
}

/* ------------------------------------------------------------------ */
/* verify                                                             */
/* ------------------------------------------------------------------ */

static int verify_chain(size_t *events_out, char **bad_commit_out, slinky_ledger *ledger,
                        const git_oid *start, const git_oid *stop, git_odb_backend *mem);
static int verify_range(size_t *events_out, char **bad_commit_out, slinky_ledger *ledger,
                        const git_oid *start, const git_oid *stop);

slinky_status slinky_ledger_verify(size_t *events_out, char **bad_commit_out,
                                   slinky_ledger *ledger)
{
    if (!ledger)
        return slinky__error_set(SLINKY_EINVALID, "slinky_ledger_verify: ledger is required");
    git_oid tip;
    if (git_reference_name_to_id(&tip, ledger->repo, "refs/heads/main") < 0) {
        git_error_clear();
        return slinky__error_set(SLINKY_ENOTFOUND, "ledger has no refs/heads/main");
    }
    int rc = verify_range(events_out, bad_commit_out, ledger, &tip, NULL);
    if (rc == 0) {
        git_reference *ref = NULL;
        if (git_reference_create(&ref, ledger->repo, SLINKY_LEDGER__VERIFIED_REF, &tip, 1,
                                 "verify") < 0)
            git_error_clear(); /* a read-only copy: nothing to remember */
        git_reference_free(ref);
    }
    return rc;
}

int slinky_ledger__check_history(slinky_ledger *l, const git_oid *tip)
{
    git_oid seen;
    bool have = git_reference_name_to_id(&seen, l->repo, SLINKY_LEDGER__VERIFIED_REF) == 0;
    git_error_clear();
    int rc = 0;
    if (have && git_oid_equal(&seen, tip)) {
        /* verified before: its own and its parent's objects must still read */
        git_commit *c = NULL, *p = NULL;
        if (git_commit_lookup(&c, l->repo, tip) < 0 ||
            (git_commit_parentcount(c) > 0 && git_commit_parent(&p, c, 0) < 0))
            rc = slinky_ledger__git_error(SLINKY_EGIT, "read the tip and its parent");
        git_commit_free(p);
        git_commit_free(c);
    } else {
        /* only what came after the last verified tip, unless history was rewritten */
        bool after = have && git_graph_descendant_of(l->repo, tip, &seen) == 1;
        git_error_clear();
        rc = verify_range(NULL, NULL, l, tip, after ? &seen : NULL);
        if (rc == 0) {
            git_reference *ref = NULL;
            int grc = git_reference_create(&ref, l->repo, SLINKY_LEDGER__VERIFIED_REF, tip, 1,
                                           "verified");
            git_error_clear();
            if (grc == GIT_ELOCKED) /* a writer killed while it held the lock */
                slinky_ledger__clear_stale_lock(l->repo, SLINKY_LEDGER__VERIFIED_REF);
            git_reference_free(ref);
        }
    }
    if (rc < 0)
        slinky__error_prefix("the ledger is read-only until repaired: its history fails "
                             "verify: ");
    return rc;
}

/*
 * verify re-applies every event, which writes trees and blobs. Those writes go
 * to an in-memory object backend of a second handle on the repository, so a
 * verify neither fsyncs nor leaves objects behind.
 */
static int open_scratch(git_repository **out, git_odb_backend **mem_out, git_repository *repo)
{
    git_repository *r = NULL;
    git_odb *odb = NULL;
    git_odb_backend *mem = NULL;
    if (git_repository_open_bare(&r, git_repository_path(repo)) < 0 ||
        slinky_ledger__odb_guard(r) < 0 || git_repository_odb(&odb, r) < 0 ||
        git_mempack_new(&mem) < 0 ||
        git_odb_add_backend(odb, mem, 1000) < 0) {
        if (mem && !odb)
            mem->free(mem);
        git_odb_free(odb);
        git_repository_free(r);
        return slinky_ledger__git_error(SLINKY_EGIT, "open repository for verify");
    }
    git_odb_free(odb);
    *out = r;
    *mem_out = mem;
    return 0;
}

int slinky_ledger__verify_from(size_t *events_out, char **bad_commit_out, slinky_ledger *ledger,
                               const git_oid *start)
{
    return verify_range(events_out, bad_commit_out, ledger, start, NULL);
}

static int verify_range(size_t *events_out, char **bad_commit_out, slinky_ledger *ledger,
                        const git_oid *start, const git_oid *stop)
{
    git_repository *scratch = NULL;
    git_odb_backend *mem = NULL;
    int rc = open_scratch(&scratch, &mem, ledger->repo);
    if (rc < 0)
        return rc;
    slinky_ledger view = {scratch, ledger->path};
    rc = verify_chain(events_out, bad_commit_out, &view, start, stop, mem);
    git_repository_free(scratch);
    return rc;
}

static int verify_chain(size_t *events_out, char **bad_commit_out, slinky_ledger *ledger,
                        const git_oid *start, const git_oid *stop, git_odb_backend *mem)
{
    git_oid *v = NULL;
    size_t n = 0;
    char *bad = NULL;
    bool stopped = false;
    int rc = chain(&v, &n, &stopped, ledger->repo, start, stop, &bad);
    if (rc < 0) {
        if (bad_commit_out)
            *bad_commit_out = bad;
        else
            free(bad);
        return rc;
    }
    size_t i;
    char hex[GIT_OID_HEXSZ + 1] = "";
    for (i = 0; rc == 0 && i < n; i++) {
        git_commit *c = NULL;
        git_tree *parent_tree = NULL;
        git_oid_tostr(hex, sizeof(hex), &v[i]);
        if (git_commit_lookup(&c, ledger->repo, &v[i]) < 0) {
            rc = slinky_ledger__git_error(SLINKY_ECONFLICT, hex);
            break;
        }
        slinky_ledger__event ev;
        rc = slinky_ledger__event_from_message(&ev, git_commit_message(c));
        if (rc < 0) {
            slinky__error_prefix("commit %s: bad event: ", hex);
            rc = SLINKY_ECONFLICT;
            git_commit_free(c);
            break;
        }
        bool root = i == 0 && !stopped; /* the first commit of the whole history */
        if (root != (ev.kind == SLINKY_LEDGER__INIT)) {
            rc = slinky__error_set(SLINKY_ECONFLICT, "commit %s: %s", hex,
                                   root ? "the first commit is not an init event"
                                          : "an init event after the first commit");
        } else {
            if (!root) {
                git_commit *p = NULL;
                if (git_commit_parent(&p, c, 0) == 0)
                    git_commit_tree(&parent_tree, p);
                git_commit_free(p);
                git_error_clear();
            }
            uint32_t recorded = ev.id;
            git_oid want;
            int arc = 0;
            if (!root)
                arc = slinky_ledger__event_check(&ev);
            if (arc == 0)
                arc = slinky_ledger__apply(&want, NULL, ledger->repo, parent_tree, &ev);
            if (arc < 0) {
                char *m = slinky__strdup(slinky_error_last()->message);
                rc = slinky__error_set(SLINKY_ECONFLICT,
                                       "commit %s: its event does not apply to its parent: %s",
                                       hex, m ? m : "");
                free(m);
            } else if (recorded != ev.id) {
                rc = slinky__error_set(SLINKY_ECONFLICT, "commit %s: recorded id %u differs "
                                       "from the id %u the event allocates",
                                       hex, recorded, ev.id);
            } else if (!git_oid_equal(&want, git_commit_tree_id(c))) {
                char w[GIT_OID_HEXSZ + 1], h[GIT_OID_HEXSZ + 1];
                git_oid_tostr(w, sizeof(w), &want);
                git_oid_tostr(h, sizeof(h), git_commit_tree_id(c));
                rc = slinky__error_set(SLINKY_ECONFLICT,
                                       "commit %s: its tree %s is not its parent's tree with its "
                                       "event applied (expected %s)",
                                       hex, h, w);
            }
        }
        git_tree_free(parent_tree);
        slinky_ledger__event_dispose(&ev);
        git_commit_free(c);
        if (i % 256 == 255)
            git_mempack_reset(mem); /* bound memory: scratch trees are not needed later */
    }
    free(v);
    if (rc < 0) {
        if (bad_commit_out)
            *bad_commit_out = slinky__strdup(hex);
        return rc;
    }
    if (events_out)
        *events_out = n && !stopped ? n - 1 : n;
    return 0;
}
