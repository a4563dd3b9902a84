/* Jail spec <-> doc tree (YAML/JSON). Unknown fields are errors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jail_internal.h"

static int bad(const char *path, const char *what)
{
    return slinky__error_set(SLINKY_EINVALID, "%s: %s", path, what);
}

static int expect(const slinky_doc_value *v, slinky_doc_type t, const char *path)
{
    if (slinky_doc_value_type(v) != t)
        return slinky__error_set(SLINKY_EINVALID, "%s: expected %s, got %s", path,
                                 slinky_doc_type_name(t),
                                 slinky_doc_type_name(slinky_doc_value_type(v)));
    return 0;
}

/* Reject members not in `known` (NULL terminated). */
static int only_keys(const slinky_doc_value *obj, const char *path, const char *const *known)
{
    for (size_t i = 0; i < slinky_doc_value_size(obj); i++) {
        const char *k = slinky_doc_value_key_at(obj, i);
        bool ok = false;
        for (const char *const *p = known; *p; p++)
            if (!strcmp(*p, k))
                ok = true;
        if (!ok)
            return slinky__error_set(SLINKY_EINVALID, "%s%s%s: unknown field", path,
                                     path[0] ? "." : "", k);
    }
    return 0;
}

static int get_bool(bool *dst, const slinky_doc_value *obj, const char *key, const char *path)
{
    slinky_doc_value *v = slinky_doc_value_get(obj, key);
    if (!v || slinky_doc_value_is_null(v))
        return 0;
    if (slinky_doc_value_type(v) != SLINKY_DOC_BOOL)
        return slinky__error_set(SLINKY_EINVALID, "%s%s%s: expected boolean, got %s", path, path[0] ? "." : "", key,
                                 slinky_doc_type_name(slinky_doc_value_type(v)));
    *dst = slinky_doc_value_get_bool(v);
    return 0;
}

static int get_str(char **dst, const slinky_doc_value *obj, const char *key, const char *path)
{
    slinky_doc_value *v = slinky_doc_value_get(obj, key);
    if (!v || slinky_doc_value_is_null(v))
        return 0;
    if (slinky_doc_value_type(v) != SLINKY_DOC_STRING)
        return slinky__error_set(SLINKY_EINVALID, "%s%s%s: expected string, got %s", path, path[0] ? "." : "", key,
                                 slinky_doc_type_name(slinky_doc_value_type(v)));
    if (strlen(slinky_doc_value_get_string(v)) != slinky_doc_value_get_string_len(v))
        return slinky__error_set(SLINKY_EINVALID, "%s%s%s: NUL byte in string", path, path[0] ? "." : "", key);
    char *c = slinky__strdup(slinky_doc_value_get_string(v));
    if (!c)
        return SLINKY_ENOMEM;
    free(*dst);
    *dst = c;
    return 0;
}

static int get_strv(char ***dst, size_t *n, const slinky_doc_value *obj, const char *key,
                    const char *path)
{
    slinky_doc_value *v = slinky_doc_value_get(obj, key);
    if (!v || slinky_doc_value_is_null(v))
        return 0;
    if (slinky_doc_value_type(v) != SLINKY_DOC_ARRAY)
        return slinky__error_set(SLINKY_EINVALID, "%s.%s: expected array, got %s", path, key,
                                 slinky_doc_type_name(slinky_doc_value_type(v)));
    slinky_jail__strv_free(*dst, *n);
    *dst = NULL;
    *n = 0;
    for (size_t i = 0; i < slinky_doc_value_size(v); i++) {
        slinky_doc_value *e = slinky_doc_value_at(v, i);
        if (slinky_doc_value_type(e) != SLINKY_DOC_STRING ||
            strlen(slinky_doc_value_get_string(e)) != slinky_doc_value_get_string_len(e))
            return slinky__error_set(SLINKY_EINVALID, "%s.%s[%zu]: expected string", path, key,
                                     i);
        if (slinky_jail__strv_push(dst, n, slinky_doc_value_get_string(e)) < 0)
            return SLINKY_ENOMEM;
    }
    return 0;
}

