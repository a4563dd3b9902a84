/* POSIX sink: ROOT/etc/{passwd,group,shadow} and ROOT/etc/ssh/authorized_keys/<user>.
 * Entries whose names the ledger does not own are kept as they are. Files are
 * written atomically (temporary file + rename) and only when they change. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ledger/sink.h"

typedef struct line {
    const char *text; /* points into the file buffer (NUL terminated in place) */
    char name[64];
    long id; /* third field, -1 when none */
    bool owned;
} line;

typedef struct file {
    char *data;
    line *lines;
    size_t n;
    line **by_name; /* sorted by name */
} file;

static void file_dispose(file *f)
{
    free(f->data);
    free(f->lines);
    free(f->by_name);
    memset(f, 0, sizeof(*f));
}

static int cmp_line(const void *a, const void *b)
{
    return strcmp((*(line *const *)a)->name, (*(line *const *)b)->name);
}

static int file_load(file *f, const char *path)
{
    memset(f, 0, sizeof(*f));
    size_t len = 0;
    int rc = slinky__read_file(&f->data, &len, path);
    if (rc == SLINKY_ENOTFOUND) {
        slinky_error_clear();
        f->data = slinky__strdup("");
        return f->data ? 0 : SLINKY_ENOMEM;
    }
    if (rc < 0)
        return rc;
    size_t cap = 1;
    for (size_t i = 0; i < len; i++)
        cap += f->data[i] == '\n';
    f->lines = slinky__calloc(cap, sizeof(*f->lines));
    f->by_name = slinky__calloc(cap, sizeof(*f->by_name));
    if (!f->lines || !f->by_name)
        return SLINKY_ENOMEM;
    char *p = f->data;
    while (*p) {
        char *nl = strchr(p, '\n');
        if (nl)
            *nl = '\0';
        if (*p) {
            line *l = &f->lines[f->n];
            l->text = p;
            size_t nlen = strcspn(p, ":");
            snprintf(l->name, sizeof(l->name), "%.*s", (int)(nlen < 63 ? nlen : 63), p);
            l->id = -1;
            const char *c = strchr(p, ':');
            if (c && (c = strchr(c + 1, ':')))
                l->id = strtol(c + 1, NULL, 10);
            f->by_name[f->n] = l;
            f->n++;
        }
        if (!nl)
            break;
        p = nl + 1;
    }
    qsort(f->by_name, f->n, sizeof(*f->by_name), cmp_line);
    return 0;
}

static line *file_find(file *f, const char *name)
{
    line key;
    snprintf(key.name, sizeof(key.name), "%s", name);
    line *kp = &key;
    line **r = f->n ? bsearch(&kp, f->by_name, f->n, sizeof(*f->by_name), cmp_line) : NULL;
    return r ? *r : NULL;
}

static line *file_find_id(file *f, long id)
{
    for (size_t i = 0; i < f->n; i++)
        if (f->lines[i].id == id)
            return &f->lines[i];
    return NULL;
}

/* One wanted entry of a file. */
typedef struct want {
    const char *name;
    long id; /* -1: no id check (shadow) */
    char *text;
} want;

static int mkdirs(const char *path)
{
    char *p = slinky__strdup(path);
    if (!p)
        return SLINKY_ENOMEM;
    for (char *s = p + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        if (mkdir(p, 0755) < 0 && errno != EEXIST) {
            int e = errno;
            free(p);
            return slinky__error_set_errno(SLINKY_EIO, e, "mkdir %s", path);
        }
        *s = '/';
    }
    if (mkdir(p, 0755) < 0 && errno != EEXIST) {
        int e = errno;
        free(p);
        return slinky__error_set_errno(SLINKY_EIO, e, "mkdir %s", path);
    }
    free(p);
    return 0;
}

/*
 * Converge one file: keep foreign lines, replace ledger-owned ones by `w`
 * (in the order given), drop `gone` names (ledger tombstones) whose id matches.
 */
