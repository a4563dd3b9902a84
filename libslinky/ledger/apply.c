/* Applying one event to a tree: validation against the tree, id allocation,
 * incremental tree update (git_tree_create_updated, never a full rebuild). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "ledger_internal.h"

#define MAX_UPD 16

typedef struct txn {
    git_repository *repo;
    git_tree *base;
    size_t n;
    git_tree_update upd[MAX_UPD];
    char *path[MAX_UPD];
    char *data[MAX_UPD];
    size_t len[MAX_UPD];
} txn;

static void txn_dispose(txn *t)
{
    for (size_t i = 0; i < t->n; i++) {
        free(t->path[i]);
        free(t->data[i]);
    }
    t->n = 0;
}

static void shard(char out[3], const char *name)
{
    git_oid oid;
    git_odb_hash(&oid, name, strlen(name), GIT_OBJECT_BLOB);
    snprintf(out, 3, "%02x", oid.id[0]);
}

char *slinky_ledger__record_path(const char *kind, const char *name)
{
    char s[3];
    shard(s, name);
    return slinky__sprintf("%ss/%s/%s.json", kind, s, name);
}

char *slinky_ledger__id_path(uint32_t id)
{
    return slinky__sprintf("ids/%u/%u/%u", id / 4096, (id / 64) % 64, id);
}

char *slinky_ledger__request_path(const char *request_id)
{
    git_oid oid;
    char hex[GIT_OID_HEXSZ + 1];
    git_odb_hash(&oid, request_id, strlen(request_id), GIT_OBJECT_BLOB);
    git_oid_tostr(hex, sizeof(hex), &oid);
    return slinky__sprintf("requests/%.2s/%s", hex, hex + 2);
}

int slinky_ledger__tree_read(char **out, size_t *len_out, git_repository *repo, git_tree *tree,
                             const char *path)
{
    git_tree_entry *e = NULL;
    if (!tree || git_tree_entry_bypath(&e, tree, path) < 0) {
        git_error_clear();
        return slinky__error_set(SLINKY_ENOTFOUND, "%s: not in the ledger", path);
    }
    git_blob *blob = NULL;
    int rc = git_blob_lookup(&blob, repo, git_tree_entry_id(e));
    git_tree_entry_free(e);
    if (rc < 0)
        return slinky_ledger__git_error(SLINKY_EGIT, path);
    size_t len = (size_t)git_blob_rawsize(blob);
    char *d = slinky__malloc(len + 1);
    if (!d) {
        git_blob_free(blob);
        return SLINKY_ENOMEM;
    }
    memcpy(d, git_blob_rawcontent(blob), len);
    d[len] = '\0';
    git_blob_free(blob);
    *out = d;
    if (len_out)
        *len_out = len;
    return 0;
}

static int txn_read(char **out, size_t *len_out, txn *t, const char *path)
{
    for (size_t i = t->n; i-- > 0;)
        if (!strcmp(t->path[i], path)) {
            char *d = slinky__strndup(t->data[i], t->len[i]);
            if (!d)
                return SLINKY_ENOMEM;
            *out = d;
            if (len_out)
                *len_out = t->len[i];
            return 0;
        }
    return slinky_ledger__tree_read(out, len_out, t->repo, t->base, path);
}

static bool txn_exists(txn *t, const char *path)
{
    for (size_t i = 0; i < t->n; i++)
        if (!strcmp(t->path[i], path))
            return true;
    git_tree_entry *e = NULL;
    if (t->base && git_tree_entry_bypath(&e, t->base, path) == 0) {
        git_tree_entry_free(e);
        return true;
    }
    git_error_clear();
    return false;
}

/* Takes ownership of path and data. */
static int txn_write(txn *t, char *path, char *data, size_t len)
{
    if (!path || !data) {
        free(path);
        free(data);
        return SLINKY_ENOMEM;
    }
    for (size_t i = 0; i < t->n; i++)
        if (!strcmp(t->path[i], path)) {
            free(t->data[i]);
            free(path);
            t->data[i] = data;
            t->len[i] = len;
            return 0;
        }
    if (t->n == MAX_UPD) {
        free(path);
        free(data);
        return slinky__error_set(SLINKY_ERROR, "ledger: too many paths in one event");
    }
    t->path[t->n] = path;
    t->data[t->n] = data;
    t->len[t->n] = len;
    t->n++;
    return 0;
}