/* mode: an octal string ("1777", "0755"). Numbers are refused: YAML reads 0755 as 493 and
 * 1777 as decimal, so a number cannot say which was meant. */
static int get_mode(int *dst, const slinky_doc_value *obj, const char *key, const char *path)
{
    slinky_doc_value *v = slinky_doc_value_get(obj, key);
    if (!v || slinky_doc_value_is_null(v))
        return 0;
    long mode = -1;
    if (slinky_doc_value_type(v) == SLINKY_DOC_STRING) {
        const char *s = slinky_doc_value_get_string(v);
        if (*s && strspn(s, "01234567") == strlen(s) && strlen(s) <= 5)
            mode = strtol(s, NULL, 8);
        if (mode > 07777)
            mode = -1;
    }
    if (mode < 0)
        return slinky__error_set(SLINKY_EINVALID,
                                 "%s.%s: expected an octal mode as a string, such as \"1777\"",
                                 path, key);
    *dst = (int)mode;
    return 0;
}

static int read_mount(slinky_jail_spec *s, const slinky_doc_value *v, size_t i)
{
    char path[64];
    snprintf(path, sizeof(path), "mounts[%zu]", i);
    static const char *const keys[] = {"type", "source", "destination", "readOnly", "nosuid",
                                       "nodev", "noexec", "size", "mode", "create", "optional",
                                       "lifetime", NULL};
    int rc;
    if ((rc = expect(v, SLINKY_DOC_OBJECT, path)) < 0 || (rc = only_keys(v, path, keys)) < 0)
        return rc;
    const char *type = slinky_doc_value_path_string(v, "type", "bind");
    slinky_jail__mount_type t;
    if (!strcmp(type, "bind"))
        t = SLINKY_JAIL__BIND;
    else if (!strcmp(type, "rbind"))
        t = SLINKY_JAIL__RBIND;
    else if (!strcmp(type, "tmpfs"))
        t = SLINKY_JAIL__TMPFS;
    else if (!strcmp(type, "proc"))
        t = SLINKY_JAIL__PROC;
    else
        return slinky__error_set(SLINKY_EINVALID,
                                 "%s.type: unknown mount type '%s' (bind, rbind, tmpfs, proc)",
                                 path, type);
    if ((rc = slinky_jail__mount_push(s, t, NULL, "")) < 0)
        return rc;
    slinky_jail__mount *m = &s->mounts[s->nmounts - 1];
    const char *lifetime = slinky_doc_value_path_string(v, "lifetime", "persistent");
    const char *create = slinky_doc_value_path_string(v, "create", "dir");
    if ((rc = get_str(&m->source, v, "source", path)) < 0 ||
        (rc = get_str(&m->destination, v, "destination", path)) < 0 ||
        (rc = get_bool(&m->read_only, v, "readOnly", path)) < 0 ||
        (rc = get_bool(&m->nosuid, v, "nosuid", path)) < 0 ||
        (rc = get_bool(&m->nodev, v, "nodev", path)) < 0 ||
        (rc = get_bool(&m->noexec, v, "noexec", path)) < 0 ||
        (rc = get_str(&m->size, v, "size", path)) < 0 ||
        (rc = get_mode(&m->mode, v, "mode", path)) < 0 ||
        (rc = get_bool(&m->optional, v, "optional", path)) < 0)
        return rc;
    if (slinky_doc_value_get(v, "lifetime") &&
        slinky_doc_value_type(slinky_doc_value_get(v, "lifetime")) != SLINKY_DOC_STRING)
        return bad(path, "lifetime: expected string");
    if (!strcmp(lifetime, "job"))
        m->job_lifetime = true;
    else if (strcmp(lifetime, "persistent") != 0)
        return slinky__error_set(SLINKY_EINVALID,
                                 "%s.lifetime: unknown lifetime '%s' (persistent, job)", path,
                                 lifetime);
    if (!strcmp(create, "dir"))
        m->create = SLINKY_JAIL__CREATE_DIR;
    else if (!strcmp(create, "file"))
        m->create = SLINKY_JAIL__CREATE_FILE;
    else if (!strcmp(create, "none"))
        m->create = SLINKY_JAIL__CREATE_NONE;
    else
        return slinky__error_set(SLINKY_EINVALID,
                                 "%s.create: unknown value '%s' (dir, file, none)", path, create);
    if (!slinky_doc_value_get(v, "destination"))
        return slinky__error_set(SLINKY_EINVALID, "%s.destination: required", path);
    return 0;
}

