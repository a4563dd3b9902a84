/*
 * slinkyctl edit / apply / delete, with the checks the operator and its
 * admission webhook apply (slinky_model_validate[_update]; for a Controller
 * also the static check of the slurm.conf it renders) before anything is
 * written:
 *   edit TYPE NAME       $KUBE_EDITOR, $EDITOR or vi; an invalid result re-opens
 *                        the editor with the errors on top, like kubectl
 *   apply -f FILE...     server-side apply of every document ("-" reads stdin);
 *                        nothing is applied when one document is invalid
 *   delete TYPE NAME... | TYPE -l SEL | -f FILE
 * Exit codes: 0 done, 1 failure, 2 usage, 4 refused by validation.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commands.h"
#include "kctl.h"

#define EXIT_INVALID 4

/* ---------------------------------------------------------------- validation */

/* Findings on `obj` (and `old` for an update) to `out`; the error count. */
static int validate(FILE *out, kctl *k, const slinky_doc_value *obj, const slinky_doc_value *old)
{
    const char *av = slinky_doc_value_path_string(obj, "apiVersion", "");
    if (strncmp(av, "slinky.slurm.net/", 17) != 0)
        return 0; /* the server validates the other kinds itself */
    slinky_model_object *m = NULL, *mo = NULL;
    slinky_model_problems *p = NULL;
    int errors = 0;
    if (slinky_model_object_new_from_value(&m, obj) < 0 ||
        (old && slinky_model_object_new_from_value(&mo, old) < 0) ||
        (old ? slinky_model_validate_update(&p, mo, m) : slinky_model_validate(&p, m)) < 0) {
        fprintf(out, "error: %s\n", slinky_error_last()->message);
        errors = 1;
    }
    for (size_t i = 0; p && i < slinky_model_problems_count(p); i++) {
        bool err = slinky_model_problems_get_severity(p, i) == SLINKY_MODEL_ERROR;
        fprintf(out, "%s: %s: %s\n", err ? "error" : "warning", slinky_model_problems_get_path(p, i),
                slinky_model_problems_get_message(p, i));
    }
    errors += p ? (int)slinky_model_problems_error_count(p) : 0;
    slinky_model_problems_free(p);
    slinky_model_object_free(m);
    slinky_model_object_free(mo);
    if (errors == 0 && slinkyctl_controller_check &&
        !strcmp(slinky_doc_value_path_string(obj, "kind", ""), "Controller")) {
        const char *ns = slinky_doc_value_path_string(obj, "metadata.namespace", k->ns);
        if (!slinkyctl_controller_check(out, k->client, *ns ? ns : k->ns, obj, 2205))
            errors++;
    }
    return errors;
}

/* ---------------------------------------------------------------- edit */

static int usage_edit(FILE *f)
{
    return kctl_usage(f, "usage: slinkyctl edit TYPE NAME | TYPE/NAME [options]\n"
               "Edit a resource in $KUBE_EDITOR, $EDITOR or vi. The saved object is checked as\n"
               "the operator's webhook checks it; when it is invalid (or the server refuses it)\n"
               "the editor opens again with the errors on top. Saving it unchanged gives up.\n\n",
                      "\nexit codes: 0 edited (or nothing changed), 1 failure, 2 usage, 4 given up\n"
               "after the object was refused\n");
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0, r;
    char *s = malloc(cap);
    while (s && (r = fread(s + n, 1, cap - n - 1, f)) > 0) {
        n += r;
        if (n + 1 == cap) {
            char *ns = realloc(s, cap *= 2);
            if (!ns) {
                free(s);
                s = NULL;
                break;
            }
            s = ns;
        }
    }
    fclose(f);
    if (s)
        s[n] = '\0';
    return s;
}

/* The text without its '#' comment lines (the header and earlier errors). */
static char *strip_comments(const char *text)
{
    char *out = malloc(strlen(text) + 1), *o = out;
    if (!out)
        return NULL;
    for (const char *line = text; *line;) {
        size_t len = strcspn(line, "\n");
        size_t sp = strspn(line, " \t");
        if (line[sp] != '#') {
            memcpy(o, line, len);
            o += len;
            if (line[len] == '\n')
                *o++ = '\n';
        }
        line += len + (line[len] == '\n');
    }
    *o = '\0';
    return out;
}