static int txn_finish(git_oid *out, txn *t)
{
    for (size_t i = 0; i < t->n; i++) {
        git_oid blob;
        if (git_blob_create_from_buffer(&blob, t->repo, t->data[i], t->len[i]) < 0)
            return slinky_ledger__git_error(SLINKY_EGIT, "write blob");
        t->upd[i].action = GIT_TREE_UPDATE_UPSERT;
        t->upd[i].id = blob;
        t->upd[i].filemode = GIT_FILEMODE_BLOB;
        t->upd[i].path = t->path[i];
    }
    git_tree *base = t->base;
    git_tree *empty = NULL;
    if (!base) {
        git_treebuilder *tb = NULL;
        git_oid eid;
        if (git_treebuilder_new(&tb, t->repo, NULL) < 0 || git_treebuilder_write(&eid, tb) < 0 ||
            git_tree_lookup(&empty, t->repo, &eid) < 0) {
            git_treebuilder_free(tb);
            return slinky_ledger__git_error(SLINKY_EGIT, "write empty tree");
        }
        git_treebuilder_free(tb);
        base = empty;
    }
    int rc = git_tree_create_updated(out, t->repo, base, t->n, t->upd);
    git_tree_free(empty);
    if (rc < 0)
        return slinky_ledger__git_error(SLINKY_EGIT, "write tree");
    return 0;
}

/* ------------------------------------------------------------------ */
/* Records (JSON documents in the tree)                               */
/* ------------------------------------------------------------------ */

static int read_doc(slinky_doc **out, txn *t, const char *path)
{
    char *d = NULL;
    size_t len = 0;
    int rc = txn_read(&d, &len, t, path);
    if (rc < 0)
        return rc;
    rc = slinky_doc_parse_json(out, d, len);
    free(d);
    if (rc < 0)
        slinky__error_prefix("%s: ", path);
    return rc;
}

/* Read record kind/name; ENOTFOUND with a clear message when absent. */
static int read_record(slinky_doc **out, char **path_out, txn *t, const char *kind,
                       const char *name)
{
    char *path = slinky_ledger__record_path(kind, name);
    if (!path)
        return SLINKY_ENOMEM;
    int rc = read_doc(out, t, path);
    if (rc == SLINKY_ENOTFOUND)
        rc = slinky__error_set(SLINKY_ENOTFOUND, "%s '%s' does not exist", kind, name);
    if (rc < 0 || !path_out)
        free(path);
    else
        *path_out = path;
    return rc;
}

static int write_doc(txn *t, char *path, slinky_doc *doc)
{
    char *json = NULL;
    size_t len = 0;
    int rc = slinky_doc_value_dump_json(&json, &len, slinky_doc_root(doc),
                                        SLINKY_DOC_DUMP_PRETTY | SLINKY_DOC_DUMP_SORT_KEYS);
    if (rc < 0) {
        free(path);
        return rc;
    }
    /* add a final newline for readable files */
    char *d = slinky__realloc(json, len + 2);
    if (!d) {
        slinky_free(json);
        free(path);
        return SLINKY_ENOMEM;
    }
    d[len] = '\n';
    d[len + 1] = '\0';
    return txn_write(t, path, d, len + 1);
}

static const char *rec_state(slinky_doc *doc)
{
    return slinky_doc_value_path_string(slinky_doc_root(doc), "state", "active");
}

static ssize_t array_find(slinky_doc_value *arr, const char *s)
{
    for (size_t i = 0; i < slinky_doc_value_size(arr); i++) {
        const char *v = slinky_doc_value_get_string(slinky_doc_value_at(arr, i));
        if (v && !strcmp(v, s))
            return (ssize_t)i;
    }
    return -1;
}