static int read_spec(slinky_jail_spec *s, const slinky_doc_value *root)
{
    int rc;
    static const char *const top[] = {"apiVersion", "kind", "root", "scratch", "namespaces",
                                      "mounts", "devices", "environment", "process", NULL};
    if (slinky_doc_value_is_null(root))
        return slinky__error_set(SLINKY_EINVALID, "jail spec: empty document");
    if ((rc = expect(root, SLINKY_DOC_OBJECT, "(spec)")) < 0 || (rc = only_keys(root, "", top)) < 0)
        return rc;
    const char *kind = slinky_doc_value_path_string(root, "kind", "JailSpec");
    if (strcmp(kind, "JailSpec") != 0)
        return slinky__error_set(SLINKY_EINVALID, "kind: expected JailSpec, got '%s'", kind);

    slinky_doc_value *v = slinky_doc_value_get(root, "root");
    if (v && !slinky_doc_value_is_null(v)) {
        static const char *const k[] = {"path", "readOnly", "nosuid", "nodev", NULL};
        if ((rc = expect(v, SLINKY_DOC_OBJECT, "root")) < 0 || (rc = only_keys(v, "root", k)) < 0 ||
            (rc = get_str(&s->root_path, v, "path", "root")) < 0 ||
            (rc = get_bool(&s->root_read_only, v, "readOnly", "root")) < 0 ||
            (rc = get_bool(&s->root_nosuid, v, "nosuid", "root")) < 0 ||
            (rc = get_bool(&s->root_nodev, v, "nodev", "root")) < 0)
            return rc;
    }
    if ((rc = get_str(&s->scratch, root, "scratch", "")) < 0)
        return rc;
    v = slinky_doc_value_get(root, "namespaces");
    if (v && !slinky_doc_value_is_null(v)) {
        static const char *const k[] = {"mount", "pid", "ipc", "uts", "hostname", NULL};
        bool mnt = true;
        if ((rc = expect(v, SLINKY_DOC_OBJECT, "namespaces")) < 0 ||
            (rc = only_keys(v, "namespaces", k)) < 0 ||
            (rc = get_bool(&mnt, v, "mount", "namespaces")) < 0 ||
            (rc = get_bool(&s->ns_pid, v, "pid", "namespaces")) < 0 ||
            (rc = get_bool(&s->ns_ipc, v, "ipc", "namespaces")) < 0 ||
            (rc = get_bool(&s->ns_uts, v, "uts", "namespaces")) < 0 ||
            (rc = get_str(&s->hostname, v, "hostname", "namespaces")) < 0)
            return rc;
        if (!mnt)
            return bad("namespaces.mount", "the mount namespace cannot be turned off");
    }
    v = slinky_doc_value_get(root, "mounts");
    if (v && !slinky_doc_value_is_null(v)) {
        if ((rc = expect(v, SLINKY_DOC_ARRAY, "mounts")) < 0)
            return rc;
        for (size_t i = 0; i < slinky_doc_value_size(v); i++)
            if ((rc = read_mount(s, slinky_doc_value_at(v, i), i)) < 0)
                return rc;
    }
    v = slinky_doc_value_get(root, "devices");
    if (v && !slinky_doc_value_is_null(v)) {
        static const char *const k[] = {"gpu", "extra", NULL};
        if ((rc = expect(v, SLINKY_DOC_OBJECT, "devices")) < 0 ||
            (rc = only_keys(v, "devices", k)) < 0 ||
            (rc = get_strv(&s->dev_extra, &s->ndev_extra, v, "extra", "devices")) < 0)
            return rc;
        slinky_doc_value *g = slinky_doc_value_get(v, "gpu");
        if (g && !slinky_doc_value_is_null(g)) {
            static const char *const kg[] = {"source", "destination", "control", "controlAlways",
                                             NULL};
            if ((rc = expect(g, SLINKY_DOC_OBJECT, "devices.gpu")) < 0 ||
                (rc = only_keys(g, "devices.gpu", kg)) < 0 ||
                (rc = get_str(&s->gpu_source, g, "source", "devices.gpu")) < 0 ||
                (rc = get_str(&s->gpu_destination, g, "destination", "devices.gpu")) < 0 ||
                (rc = get_strv(&s->gpu_control, &s->ngpu_control, g, "control",
                               "devices.gpu")) < 0 ||
                (rc = get_bool(&s->gpu_control_always, g, "controlAlways", "devices.gpu")) < 0)
                return rc;
            if (s->gpu_source && !s->gpu_destination &&
                !(s->gpu_destination = slinky__strdup(s->gpu_source)))
                return SLINKY_ENOMEM;
        }
    }
    v = slinky_doc_value_get(root, "environment");
    if (v && !slinky_doc_value_is_null(v)) {
        static const char *const k[] = {"clear", "pass", "set", "pathPrepend",
                                        "ldLibraryPathPrepend", NULL};
        if ((rc = expect(v, SLINKY_DOC_OBJECT, "environment")) < 0 ||
            (rc = only_keys(v, "environment", k)) < 0 ||
            (rc = get_bool(&s->env_clear, v, "clear", "environment")) < 0 ||
            (rc = get_strv(&s->env_pass, &s->nenv_pass, v, "pass", "environment")) < 0 ||
            (rc = get_strv(&s->path_prepend, &s->npath_prepend, v, "pathPrepend",
                           "environment")) < 0 ||
            (rc = get_strv(&s->ld_prepend, &s->nld_prepend, v, "ldLibraryPathPrepend",
                           "environment")) < 0)
            return rc;
        slinky_doc_value *set = slinky_doc_value_get(v, "set");
        if (set && !slinky_doc_value_is_null(set)) {
            if ((rc = expect(set, SLINKY_DOC_OBJECT, "environment.set")) < 0)
                return rc;
            for (size_t i = 0; i < slinky_doc_value_size(set); i++) {
                slinky_doc_value *e = slinky_doc_value_member_at(set, i);
                const char *key = slinky_doc_value_key_at(set, i);
                if (slinky_doc_value_type(e) != SLINKY_DOC_STRING ||
                    strlen(slinky_doc_value_get_string(e)) != slinky_doc_value_get_string_len(e))
                    return slinky__error_set(SLINKY_EINVALID,
                                             "environment.set.%s: expected string", key);
                if (slinky_jail__strv_push(&s->env_set, &s->nenv_set, key) < 0 ||
                    slinky_jail__strv_push(&s->env_set, &s->nenv_set,
                                           slinky_doc_value_get_string(e)) < 0)
                    return SLINKY_ENOMEM;
            }
        }
    }
    v = slinky_doc_value_get(root, "process");
    if (v && !slinky_doc_value_is_null(v)) {
        static const char *const k[] = {"user", "cwd", "noNewPrivileges", "capabilities", NULL};
        if ((rc = expect(v, SLINKY_DOC_OBJECT, "process")) < 0 ||
            (rc = only_keys(v, "process", k)) < 0 ||
            (rc = get_str(&s->cwd, v, "cwd", "process")) < 0 ||
            (rc = get_bool(&s->no_new_privs, v, "noNewPrivileges", "process")) < 0 ||
            (rc = get_strv(&s->caps_keep, &s->ncaps_keep, v, "capabilities", "process")) < 0)
            return rc;
        slinky_doc_value *u = slinky_doc_value_get(v, "user");
        if (u && slinky_doc_value_type(u) == SLINKY_DOC_STRING) {
            if (strcmp(slinky_doc_value_get_string(u), "job") != 0)
                return bad("process.user", "expected \"job\" or {uid: N, gid: N}");
            s->as_job_user = true;
        } else if (u && slinky_doc_value_type(u) == SLINKY_DOC_OBJECT) {
            static const char *const ku[] = {"uid", "gid", NULL};
            if ((rc = only_keys(u, "process.user", ku)) < 0)
                return rc;
            slinky_doc_value *uid = slinky_doc_value_get(u, "uid");
            slinky_doc_value *gid = slinky_doc_value_get(u, "gid");
            if (slinky_doc_value_type(uid) != SLINKY_DOC_INT ||
                slinky_doc_value_get_int(uid) < 0 || slinky_doc_value_get_int(uid) > 0x7fffffff)
                return bad("process.user.uid", "expected an integer 0..2147483647");
            if (gid && (slinky_doc_value_type(gid) != SLINKY_DOC_INT ||
                        slinky_doc_value_get_int(gid) < 0 ||
                        slinky_doc_value_get_int(gid) > 0x7fffffff))
                return bad("process.user.gid", "expected an integer 0..2147483647");
            s->as_job_user = false;
            s->uid = slinky_doc_value_get_int(uid);
            s->gid = gid ? slinky_doc_value_get_int(gid) : s->uid;
        } else if (u && !slinky_doc_value_is_null(u)) {
            return bad("process.user", "expected \"job\" or {uid: N, gid: N}");
        }
    }
    return 0;
}

