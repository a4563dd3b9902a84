/* jail/render: OCI config.json, bwrap argv and the Slurm files, checked field by field
 * (the runners test then runs them for real). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "slinky/doc.h"
#include "slinky/jail.h"

static slinky_jail_spec *worker(void)
{
    slinky_jail_spec *s = NULL;
    assert_int_equal(slinky_jail_spec_new_default(&s), 0);
    assert_int_equal(slinky_jail_spec_set_scratch(s, "/nvme/jobs"), 0);
    return s;
}

static slinky_jail_job job7(const char *gpus)
{
    slinky_jail_job job = SLINKY_JAIL_JOB_INIT;
    job.job_id = "7";
    job.uid = 4242;
    job.gid = 4343;
    job.user = "u4242"; /* unknown to the system: uid/gid given */
    job.gpus = gpus;
    job.cwd = "/home/u4242";
    return job;
}

/* index of arg `a` followed by b (and c) in the NUL-separated list, or -1 */
static int find3(const char *args, size_t len, const char *a, const char *b, const char *c)
{
    int i = 0;
    for (const char *p = args; p < args + len; p += strlen(p) + 1, i++) {
        if (strcmp(p, a) != 0)
            continue;
        const char *q = p + strlen(p) + 1;
        if (b && (q >= args + len || strcmp(q, b) != 0))
            continue;
        const char *r = b ? q + strlen(q) + 1 : NULL;
        if (c && (r >= args + len || strcmp(r, c) != 0))
            continue;
        return i;
    }
    return -1;
}

static void test_bwrap(void **state)
{
    (void)state;
    slinky_jail_spec *s = worker();
    slinky_jail_job job = job7("1");
    const char *argv[] = {"echo", "hi there", NULL};
    char *args = NULL;
    size_t n = 0, len = 0;
    assert_int_equal(slinky_jail_render_bwrap(&args, &n, &len, s, &job, argv), 0);
    assert_true(n > 20);
    assert_true(find3(args, len, "--uid", "4242", NULL) >= 0);
    assert_true(find3(args, len, "--gid", "4343", NULL) >= 0);
    assert_true(find3(args, len, "--unshare-pid", NULL, NULL) >= 0);
    assert_true(find3(args, len, "--unshare-ipc", NULL, NULL) < 0); /* ipc: false */
    assert_true(find3(args, len, "--ro-bind", "/shared", "/shared") >= 0);
    assert_true(find3(args, len, "--bind", "/home", "/home") >= 0);
    assert_true(find3(args, len, "--bind", "/mnt/nvme/local", "/local") >= 0);
    assert_true(find3(args, len, "--bind", "/nvme/jobs/job-7/tmp", "/tmp") >= 0);
    assert_true(find3(args, len, "--dev-bind", "/dev/nvidia1", "/dev/nvidia1") >= 0);
    assert_true(find3(args, len, "--dev-bind", "/dev/nvidia0", "/dev/nvidia0") < 0);
    assert_true(find3(args, len, "--dev-bind-try", "/dev/nvidiactl", "/dev/nvidiactl") >= 0);
    assert_true(find3(args, len, "--proc", "/proc", NULL) >= 0);
    assert_true(find3(args, len, "--cap-drop", "ALL", NULL) >= 0);
    assert_true(find3(args, len, "--chdir", "/home/u4242", NULL) >= 0);
    assert_true(find3(args, len, "--remount-ro", "/", NULL) >= 0);
    int dd = find3(args, len, "--", "echo", "hi there");
    assert_true(dd >= 0);
    assert_int_equal(dd, (int)n - 3);
    /* the root's top-level folders, read-only */
    assert_true(find3(args, len, "--ro-bind", "/usr", "/usr") >= 0);
    assert_true(find3(args, len, "--dir", "/tmp", NULL) >= 0);
    slinky_free(args);
    /* no GPUs: neither GPU nodes nor control nodes */
    job = job7(NULL);
    assert_int_equal(slinky_jail_render_bwrap(&args, &n, &len, s, &job, NULL), 0);
    assert_true(find3(args, len, "--dev-bind", "/dev/nvidia1", "/dev/nvidia1") < 0);
    assert_true(find3(args, len, "--dev-bind-try", "/dev/nvidiactl", "/dev/nvidiactl") < 0);
    assert_true(find3(args, len, "--", "/bin/sh", NULL) >= 0);
    slinky_free(args);
    /* job-lifetime mounts need a job id */
    job.job_id = NULL;
    assert_int_equal(slinky_jail_render_bwrap(&args, &n, &len, s, &job, NULL), SLINKY_EINVALID);
    slinky_jail_spec_free(s);
}

