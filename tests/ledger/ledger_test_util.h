/* Shared helpers for the ledger tests (header-only). */
#ifndef LEDGER_TEST_UTIL_H
#define LEDGER_TEST_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "slinky.h"

static inline char *lt_tmpdir(void)
{
    char *d = strdup("/tmp/slinky-ledger-test.XXXXXX");
    assert_non_null(mkdtemp(d));
    return d;
}

static inline void lt_rmrf(const char *d)
{
    char cmd[4096];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", d);
    if (system(cmd) != 0)
        fprintf(stderr, "warning: could not remove %s\n", d);
}

static inline char *lt_read(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    for (;;) {
        size_t r = fread(buf + n, 1, cap - n - 1, f);
        n += r;
        if (r == 0)
            break;
        if (n + 1 >= cap)
            buf = realloc(buf, cap *= 2);
    }
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* A public key line from tests/data/ledger/NAME (malloc'd, no newline). */
static inline char *lt_key(const char *name)
{
    char path[4096];
    const char *data = getenv("SLINKY_TEST_DATA");
    snprintf(path, sizeof(path), "%s/ledger/%s", data ? data : "tests/data", name);
    char *k = lt_read(path);
    assert_non_null(k);
    k[strcspn(k, "\n")] = '\0';
    return k;
}

static inline char *lt_sh(const char *fmt, ...)
{
    char cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof(cmd), fmt, ap);
    va_end(ap);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    size_t r;
    while ((r = fread(buf + n, 1, cap - n - 1, p)) > 0) {
        n += r;
        if (n + 1 >= cap)
            buf = realloc(buf, cap *= 2);
    }
    buf[n] = '\0';
    pclose(p);
    return buf;
}

/*
 * The fixture of the ledger unit tests: a fresh ledger (cluster
 * "test-cluster", actor "tester") at DIR/ledger.git in a temporary DIR, and
 * DIR/root for the POSIX sink. Use with cmocka_unit_test_setup_teardown(t,
 * lt_setup, lt_teardown); tests read it as `lt_fx *f = *state`.
 */
typedef struct lt_fx {
    char *dir;
    char path[4200], root[4200];
    slinky_ledger *l;
} lt_fx;

static inline int lt_setup(void **state)
{
    lt_fx *f = calloc(1, sizeof(*f));
    if (!f)
        return -1;
    f->dir = lt_tmpdir();
    snprintf(f->path, sizeof(f->path), "%s/ledger.git", f->dir);
    snprintf(f->root, sizeof(f->root), "%s/root", f->dir);
    slinky_ledger_init_options o = SLINKY_LEDGER_INIT_OPTIONS_INIT;
    o.cluster_id = "test-cluster";
    o.actor = "tester";
    if (slinky_ledger_init(&f->l, f->path, &o) != 0) {
        lt_rmrf(f->dir);
        free(f->dir);
        free(f);
        return -1;
    }
    *state = f;
    return 0;
}

static inline int lt_teardown(void **state)
{
    lt_fx *f = *state;
    slinky_ledger_free(f->l);
    lt_rmrf(f->dir);
    free(f->dir);
    free(f);
    return 0;
}

static inline slinky_status lt_event(slinky_ledger *l, slinky_ledger_event_kind kind,
                                     const char *name, const char *target, uint32_t id,
                                     char **result)
{
    slinky_ledger_event ev = SLINKY_LEDGER_EVENT_INIT;
    ev.kind = kind;
    ev.name = name;
    ev.target = target;
    ev.id = id;
    ev.actor = "tester";
    return slinky_ledger_append(result, l, &ev);
}

#endif