static bool blank(const char *s)
{
    return s[strspn(s, " \t\r\n")] == '\0';
}

static int write_buffer(const char *path, const char *errors, const char *body)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs("# Please edit the object below. Lines beginning with a '#' will be ignored,\n"
          "# and an empty file will abort the edit. If an error occurs while saving this file "
          "will be\n# reopened with the relevant failures.\n#\n", f);
    if (errors && *errors) {
        fputs("# slinkyctl edit: the object was refused:\n", f);
        for (const char *line = errors; *line;) {
            size_t len = strcspn(line, "\n");
            fprintf(f, "# %.*s\n", (int)len, line);
            line += len + (line[len] == '\n');
        }
        fputs("#\n", f);
    }
    fputs(body, f);
    return fclose(f);
}

/* $SLINKYCTL_EDITOR (set from KUBE_EDITOR/EDITOR) on the file. */
static int run_editor(const char *path)
{
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) { /* the editor may carry arguments ("emacs -nw"): let the shell split it */
        execl("/bin/sh", "sh", "-c", "exec $SLINKYCTL_EDITOR \"$1\"", "sh", path, (char *)NULL);
        _exit(127);
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0)
        ;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

static char *dump_yaml(const slinky_doc_value *v)
{
    slinky_doc *copy = NULL;
    char *text = NULL, *out = NULL;
    if (slinky_doc_new_copy(&copy, v) < 0)
        return NULL;
    slinky_doc_value *md = slinky_doc_value_get(slinky_doc_root(copy), "metadata");
    if (slinky_doc_value_get(md, "managedFields"))
        slinky_doc_value_object_remove(md, "managedFields");
    if (slinky_doc_value_dump_yaml(&text, NULL, slinky_doc_root(copy), SLINKY_DOC_DUMP_SORT_KEYS) == 0)
        out = strdup(text);
    slinky_free(text);
    slinky_doc_free(copy);
    return out;
}

/* One round: parse, validate, update. 0 done, 1 refused (errors in *errors), -1 failure. */
static int try_save(char **errors, kctl *k, const kctl_kind *kk, const char *body,
                    const slinky_doc_value *orig)
{
    slinky_doc *d = NULL;
    char *buf = NULL;
    size_t blen = 0;
    FILE *mem = open_memstream(&buf, &blen);
    int rc = 0;
    if (!mem)
        return -1;
    if (slinky_doc_parse_yaml(&d, body, strlen(body)) < 0) {
        fprintf(mem, "error: %s\n", slinky_error_last()->message);
        rc = 1;
    } else if (validate(mem, k, slinky_doc_root(d), orig) > 0) {
        rc = 1;
    } else {
        slinky_kube_resource r = kctl_resource(kk);
        const char *ns = slinky_doc_value_path_string(slinky_doc_root(d), "metadata.namespace", k->ns);
        if (slinky_kube_update(NULL, k->client, &r, ns, slinky_doc_root(d), NULL) < 0) {
            const slinky_error *e = slinky_error_last();
            const slinky_kube_status *st = slinky_kube_status_last();
            if (!e->http_status) {
                rc = -1;
                kctl_fail("update");
            } else {
                fprintf(mem, "error: %s (%s)\n", e->message, st->reason ? st->reason : "");
                for (size_t i = 0; i < st->ncauses; i++)
                    fprintf(mem, "  %s: %s\n", st->causes[i].field, st->causes[i].message);
                rc = 1;
            }
        }
    }
    fclose(mem);
    slinky_doc_free(d);
    *errors = buf;
    return rc;
}