static slinky_doc_value *mount_at(slinky_doc_value *root, const char *dest)
{
    slinky_doc_value *m = slinky_doc_value_get(root, "mounts");
    for (size_t i = 0; i < slinky_doc_value_size(m); i++) {
        slinky_doc_value *e = slinky_doc_value_at(m, i);
        if (!strcmp(slinky_doc_value_path_string(e, "destination", ""), dest))
            return e;
    }
    return NULL;
}

static bool has_opt(slinky_doc_value *m, const char *opt)
{
    slinky_doc_value *o = slinky_doc_value_get(m, "options");
    for (size_t i = 0; i < slinky_doc_value_size(o); i++)
        if (!strcmp(slinky_doc_value_get_string(slinky_doc_value_at(o, i)), opt))
            return true;
    return false;
}

static void test_oci(void **state)
{
    (void)state;
    slinky_jail_spec *s = worker();
    slinky_jail_job job = job7("0,1");
    const char *argv[] = {"/bin/true", NULL};
    char *json = NULL;
    assert_int_equal(slinky_jail_render_oci(&json, s, &job, argv, "/bundle/rootfs"), 0);
    slinky_doc *d = NULL;
    assert_int_equal(slinky_doc_parse_json(&d, json, strlen(json)), 0);
    slinky_doc_value *r = slinky_doc_root(d);
    assert_string_equal(slinky_doc_value_path_string(r, "ociVersion", ""), "1.0.2");
    assert_int_equal(slinky_doc_value_path_int(r, "process.user.uid", -1), 4242);
    assert_int_equal(slinky_doc_value_path_int(r, "process.user.gid", -1), 4343);
    assert_true(slinky_doc_value_path_bool(r, "process.noNewPrivileges", false));
    assert_string_equal(slinky_doc_value_path_string(r, "process.args[0]", ""), "/bin/true");
    assert_string_equal(slinky_doc_value_path_string(r, "process.cwd", ""), "/home/u4242");
    assert_int_equal(slinky_doc_value_size(slinky_doc_value_path(r, "process.capabilities.bounding")), 0);
    assert_int_equal(slinky_doc_value_size(slinky_doc_value_path(r, "process.capabilities.effective")), 0);
    assert_string_equal(slinky_doc_value_path_string(r, "root.path", ""), "/bundle/rootfs");
    assert_true(slinky_doc_value_path_bool(r, "root.readonly", false));
    assert_string_equal(slinky_doc_value_path_string(r, "linux.namespaces[0].type", ""), "mount");
    assert_string_equal(slinky_doc_value_path_string(r, "linux.namespaces[1].type", ""), "pid");
    assert_int_equal(slinky_doc_value_size(slinky_doc_value_path(r, "linux.maskedPaths")), 0);
    assert_null(slinky_doc_value_path(r, "linux.resources"));
    slinky_doc_value *m = mount_at(r, "/shared");
    assert_non_null(m);
    assert_true(has_opt(m, "ro") && has_opt(m, "nosuid") && has_opt(m, "nodev"));
    m = mount_at(r, "/home");
    assert_non_null(m);
    assert_false(has_opt(m, "ro"));
    m = mount_at(r, "/tmp");
    assert_string_equal(slinky_doc_value_path_string(m, "source", ""), "/nvme/jobs/job-7/tmp");
    m = mount_at(r, "/usr");
    assert_true(m && has_opt(m, "rbind") && has_opt(m, "ro"));
    assert_true(has_opt(m, "nosuid") && has_opt(m, "nodev"));
    assert_non_null(mount_at(r, "/dev/nvidia0"));
    assert_non_null(mount_at(r, "/dev/nvidia1"));
    assert_null(mount_at(r, "/dev/nvidia2"));
    m = mount_at(r, "/proc");
    assert_string_equal(slinky_doc_value_path_string(m, "type", ""), "proc");
    slinky_doc_free(d);
    slinky_free(json);
    slinky_jail_spec_free(s);
}