slinky_status slinky_jail_spec_from_doc(slinky_jail_spec **out, const slinky_doc_value *v)
{
    if (!out)
        return slinky__error_set(SLINKY_EINVALID, "jail: NULL out");
    slinky_jail_spec *s = slinky_jail__spec_alloc();
    if (!s)
        return SLINKY_ENOMEM;
    int rc = read_spec(s, v);
    if (rc == 0 && !s->root_path && !(s->root_path = slinky__strdup("/")))
        rc = SLINKY_ENOMEM;
    if (rc == 0 && !s->scratch && !(s->scratch = slinky__strdup("/mnt/nvme/jobs")))
        rc = SLINKY_ENOMEM;
    if (rc == 0)
        rc = slinky_jail_spec_validate(s);
    if (rc < 0) {
        slinky_jail_spec_free(s);
        return rc;
    }
    *out = s;
    return 0;
}

slinky_status slinky_jail_spec_parse(slinky_jail_spec **out, const char *data, size_t len)
{
    if (!out || (!data && len))
        return slinky__error_set(SLINKY_EINVALID, "jail: NULL argument");
    size_t i = 0;
    while (i < len && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r'))
        i++;
    slinky_doc *doc = NULL;
    int rc = (i < len && data[i] == '{') ? slinky_doc_parse_json(&doc, data, len)
                                         : slinky_doc_parse_yaml(&doc, data ? data : "", len);
    if (rc < 0)
        return rc;
    rc = slinky_jail_spec_from_doc(out, slinky_doc_root(doc));
    slinky_doc_free(doc);
    return rc;
}

slinky_status slinky_jail_spec_load(slinky_jail_spec **out, const char *path)
{
    if (!out || !path)
        return slinky__error_set(SLINKY_EINVALID, "jail: NULL argument");
    char *data = NULL;
    size_t len = 0;
    int rc = slinky__read_file(&data, &len, path);
    if (rc < 0)
        return rc;
    rc = slinky_jail_spec_parse(out, data, len);
    free(data);
    if (rc < 0)
        slinky__error_prefix("%s: ", path);
    return rc;
}

/* ---------------------------------------------------------------- writing */

#define TRY(x)                                                                                     \
    do {                                                                                           \
        if ((rc = (x)) < 0)                                                                        \
            goto fail;                                                                             \
    } while (0)

static int put_obj(slinky_doc_value **out, slinky_doc_value *parent, const char *key)
{
    int rc = slinky_doc_value_object_put(out, parent, key);
    if (rc == 0)
        rc = slinky_doc_value_set_object(*out);
    return rc;
}

static int put_strv(slinky_doc_value *parent, const char *key, char *const *v, size_t n)
{
    slinky_doc_value *a = NULL, *e = NULL;
    int rc = slinky_doc_value_object_put(&a, parent, key);
    if (rc == 0)
        rc = slinky_doc_value_set_array(a);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        rc = slinky_doc_value_array_append(&e, a);
        if (rc == 0)
            rc = slinky_doc_value_set_string(e, v[i]);
    }
    return rc;
}

