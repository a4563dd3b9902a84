/* Push/pull refs/heads/main to/from a ledger at a local path or file:// URL. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ledger_internal.h"

#define MAIN_REF "refs/heads/main"
#define PULL_REF "refs/ledger-pull/main"

static const char *local_path(const char *remote)
{
    if (!strncmp(remote, "file://", 7))
        return remote + 7;
    return remote;
}

static int check_remote_arg(const char *remote)
{
    if (!remote || !*remote)
        return slinky__error_set(SLINKY_EINVALID, "remote path is required");
    if (strstr(remote, "://") && strncmp(remote, "file://", 7) != 0)
        return slinky__error_set(SLINKY_EUNSUPPORTED,
                                 "remote '%s': only local paths and file:// URLs are supported",
                                 remote);
    return 0;
}

/* Copy a tree and everything below it that dst lacks (children first). */
static int copy_tree(git_odb *src, git_odb *dst, const git_oid *id, git_repository *srepo)
{
    if (git_odb_exists(dst, id))
        return 0;
    git_tree *t = NULL;
    if (git_tree_lookup(&t, srepo, id) < 0)
        return slinky_ledger__git_error(SLINKY_EGIT, "read tree");
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < git_tree_entrycount(t); i++) {
        const git_tree_entry *e = git_tree_entry_byindex(t, i);
        const git_oid *eid = git_tree_entry_id(e);
        if (git_tree_entry_type(e) == GIT_OBJECT_TREE) {
            rc = copy_tree(src, dst, eid, srepo);
        } else if (!git_odb_exists(dst, eid)) {
            git_odb_object *o = NULL;
            git_oid w;
            if (git_odb_read(&o, src, eid) < 0 ||
                git_odb_write(&w, dst, git_odb_object_data(o), git_odb_object_size(o),
                              git_odb_object_type(o)) < 0)
                rc = slinky_ledger__git_error(SLINKY_EGIT, "copy blob");
            git_odb_object_free(o);
        }
    }
    git_tree_free(t);
    if (rc == 0) {
        git_odb_object *o = NULL;
        git_oid w;
        if (git_odb_read(&o, src, id) < 0 ||
            git_odb_write(&w, dst, git_odb_object_data(o), git_odb_object_size(o),
                          GIT_OBJECT_TREE) < 0)
            rc = slinky_ledger__git_error(SLINKY_EGIT, "copy tree");
        git_odb_object_free(o);
    }
    return rc;
}

/*
 * Copy the commits reachable from src_tip (and not from dst_tip) with their
 * trees from srepo to drepo, oldest first, so dst never holds a commit whose
 * objects are missing. (Local transfer by object copy: libgit2 1.5.1's remote
 * layer leaks its URL-rewrite regex data on every remote, which valgrind flags.)
 */
static int transfer(git_repository *srepo, git_repository *drepo, const git_oid *src_tip,
                    const git_oid *dst_tip)
{
    git_odb *src = NULL, *dst = NULL;
    git_revwalk *w = NULL;
    int rc = 0;
    if (git_repository_odb(&src, srepo) < 0 || git_repository_odb(&dst, drepo) < 0 ||
        git_revwalk_new(&w, srepo) < 0) {
        rc = slinky_ledger__git_error(SLINKY_EGIT, "open object databases");
        goto out;
    }
    git_revwalk_sorting(w, GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE);
    if (git_revwalk_push(w, src_tip) < 0) {
        rc = slinky_ledger__git_error(SLINKY_EGIT, "walk");
        goto out;
    }
    if (dst_tip && git_odb_exists(src, dst_tip))
        git_revwalk_hide(w, dst_tip);
    git_error_clear();
    git_oid id;
    while (rc == 0 && git_revwalk_next(&id, w) == 0) {
        if (git_odb_exists(dst, &id))
            continue;
        git_commit *c = NULL;
        if (git_commit_lookup(&c, srepo, &id) < 0) {
            rc = slinky_ledger__git_error(SLINKY_EGIT, "read commit");
            break;
        }
        rc = copy_tree(src, dst, git_commit_tree_id(c), srepo);
        git_commit_free(c);
        git_odb_object *o = NULL;
        git_oid wid;
        if (rc == 0 && (git_odb_read(&o, src, &id) < 0 ||
                        git_odb_write(&wid, dst, git_odb_object_data(o), git_odb_object_size(o),
                                      GIT_OBJECT_COMMIT) < 0))
            rc = slinky_ledger__git_error(SLINKY_EGIT, "copy commit");
        git_odb_object_free(o);
    }
    git_error_clear();
out:
    git_revwalk_free(w);
    git_odb_free(src);
    git_odb_free(dst);
    return rc;
}