static int array_add_string(slinky_doc_value *arr, const char *s)
{
    slinky_doc_value *v = NULL;
    int rc = slinky_doc_value_array_append(&v, arr);
    return rc < 0 ? rc : slinky_doc_value_set_string(v, s);
}

static int object_array(slinky_doc_value **out, slinky_doc_value *obj, const char *key)
{
    slinky_doc_value *v = NULL;
    int rc = slinky_doc_value_object_put(&v, obj, key);
    if (rc < 0)
        return rc;
    if (slinky_doc_value_type(v) != SLINKY_DOC_ARRAY && (rc = slinky_doc_value_set_array(v)) < 0)
        return rc;
    *out = v;
    return 0;
}

/* ------------------------------------------------------------------ */
/* ids                                                                */
/* ------------------------------------------------------------------ */

static bool id_used(txn *t, uint32_t id)
{
    char *p = slinky_ledger__id_path(id);
    bool used = p ? txn_exists(t, p) : true;
    free(p);
    return used;
}

static int id_owner(char **out, txn *t, uint32_t id)
{
    char *p = slinky_ledger__id_path(id);
    if (!p)
        return SLINKY_ENOMEM;
    int rc = txn_read(out, NULL, t, p);
    free(p);
    return rc;
}

/* Take an id (given or allocated) for "user NAME"/"group NAME", advance next_id. */
static int take_id(txn *t, slinky_ledger__event *ev, const char *what)
{
    slinky_doc *ld = NULL;
    int rc = read_doc(&ld, t, "ledger.json");
    if (rc < 0)
        return rc;
    slinky_doc_value *root = slinky_doc_root(ld);
    int64_t min = slinky_doc_value_path_int(root, "id_range.min", SLINKY_LEDGER_ID_MIN);
    int64_t max = slinky_doc_value_path_int(root, "id_range.max", SLINKY_LEDGER_ID_MAX);
    int64_t next = slinky_doc_value_path_int(root, "next_id", min);
    if (ev->id && (int64_t)ev->id < min) {
        rc = slinky__error_set(SLINKY_EINVALID,
                               "id %u is below the ledger's id range %lld-%lld (ids under it "
                               "belong to the base system)",
                               ev->id, (long long)min, (long long)max);
        goto out;
    }
    if (ev->id) {
        if (id_used(t, ev->id)) {
            char *owner = NULL;
            id_owner(&owner, t, ev->id);
            if (owner)
                owner[strcspn(owner, "\n")] = '\0';
            rc = slinky__error_set(SLINKY_EEXISTS, "id %u is already taken by %s", ev->id,
                                   owner ? owner : "another entry");
            free(owner);
            goto out;
        }
    } else {
        int64_t id = next;
        while (id <= max && id_used(t, (uint32_t)id))
            id++;
        if (id > max) {
            rc = slinky__error_set(SLINKY_EEXISTS, "no free id left in the range %lld-%lld",
                                   (long long)min, (long long)max);
            goto out;
        }
        ev->id = (uint32_t)id;
    }
    char *owner = slinky__sprintf("%s %s\n", what, ev->name);
    if (!owner) {
        rc = SLINKY_ENOMEM;
        goto out;
    }
    if ((rc = txn_write(t, slinky_ledger__id_path(ev->id), owner, strlen(owner))) < 0)
        goto out;
    if ((int64_t)ev->id == next) {
        while (next <= max && id_used(t, (uint32_t)next))
            next++;
        slinky_doc_value *nv = NULL;
        if ((rc = slinky_doc_value_object_put(&nv, root, "next_id")) < 0 ||
            (rc = slinky_doc_value_set_int(nv, next)) < 0)
            goto out;
        char *p = slinky__strdup("ledger.json");
        rc = p ? write_doc(t, p, ld) : SLINKY_ENOMEM;
    }
out:
    slinky_doc_free(ld);
    return rc;
}

/* ------------------------------------------------------------------ */
/* Event kinds                                                        */
/* ------------------------------------------------------------------ */

static int new_record(slinky_doc **out)
{
    int rc = slinky_doc_new(out);
    if (rc < 0)
        return rc;
    if ((rc = slinky_doc_value_set_object(slinky_doc_root(*out))) < 0) {
        slinky_doc_free(*out);
        *out = NULL;
    }
    return rc;
}

