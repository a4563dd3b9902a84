/* Ledger repository: init/open, compare-and-swap appends with retry. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ledger_internal.h"

#define MAIN_REF "refs/heads/main"
/* A refs/heads/main.lock older than this was left by a killed writer. */
#define STALE_LOCK_SECONDS 3
/* Give up a compare-and-swap after this long (seconds). */
#define CAS_DEADLINE_SECONDS 120

int slinky_ledger__git_error(int code, const char *what)
{
    const git_error *e = git_error_last();
    int rc = slinky__error_set(code, "%s: %s", what, e && e->message ? e->message : "git error");
    git_error_clear();
    return rc;
}

int slinky_ledger__tip(git_commit **out, git_repository *repo)
{
    git_oid oid;
    if (git_reference_name_to_id(&oid, repo, MAIN_REF) < 0) {
        git_error_clear();
        return slinky__error_set(SLINKY_ENOTFOUND, "ledger has no %s", MAIN_REF);
    }
    if (git_commit_lookup(out, repo, &oid) < 0)
        return slinky_ledger__git_error(SLINKY_EGIT, "read tip commit");
    return 0;
}

slinky_status slinky_ledger_init_options_init(slinky_ledger_init_options *opts,
                                              unsigned int version)
{
    if (!opts || version != SLINKY_LEDGER_INIT_OPTIONS_VERSION)
        return slinky__error_set(SLINKY_EINVALID, "unknown slinky_ledger_init_options version %u",
                                 version);
    slinky_ledger_init_options o = SLINKY_LEDGER_INIT_OPTIONS_INIT;
    *opts = o;
    return 0;
}

static int set_durability(void)
{
    int rc = slinky__git_init();
    if (rc < 0)
        return rc;
    git_libgit2_opts(GIT_OPT_ENABLE_FSYNC_GITDIR, 1);
    return 0;
}

static int ledger_new(slinky_ledger **out, git_repository *repo, const char *path)
{
    slinky_ledger *l = slinky__calloc(1, sizeof(*l));
    if (!l || !(l->path = slinky__strdup(path))) {
        free(l);
        git_repository_free(repo);
        return SLINKY_ENOMEM;
    }
    l->repo = repo;
    *out = l;
    return 0;
}

static git_signature *make_sig(const char *actor)
{
    git_signature *sig = NULL;
    char *email = slinky__sprintf("%s@slinky-ledger", actor);
    if (!email || git_signature_now(&sig, actor, email) < 0) {
        git_error_clear();
        sig = NULL;
        git_signature_new(&sig, "slinky", "slinky@slinky-ledger", (git_time_t)time(NULL), 0);
    }
    free(email);
    return sig;
}

