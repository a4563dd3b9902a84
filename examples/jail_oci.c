/*
 * jail_oci: render the built-in jail profile as an OCI runtime config for a
 * job (what crun or runc would run), and show what the job will see.
 *
 *   jail_oci DATA_DIR      (DATA_DIR unused: the built-in profile)
 */
#include <stdio.h>
#include <string.h>

#include <slinky.h>

int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    slinky_jail_spec *spec = NULL;
    slinky_doc *cfg = NULL;
    char *json = NULL;
    int rc = 1;
    slinky_jail_job job;
    slinky_jail_job_init(&job, SLINKY_JAIL_JOB_VERSION);
    job.job_id = "42";
    job.gpus = "0-1";
    const char *const cmd[] = {"/bin/hostname", NULL};
    if (slinky_jail_spec_new_default(&spec) < 0 ||
        slinky_jail_render_oci(&json, spec, &job, cmd, "/tmp/job-42-rootfs") < 0 ||
        slinky_doc_parse_json(&cfg, json, strlen(json)) < 0) {
        fprintf(stderr, "jail_oci: %s\n", slinky_error_last()->message);
        goto out;
    }
    const slinky_doc_value *root = slinky_doc_root(cfg);
    printf("ociVersion %s, runs %s as uid %lld, %zu mounts, read-only root: %s\n",
           slinky_doc_value_path_string(root, "ociVersion", "?"),
           slinky_doc_value_path_string(root, "process.args[0]", "?"),
           (long long)slinky_doc_value_path_int(root, "process.user.uid", -1),
           slinky_doc_value_size(slinky_doc_value_path(root, "mounts")),
           slinky_doc_value_path_bool(root, "root.readonly", false) ? "yes" : "no");
    rc = 0;
out:
    slinky_doc_free(cfg);
    slinky_free(json);
    slinky_jail_spec_free(spec);
    return rc;
}