static int converge(slinky_ledger__run *run, const char *root, const char *rel, unsigned mode,
                    want *w, size_t nw, want *gone, size_t ngone)
{
    char *path = slinky__sprintf("%s/%s", root, rel);
    if (!path)
        return SLINKY_ENOMEM;
    file f;
    int rc = file_load(&f, path);
    slinky__buf out = SLINKY__BUF_INIT;
    size_t changes = 0;
    slinky__buf_puts(&out, "");
    if (rc < 0)
        goto done;
    for (size_t i = 0; i < nw; i++) {
        line *l = file_find(&f, w[i].name);
        if (w[i].id >= 0) {
            if (l && l->id != w[i].id) {
                rc = slinky__error_set(SLINKY_ECONFLICT,
                                       "%s: '%s' exists with id %ld but the ledger has id %ld "
                                       "(not renumbering; resolve by hand)",
                                       path, w[i].name, l->id, w[i].id);
                goto done;
            }
            line *o = file_find_id(&f, w[i].id);
            if (o && strcmp(o->name, w[i].name) != 0 && !o->owned) {
                /* owned by another ledger entry of this file is fine only if renamed: never */
                bool ledger_name = false;
                for (size_t j = 0; j < nw && !ledger_name; j++)
                    ledger_name = !strcmp(w[j].name, o->name) && w[j].id == o->id;
                if (!ledger_name) {
                    rc = slinky__error_set(SLINKY_ECONFLICT,
                                           "%s: id %ld of ledger entry '%s' is used by '%s'",
                                           path, w[i].id, w[i].name, o->name);
                    goto done;
                }
            }
        }
        if (l)
            l->owned = true;
        bool same = l && !strcmp(l->text, w[i].text);
        if (!same)
            changes++;
        slinky_ledger__run_step(run, !same, "%s %s %s", l ? "update" : "add", rel, w[i].name);
    }
    for (size_t i = 0; i < ngone; i++) {
        line *l = file_find(&f, gone[i].name);
        if (l && !l->owned && (gone[i].id < 0 || l->id == gone[i].id)) {
            l->owned = true;
            changes++;
            slinky_ledger__run_step(run, true, "remove %s %s", rel, gone[i].name);
        }
    }
    /* foreign lines first, in their order, then the ledger's */
    for (size_t i = 0; i < f.n; i++)
        if (!f.lines[i].owned)
            slinky__buf_printf(&out, "%s\n", f.lines[i].text);
    for (size_t i = 0; i < nw; i++)
        slinky__buf_printf(&out, "%s\n", w[i].text);
    if (out.failed) {
        rc = slinky__error_oom();
        goto done;
    }
    if (changes && !run->opts->dry_run) {
        /* also compare bytes: order changes alone do not count as changes */
        char *old = NULL;
        size_t oldlen = 0;
        bool differ = true;
        if (slinky__read_file(&old, &oldlen, path) == 0)
            differ = oldlen != out.len || memcmp(old, out.data, oldlen) != 0;
        slinky_error_clear();
        free(old);
        char *dir = slinky__sprintf("%s/etc", root);
        if (!dir)
            rc = SLINKY_ENOMEM;
        else if (differ && (rc = mkdirs(dir)) == 0)
            rc = slinky__write_file_atomic(path, out.data, out.len, mode);
        free(dir);
    }
done:
    slinky__buf_dispose(&out);
    file_dispose(&f);
    free(path);
    return rc;
}

static void wants_free(want *w, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(w[i].text);
    free(w);
}

static bool active(const char *state)
{
    return strcmp(state, "deleted") != 0;
}

/* Keys: one file per user, written without per-file fsync; one syncfs at the end. */
static int write_plain_atomic(const char *path, const char *data, size_t len)
{
    char *tmp = slinky__sprintf("%s.tmp%ld", path, (long)getpid());
    if (!tmp)
        return SLINKY_ENOMEM;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int rc = 0;
    if (fd < 0 || write(fd, data, len) != (ssize_t)len || close(fd) < 0 || rename(tmp, path) < 0)
        rc = slinky__error_set_errno(SLINKY_EIO, errno, "write %s", path);
    if (rc < 0)
        unlink(tmp);
    free(tmp);
    return rc;
}

static int converge_keys(slinky_ledger__run *run, const char *root)
{
    const slinky_ledger__state *st = run->st;
    char *dir = slinky__sprintf("%s/etc/ssh/authorized_keys", root);
    if (!dir)
        return SLINKY_ENOMEM;
    int rc = 0;
    bool wrote = false;
    for (size_t i = 0; rc == 0 && i < st->nusers; i++) {
        const slinky_ledger__user *u = &st->users[i];
        char *path = slinky__sprintf("%s/%s", dir, u->name);
        if (!path) {
            rc = SLINKY_ENOMEM;
            break;
        }
        slinky__buf b = SLINKY__BUF_INIT;
        slinky__buf_puts(&b, "");
        bool want = !strcmp(u->state, "active") && u->nkeys > 0;
        for (size_t k = 0; want && k < u->nkeys; k++)
            slinky__buf_printf(&b, "%s\n", u->keys[k].key);
        char *old = NULL;
        size_t oldlen = 0;
        bool exists = slinky__read_file(&old, &oldlen, path) == 0;
        slinky_error_clear();
        if (want && (!exists || oldlen != b.len || memcmp(old, b.data, b.len) != 0)) {
            slinky_ledger__run_step(run, true, "write keys of %s (%zu)", u->name, u->nkeys);
            if (!run->opts->dry_run && (rc = mkdirs(dir)) == 0)
                rc = write_plain_atomic(path, b.data, b.len);
            wrote = true;
        } else if (!want && exists) {
            slinky_ledger__run_step(run, true, "remove keys of %s", u->name);
            if (!run->opts->dry_run && unlink(path) < 0)
                rc = slinky__error_set_errno(SLINKY_EIO, errno, "remove %s", path);
            wrote = true;
        } else {
            slinky_ledger__run_step(run, false, "keys of %s", u->name);
        }
        free(old);
        slinky__buf_dispose(&b);
        free(path);
    }
    if (rc == 0 && wrote && !run->opts->dry_run) {
        int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd >= 0) {
            syncfs(fd);
            close(fd);
        }
    }
    free(dir);
    return rc;
}