slinky_status slinky_ledger_init(slinky_ledger **out, const char *path,
                                 const slinky_ledger_init_options *opts)
{
    slinky_ledger_init_options defaults = SLINKY_LEDGER_INIT_OPTIONS_INIT;
    if (!out || !path)
        return slinky__error_set(SLINKY_EINVALID, "slinky_ledger_init: out and path are required");
    if (!opts)
        opts = &defaults;
    if (opts->version != SLINKY_LEDGER_INIT_OPTIONS_VERSION)
        return slinky__error_set(SLINKY_EINVALID, "unknown slinky_ledger_init_options version %u",
                                 opts->version);
    slinky_ledger__event ev;
    memset(&ev, 0, sizeof(ev));
    ev.kind = SLINKY_LEDGER__INIT;
    ev.id_min = opts->id_min ? opts->id_min : SLINKY_LEDGER_ID_MIN;
    ev.id_max = opts->id_max ? opts->id_max : SLINKY_LEDGER_ID_MAX;
    if (ev.id_min < 1000 || ev.id_max < ev.id_min || ev.id_max > 0x7fffffff)
        return slinky__error_set(SLINKY_EINVALID, "bad id range %u-%u (need 1000 <= min <= max "
                                 "<= 2147483647)",
                                 ev.id_min, ev.id_max);
    const char *cluster = opts->cluster_id ? opts->cluster_id : "slinky";
    for (const char *p = cluster; *p; p++)
        if ((unsigned char)*p <= 0x20 || (unsigned char)*p >= 0x7f)
            return slinky__error_set(SLINKY_EINVALID,
                                     "cluster id '%s' must be printable ASCII without spaces",
                                     cluster);
    const char *u = getenv("USER");
    ev.cluster = slinky__strdup(cluster);
    ev.actor = slinky__strdup(opts->actor ? opts->actor : (u && *u ? u : "slinky"));
    ev.request_id = slinky__sprintf("init-%s", cluster);
    if (!ev.cluster || !ev.actor || !ev.request_id) {
        slinky_ledger__event_dispose(&ev);
        return SLINKY_ENOMEM;
    }
    int rc0 = set_durability();
    if (rc0 < 0) {
        slinky_ledger__event_dispose(&ev);
        return rc0;
    }
    git_repository *repo = NULL;
    git_repository_init_options io = GIT_REPOSITORY_INIT_OPTIONS_INIT;
    io.flags = GIT_REPOSITORY_INIT_BARE | GIT_REPOSITORY_INIT_MKPATH |
               GIT_REPOSITORY_INIT_NO_REINIT;
    io.initial_head = "main";
    int rc;
    if (git_repository_init_ext(&repo, path, &io) < 0) {
        const git_error *e = git_error_last();
        rc = slinky__error_set(SLINKY_EEXISTS, "cannot create a ledger at %s: %s", path,
                               e && e->message ? e->message : "exists");
        git_error_clear();
        slinky_ledger__event_dispose(&ev);
        return rc;
    }
    if ((rc = slinky_ledger__odb_guard(repo)) < 0) {
        git_repository_free(repo);
        slinky_ledger__event_dispose(&ev);
        return rc;
    }
    git_oid tree_id, commit_id;
    git_tree *tree = NULL;
    git_signature *sig = make_sig(ev.actor);
    char *msg = slinky_ledger__event_message(&ev);
    git_reference *ref = NULL;
    rc = msg && sig ? 0 : SLINKY_ENOMEM;
    if (rc == 0)
        rc = slinky_ledger__apply(&tree_id, NULL, repo, NULL, &ev);
    if (rc == 0 && git_tree_lookup(&tree, repo, &tree_id) < 0)
        rc = slinky_ledger__git_error(SLINKY_EGIT, "read tree");
    if (rc == 0 &&
        git_commit_create(&commit_id, repo, NULL, sig, sig, NULL, msg, tree, 0, NULL) < 0)
        rc = slinky_ledger__git_error(SLINKY_EGIT, "write init commit");
    if (rc == 0) {
        int grc = git_reference_create(&ref, repo, MAIN_REF, &commit_id, 0, "ledger init");
        if (grc == GIT_EEXISTS)
            rc = slinky__error_set(SLINKY_EEXISTS, "a ledger already exists at %s", path);
        else if (grc < 0)
            rc = slinky_ledger__git_error(SLINKY_EGIT, "create " MAIN_REF);
    }
    git_reference_free(ref);
    git_tree_free(tree);
    git_signature_free(sig);
    free(msg);
    slinky_ledger__event_dispose(&ev);
    if (rc < 0) {
        git_repository_free(repo);
        return rc;
    }
    return ledger_new(out, repo, path);
}

slinky_status slinky_ledger_open(slinky_ledger **out, const char *path)
{
    if (!out || !path)
        return slinky__error_set(SLINKY_EINVALID, "slinky_ledger_open: out and path are required");
    int drc = set_durability();
    if (drc < 0)
        return drc;
    git_repository *repo = NULL;
    if (git_repository_open_bare(&repo, path) < 0) {
        const git_error *e = git_error_last();
        int rc = slinky__error_set(SLINKY_ENOTFOUND, "%s is not a ledger repository: %s", path,
                                   e && e->message ? e->message : "not found");
        git_error_clear();
        return rc;
    }
    git_commit *tip = NULL;
    int rc = slinky_ledger__odb_guard(repo);
    if (rc == 0)
        rc = slinky_ledger__tip(&tip, repo);
    char *lj = NULL;
    if (rc == 0) {
        git_tree *tree = NULL;
        if (git_commit_tree(&tree, tip) < 0)
            rc = slinky_ledger__git_error(SLINKY_EGIT, "read tip tree");
        else
            rc = slinky_ledger__tree_read(&lj, NULL, repo, tree, "ledger.json");
        git_tree_free(tree);
    }
    if (rc == 0) {
        slinky_doc *d = NULL;
        if ((rc = slinky_doc_parse_json(&d, lj, strlen(lj))) == 0) {
            int64_t f = slinky_doc_value_path_int(slinky_doc_root(d), "format", 0);
            if (f != SLINKY_LEDGER_FORMAT)
                rc = slinky__error_set(SLINKY_EUNSUPPORTED,
                                       "%s: ledger format %lld is not supported (this library "
                                       "reads format %d)",
                                       path, (long long)f, SLINKY_LEDGER_FORMAT);
        }
        slinky_doc_free(d);
    }
    free(lj);
    git_commit_free(tip);
    if (rc < 0) {
        git_repository_free(repo);
        return rc;
    }
    return ledger_new(out, repo, path);
}