/* value of KEY in a NUL-separated environment, or NULL */
static const char *env_at(const char *env, const char *key)
{
    size_t k = strlen(key);
    for (const char *e = env; *e; e += strlen(e) + 1)
        if (!strncmp(e, key, k) && e[k] == '=')
            return e + k + 1;
    return NULL;
}

static void test_job_environment(void **state)
{
    (void)state;
    slinky_jail_spec *s = worker();
    const char *envp[] = {"HOME=/home/u4242", "CUDA_VISIBLE_DEVICES=5,7",
                          "NVIDIA_VISIBLE_DEVICES=all", NULL};
    static const struct {
        const char *gpus, *want;
    } cases[] = {{"2,5", "0,1"}, {"3", "0"}, {"0-3", "0,1,2,3"}, {NULL, NULL}, {"", NULL}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        slinky_jail_job job = job7(cases[i].gpus);
        char *env = NULL;
        size_t n = 0;
        assert_int_equal(slinky_jail_job_environment(&env, &n, s, &job, envp), 0);
        const char *c = env_at(env, "CUDA_VISIBLE_DEVICES"), *v = env_at(env, "NVIDIA_VISIBLE_DEVICES");
        if (cases[i].want) {
            assert_non_null(c);
            assert_string_equal(c, cases[i].want);
            assert_non_null(v);
            assert_string_equal(v, cases[i].want);
        } else {
            assert_null(c);
            assert_null(v);
        }
        assert_string_equal(env_at(env, "HOME"), "/home/u4242");
        slinky_free(env);
    }
    /* without a job the variables pass like any other */
    char *env = NULL;
    assert_int_equal(slinky_jail_environment(&env, NULL, s, envp), 0);
    assert_string_equal(env_at(env, "CUDA_VISIBLE_DEVICES"), "5,7");
    slinky_free(env);
    /* the OCI process gets the renumbered list too */
    setenv("CUDA_VISIBLE_DEVICES", "5,7", 1);
    slinky_jail_job job = job7("4,6");
    char *json = NULL;
    assert_int_equal(slinky_jail_render_oci(&json, s, &job, NULL, "/bundle/rootfs"), 0);
    assert_non_null(strstr(json, "\"CUDA_VISIBLE_DEVICES=0,1\""));
    assert_null(strstr(json, "CUDA_VISIBLE_DEVICES=5,7"));
    slinky_free(json);
    unsetenv("CUDA_VISIBLE_DEVICES");
    slinky_jail_spec_free(s);
}