static bool record_exists(txn *t, const char *kind, const char *name)
{
    char *p = slinky_ledger__record_path(kind, name);
    bool r = p ? txn_exists(t, p) : true;
    free(p);
    return r;
}

static int do_init(txn *t, slinky_ledger__event *ev)
{
    slinky_doc *d = NULL;
    int rc = new_record(&d);
    if (rc < 0)
        return rc;
    slinky_doc_value *r = slinky_doc_root(d), *range = NULL;
    if ((rc = slinky_doc_value_object_set_int(r, "format", SLINKY_LEDGER_FORMAT)) < 0 ||
        (rc = slinky_doc_value_object_set_string(r, "cluster", ev->cluster ? ev->cluster : "")) <
            0 ||
        (rc = slinky_doc_value_object_put(&range, r, "id_range")) < 0 ||
        (rc = slinky_doc_value_set_object(range)) < 0 ||
        (rc = slinky_doc_value_object_set_int(range, "min", ev->id_min)) < 0 ||
        (rc = slinky_doc_value_object_set_int(range, "max", ev->id_max)) < 0 ||
        (rc = slinky_doc_value_object_set_int(r, "next_id", ev->id_min)) < 0) {
        slinky_doc_free(d);
        return rc;
    }
    char *p = slinky__strdup("ledger.json");
    rc = p ? write_doc(t, p, d) : SLINKY_ENOMEM;
    slinky_doc_free(d);
    return rc;
}

static int do_user_add(txn *t, slinky_ledger__event *ev)
{
    if (record_exists(t, "user", ev->name))
        return slinky__error_set(SLINKY_EEXISTS, "user '%s' already exists (or was deleted: "
                                 "names and ids are never reused)",
                                 ev->name);
    if (record_exists(t, "group", ev->name))
        return slinky__error_set(SLINKY_EEXISTS, "'%s' is already the name of a group",
                                 ev->name);
    int rc = take_id(t, ev, "user");
    if (rc < 0)
        return rc;
    slinky_doc *d = NULL;
    if ((rc = new_record(&d)) < 0)
        return rc;
    slinky_doc_value *r = slinky_doc_root(d), *keys = NULL;
    if ((rc = slinky_doc_value_object_set_string(r, "name", ev->name)) < 0 ||
        (rc = slinky_doc_value_object_set_int(r, "uid", ev->id)) < 0 ||
        (rc = slinky_doc_value_object_set_int(r, "gid", ev->id)) < 0 ||
        (rc = slinky_doc_value_object_set_string(r, "gecos", ev->gecos)) < 0 ||
        (rc = slinky_doc_value_object_set_string(r, "home", ev->home)) < 0 ||
        (rc = slinky_doc_value_object_set_string(r, "shell", ev->shell)) < 0 ||
        (rc = slinky_doc_value_object_set_string(r, "state", "active")) < 0 ||
        (rc = object_array(&keys, r, "keys")) < 0) {
        slinky_doc_free(d);
        return rc;
    }
    rc = write_doc(t, slinky_ledger__record_path("user", ev->name), d);
    slinky_doc_free(d);
    return rc;
}

static int do_group_add(txn *t, slinky_ledger__event *ev)
{
    if (record_exists(t, "group", ev->name))
        return slinky__error_set(SLINKY_EEXISTS, "group '%s' already exists (or was removed: "
                                 "names and ids are never reused)",
                                 ev->name);
    if (record_exists(t, "user", ev->name))
        return slinky__error_set(SLINKY_EEXISTS,
                                 "'%s' is already a user name (and its private group)",
                                 ev->name);
    int rc = take_id(t, ev, "group");
    if (rc < 0)
        return rc;
    slinky_doc *d = NULL;
    if ((rc = new_record(&d)) < 0)
        return rc;
    slinky_doc_value *r = slinky_doc_root(d), *m = NULL;
    if ((rc = slinky_doc_value_object_set_string(r, "name", ev->name)) < 0 ||
        (rc = slinky_doc_value_object_set_int(r, "gid", ev->id)) < 0 ||
        (rc = slinky_doc_value_object_set_string(r, "state", "active")) < 0 ||
        (rc = object_array(&m, r, "members")) < 0) {
        slinky_doc_free(d);
        return rc;
    }
    rc = write_doc(t, slinky_ledger__record_path("group", ev->name), d);
    slinky_doc_free(d);
    return rc;
}