void slinky_ledger_free(slinky_ledger *ledger)
{
    if (!ledger)
        return;
    git_repository_free(ledger->repo);
    free(ledger->path);
    free(ledger);
}

const char *slinky_ledger_path(const slinky_ledger *ledger)
{
    return ledger ? ledger->path : NULL;
}

/* ------------------------------------------------------------------ */
/* Compare-and-swap append                                            */
/* ------------------------------------------------------------------ */

static _Thread_local unsigned int jitter_seed; /* per thread: no shared mutable state */

static void backoff(unsigned attempt)
{
    if (!jitter_seed)
        jitter_seed = (unsigned)getpid() ^ (unsigned)time(NULL) ^ (unsigned)(uintptr_t)&attempt;
    unsigned cap_us = 500u << (attempt < 7 ? attempt : 7); /* 0.5 ms .. 64 ms */
    unsigned us = 100 + (unsigned)rand_r(&jitter_seed) % cap_us;
    struct timespec ts = {0, (long)us * 1000L};
    nanosleep(&ts, NULL);
}

void slinky_ledger__clear_stale_lock(git_repository *repo, const char *ref)
{
    char *lock = slinky__sprintf("%s/%s.lock", git_repository_path(repo), ref);
    struct stat st;
    if (lock && stat(lock, &st) == 0 && time(NULL) - st.st_mtime >= STALE_LOCK_SECONDS) {
        slinky__log(SLINKY_LOG_WARNING, "ledger", "removing stale lock %s (a writer died)", lock);
        unlink(lock);
    }
    free(lock);
}

static int duplicate_result(char **result_out, const char *stored)
{
    if (!result_out)
        return 0;
    size_t n = strlen(stored);
    char *r = NULL;
    if (n > 1 && stored[n - 1] == '}')
        r = slinky__sprintf("%.*s,\"duplicate\":true}", (int)(n - 1), stored);
    else
        r = slinky__strdup(stored);
    if (!r)
        return SLINKY_ENOMEM;
    *result_out = r;
    return 0;
}

