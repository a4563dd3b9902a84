/*
 * slurm/token (unit): the JWT sources without a server: a token file in
 * scontrol's "SLURM_JWT=..." form or bare, re-read after a rotation (rename
 * over it), a missing/empty file -> EAUTH; the signer called again at 80% of
 * the lifetime on the injected clock, its failure passed on, an already
 * expired token refused.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "slurm/slurm_internal.h"

static void write_file(const char *path, const char *text)
{
    char tmp[600];
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    assert_int_equal(rename(tmp, path), 0);
}

static char *get(slinky_slurm__token *t)
{
    char *s = NULL;
    int rc = slinky_slurm__token_get(&s, t);
    return rc ? NULL : s;
}

static void test_file(void **state)
{
    (void)state;
    char dir[] = "/tmp/test-slurm-token.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[512];
    snprintf(path, sizeof(path), "%s/jwt", dir);
    write_file(path, "SLURM_JWT=aaa.bbb.ccc\n");
    slinky_slurm_client_options o = SLINKY_SLURM_CLIENT_OPTIONS_INIT;
    o.token_file = path;
    slinky_slurm__token t;
    assert_int_equal(slinky_slurm__token_init(&t, &o), 0);
    char *s = get(&t);
    assert_string_equal(s, "aaa.bbb.ccc");
    free(s);
    write_file(path, "  ddd.eee.fff  \n"); /* rotated, bare */
    s = get(&t);
    assert_string_equal(s, "ddd.eee.fff");
    free(s);
    write_file(path, "\n");
    assert_null(get(&t));
    assert_int_equal(slinky_error_last()->code, SLINKY_EAUTH);
    unlink(path);
    assert_null(get(&t));
    assert_int_equal(slinky_error_last()->code, SLINKY_EAUTH);
    assert_non_null(strstr(slinky_error_last()->message, path));
    slinky_slurm__token_dispose(&t);
    rmdir(dir);
}

typedef struct signer {
    int calls;
    int64_t now;
    int64_t life;
    int fail;
} signer;

static slinky_status sign_cb(char **token_out, int64_t *expires_out, int64_t now, void *payload)
{
    signer *s = payload;
    s->calls++;
    if (s->fail)
        return SLINKY_EIO;
    char buf[32];
    snprintf(buf, sizeof(buf), "tok%d", s->calls);
    *token_out = strdup(buf);
    *expires_out = now + s->life;
    return 0;
}

static int64_t clock_cb(void *payload)
{
    return ((signer *)payload)->now;
}

static void test_signer(void **state)
{
    (void)state;
    signer sg = {0, 1000, 100, 0};
    slinky_slurm_client_options o = SLINKY_SLURM_CLIENT_OPTIONS_INIT;
    o.sign = sign_cb;
    o.sign_payload = &sg;
    o.clock = clock_cb;
    o.clock_payload = &sg;
    slinky_slurm__token t;
    assert_int_equal(slinky_slurm__token_init(&t, &o), 0);
    char *s = get(&t);
    assert_string_equal(s, "tok1");
    free(s);
    sg.now = 1079; /* 79% */
    s = get(&t);
    assert_string_equal(s, "tok1");
    free(s);
    sg.now = 1080; /* 80%: new token */
    s = get(&t);
    assert_string_equal(s, "tok2");
    free(s);
    sg.now = 1159; /* 79% of the new one */
    s = get(&t);
    assert_string_equal(s, "tok2");
    free(s);
    sg.fail = 1;
    sg.now = 1200;
    assert_null(get(&t));
    assert_int_equal(slinky_error_last()->code, SLINKY_EIO);
    sg.fail = 0;
    sg.life = 0; /* expires at once: refused */
    assert_null(get(&t));
    assert_int_equal(slinky_error_last()->code, SLINKY_EAUTH);
    slinky_slurm__token_dispose(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_file),
        cmocka_unit_test(test_signer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