static int do_account_add(txn *t, slinky_ledger__event *ev)
{
    if (record_exists(t, "account", ev->name))
        return slinky__error_set(SLINKY_EEXISTS, "account '%s' already exists", ev->name);
    slinky_doc *d = NULL;
    int rc = new_record(&d);
    if (rc < 0)
        return rc;
    slinky_doc_value *r = slinky_doc_root(d), *u = NULL;
    if ((rc = slinky_doc_value_object_set_string(r, "name", ev->name)) < 0 ||
        (rc = slinky_doc_value_object_set_string(r, "description",
                                                 ev->description ? ev->description : ev->name)) <
            0 ||
        (rc = slinky_doc_value_object_set_string(r, "organization",
                                                 ev->organization ? ev->organization : "")) < 0 ||
        (rc = object_array(&u, r, "users")) < 0) {
        slinky_doc_free(d);
        return rc;
    }
    rc = write_doc(t, slinky_ledger__record_path("account", ev->name), d);
    slinky_doc_free(d);
    return rc;
}

/* Events that modify one existing user record. */
static int do_user_change(txn *t, slinky_ledger__event *ev)
{
    slinky_doc *d = NULL;
    char *path = NULL;
    int rc = read_record(&d, &path, t, "user", ev->name);
    if (rc < 0)
        return rc;
    slinky_doc_value *r = slinky_doc_root(d), *keys = NULL;
    const char *state = rec_state(d);
    bool deleted = !strcmp(state, "deleted");
    if (deleted) {
        rc = slinky__error_set(SLINKY_EINVALID, "user '%s' was deleted", ev->name);
        goto out;
    }
    switch (ev->kind) {
    case SLINKY_LEDGER_USER_UPDATE:
        if ((ev->gecos && (rc = slinky_doc_value_object_set_string(r, "gecos", ev->gecos)) < 0) ||
            (ev->home && (rc = slinky_doc_value_object_set_string(r, "home", ev->home)) < 0) ||
            (ev->shell && (rc = slinky_doc_value_object_set_string(r, "shell", ev->shell)) < 0))
            goto out;
        break;
    case SLINKY_LEDGER_USER_DISABLE:
        if (strcmp(state, "active") != 0) {
            rc = slinky__error_set(SLINKY_EINVALID, "user '%s' is already disabled", ev->name);
            goto out;
        }
        rc = slinky_doc_value_object_set_string(r, "state", "disabled");
        break;
    case SLINKY_LEDGER_USER_ENABLE:
        if (strcmp(state, "disabled") != 0) {
            rc = slinky__error_set(SLINKY_EINVALID, "user '%s' is not disabled", ev->name);
            goto out;
        }
        rc = slinky_doc_value_object_set_string(r, "state", "active");
        break;
    case SLINKY_LEDGER_USER_DELETE:
        if ((rc = slinky_doc_value_object_set_string(r, "state", "deleted")) < 0 ||
            (rc = object_array(&keys, r, "keys")) < 0)
            goto out;
        rc = slinky_doc_value_set_array(keys);
        break;
    case SLINKY_LEDGER_KEY_ADD: {
        if ((rc = object_array(&keys, r, "keys")) < 0)
            goto out;
        size_t klen = strcspn(ev->key, " \t");
        const char *blob = ev->key + klen + strspn(ev->key + klen, " \t");
        size_t blen = strcspn(blob, " \t");
        for (size_t i = 0; i < slinky_doc_value_size(keys); i++) {
            slinky_doc_value *k = slinky_doc_value_at(keys, i);
            const char *tag = slinky_doc_value_path_string(k, "tag", "");
            const char *kk = slinky_doc_value_path_string(k, "key", "");
            if (!strcmp(tag, ev->tag)) {
                rc = slinky__error_set(SLINKY_EEXISTS, "user '%s' already has a key tagged '%s'",
                                       ev->name, ev->tag);
                goto out;
            }
            size_t l2 = strcspn(kk, " \t");
            const char *b2 = kk + l2 + strspn(kk + l2, " \t");
            if (strcspn(b2, " \t") == blen && !strncmp(b2, blob, blen)) {
                rc = slinky__error_set(SLINKY_EEXISTS,
                                       "user '%s' already has this key (tagged '%s')", ev->name,
                                       tag);
                goto out;
            }
        }
        slinky_doc_value *k = NULL;
        if ((rc = slinky_doc_value_array_append(&k, keys)) < 0 ||
            (rc = slinky_doc_value_set_object(k)) < 0 ||
            (rc = slinky_doc_value_object_set_string(k, "tag", ev->tag)) < 0 ||
            (rc = slinky_doc_value_object_set_string(k, "key", ev->key)) < 0)
            goto out;
        break;
    }
    case SLINKY_LEDGER_KEY_REMOVE: {
        if ((rc = object_array(&keys, r, "keys")) < 0)
            goto out;
        size_t i;
        for (i = 0; i < slinky_doc_value_size(keys); i++)
            if (!strcmp(slinky_doc_value_path_string(slinky_doc_value_at(keys, i), "tag", ""),
                        ev->tag))
                break;
        if (i == slinky_doc_value_size(keys)) {
            rc = slinky__error_set(SLINKY_ENOTFOUND, "user '%s' has no key tagged '%s'",
                                   ev->name, ev->tag);
            goto out;
        }
        rc = slinky_doc_value_array_remove(keys, i);
        break;
    }
    default:
        rc = slinky__error_set(SLINKY_ERROR, "internal: not a user change");
    }
    if (rc == 0) {
        rc = write_doc(t, path, d);
        path = NULL;
    }
out:
    free(path);
    slinky_doc_free(d);
    return rc;
}