static int append_event(char **result_out, slinky_ledger *l, slinky_ledger__event *ev)
{
    int rc = slinky_ledger__event_check(ev);
    if (rc < 0)
        return rc;
    char *reqpath = slinky_ledger__request_path(ev->request_id);
    if (!reqpath)
        return SLINKY_ENOMEM;
    uint32_t given_id = ev->id;
    time_t deadline = time(NULL) + CAS_DEADLINE_SECONDS;
    for (unsigned attempt = 0;; attempt++) {
        git_commit *tip = NULL;
        git_tree *base = NULL, *tree = NULL;
        git_signature *sig = NULL;
        char *msg = NULL, *result = NULL, *stored = NULL;
        git_oid tree_id, commit_id;
        git_reference *ref = NULL;
        bool retry = false;
        ev->id = given_id;
        if ((rc = slinky_ledger__tip(&tip, l->repo)) < 0)
            goto next;
        if (git_commit_tree(&base, tip) < 0) {
            rc = slinky_ledger__git_error(SLINKY_EGIT, "read tip tree");
            goto next;
        }
        if ((rc = slinky_ledger__check_history(l, git_commit_id(tip))) < 0)
            goto next;
        if (slinky_ledger__tree_read(&stored, NULL, l->repo, base, reqpath) == 0) {
            slinky_error_clear();
            rc = duplicate_result(result_out, stored);
            free(stored);
            goto done_loop;
        }
        slinky_error_clear();
        if ((rc = slinky_ledger__apply(&tree_id, &result, l->repo, base, ev)) < 0)
            goto next;
        if (!(msg = slinky_ledger__event_message(ev)) || !(sig = make_sig(ev->actor))) {
            rc = slinky__error_oom();
            goto next;
        }
        if (git_tree_lookup(&tree, l->repo, &tree_id) < 0) {
            rc = slinky_ledger__git_error(SLINKY_EGIT, "read new tree");
            goto next;
        }
        const git_commit *parents[1] = {tip};
        if (git_commit_create(&commit_id, l->repo, NULL, sig, sig, NULL, msg, tree, 1, parents) <
            0) {
            rc = slinky_ledger__git_error(SLINKY_EGIT, "write commit");
            goto next;
        }
        int grc = git_reference_create_matching(&ref, l->repo, MAIN_REF, &commit_id, 1,
                                                git_commit_id(tip), msg);
        if (grc == GIT_EMODIFIED || grc == GIT_ELOCKED) {
            git_error_clear();
            if (grc == GIT_ELOCKED)
                slinky_ledger__clear_stale_lock(l->repo, MAIN_REF);
            retry = true;
        } else if (grc < 0) {
            rc = slinky_ledger__git_error(SLINKY_EGIT, "update " MAIN_REF);
        } else {
            /* our own commit is the tip verified before plus a checked event */
            git_reference *vr = NULL;
            int vrc = git_reference_create_matching(&vr, l->repo, SLINKY_LEDGER__VERIFIED_REF,
                                                    &commit_id, 1, git_commit_id(tip), "append");
            git_error_clear(); /* another writer moved it: verified again later */
            if (vrc == GIT_ELOCKED)
                slinky_ledger__clear_stale_lock(l->repo, SLINKY_LEDGER__VERIFIED_REF);
            git_reference_free(vr);
        }
        if (rc == 0 && grc == 0 && result_out) {
            char hex[GIT_OID_HEXSZ + 1];
            git_oid_tostr(hex, sizeof(hex), &commit_id);
            size_t n = strlen(result);
            char *r = slinky__sprintf("%.*s,\"commit\":\"%s\",\"duplicate\":false}", (int)(n - 1),
                                      result, hex);
            if (!r)
                rc = SLINKY_ENOMEM;
            else
                *result_out = r;
        }
    next:
    done_loop:
        git_reference_free(ref);
        git_tree_free(tree);
        git_tree_free(base);
        git_commit_free(tip);
        git_signature_free(sig);
        free(msg);
        free(result);
        if (!retry)
            break;
        if (time(NULL) > deadline) {
            rc = slinky__error_set(SLINKY_ECONFLICT,
                                   "gave up after %u attempts: %s stayed busy (another writer "
                                   "or a stale lock)",
                                   attempt + 1, MAIN_REF);
            break;
        }
        backoff(attempt);
    }
    free(reqpath);
    return rc;
}

slinky_status slinky_ledger_append(char **result_out, slinky_ledger *ledger,
                                   const slinky_ledger_event *ev)
{
    if (!ledger || !ev)
        return slinky__error_set(SLINKY_EINVALID, "slinky_ledger_append: ledger and ev required");
    slinky_ledger__event e;
    int rc = slinky_ledger__event_copy(&e, ev);
    if (rc < 0)
        return rc;
    rc = append_event(result_out, ledger, &e);
    slinky_ledger__event_dispose(&e);
    return rc;
}

slinky_status slinky_ledger_append_json(char **result_out, slinky_ledger *ledger,
                                        const char *json, size_t len)
{
    if (!ledger || !json)
        return slinky__error_set(SLINKY_EINVALID, "slinky_ledger_append_json: ledger and json "
                                 "required");
    slinky_ledger__event e;
    int rc = slinky_ledger__event_parse(&e, json, len);
    if (rc < 0)
        return rc;
    if (e.kind == SLINKY_LEDGER__INIT)
        rc = slinky__error_set(SLINKY_EINVALID, "an 'init' event cannot be appended");
    else
        rc = append_event(result_out, ledger, &e);
    slinky_ledger__event_dispose(&e);
    return rc;
}