int slinkyctl_cmd_edit(int argc, char **argv)
{
    kctl_cluster_opts o;
    kctl_target t;
    kctl k;
    kctl_kind kk;
    int rc;
    if (!kctl_start(&o, &t, &k, &rc, argc, argv, "edit", usage_edit, NULL))
        return rc;
    slinky_doc *obj = NULL;
    char path[] = "/tmp/slinkyctl-edit-XXXXXX.yaml";
    char *orig_body = NULL, *last = NULL, *errors = NULL;
    int fd = -1;
    if (t.nnames != 1) {
        usage_edit(stderr);
        rc = 2;
        goto out;
    }
    if ((rc = kctl_resolve(&kk, &k, t.type)) != 0)
        goto out;
    slinky_kube_resource r = kctl_resource(&kk);
    if (slinky_kube_get(&obj, k.client, &r, k.ns, t.names[0], NULL) < 0) {
        rc = kctl_server_error(&kk, t.names[0]);
        goto out;
    }
    orig_body = dump_yaml(slinky_doc_root(obj));
    if (!orig_body || (fd = mkstemps(path, 5)) < 0) {
        rc = 1;
        goto out;
    }
    close(fd);
    const char *ed = getenv("KUBE_EDITOR");
    if (!ed || !*ed)
        ed = getenv("EDITOR");
    setenv("SLINKYCTL_EDITOR", ed && *ed ? ed : "vi", 1);
    const char *body_in = orig_body;
    for (;;) {
        if (write_buffer(path, errors, body_in) < 0 || run_editor(path) < 0) {
            fprintf(stderr, "slinkyctl edit: the editor failed; nothing was changed\n");
            rc = 1;
            break;
        }
        char *text = read_file(path), *body = text ? strip_comments(text) : NULL;
        free(text);
        if (!body) {
            rc = 1;
            break;
        }
        if (blank(body)) {
            fprintf(stderr, "Edit cancelled, saved file was empty.\n");
            free(body);
            rc = 0;
            break;
        }
        if (!strcmp(body, orig_body) && !errors) {
            fprintf(stderr, "Edit cancelled, no changes made.\n");
            free(body);
            rc = 0;
            break;
        }
        if (last && !strcmp(body, last)) { /* saved again after an error: give up */
            fprintf(stderr, "error: Edit cancelled, no valid changes were saved.\n%s", errors);
            free(body);
            rc = EXIT_INVALID;
            break;
        }
        free(errors);
        errors = NULL;
        int r2 = try_save(&errors, &k, &kk, body, slinky_doc_root(obj));
        free(last);
        last = body;
        body_in = last;
        if (r2 == 0) {
            char ref[300];
            kctl_kind_ref(ref, sizeof(ref), &kk);
            printf("%s/%s edited\n", ref, t.names[0]);
            rc = 0;
            break;
        }
        if (r2 < 0) {
            rc = 1;
            break;
        }
        fprintf(stderr, "slinkyctl edit: the object was refused; re-opening the editor\n");
    }
    unlink(path);
out:
    free(orig_body);
    free(last);
    free(errors);
    slinky_doc_free(obj);
    kctl_close(&k);
    free(t.names);
    return rc;
}

/* ---------------------------------------------------------------- apply / delete */

typedef struct files {
    const char *f[16];
    int n;
    const char *manager;
    bool force;
} files;

static int on_file_opt(int c, const char *arg, void *payload)
{
    files *x = payload;
    if (c == 'f') {
        if (x->n == 16)
            return -1;
        x->f[x->n++] = arg;
        return 1;
    }
    if (c == KCTL_OPT_FIRST_FREE) {
        x->manager = arg;
        return 1;
    }
    if (c == KCTL_OPT_FIRST_FREE + 1) {
        x->force = true;
        return 1;
    }
    return 0;
}

static const struct option file_longopts[] = {
    {"filename", required_argument, 0, 'f'},
    {"field-manager", required_argument, 0, KCTL_OPT_FIRST_FREE},
    {"force-conflicts", no_argument, 0, KCTL_OPT_FIRST_FREE + 1},
    {0, 0, 0, 0}};

static int usage_apply(FILE *f)
{
    return kctl_usage(f, "usage: slinkyctl apply -f FILE... [--field-manager NAME] [--force-conflicts] [options]\n"
               "Server-side apply every document of the files ('-' is stdin; a List is\n"
               "expanded). Every document is checked first as the operator's webhook checks\n"
               "it; when one is invalid nothing is applied.\n\n",
                      "\nexit codes: 0 applied, 1 failure, 2 usage, 4 refused by validation\n");
}

static int usage_delete(FILE *f)
{
    return kctl_usage(f, "usage: slinkyctl delete TYPE NAME... | TYPE/NAME... | TYPE -l SELECTOR | -f FILE [options]\n\n",
                      "\nexit codes: 0 deleted, 1 failure (an object not found), 2 usage\n");
}