static int put_str_or_null(slinky_doc_value *parent, const char *key, const char *s)
{
    if (s)
        return slinky_doc_value_object_set_string(parent, key, s);
    slinky_doc_value *v = NULL;
    int rc = slinky_doc_value_object_put(&v, parent, key);
    return rc < 0 ? rc : slinky_doc_value_set_null(v);
}

slinky_status slinky_jail_spec_to_doc(slinky_doc **out, const slinky_jail_spec *s)
{
    if (!out || !s)
        return slinky__error_set(SLINKY_EINVALID, "jail: NULL argument");
    slinky_doc *doc = NULL;
    int rc = slinky_doc_new(&doc);
    if (rc < 0)
        return rc;
    slinky_doc_value *r = slinky_doc_root(doc), *o = NULL, *a = NULL, *e = NULL;
    char mode[16];
    TRY(slinky_doc_value_set_object(r));
    TRY(slinky_doc_value_object_set_string(r, "kind", "JailSpec"));
    TRY(put_obj(&o, r, "root"));
    TRY(slinky_doc_value_object_set_string(o, "path", s->root_path));
    TRY(slinky_doc_value_object_set_bool(o, "readOnly", s->root_read_only));
    TRY(slinky_doc_value_object_set_bool(o, "nosuid", s->root_nosuid));
    TRY(slinky_doc_value_object_set_bool(o, "nodev", s->root_nodev));
    TRY(slinky_doc_value_object_set_string(r, "scratch", s->scratch));
    TRY(put_obj(&o, r, "namespaces"));
    TRY(slinky_doc_value_object_set_bool(o, "mount", true));
    TRY(slinky_doc_value_object_set_bool(o, "pid", s->ns_pid));
    TRY(slinky_doc_value_object_set_bool(o, "ipc", s->ns_ipc));
    TRY(slinky_doc_value_object_set_bool(o, "uts", s->ns_uts));
    if (s->hostname)
        TRY(slinky_doc_value_object_set_string(o, "hostname", s->hostname));
    TRY(slinky_doc_value_object_put(&a, r, "mounts"));
    TRY(slinky_doc_value_set_array(a));
    for (size_t i = 0; i < s->nmounts; i++) {
        const slinky_jail__mount *m = &s->mounts[i];
        TRY(slinky_doc_value_array_append(&e, a));
        TRY(slinky_doc_value_set_object(e));
        TRY(slinky_doc_value_object_set_string(e, "type", slinky_jail__mount_type_name(m->type)));
        if (m->source)
            TRY(slinky_doc_value_object_set_string(e, "source", m->source));
        TRY(slinky_doc_value_object_set_string(e, "destination", m->destination));
        TRY(slinky_doc_value_object_set_bool(e, "readOnly", m->read_only));
        TRY(slinky_doc_value_object_set_bool(e, "nosuid", m->nosuid));
        TRY(slinky_doc_value_object_set_bool(e, "nodev", m->nodev));
        TRY(slinky_doc_value_object_set_bool(e, "noexec", m->noexec));
        if (m->size)
            TRY(slinky_doc_value_object_set_string(e, "size", m->size));
        if (m->mode >= 0) {
            snprintf(mode, sizeof(mode), "%04o", (unsigned)m->mode);
            TRY(slinky_doc_value_object_set_string(e, "mode", mode));
        }
        TRY(slinky_doc_value_object_set_string(
            e, "create",
            m->create == SLINKY_JAIL__CREATE_DIR ? "dir"
            : m->create == SLINKY_JAIL__CREATE_FILE ? "file" : "none"));
        TRY(slinky_doc_value_object_set_bool(e, "optional", m->optional));
        TRY(slinky_doc_value_object_set_string(e, "lifetime", m->job_lifetime ? "job" : "persistent"));
    }
    TRY(put_obj(&o, r, "devices"));
    TRY(put_strv(o, "extra", s->dev_extra, s->ndev_extra));
    if (s->gpu_source) {
        slinky_doc_value *g = NULL;
        TRY(put_obj(&g, o, "gpu"));
        TRY(slinky_doc_value_object_set_string(g, "source", s->gpu_source));
        TRY(slinky_doc_value_object_set_string(g, "destination", s->gpu_destination));
        TRY(put_strv(g, "control", s->gpu_control, s->ngpu_control));
        TRY(slinky_doc_value_object_set_bool(g, "controlAlways", s->gpu_control_always));
    }
    TRY(put_obj(&o, r, "environment"));
    TRY(slinky_doc_value_object_set_bool(o, "clear", s->env_clear));
    TRY(put_strv(o, "pass", s->env_pass, s->nenv_pass));
    TRY(put_obj(&e, o, "set"));
    for (size_t i = 0; i + 1 < s->nenv_set; i += 2)
        TRY(slinky_doc_value_object_set_string(e, s->env_set[i], s->env_set[i + 1]));
    TRY(put_strv(o, "pathPrepend", s->path_prepend, s->npath_prepend));
    TRY(put_strv(o, "ldLibraryPathPrepend", s->ld_prepend, s->nld_prepend));
    TRY(put_obj(&o, r, "process"));
    if (s->as_job_user) {
        TRY(slinky_doc_value_object_set_string(o, "user", "job"));
    } else {
        TRY(put_obj(&e, o, "user"));
        TRY(slinky_doc_value_object_set_int(e, "uid", s->uid));
        TRY(slinky_doc_value_object_set_int(e, "gid", s->gid));
    }
    TRY(put_str_or_null(o, "cwd", s->cwd));
    TRY(slinky_doc_value_object_set_bool(o, "noNewPrivileges", s->no_new_privs));
    TRY(put_strv(o, "capabilities", s->caps_keep, s->ncaps_keep));
    *out = doc;
    return 0;
fail:
    slinky_doc_free(doc);
    return rc;
}

slinky_status slinky_jail_spec_dump(char **out, const slinky_jail_spec *spec, bool yaml)
{
    if (!out || !spec)
        return slinky__error_set(SLINKY_EINVALID, "jail: NULL argument");
    slinky_doc *doc = NULL;
    int rc = slinky_jail_spec_to_doc(&doc, spec);
    if (rc < 0)
        return rc;
    char *text = NULL;
    rc = yaml ? slinky_doc_value_dump_yaml(&text, NULL, slinky_doc_root(doc), 0)
              : slinky_doc_value_dump_json(&text, NULL, slinky_doc_root(doc),
                                           SLINKY_DOC_DUMP_PRETTY);
    slinky_doc_free(doc);
    if (rc == 0)
        *out = text;
    return rc;
}