slinky_status slinky_ledger_push(slinky_ledger *ledger, const char *remote)
{
    if (!ledger)
        return slinky__error_set(SLINKY_EINVALID, "slinky_ledger_push: ledger is required");
    int rc = check_remote_arg(remote);
    if (rc < 0)
        return rc;
    const char *path = local_path(remote);
    git_oid local;
    if (git_reference_name_to_id(&local, ledger->repo, MAIN_REF) < 0)
        return slinky_ledger__git_error(SLINKY_ENOTFOUND, "local " MAIN_REF);
    git_repository *r = NULL;
    struct stat st;
    if (stat(path, &st) != 0) {
        git_repository_init_options io = GIT_REPOSITORY_INIT_OPTIONS_INIT;
        io.flags = GIT_REPOSITORY_INIT_BARE | GIT_REPOSITORY_INIT_MKPATH;
        io.initial_head = "main";
        if (git_repository_init_ext(&r, path, &io) < 0)
            return slinky_ledger__git_error(SLINKY_EIO, path);
    } else if (git_repository_open_bare(&r, path) < 0) {
        return slinky_ledger__git_error(SLINKY_ENOTFOUND, path);
    }
    if ((rc = slinky_ledger__odb_guard(r)) < 0) {
        git_repository_free(r);
        return rc;
    }
    git_oid theirs;
    bool have_theirs = git_reference_name_to_id(&theirs, r, MAIN_REF) == 0;
    git_error_clear();
    if (have_theirs) {
        if (git_oid_equal(&theirs, &local)) {
            git_repository_free(r);
            return 0;
        }
        git_commit *probe = NULL;
        bool known = git_commit_lookup(&probe, ledger->repo, &theirs) == 0;
        git_commit_free(probe);
        git_error_clear();
        if (!known || git_graph_descendant_of(ledger->repo, &local, &theirs) != 1) {
            git_error_clear();
            git_repository_free(r);
            return slinky__error_set(SLINKY_ECONFLICT,
                                     "push to %s: the remote ledger has diverged or is ahead "
                                     "(pull first)",
                                     remote);
        }
    }
    rc = transfer(ledger->repo, r, &local, have_theirs ? &theirs : NULL);
    if (rc == 0) {
        git_reference *ref = NULL;
        int grc = have_theirs ? git_reference_create_matching(&ref, r, MAIN_REF, &local, 1,
                                                              &theirs, "ledger push")
                              : git_reference_create(&ref, r, MAIN_REF, &local, 0, "ledger push");
        git_reference_free(ref);
        if (grc == GIT_EMODIFIED || grc == GIT_ELOCKED || grc == GIT_EEXISTS) {
            git_error_clear();
            rc = slinky__error_set(SLINKY_ECONFLICT, "push to %s: the remote changed meanwhile",
                                   remote);
        } else if (grc < 0) {
            rc = slinky_ledger__git_error(SLINKY_EGIT, "update remote " MAIN_REF);
        }
    }
    git_repository_free(r);
    return rc;
}

slinky_status slinky_ledger_pull(slinky_ledger *ledger, const char *remote)
{
    if (!ledger)
        return slinky__error_set(SLINKY_EINVALID, "slinky_ledger_pull: ledger is required");
    int rc = check_remote_arg(remote);
    if (rc < 0)
        return rc;
    git_repository *r = NULL;
    if (git_repository_open_bare(&r, local_path(remote)) < 0)
        return slinky_ledger__git_error(SLINKY_ENOTFOUND, remote);
    if ((rc = slinky_ledger__odb_guard(r)) < 0) {
        git_repository_free(r);
        return rc;
    }
    git_oid theirs, ours;
    if (git_reference_name_to_id(&theirs, r, MAIN_REF) < 0) {
        git_repository_free(r);
        return slinky_ledger__git_error(SLINKY_ENOTFOUND, "remote has no " MAIN_REF);
    }
    if (git_reference_name_to_id(&ours, ledger->repo, MAIN_REF) < 0) {
        git_repository_free(r);
        return slinky_ledger__git_error(SLINKY_ENOTFOUND, "local " MAIN_REF);
    }
    rc = transfer(r, ledger->repo, &theirs, &ours);
    git_repository_free(r);
    if (rc < 0)
        return rc;
    git_reference *pref = NULL;
    git_reference_create(&pref, ledger->repo, PULL_REF, &theirs, 1, "ledger pull");
    git_reference_free(pref);
    git_error_clear();
    if (git_oid_equal(&ours, &theirs) || git_graph_descendant_of(ledger->repo, &ours, &theirs) == 1)
        return 0; /* up to date or remote behind */
    if (git_graph_descendant_of(ledger->repo, &theirs, &ours) != 1) {
        git_error_clear();
        return slinky__error_set(SLINKY_ECONFLICT,
                                 "pull from %s: the histories have diverged (no fast-forward)",
                                 remote);
    }
    if ((rc = slinky_ledger__verify_from(NULL, NULL, ledger, &theirs)) < 0) {
        slinky__error_prefix("pull from %s: fetched history does not verify: ", remote);
        return rc;
    }
    git_reference *ref = NULL;
    int grc = git_reference_create_matching(&ref, ledger->repo, MAIN_REF, &theirs, 1, &ours,
                                            "ledger pull");
    git_reference_free(ref);
    if (grc == GIT_EMODIFIED || grc == GIT_ELOCKED) {
        git_error_clear();
        return slinky__error_set(SLINKY_ECONFLICT,
                                 "pull: the local ledger changed meanwhile; pull again");
    }
    if (grc < 0)
        return slinky_ledger__git_error(SLINKY_EGIT, "update " MAIN_REF);
    return 0;
}