static int do_group_remove(txn *t, slinky_ledger__event *ev)
{
    slinky_doc *d = NULL;
    char *path = NULL;
    int rc = read_record(&d, &path, t, "group", ev->name);
    if (rc < 0)
        return rc;
    slinky_doc_value *m = NULL;
    if (!strcmp(rec_state(d), "deleted"))
        rc = slinky__error_set(SLINKY_ENOTFOUND, "group '%s' was already removed", ev->name);
    else if ((rc = slinky_doc_value_object_set_string(slinky_doc_root(d), "state", "deleted")) ==
                 0 &&
             (rc = object_array(&m, slinky_doc_root(d), "members")) == 0 &&
             (rc = slinky_doc_value_set_array(m)) == 0) {
        rc = write_doc(t, path, d);
        path = NULL;
    }
    free(path);
    slinky_doc_free(d);
    return rc;
}

/* member-add/remove and assoc-add/remove: user NAME in list of record TARGET. */
static int do_membership(txn *t, slinky_ledger__event *ev)
{
    bool group = ev->kind == SLINKY_LEDGER_MEMBER_ADD || ev->kind == SLINKY_LEDGER_MEMBER_REMOVE;
    bool add = ev->kind == SLINKY_LEDGER_MEMBER_ADD || ev->kind == SLINKY_LEDGER_ASSOC_ADD;
    const char *kind = group ? "group" : "account";
    slinky_doc *u = NULL, *d = NULL;
    char *path = NULL;
    int rc = read_record(&u, NULL, t, "user", ev->name);
    if (rc < 0)
        return rc;
    if (add && !strcmp(rec_state(u), "deleted")) {
        rc = slinky__error_set(SLINKY_EINVALID, "user '%s' was deleted", ev->name);
        goto out;
    }
    if ((rc = read_record(&d, &path, t, kind, ev->target)) < 0)
        goto out;
    if (!strcmp(rec_state(d), "deleted")) {
        rc = slinky__error_set(SLINKY_ENOTFOUND, "%s '%s' was removed", kind, ev->target);
        goto out;
    }
    slinky_doc_value *list = NULL;
    if ((rc = object_array(&list, slinky_doc_root(d), group ? "members" : "users")) < 0)
        goto out;
    ssize_t at = array_find(list, ev->name);
    if (add && at >= 0) {
        rc = slinky__error_set(SLINKY_EEXISTS, "user '%s' is already %s '%s'", ev->name,
                               group ? "a member of group" : "associated with account",
                               ev->target);
        goto out;
    }
    if (!add && at < 0) {
        rc = slinky__error_set(SLINKY_ENOTFOUND, "user '%s' is not %s '%s'", ev->name,
                               group ? "a member of group" : "associated with account",
                               ev->target);
        goto out;
    }
    rc = add ? array_add_string(list, ev->name) : slinky_doc_value_array_remove(list, (size_t)at);
    if (rc == 0) {
        rc = write_doc(t, path, d);
        path = NULL;
    }
out:
    free(path);
    slinky_doc_free(u);
    slinky_doc_free(d);
    return rc;
}