static void test_slurm(void **state)
{
    (void)state;
    slinky_jail_spec *s = worker();
    char *out = NULL;
    assert_int_equal(slinky_jail_render_slurm(&out, s, SLINKY_JAIL_SLURM_JOB_CONTAINER, NULL, NULL), 0);
    assert_non_null(strstr(out, "\nAutoBasePath=true\n"));
    assert_non_null(strstr(out, "\nBasePath=/nvme/jobs/job_container\n"));
    slinky_free(out);
    assert_int_equal(slinky_jail_spec_set_scratch(s, "/tmp/scratch"), 0);
    assert_int_equal(slinky_jail_render_slurm(&out, s, SLINKY_JAIL_SLURM_JOB_CONTAINER, NULL, NULL),
                     SLINKY_EINVALID);
    assert_non_null(strstr(slinky_error_last()->message, "under /tmp"));
    assert_int_equal(slinky_jail_render_slurm(&out, s, SLINKY_JAIL_SLURM_CONF, NULL, NULL), 0);
    assert_non_null(strstr(out, "\nJobContainerType=job_container/tmpfs\n"));
    assert_non_null(strstr(out, "\nPrologFlags=Contain\n"));
    slinky_free(out);
    assert_int_equal(slinky_jail_render_slurm(&out, s, SLINKY_JAIL_SLURM_PLUGSTACK,
                                              "/usr/lib/slurm/slinky_jail.so", "/etc/j.yaml"), 0);
    assert_string_equal(out, "required /usr/lib/slurm/slinky_jail.so spec=/etc/j.yaml\n");
    slinky_free(out);
    assert_int_equal(slinky_jail_render_slurm(&out, s, SLINKY_JAIL_SLURM_PLUGSTACK, "a b", NULL),
                     SLINKY_EINVALID);
    assert_int_equal(slinky_jail_render_slurm(&out, s, (slinky_jail_slurm_file)9, NULL, NULL),
                     SLINKY_EINVALID);
    slinky_jail_spec_free(s);
}

/* destinations resolved through the root's symlinks the way the jail sees them */
static void test_symlinked_destinations(void **state)
{
    (void)state;
    char root[] = "/tmp/jail-render.XXXXXX", p[256], spec_text[1024];
    assert_non_null(mkdtemp(root));
    snprintf(p, sizeof(p), "%s/usr", root);
    assert_int_equal(mkdir(p, 0755), 0);
    snprintf(p, sizeof(p), "%s/abs", root);
    assert_int_equal(symlink("/usr", p), 0); /* absolute: from the jail root */
    snprintf(p, sizeof(p), "%s/rel", root);
    assert_int_equal(symlink("usr/../usr", p), 0);
    snprintf(p, sizeof(p), "%s/esc", root);
    assert_int_equal(symlink("../../../../outside", p), 0); /* climbs out */
    const char *cases[][2] = {{"/abs/x", "/usr/x"}, {"/rel/y", "/usr/y"}, {"/esc/z", NULL}};
    for (size_t i = 0; i < 3; i++) {
        snprintf(spec_text, sizeof(spec_text),
                 "root: {path: %s}\nscratch: /nvme/jobs\n"
                 "mounts: [{source: /data, destination: %s}]\n",
                 root, cases[i][0]);
        slinky_jail_spec *s = NULL;
        assert_int_equal(slinky_jail_spec_parse(&s, spec_text, strlen(spec_text)), 0);
        char *args = NULL, *json = NULL;
        size_t n = 0, len = 0;
        slinky_jail_job job = SLINKY_JAIL_JOB_INIT;
        job.uid = 1;
        job.gid = 1;
        job.user = "u1";
        int rc = slinky_jail_render_bwrap(&args, &n, &len, s, &job, NULL);
        int rc2 = slinky_jail_render_oci(&json, s, &job, NULL, NULL);
        if (cases[i][1]) {
            assert_int_equal(rc, 0);
            assert_int_equal(rc2, 0);
            assert_true(find3(args, len, "--bind", "/data", cases[i][1]) >= 0);
            assert_non_null(strstr(json, cases[i][1]));
        } else {
            assert_int_equal(rc, SLINKY_EFORBIDDEN);
            assert_non_null(strstr(slinky_error_last()->message, "leads out of the jail"));
            assert_int_equal(rc2, SLINKY_EFORBIDDEN);
        }
        slinky_free(args);
        slinky_free(json);
        slinky_jail_spec_free(s);
    }
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bwrap),
        cmocka_unit_test(test_symlinked_destinations),
        cmocka_unit_test(test_oci),
        cmocka_unit_test(test_slurm),
        cmocka_unit_test(test_job_environment),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
