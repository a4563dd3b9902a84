/* conf module bindings (owned by the conf module).
 *
 * Python works with text: a config goes in as a str, results come back as
 * str or JSON (slinky/conf.py turns it into Python values), so no tree
 * handles cross the boundary. Parse errors raise slinky.ParseError with
 * .line and .column; bad arguments raise slinky.InvalidError. */
%{
#include "slinky/conf.h"

static slinky_status slinky_conf_py__parse(slinky_conf **c, const char *text, int kind)
{
    slinky_conf_parse_options o = SLINKY_CONF_PARSE_OPTIONS_INIT;
    if (kind < 0 || kind > SLINKY_CONF_KIND_PLUGSTACK)
        return slinky_conf_parse(c, NULL, 1, NULL, NULL); /* EINVALID */
    o.kind = (slinky_conf_kind)kind;
    o.no_includes = true;
    return slinky_conf_parse(c, text, strlen(text), "slurm.conf", &o);
}

%}

%inline %{
/* Static checks; the report lines ("FILE:LINE:COL: error|warning: ..."), "" when clean. */
slinky_status slinky_conf_py_check(char **out, const char *text, int kind, unsigned int version)
{
    slinky_conf *c = NULL;
    slinky_status rc = slinky_conf_py__parse(&c, text, kind);
    if (rc)
        return rc;
    char *report = NULL;
    rc = slinky_conf_check(&report, c, version);
    slinky_conf_free(c);
    if (rc && rc != SLINKY_EINVALID)
        return rc;
    *out = report;
    return 0;
}

/* The effective value of a global key; None when unset. */
slinky_status slinky_conf_py_get(char **out, const char *text, int kind, const char *key)
{
    slinky_conf *c = NULL;
    slinky_status rc = slinky_conf_py__parse(&c, text, kind);
    if (rc)
        return rc;
    const char *v = slinky_conf_get(c, key);
    if (!v) {
        slinky_conf_free(c);
        return 0; /* *out stays NULL: None */
    }
    char *s = strdup(v);
    slinky_conf_free(c);
    if (!s)
        return SLINKY_ENOMEM;
    *out = s;
    return 0;
}

/* Set a key (one line changes) and return the new text. */
slinky_status slinky_conf_py_set(char **out, const char *text, int kind, const char *key,
                                 const char *value)
{
    slinky_conf *c = NULL;
    slinky_status rc = slinky_conf_py__parse(&c, text, kind);
    if (!rc)
        rc = slinky_conf_set(c, key, value);
    if (!rc)
        rc = slinky_conf_render(out, NULL, c);
    slinky_conf_free(c);
    return rc;
}

/* Set `key` in the record line type=name (one line changes); the new text. */
slinky_status slinky_conf_py_record_set(char **out, const char *text, const char *type,
                                        const char *name, const char *key, const char *value)
{
    slinky_conf *c = NULL;
    slinky_status rc = slinky_conf_py__parse(&c, text, 0);
    if (!rc)
        rc = slinky_conf_record_set(c, type, name, key, value);
    if (!rc)
        rc = slinky_conf_render(out, NULL, c);
    slinky_conf_free(c);
    return rc;
}

/* Semantic diff as JSON {"class": ..., "changes": [{scope,name,key,old,new,class,reason}]}. */
slinky_status slinky_conf_py_diff(char **json_out, const char *old_text, const char *new_text,
                                  unsigned int version)
{
    slinky_conf *a = NULL, *b = NULL;
    slinky_conf_diff *d = NULL;
    slinky_doc *doc = NULL;
    slinky_status rc = slinky_conf_py__parse(&a, old_text, 0);
    if (!rc)
        rc = slinky_conf_py__parse(&b, new_text, 0);
    if (!rc)
        rc = slinky_conf_diff_new(&d, a, b, version);
    if (!rc)
        rc = slinky_doc_new(&doc);
    slinky_doc_value *root = doc ? slinky_doc_root(doc) : NULL, *arr = NULL;
    if (!rc)
        rc = slinky_doc_value_set_object(root);
    if (!rc)
        rc = slinky_doc_value_object_set_string(
            root, "class", slinky_conf_change_class_name(slinky_conf_diff_class(d)));
    if (!rc)
        rc = slinky_doc_value_object_put(&arr, root, "changes");
    if (!rc)
        rc = slinky_doc_value_set_array(arr);
    for (size_t i = 0; !rc && i < slinky_conf_diff_count(d); i++) {
        const slinky_conf_change *ch = slinky_conf_diff_at(d, i);
        slinky_doc_value *e = NULL;
        rc = slinky_doc_value_array_append(&e, arr);
        if (!rc)
            rc = slinky_doc_value_set_object(e);
        const char *keys[] = {"scope", "name", "key", "old", "new", "class", "reason"};
        const char *vals[] = {ch->scope, ch->name, ch->key, ch->old_value, ch->new_value,
                              slinky_conf_change_class_name(ch->klass), ch->reason};
        for (size_t k = 0; !rc && k < 7; k++) {
            if (vals[k])
                rc = slinky_doc_value_object_set_string(e, keys[k], vals[k]);
            else {
                slinky_doc_value *n = NULL;
                rc = slinky_doc_value_object_put(&n, e, keys[k]);
                if (!rc)
                    rc = slinky_doc_value_set_null(n);
            }
        }
    }
    if (!rc)
        rc = slinky_doc_value_dump_json(json_out, NULL, root, 0);
    slinky_doc_free(doc);
    slinky_conf_diff_free(d);
    slinky_conf_free(a);
    slinky_conf_free(b);
    return rc;
}

/* Expand a hostlist; the names one per line. */
slinky_status slinky_conf_py_hostlist_expand(char **out, const char *expr)
{
    char **v = NULL;
    size_t n = 0, len = 1;
    slinky_status rc = slinky_conf_hostlist_expand(&v, &n, expr);
    if (rc)
        return rc;
    for (size_t i = 0; i < n; i++)
        len += strlen(v[i]) + 1;
    char *s = malloc(len), *p = s;
    if (s) {
        for (size_t i = 0; i < n; i++)
            p += sprintf(p, "%s\n", v[i]);
        *p = '\0';
    }
    slinky_conf_strv_free(v, n);
    if (!s)
        return SLINKY_ENOMEM;
    *out = s;
    return 0;
}

/* Compress host names given one per line. */
slinky_status slinky_conf_py_hostlist_compress(char **out, const char *lines)
{
    char *copy = strdup(lines), *save = NULL;
    size_t n = 0, cap = 16;
    const char **v = malloc(cap * sizeof(*v));
    if (!copy || !v) {
        free(copy);
        free(v);
        return SLINKY_ENOMEM;
    }
    for (char *t = strtok_r(copy, "\n", &save); t; t = strtok_r(NULL, "\n", &save)) {
        if (n == cap) {
            const char **nv = realloc(v, (cap *= 2) * sizeof(*v));
            if (!nv) {
                free(copy);
                free(v);
                return SLINKY_ENOMEM;
            }
            v = nv;
        }
        v[n++] = t;
    }
    slinky_status rc = slinky_conf_hostlist_compress(out, v, n);
    free(copy);
    free(v);
    return rc;
}

/* upstream's BuildMergedConfig; params_json = {"Key": ["opt", ...], ...}. */
slinky_status slinky_conf_py_merge(char **out, const char *conf_raw, const char *params_json)
{
    slinky_doc *d = NULL;
    slinky_status rc = slinky_doc_parse_json(&d, params_json, strlen(params_json));
    if (rc)
        return rc;
    slinky_doc_value *root = slinky_doc_root(d);
    size_t nk = slinky_doc_value_size(root);
    const char **keys = calloc(nk + 1, sizeof(*keys));
    const char ***vals = calloc(nk + 1, sizeof(*vals));
    for (size_t k = 0; keys && vals && k < nk; k++) {
        slinky_doc_value *arr = slinky_doc_value_member_at(root, k);
        size_t na = slinky_doc_value_size(arr);
        keys[k] = slinky_doc_value_key_at(root, k);
        vals[k] = calloc(na + 1, sizeof(char *));
        for (size_t a = 0; vals[k] && a < na; a++)
            vals[k][a] = slinky_doc_value_get_string(slinky_doc_value_at(arr, a));
    }
    rc = keys && vals ? slinky_conf_merge_parameters(out, conf_raw, keys,
                                                     (const char *const *const *)vals, nk)
                      : SLINKY_ENOMEM;
    for (size_t k = 0; vals && k < nk; k++)
        free(vals[k]);
    free(vals);
    free(keys);
    slinky_doc_free(d);
    return rc;
}

/*
 * Render a file ("slurm", "cgroup", "gres") from a YAML/JSON stream holding a
 * Controller, NodeSets and an optional Accounting. version 0 = upstream;
 * local_dir non-empty selects the local profile.
 */
slinky_status slinky_conf_py_render(char **out, const char *resources, const char *file,
                                    unsigned int version, const char *local_dir,
                                    int ctld_port, int slurmd_port, int dbd_port,
                                    const char *munge_socket)
{
    slinky_doc *d = NULL;
    slinky_status rc = slinky_doc_parse_yaml_all(&d, resources, strlen(resources));
    if (rc)
        return rc;
    slinky_doc_value *root = slinky_doc_root(d);
    size_t n = slinky_doc_value_size(root), no = 0;
    slinky_model_object **objs = calloc(n + 1, sizeof(*objs));
    const slinky_model_object *ctl = NULL;
    rc = objs ? 0 : SLINKY_ENOMEM;
    for (size_t i = 0; !rc && i < n; i++) {
        slinky_doc_value *v = slinky_doc_value_at(root, i);
        if (slinky_model_kind_lookup(slinky_doc_value_path_string(v, "kind", "")) ==
            SLINKY_MODEL_KIND_UNKNOWN)
            continue; /* kinds the model does not know play no part */
        if (!(rc = slinky_model_object_new_from_value(&objs[no], v)) && !ctl &&
            slinky_model_object_get_kind(objs[no]) == SLINKY_MODEL_KIND_CONTROLLER)
            ctl = objs[no];
        no += !rc;
    }
    slinky_conf_models *m = NULL;
    slinky_conf_profile p = SLINKY_CONF_PROFILE_INIT;
    p.slurm_version = version;
    if (local_dir && *local_dir) {
        p.local = true;
        p.local_dir = local_dir;
    }
    p.slurmctld_port = ctld_port;
    p.slurmd_port = slurmd_port;
    p.slurmdbd_port = dbd_port;
    p.munge_socket = munge_socket && *munge_socket ? munge_socket : NULL;
    if (!rc && !ctl)
        rc = slinky_conf_models_new(&m, NULL, NULL, 1); /* EINVALID: no Controller given */
    if (!rc)
        rc = slinky_conf_models_new(&m, ctl, (const slinky_model_object *const *)objs, no);
    if (!rc) {
        const slinky_conf_cluster *c = slinky_conf_models_cluster(m);
        if (!strcmp(file, "cgroup"))
            rc = slinky_conf_render_cgroup(out, &p);
        else if (!strcmp(file, "gres"))
            rc = slinky_conf_render_gres(out, c);
        else
            rc = slinky_conf_render_slurm(out, c, &p);
    }
    slinky_conf_models_free(m);
    for (size_t i = 0; i < no; i++)
        slinky_model_object_free(objs[i]);
    free(objs);
    slinky_doc_free(d);
    return rc;
}
%}
