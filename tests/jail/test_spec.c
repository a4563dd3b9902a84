/* jail/spec: parsing, validation (field paths), default profile, round trips, templates,
 * GPU lists, environment. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jail/jail_internal.h"
#include "slinky/doc.h"
#include "slinky/jail.h"

static char *data_path(const char *name)
{
    const char *d = getenv("SLINKY_TEST_DATA");
    static char buf[4096];
    snprintf(buf, sizeof(buf), "%s/jail/%s", d ? d : "tests/data", name);
    return buf;
}

static slinky_doc *to_doc(const slinky_jail_spec *s)
{
    slinky_doc *d = NULL;
    assert_int_equal(slinky_jail_spec_to_doc(&d, s), 0);
    return d;
}

static void test_default_equals_worker_fixture(void **state)
{
    (void)state;
    slinky_jail_spec *def = NULL, *file = NULL;
    assert_int_equal(slinky_jail_spec_new_default(&def), 0);
    assert_int_equal(slinky_jail_spec_load(&file, data_path("worker.yaml")), 0);
    slinky_doc *a = to_doc(def), *b = to_doc(file);
    assert_true(slinky_doc_value_equal(slinky_doc_root(a), slinky_doc_root(b)));
    /* the seed's jail */
    slinky_doc_value *r = slinky_doc_root(a);
    assert_string_equal(slinky_doc_value_path_string(r, "root.path", ""), "/");
    assert_true(slinky_doc_value_path_bool(r, "root.readOnly", false));
    assert_string_equal(slinky_doc_value_path_string(r, "mounts[1].destination", ""), "/shared");
    assert_true(slinky_doc_value_path_bool(r, "mounts[1].readOnly", false));
    assert_string_equal(slinky_doc_value_path_string(r, "mounts[2].destination", ""), "/local");
    assert_string_equal(slinky_doc_value_path_string(r, "mounts[3].lifetime", ""), "job");
    assert_string_equal(slinky_doc_value_path_string(r, "mounts[5].destination", ""), "/opt/hpcx");
    assert_true(slinky_doc_value_path_bool(r, "mounts[5].optional", false));
    assert_true(slinky_doc_value_path_bool(r, "process.noNewPrivileges", false));
    assert_int_equal(slinky_doc_value_size(slinky_doc_value_path(r, "process.capabilities")), 0);
    assert_int_equal(slinky_jail_spec_mount_count(def), 8);
    assert_string_equal(slinky_jail_spec_mount_destination(def, 0), "/home");
    assert_null(slinky_jail_spec_mount_destination(def, 8));
    slinky_doc_free(a);
    slinky_doc_free(b);
    slinky_jail_spec_free(def);
    slinky_jail_spec_free(file);
}

static void round_trip(const slinky_jail_spec *s, bool yaml)
{
    char *text = NULL;
    assert_int_equal(slinky_jail_spec_dump(&text, s, yaml), 0);
    slinky_jail_spec *back = NULL;
    assert_int_equal(slinky_jail_spec_parse(&back, text, strlen(text)), 0);
    slinky_doc *a = to_doc(s), *b = to_doc(back);
    assert_true(slinky_doc_value_equal(slinky_doc_root(a), slinky_doc_root(b)));
    slinky_doc_free(a);
    slinky_doc_free(b);
    slinky_jail_spec_free(back);
    slinky_free(text);
}

static void test_round_trips(void **state)
{
    (void)state;
    slinky_jail_spec *s = NULL;
    assert_int_equal(slinky_jail_spec_load(&s, data_path("templated.yaml")), 0);
    round_trip(s, true);
    round_trip(s, false);
    slinky_jail_spec *c = NULL;
    assert_int_equal(slinky_jail_spec_new_copy(&c, s), 0);
    round_trip(c, true);
    slinky_doc *d = to_doc(c);
    slinky_doc_value *r = slinky_doc_root(d);
    assert_string_equal(slinky_doc_value_path_string(r, "mounts[2].type", ""), "tmpfs");
    assert_string_equal(slinky_doc_value_path_string(r, "mounts[2].size", ""), "64m");
    assert_string_equal(slinky_doc_value_path_string(r, "mounts[2].mode", ""), "1777");
    assert_int_equal(slinky_doc_value_path_int(r, "process.user.uid", -1), 1000);
    assert_string_equal(slinky_doc_value_path_string(r, "environment.set.OMP_NUM_THREADS", ""), "1");
    assert_string_equal(slinky_doc_value_path_string(r, "process.capabilities[0]", ""),
                        "CAP_NET_BIND_SERVICE");
    slinky_doc_free(d);
    slinky_jail_spec_free(c);
    slinky_jail_spec_free(s);
    assert_int_equal(slinky_jail_spec_new_default(&s), 0);
    round_trip(s, true);
    round_trip(s, false);
    slinky_jail_spec_free(s);
}