/* Every object of the files, flattened into one array document. */
static int load_files(slinky_doc **out, const files *x)
{
    slinky_doc *all = NULL;
    if (slinky_doc_new(&all) < 0)
        return 1;
    slinky_doc_value_set_array(slinky_doc_root(all));
    for (int i = 0; i < x->n; i++) {
        char *text = NULL;
        if (!strcmp(x->f[i], "-")) {
            text = read_file("/dev/stdin");
        } else {
            text = read_file(x->f[i]);
        }
        slinky_doc *d = NULL;
        if (!text || slinky_doc_parse_yaml_all(&d, text, strlen(text)) < 0) {
            fprintf(stderr, "slinkyctl: %s: %s\n", x->f[i],
                    text ? slinky_error_last()->message : "cannot read it");
            free(text);
            slinky_doc_free(all);
            return 1;
        }
        free(text);
        const slinky_doc_value *docs = slinky_doc_root(d);
        for (size_t j = 0; j < slinky_doc_value_size(docs); j++) {
            const slinky_doc_value *o = slinky_doc_value_at(docs, j);
            const slinky_doc_value *items = !strcmp(slinky_doc_value_path_string(o, "kind", ""), "List")
                                                ? slinky_doc_value_get(o, "items")
                                                : NULL;
            size_t n = items ? slinky_doc_value_size(items) : 1;
            for (size_t m = 0; m < n; m++) {
                slinky_doc_value *e = NULL;
                if (slinky_doc_value_type(o) == SLINKY_DOC_NULL)
                    continue; /* an empty document between --- */
                slinky_doc_value_array_append(&e, slinky_doc_root(all));
                slinky_doc_value_set_copy(e, items ? slinky_doc_value_at(items, m) : o);
            }
        }
        slinky_doc_free(d);
    }
    *out = all;
    return 0;
}

/* Resolve each object's type; name them "#i KIND/NAME" in messages. */
static int resolve_all(kctl_kind **kinds_out, kctl *k, const slinky_doc_value *objs)
{
    size_t n = slinky_doc_value_size(objs);
    kctl_kind *kinds = calloc(n ? n : 1, sizeof(*kinds));
    if (!kinds)
        return 1;
    for (size_t i = 0; i < n; i++) {
        const slinky_doc_value *o = slinky_doc_value_at(objs, i);
        if (kctl_resolve_object(&kinds[i], k, slinky_doc_value_path_string(o, "apiVersion", ""),
                                slinky_doc_value_path_string(o, "kind", "")) != 0) {
            free(kinds);
            return 1;
        }
    }
    *kinds_out = kinds;
    return 0;
}

static const char *ns_of(const kctl *k, const slinky_doc_value *o)
{
    const char *ns = slinky_doc_value_path_string(o, "metadata.namespace", NULL);
    return ns && *ns ? ns : k->ns;
}

int slinkyctl_cmd_apply(int argc, char **argv)
{
    kctl_cluster_opts o;
    kctl_target t;
    kctl k;
    files x = {{0}, 0, "slinkyctl", false};
    kctl_extra ex = {"f:", file_longopts, on_file_opt, &x, true};
    int rc;
    if (!kctl_start(&o, &t, &k, &rc, argc, argv, "apply", usage_apply, &ex))
        return rc;
    slinky_doc *all = NULL;
    kctl_kind *kinds = NULL;
    if (x.n == 0 || t.type[0]) {
        usage_apply(stderr);
        rc = 2;
    } else if ((rc = load_files(&all, &x)) == 0 &&
               (rc = resolve_all(&kinds, &k, slinky_doc_root(all))) == 0) {
        const slinky_doc_value *objs = slinky_doc_root(all);
        int errors = 0;
        for (size_t i = 0; i < slinky_doc_value_size(objs); i++) {
            const slinky_doc_value *obj = slinky_doc_value_at(objs, i);
            char *buf = NULL;
            size_t blen = 0;
            FILE *mem = open_memstream(&buf, &blen);
            int e = mem ? validate(mem, &k, obj, NULL) : 1;
            if (mem)
                fclose(mem);
            if (buf && *buf)
                fprintf(stderr, "%s/%s:\n%s", slinky_doc_value_path_string(obj, "kind", "?"),
                        slinky_doc_value_path_string(obj, "metadata.name", "?"), buf);
            free(buf);
            errors += e;
        }
        if (errors) {
            fprintf(stderr, "slinkyctl apply: nothing applied: %d error(s)\n", errors);
            rc = EXIT_INVALID;
        }
        slinky_kube_patch_options po = SLINKY_KUBE_PATCH_OPTIONS_INIT;
        po.field_manager = x.manager;
        po.force = x.force;
        for (size_t i = 0; rc == 0 && i < slinky_doc_value_size(objs); i++) {
            const slinky_doc_value *obj = slinky_doc_value_at(objs, i);
            const char *name = slinky_doc_value_path_string(obj, "metadata.name", "");
            slinky_kube_resource r = kctl_resource(&kinds[i]);
            char ref[300];
            kctl_kind_ref(ref, sizeof(ref), &kinds[i]);
            if (slinky_kube_patch(NULL, k.client, &r, ns_of(&k, obj), name, SLINKY_KUBE_PATCH_APPLY,
                                  obj, &po) < 0)
                rc = kctl_server_error(&kinds[i], name);
            else
                printf("%s/%s serverside-applied\n", ref, name);
        }
    }
    free(kinds);
    slinky_doc_free(all);
    kctl_close(&k);
    free(t.names);
    return rc;
}