int slinky_ledger__sink_posix(slinky_ledger__run *run)
{
    const slinky_ledger__state *st = run->st;
    const char *root = run->opts->posix_root;
    size_t nu = st->nusers, ng = st->ngroups;
    run->total = 2 * nu + (nu + ng) + nu;
    want *pw = slinky__calloc(nu + 1, sizeof(want)), *pwg = slinky__calloc(nu + 1, sizeof(want));
    want *gr = slinky__calloc(nu + ng + 1, sizeof(want)), *grg = slinky__calloc(nu + ng + 1,
                                                                               sizeof(want));
    want *sh = slinky__calloc(nu + 1, sizeof(want)), *shg = slinky__calloc(nu + 1, sizeof(want));
    size_t npw = 0, npwg = 0, ngr = 0, ngrg = 0, nsh = 0, nshg = 0;
    int rc = pw && pwg && gr && grg && sh && shg ? 0 : SLINKY_ENOMEM;
    /* groups first (dependency order): ledger groups and user private groups, by gid */
    size_t ui = 0, gi = 0;
    while (rc == 0 && (ui < nu || gi < ng)) {
        bool take_user = gi >= ng || (ui < nu && st->users[ui].uid < st->groups[gi].gid);
        if (take_user) {
            const slinky_ledger__user *u = &st->users[ui++];
            want *w = active(u->state) ? &gr[ngr++] : &grg[ngrg++];
            w->name = u->name;
            w->id = u->gid;
            w->text = slinky__sprintf("%s:x:%u:", u->name, u->gid);
        } else {
            const slinky_ledger__group *g = &st->groups[gi++];
            want *w = active(g->state) ? &gr[ngr++] : &grg[ngrg++];
            w->name = g->name;
            w->id = g->gid;
            slinky__buf b = SLINKY__BUF_INIT;
            slinky__buf_printf(&b, "%s:x:%u:", g->name, g->gid);
            size_t nm = 0;
            for (size_t m = 0; m < g->nmembers; m++) {
                const slinky_ledger__user *u = slinky_ledger__state_user(st, g->members[m]);
                if (u && active(u->state))
                    slinky__buf_printf(&b, "%s%s", nm++ ? "," : "", u->name);
            }
            w->text = slinky__buf_detach(&b, NULL);
        }
    }
    for (size_t i = 0; rc == 0 && i < nu; i++) {
        const slinky_ledger__user *u = &st->users[i];
        bool a = active(u->state);
        want *w = a ? &pw[npw++] : &pwg[npwg++];
        w->name = u->name;
        w->id = u->uid;
        w->text = slinky__sprintf("%s:x:%u:%u:%s:%s:%s", u->name, u->uid, u->gid, u->gecos,
                                  u->home, u->shell);
        want *s = a ? &sh[nsh++] : &shg[nshg++];
        s->name = u->name;
        s->id = -1;
        /* '*': no password can match, key logins work; '!' + expired: disabled */
        s->text = !strcmp(u->state, "disabled") ? slinky__sprintf("%s:!:::::1:", u->name)
                                                : slinky__sprintf("%s:*:::::::", u->name);
    }
    for (size_t i = 0; rc == 0 && i < npw; i++)
        if (!pw[i].text || !sh[i].text)
            rc = SLINKY_ENOMEM;
    for (size_t i = 0; rc == 0 && i < ngr; i++)
        if (!gr[i].text)
            rc = SLINKY_ENOMEM;
    if (rc == 0)
        rc = converge(run, root, "etc/group", 0644, gr, ngr, grg, ngrg);
    if (rc == 0)
        rc = converge(run, root, "etc/passwd", 0644, pw, npw, pwg, npwg);
    if (rc == 0)
        rc = converge(run, root, "etc/shadow", 0640, sh, nsh, shg, nshg);
    if (rc == 0)
        rc = converge_keys(run, root);
    wants_free(pw, npw);
    wants_free(pwg, npwg);
    wants_free(gr, ngr);
    wants_free(grg, ngrg);
    wants_free(sh, nsh);
    wants_free(shg, nshg);
    return rc;
}