struct bad {
    const char *spec;
    const char *message; /* substring of the error */
};

static void test_validation_names_fields(void **state)
{
    (void)state;
    static const struct bad cases[] = {
        {"mounts: [{source: /a, destination: rel}]", "mounts[0].destination: must be an absolute"},
        {"mounts: [{source: /a, destination: /x/../etc}]", "mounts[0].destination: '..' is not allowed"},
        {"mounts: [{source: /a, destination: /}]", "mounts[0].destination: cannot mount over the jail root"},
        {"mounts: [{source: /a, destination: /proc/sys}]", "mounts[0].destination: mounting over /proc"},
        {"mounts: [{source: /a, destination: /proc}]", "mounts[0].destination: mounting over /proc"},
        {"mounts: [{type: proc, destination: /p}]", "a proc mount goes at /proc"},
        {"mounts: [{source: /a, destination: /opt/x}, {source: /b, destination: /opt}]",
         "mounts[1].destination: /opt hides the earlier mount at /opt/x"},
        {"mounts: [{source: /a, destination: /x}, {source: /b, destination: /x}]",
         "mounts[1].destination: /x hides the earlier mount at /x"},
        {"mounts: [{source: /a, destination: /x/./y}]", "'.' component"},
        {"mounts: [{source: /a, destination: /x//y}]", "empty path component"},
        {"mounts: [{source: /a, destination: /x/}]", "empty path component"},
        {"mounts: [{source: /a, destination: /dev}]", "/dev is built by the jail"},
        {"mounts: [{source: a/b, destination: /x}]", "mounts[0].source: must be an absolute"},
        {"mounts: [{source: /a/../b, destination: /x}]", "mounts[0].source: '..' is not allowed"},
        {"mounts: [{source: /t, destination: /tmp, lifetime: job}]", "mounts[0].source: lifetime job"},
        {"mounts: [{source: /a/%x, destination: /x}]", "mounts[0].source: unknown template"},
        {"mounts: [{destination: /x}]", "mounts[0].source: required"},
        {"mounts: [{source: /a}]", "mounts[0].destination: required"},
        {"mounts: [{type: tmpfs, destination: /x, size: lots}]", "mounts[0].size: expected a size"},
        {"mounts: [{source: /a, destination: /x, size: 1m}]", "mounts[0].size: size applies to tmpfs"},
        {"mounts: [{type: overlay, destination: /x}]", "mounts[0].type: unknown mount type"},
        {"mounts: [{source: /a, destination: /x, lifetime: forever}]", "mounts[0].lifetime: unknown"},
        {"mounts: [{source: /a, destination: /x, create: maybe}]", "mounts[0].create: unknown"},
        {"mounts: [{source: /a, destination: /x, readonly: true}]", "mounts[0].readonly: unknown field"},
        {"mounts: [{source: /a, destination: /x, readOnly: yes-please}]", "mounts[0].readOnly: expected boolean"},
        {"mounts: [{type: tmpfs, destination: /x, mode: \"999\"}]", "mounts[0].mode"},
        {"mounts: [{type: tmpfs, destination: /x, mode: 0755}]", "mounts[0].mode: expected an octal mode as a string"},
        {"mounts: {a: 1}", "mounts: expected array"},
        {"rooot: {path: /}", "rooot: unknown field"},
        {"root: {path: relative}", "root.path: must be an absolute"},
        {"scratch: /", "scratch: must be a dedicated folder"},
        {"namespaces: {mount: false}", "namespaces.mount: the mount namespace cannot be turned off"},
        {"namespaces: {uts: false, hostname: h}", "namespaces.hostname: needs namespaces.uts"},
        {"devices: {gpu: {source: /dev/nvidia}}", "devices.gpu.source: needs %i"},
        {"devices: {gpu: {source: /x/g%i, destination: /g%i}}", "devices.gpu.destination: must be under /dev/"},
        {"devices: {gpu: {control: [nvidiactl]}}", "devices.gpu.control[0]: must be an absolute"},
        {"devices: {extra: [/etc/passwd]}", "devices.extra[0]: must be under /dev/"},
        {"environment: {set: {\"A=B\": x}}", "environment.set.A=B: invalid variable name"},
        {"environment: {set: {A: 1}}", "environment.set.A: expected string"},
        {"environment: {pathPrepend: [bin]}", "environment.pathPrepend[0]: must be an absolute"},
        {"environment: {pathPrepend: [\"/a:/b\"]}", "environment.pathPrepend[0]: ':' is not allowed"},
        {"process: {capabilities: [CAP_TIME_TRAVEL]}", "process.capabilities[0]: unknown capability"},
        {"process: {user: root}", "process.user: expected \"job\""},
        {"process: {user: {uid: -1}}", "process.user.uid"},
        {"process: {cwd: work}", "process.cwd: must be an absolute"},
        {"kind: Pod", "kind: expected JailSpec"},
        {"[1, 2]", "expected object"},
        {"", "empty document"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        slinky_jail_spec *s = (slinky_jail_spec *)0x1;
        int rc = slinky_jail_spec_parse(&s, cases[i].spec, strlen(cases[i].spec));
        if (rc != SLINKY_EINVALID || !strstr(slinky_error_last()->message, cases[i].message))
            fail_msg("case %zu (%s): rc %d, message '%s', wanted '%s'", i, cases[i].spec, rc,
                     slinky_error_last()->message, cases[i].message);
        assert_ptr_equal(s, (slinky_jail_spec *)0x1); /* out unchanged on failure */
    }
    /* the fixture with a template in a destination */
    slinky_jail_spec *s = NULL;
    assert_int_equal(slinky_jail_spec_load(&s, data_path("shared-root.json")), SLINKY_EINVALID);
    assert_non_null(strstr(slinky_error_last()->message, "shared-root.json: mounts[0].destination"));
    /* malformed YAML/JSON: parse errors with a position */
    assert_int_equal(slinky_jail_spec_parse(&s, "{\"mounts\": [", 12), SLINKY_EPARSE);
    assert_int_equal(slinky_jail_spec_parse(&s, "a: [b", 5), SLINKY_EPARSE);
}

static void test_setters(void **state)
{
    (void)state;
    slinky_jail_spec *s = NULL;
    assert_int_equal(slinky_jail_spec_new_default(&s), 0);
    assert_int_equal(slinky_jail_spec_set_scratch(s, "/var/scratch"), 0);
    assert_string_equal(slinky_jail_spec_get_scratch(s), "/var/scratch");
    assert_int_equal(slinky_jail_spec_set_scratch(s, "rel"), SLINKY_EINVALID);
    assert_int_equal(slinky_jail_spec_set_mount_source(s, "/home", "/tmp/t/home"), 0);
    assert_int_equal(slinky_jail_spec_set_mount_source(s, "/nope", "/x"), SLINKY_ENOTFOUND);
    assert_int_equal(slinky_jail_spec_set_mount_source(s, "/tmp", "/abs"), SLINKY_EINVALID);
    assert_int_equal(slinky_jail_spec_set_mount_source(s, "/proc", "/x"), SLINKY_EINVALID);
    assert_int_equal(slinky_jail_spec_set_root(s, "/srv/jail", false), 0);
    assert_int_equal(slinky_jail_spec_set_gpu_devices(s, "/t/dev/gpu%i", NULL), 0);
    assert_int_equal(slinky_jail_spec_set_gpu_devices(s, "/t/dev/gpu", NULL), 0);
    assert_int_equal(slinky_jail_spec_validate(s), SLINKY_EINVALID); /* no %i */
    assert_int_equal(slinky_jail_spec_set_gpu_devices(s, "/t/dev/gpu%i", NULL), 0);
    assert_int_equal(slinky_jail_spec_validate(s), 0);
    size_t n = slinky_jail_spec_mount_count(s);
    assert_int_equal(slinky_jail_spec_add_bind(s, "/var/spool/job1", "/var/spool/job1", true), 0);
    assert_int_equal(slinky_jail_spec_mount_count(s), n + 1);
    /* a bind that would hide /home is refused and not kept */
    assert_int_equal(slinky_jail_spec_add_bind(s, "/x", "/", true), SLINKY_EINVALID);
    assert_int_equal(slinky_jail_spec_add_bind(s, "/x", "/home/..", true), SLINKY_EINVALID);
    assert_int_equal(slinky_jail_spec_mount_count(s), n + 1);
    slinky_jail_spec_free(s);
    slinky_jail_spec_free(NULL);
}

static void test_templates(void **state)
{
    (void)state;
    slinky_jail_job job = SLINKY_JAIL_JOB_INIT;
    job.job_id = "42";
    job.user = "alice";
    job.node = "node7";
    char *out = NULL;
    assert_int_equal(slinky_jail_expand(&out, "/data/%u/%j/%n/100%%", &job), 0);
    assert_string_equal(out, "/data/alice/42/node7/100%");
    slinky_free(out);
    job.user = "../root";
    assert_int_equal(slinky_jail_expand(&out, "/home/%u", &job), SLINKY_EINVALID);
    job.user = "..";
    assert_int_equal(slinky_jail_expand(&out, "/home/%u", &job), SLINKY_EINVALID);
    job.user = NULL;
    assert_int_equal(slinky_jail_expand(&out, "/home/%u", &job), SLINKY_EINVALID);
    assert_int_equal(slinky_jail_expand(&out, "/x/%q", &job), SLINKY_EINVALID);
    assert_int_equal(slinky_jail_job_init(&job, 99), SLINKY_EINVALID);
    assert_int_equal(slinky_jail_job_init(&job, SLINKY_JAIL_JOB_VERSION), 0);
    assert_null(job.job_id);
    assert_int_equal(job.uid, -1);
}

static void test_gpu_lists(void **state)
{
    (void)state;
    int *g = NULL;
    size_t n = 0;
    assert_int_equal(slinky_jail__parse_gpus(&g, &n, "0,2-4,3"), 0);
    assert_int_equal(n, 4);
    assert_int_equal(g[0], 0);
    assert_int_equal(g[1], 2);
    assert_int_equal(g[3], 4);
    free(g);
    assert_int_equal(slinky_jail__parse_gpus(&g, &n, ""), 0);
    assert_int_equal(n, 0);
    free(g);
    assert_int_equal(slinky_jail__parse_gpus(&g, &n, NULL), 0);
    assert_int_equal(n, 0);
    free(g);
    assert_int_equal(slinky_jail__parse_gpus(&g, &n, "a"), SLINKY_EINVALID);
    assert_int_equal(slinky_jail__parse_gpus(&g, &n, "3-1"), SLINKY_EINVALID);
    assert_int_equal(slinky_jail__parse_gpus(&g, &n, "1,-2"), SLINKY_EINVALID);
    char *p = slinky_jail__gpu_path("/dev/nvidia%i", 3);
    assert_string_equal(p, "/dev/nvidia3");
    free(p);
}

static void test_environment(void **state)
{
    (void)state;
    slinky_jail_spec *s = NULL;
    assert_int_equal(slinky_jail_spec_load(&s, data_path("templated.yaml")), 0);
    const char *envp[] = {"HOME=/home/a", "SECRET=x", "PATH=/usr/bin:/opt/tools/bin", "TERM=xterm",
                          NULL};
    char *out = NULL;
    size_t n = 0;
    assert_int_equal(slinky_jail_environment(&out, &n, s, envp), 0);
    /* clear: only HOME, TERM pass; set adds two; PATH prepended (no duplicate) */
    size_t seen = 0;
    bool path = false, secret = false;
    for (const char *e = out; seen < n; e += strlen(e) + 1, seen++) {
        if (!strncmp(e, "PATH=", 5)) {
            /* PATH was not passed: the prepend goes before the default PATH */
            assert_string_equal(e, "PATH=/opt/tools/bin:/usr/local/bin:/usr/bin:/bin:"
                                   "/usr/local/sbin:/usr/sbin:/sbin");
            path = true;
        }
        secret |= !strncmp(e, "SECRET=", 7);
    }
    assert_true(path);
    assert_false(secret);
    assert_int_equal(n, 5); /* HOME TERM OMP_NUM_THREADS SLINKY_JAIL PATH */
    slinky_free(out);
    slinky_jail_spec_free(s);
    assert_int_equal(slinky_jail_spec_new_default(&s), 0);
    assert_int_equal(slinky_jail_environment(&out, &n, s, envp), 0);
    assert_non_null(memmem(out, 200, "PATH=/opt/hpcx/ompi/bin:/usr/local/cuda/bin:/usr/bin:/opt/tools/bin", 68));
    assert_int_equal(n, 5); /* 4 kept + LD_LIBRARY_PATH */
    slinky_free(out);
    slinky_jail_spec_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_equals_worker_fixture),
        cmocka_unit_test(test_round_trips),
        cmocka_unit_test(test_validation_names_fields),
        cmocka_unit_test(test_setters),
        cmocka_unit_test(test_templates),
        cmocka_unit_test(test_gpu_lists),
        cmocka_unit_test(test_environment),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