static int delete_one(kctl *k, const kctl_kind *kk, const char *ns, const char *name)
{
    slinky_kube_resource r = kctl_resource(kk);
    if (slinky_kube_delete(NULL, k->client, &r, ns, name, NULL) < 0)
        return kctl_server_error(kk, name);
    char ref[300];
    kctl_kind_ref(ref, sizeof(ref), kk);
    printf("%s \"%s\" deleted\n", ref, name);
    return 0;
}

int slinkyctl_cmd_delete(int argc, char **argv)
{
    kctl_cluster_opts o;
    kctl_target t;
    kctl k;
    files x = {{0}, 0, NULL, false};
    kctl_extra ex = {"f:", file_longopts, on_file_opt, &x, true};
    int rc;
    if (!kctl_start(&o, &t, &k, &rc, argc, argv, "delete", usage_delete, &ex))
        return rc;
    kctl_kind kk;
    slinky_doc *all = NULL, *list = NULL;
    kctl_kind *kinds = NULL;
    if (x.n) { /* -f FILE: the objects it names */
        if ((rc = load_files(&all, &x)) == 0 &&
            (rc = resolve_all(&kinds, &k, slinky_doc_root(all))) == 0)
            for (size_t i = 0; i < slinky_doc_value_size(slinky_doc_root(all)); i++) {
                const slinky_doc_value *obj = slinky_doc_value_at(slinky_doc_root(all), i);
                rc |= delete_one(&k, &kinds[i], ns_of(&k, obj),
                                 slinky_doc_value_path_string(obj, "metadata.name", ""));
            }
    } else if (!t.type[0] || (t.nnames == 0) == (o.selector == NULL)) {
        usage_delete(stderr);
        rc = 2;
    } else if ((rc = kctl_resolve(&kk, &k, t.type)) == 0) {
        for (int i = 0; i < t.nnames; i++)
            rc |= delete_one(&k, &kk, k.ns, t.names[i]);
        if (o.selector) {
            slinky_kube_resource r = kctl_resource(&kk);
            slinky_kube_list_options lo = SLINKY_KUBE_LIST_OPTIONS_INIT;
            lo.label_selector = o.selector;
            if (slinky_kube_list(&list, k.client, &r, o.all_namespaces ? NULL : k.ns, &lo) < 0) {
                rc = kctl_server_error(&kk, NULL);
            } else {
                const slinky_doc_value *items = slinky_doc_value_get(slinky_doc_root(list), "items");
                if (slinky_doc_value_size(items) == 0)
                    fprintf(stderr, "No resources found\n");
                for (size_t i = 0; i < slinky_doc_value_size(items); i++) {
                    const slinky_doc_value *it = slinky_doc_value_at(items, i);
                    rc |= delete_one(&k, &kk,
                                     slinky_doc_value_path_string(it, "metadata.namespace", k.ns),
                                     slinky_doc_value_path_string(it, "metadata.name", ""));
                }
            }
        }
    }
    free(kinds);
    slinky_doc_free(all);
    slinky_doc_free(list);
    kctl_close(&k);
    free(t.names);
    return rc;
}