static int make_result(char **out, const slinky_ledger__event *ev)
{
    slinky__buf b = SLINKY__BUF_INIT;
    char *subject = slinky_ledger__event_subject(ev);
    if (!subject)
        return SLINKY_ENOMEM;
    slinky__buf_puts(&b, "{\"kind\":");
    slinky_ledger__json_str(&b, ev->kind ? slinky_ledger_event_kind_name(ev->kind) : "init");
    slinky__buf_puts(&b, ",\"subject\":");
    slinky_ledger__json_str(&b, subject);
    if (ev->id && (ev->kind == SLINKY_LEDGER_USER_ADD || ev->kind == SLINKY_LEDGER_GROUP_ADD))
        slinky__buf_printf(&b, ",\"id\":%u", ev->id);
    slinky__buf_puts(&b, ",\"request_id\":");
    slinky_ledger__json_str(&b, ev->request_id);
    slinky__buf_putc(&b, '}');
    free(subject);
    return slinky__buf_finish(out, NULL, &b);
}

int slinky_ledger__apply(git_oid *tree_out, char **result_out, git_repository *repo,
                         git_tree *base, slinky_ledger__event *ev)
{
    txn t;
    memset(&t, 0, sizeof(t));
    t.repo = repo;
    t.base = base;
    int rc;
    switch (ev->kind) {
    case SLINKY_LEDGER__INIT: rc = do_init(&t, ev); break;
    case SLINKY_LEDGER_USER_ADD: rc = do_user_add(&t, ev); break;
    case SLINKY_LEDGER_GROUP_ADD: rc = do_group_add(&t, ev); break;
    case SLINKY_LEDGER_ACCOUNT_ADD: rc = do_account_add(&t, ev); break;
    case SLINKY_LEDGER_GROUP_REMOVE: rc = do_group_remove(&t, ev); break;
    case SLINKY_LEDGER_MEMBER_ADD:
    case SLINKY_LEDGER_MEMBER_REMOVE:
    case SLINKY_LEDGER_ASSOC_ADD:
    case SLINKY_LEDGER_ASSOC_REMOVE: rc = do_membership(&t, ev); break;
    default: rc = do_user_change(&t, ev); break;
    }
    char *result = NULL;
    if (rc == 0)
        rc = make_result(&result, ev);
    if (rc == 0 && ev->kind != SLINKY_LEDGER__INIT) {
        char *rp = slinky_ledger__request_path(ev->request_id);
        if (rp && txn_exists(&t, rp)) {
            free(rp);
            rc = slinky__error_set(SLINKY_EEXISTS, "request id '%s' was already applied",
                                   ev->request_id);
        } else {
            char *copy = slinky__strdup(result ? result : "");
            rc = txn_write(&t, rp, copy, copy ? strlen(copy) : 0);
        }
    }
    if (rc == 0)
        rc = txn_finish(tree_out, &t);
    txn_dispose(&t);
    if (rc < 0) {
        free(result);
        return rc;
    }
    if (result_out)
        *result_out = result;
    else
        free(result);
    return 0;
}
