/* slinkyctl jail: validate and render job jail specs (the launcher is slinky-jail). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "slinky/error.h"
#include "slinky/jail.h"

static void jail_usage(FILE *f)
{
    fprintf(f, "usage: slinkyctl jail validate FILE...\n"
               "       slinkyctl jail show [--spec FILE] [--json]      (default: built-in profile)\n"
               "       slinkyctl jail render oci|bwrap|job-container|slurm-conf|plugstack\n"
               "                 [--spec FILE] [--job ID] [--user U] [--gpus LIST] [-- CMD...]\n");
}

static int fail(void)
{
    fprintf(stderr, "slinkyctl jail: %s\n", slinky_error_last()->message);
    return 1;
}

int slinkyctl_cmd_jail(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        jail_usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    const char *sub = argv[1];
    if (!strcmp(sub, "validate")) {
        if (argc < 3) {
            jail_usage(stderr);
            return 2;
        }
        int rc = 0;
        for (int i = 2; i < argc; i++) {
            slinky_jail_spec *s = NULL;
            if (slinky_jail_spec_load(&s, argv[i]) < 0) {
                rc = fail();
                continue;
            }
            printf("%s: valid\n", argv[i]);
            slinky_jail_spec_free(s);
        }
        return rc;
    }
    const char *what = NULL;
    int first = 2;
    if (!strcmp(sub, "render")) {
        if (argc < 3) {
            jail_usage(stderr);
            return 2;
        }
        what = argv[2];
        first = 3;
    } else if (strcmp(sub, "show") != 0) {
        fprintf(stderr, "slinkyctl jail: unknown subcommand '%s'\n", sub);
        jail_usage(stderr);
        return 2;
    }
    static const struct option lo[] = {{"spec", required_argument, 0, 's'},
                                       {"job", required_argument, 0, 'j'},
                                       {"user", required_argument, 0, 'u'},
                                       {"gpus", required_argument, 0, 'g'},
                                       {"json", no_argument, 0, 'J'},
                                       {0, 0, 0, 0}};
    const char *spec_path = NULL;
    bool json = false;
    slinky_jail_job job = SLINKY_JAIL_JOB_INIT;
    int c;
    optind = 0; /* GNU: reinitialise (main parsed with "+") */
    while ((c = getopt_long(argc - first + 1, argv + first - 1, "+s:j:u:g:", lo, NULL)) != -1) {
        switch (c) {
        case 's': spec_path = optarg; break;
        case 'j': job.job_id = optarg; break;
        case 'u': job.user = optarg; break;
        case 'g': job.gpus = optarg; break;
        case 'J': json = true; break;
        default: jail_usage(stderr); return 2;
        }
    }
    char **cmd = argv + first - 1 + optind;
    slinky_jail_spec *s = NULL;
    if ((spec_path ? slinky_jail_spec_load(&s, spec_path) : slinky_jail_spec_new_default(&s)) < 0)
        return fail();
    char *out = NULL;
    size_t n = 0, len = 0;
    int rc = 0;
    const char *const *argvp = (const char *const *)(cmd[0] ? cmd : NULL);
    if (!what) {
        rc = slinky_jail_spec_dump(&out, s, !json);
        len = out ? strlen(out) : 0;
    } else if (!strcmp(what, "oci")) {
        rc = slinky_jail_render_oci(&out, s, &job, argvp, NULL);
        len = out ? strlen(out) : 0;
    } else if (!strcmp(what, "bwrap")) {
        rc = slinky_jail_render_bwrap(&out, &n, &len, s, &job, argvp);
        for (size_t i = 0; rc == 0 && i + 1 < len; i++)
            if (out[i] == '\0')
                out[i] = '\n'; /* one argument per line */
        if (rc == 0 && len)
            len--; /* the last NUL */
    } else {
        slinky_jail_slurm_file f;
        if (slinky_jail_slurm_file_parse(&f, what) < 0) {
            fprintf(stderr, "slinkyctl jail: %s\n", slinky_error_last()->message);
            slinky_jail_spec_free(s);
            return 2;
        }
        rc = slinky_jail_render_slurm(&out, s, f, NULL, spec_path);
        len = out ? strlen(out) : 0;
    }
    if (rc < 0) {
        slinky_jail_spec_free(s);
        return fail();
    }
    fwrite(out, 1, len, stdout);
    if (len && out[len - 1] != '\n')
        putchar('\n');
    slinky_free(out);
    slinky_jail_spec_free(s);
    return 0;
}
