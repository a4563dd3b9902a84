/* The ledger starts libgit2 itself, on first use (it costs ~6-10 ms: CA parsing). */
#include <git2.h>

#include "core/dynload.h"
#include "core/internal.h"

static int git_start(void)
{
    SLINKY__DYNLIB_DECLARE(git2);
    if (SLINKY__DYNLIB_LOAD(git2) < 0) /* a missing libgit2 is an error here, not an abort */
        return SLINKY_EUNAVAILABLE;
    if (git_libgit2_init() < 0) {
        const git_error *e = git_error_last();
        return slinky__error_set(SLINKY_EGIT, "git_libgit2_init failed: %s",
                                 e && e->message ? e->message : "unknown");
    }
    return 0;
}

static void git_stop(void)
{
    git_libgit2_shutdown();
}

static slinky__lazy g_git = SLINKY__LAZY(git_start, git_stop);

int slinky__git_init(void)
{
    return slinky__lazy_start(&g_git);
}
