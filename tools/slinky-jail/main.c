/* slinky-jail: run a command in a per-job jail outside Slurm, and manage jail specs. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "slinky/core.h"
#include "slinky/error.h"
#include "slinky/jail.h"
#include "log_sink.h"

#define CLI_OWN_LOG_SINK 1 /* log_sink.c */
#include "../common/cli.h"

#define DEFAULT_SPEC "/etc/slurm/slinky-jail.yaml"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: %s COMMAND [OPTIONS]\n"
            "\n"
            "  run --spec FILE --job ID [--user U] [--gpus N|LIST] [--cwd DIR] [--keep] -- CMD...\n"
            "        run CMD in the job's jail (as root); the job's scratch is removed\n"
            "        afterwards unless --keep (exit status: CMD's)\n"
            "  setup --spec FILE --job ID [--user U]     create the job's scratch\n"
            "  cleanup --spec FILE --job ID | --stale    remove the job's (or stale) scratch\n"
            "  render oci|bwrap|job-container|slurm-conf|plugstack --spec FILE\n"
            "        [--job ID] [--user U] [--gpus LIST] [--bundle DIR] [--nul] [-- CMD...]\n"
            "  validate FILE                             check a spec (errors name the field)\n"
            "  dump [--spec FILE] [--json]               print a spec (default: built-in profile)\n"
            "\n"
            "Spec overrides (any command): --default (built-in profile instead of --spec),\n"
            "  --scratch DIR, --root DIR[:rw], --source DEST=SRC, --gpu-source PATTERN(%%i)\n"
            "--gpus N means GPUs 0..N-1; a list is \"0,2\" or \"0-3\".\n"
            "Spec: --spec, else " DEFAULT_SPEC " (read after the arguments are parsed).\n"
            "\n" CLI_COMMON_HELP
            "\n" CLI_EXIT_HELP "; run exits with CMD's status.\n", cli_prog);
}

struct opts {
    const char *spec_path;
    bool use_default;
    const char *job;
    const char *user;
    const char *gpus;
    const char *cwd;
    const char *bundle;
    const char *scratch;
    const char *root;
    const char *gpu_source;
    const char *sources[32];
    int nsources;
    bool keep, nul, json, stale;
    char gpubuf[64];
};

static int die(const char *what)
{
    fprintf(stderr, "%s: %s%s%s\n", cli_prog, what ? what : "", what ? ": " : "",
            slinky_error_last()->message);
    return 1;
}

static int parse(struct opts *o, int argc, char **argv)
{
    static const struct option lo[] = {
        {"spec", required_argument, 0, 's'},   {"default", no_argument, 0, 'D'},
        {"job", required_argument, 0, 'j'},    {"user", required_argument, 0, 'u'},
        {"gpus", required_argument, 0, 'g'},   {"cwd", required_argument, 0, 'c'},
        {"bundle", required_argument, 0, 'b'}, {"scratch", required_argument, 0, 'S'},
        {"root", required_argument, 0, 'r'},   {"source", required_argument, 0, 'o'},
        {"gpu-source", required_argument, 0, 'G'}, {"keep", no_argument, 0, 'k'},
        {"nul", no_argument, 0, '0'},          {"json", no_argument, 0, 'J'},
        {"stale", no_argument, 0, 'x'},        {"help", no_argument, 0, 'h'},
        CLI_LONGOPTS,                          {0, 0, 0, 0}};
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "+s:j:u:g:hv:q", lo, NULL)) != -1) {
        switch (c) {
        case 's': o->spec_path = optarg; break;
        case 'D': o->use_default = true; break;
        case 'j': o->job = optarg; break;
        case 'u': o->user = optarg; break;
        case 'g': o->gpus = optarg; break;
        case 'c': o->cwd = optarg; break;
        case 'b': o->bundle = optarg; break;
        case 'S': o->scratch = optarg; break;
        case 'r': o->root = optarg; break;
        case 'G': o->gpu_source = optarg; break;
        case 'k': o->keep = true; break;
        case '0': o->nul = true; break;
        case 'J': o->json = true; break;
        case 'x': o->stale = true; break;
        case 'o':
            if (o->nsources >= 32 || !strchr(optarg, '=')) {
                fprintf(stderr, "%s: --source DEST=SRC\n", cli_prog);
                return -1;
            }
            o->sources[o->nsources++] = optarg;
            break;
        case 'h': usage(stdout); exit(0);
        default: {
            int rc = cli_option(c, optarg, NULL); /* main prints the usage */
            if (rc == 0)
                exit(0);
            if (rc > 0)
                return -1;
            break;
        }
        }
    }
    /* "--gpus 2" means two GPUs (0,1); lists pass through */
    if (o->gpus && strspn(o->gpus, "0123456789") == strlen(o->gpus) && *o->gpus) {
        int n = atoi(o->gpus);
        if (n == 0)
            o->gpubuf[0] = '\0';
        else
            snprintf(o->gpubuf, sizeof(o->gpubuf), "0-%d", n - 1);
        o->gpus = o->gpubuf;
    }
    return optind;
}

static int load(slinky_jail_spec **out, const struct opts *o)
{
    int rc = o->use_default ? slinky_jail_spec_new_default(out)
                            : slinky_jail_spec_load(out, o->spec_path ? o->spec_path : DEFAULT_SPEC);
    if (rc < 0)
        return rc;
    if (o->scratch && (rc = slinky_jail_spec_set_scratch(*out, o->scratch)) < 0)
        goto fail;
    if (o->root) {
        char buf[4096];
        snprintf(buf, sizeof(buf), "%s", o->root);
        bool ro = true;
        char *colon = strrchr(buf, ':');
        if (colon && !strcmp(colon, ":rw")) {
            *colon = '\0';
            ro = false;
        }
        if ((rc = slinky_jail_spec_set_root(*out, buf, ro)) < 0)
            goto fail;
    }
    for (int i = 0; i < o->nsources; i++) {
        char buf[4096];
        snprintf(buf, sizeof(buf), "%s", o->sources[i]);
        char *eq = strchr(buf, '=');
        *eq = '\0';
        if ((rc = slinky_jail_spec_set_mount_source(*out, buf, eq + 1)) < 0)
            goto fail;
    }
    if (o->gpu_source && (rc = slinky_jail_spec_set_gpu_devices(*out, o->gpu_source, NULL)) < 0)
        goto fail;
    if ((rc = slinky_jail_spec_validate(*out)) < 0)
        goto fail;
    return 0;
fail:
    slinky_jail_spec_free(*out);
    *out = NULL;
    return rc;
}

static void job_of(slinky_jail_job *job, const struct opts *o)
{
    slinky_jail_job_init(job, SLINKY_JAIL_JOB_VERSION);
    job->job_id = o->job;
    job->user = o->user;
    job->gpus = o->gpus;
    job->cwd = o->cwd;
}

static void print_quoted(const char *s)
{
    if (*s && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-./=:,%+@") ==
                  strlen(s)) {
        fputs(s, stdout);
        return;
    }
    putchar('\'');
    for (; *s; s++) {
        if (*s == '\'')
            fputs("'\\''", stdout);
        else
            putchar(*s);
    }
    putchar('\'');
}

static int cmd_render(const char *what, struct opts *o, char **argv)
{
    slinky_jail_spec *spec = NULL;
    if (load(&spec, o) < 0)
        return die(NULL);
    slinky_jail_job job;
    job_of(&job, o);
    char *out = NULL;
    int rc;
    const char *const *cmd = (const char *const *)(argv && argv[0] ? argv : NULL);
    if (!strcmp(what, "oci")) {
        if (o->bundle) {
            rc = slinky_jail_bundle_create(o->bundle, spec, &job, cmd);
            if (rc == 0)
                printf("%s/config.json\n", o->bundle);
        } else {
            rc = slinky_jail_render_oci(&out, spec, &job, cmd, NULL);
            if (rc == 0)
                printf("%s\n", out);
        }
    } else if (!strcmp(what, "bwrap")) {
        size_t n = 0, len = 0;
        rc = slinky_jail_render_bwrap(&out, &n, &len, spec, &job, cmd);
        if (rc == 0 && o->nul) {
            fwrite(out, 1, len, stdout);
        } else if (rc == 0) {
            fputs("bwrap", stdout);
            for (const char *p = out; p < out + len; p += strlen(p) + 1) {
                putchar(' ');
                print_quoted(p);
            }
            putchar('\n');
        }
    } else {
        slinky_jail_slurm_file f;
        if (slinky_jail_slurm_file_parse(&f, what) < 0) {
            fprintf(stderr, "slinky-jail: %s\n", slinky_error_last()->message);
            slinky_jail_spec_free(spec);
            return 2;
        }
        rc = slinky_jail_render_slurm(&out, spec, f, NULL, o->spec_path);
        if (rc == 0)
            fputs(out, stdout);
    }
    slinky_free(out);
    slinky_jail_spec_free(spec);
    return rc < 0 ? die("render") : 0;
}

static bool is_command(const char *cmd)
{
    static const char *const cmds[] = {"run", "setup", "cleanup", "render", "validate", "dump"};
    for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
        if (!strcmp(cmd, cmds[i]))
            return true;
    return false;
}

int main(int argc, char **argv)
{
    jail_log_sink_install();
    cli_init(argv, "slinky-jail");
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "version"))
        return cli_print_version(stdout);
    if (!is_command(cmd)) { /* nothing is read before the arguments make sense */
        fprintf(stderr, "%s: unknown command '%s'\n", cli_prog, cmd);
        usage(stderr);
        return 2;
    }
    struct opts o;
    memset(&o, 0, sizeof(o));
    const char *what = NULL;
    int shift = 1;
    if (!strcmp(cmd, "render") || !strcmp(cmd, "validate")) {
        if (argc < 3) {
            usage(stderr);
            return 2;
        }
        what = argv[2];
        shift = 2;
    }
    argv[shift] = argv[0]; /* getopt names the program, not the subcommand */
    int idx = parse(&o, argc - shift, argv + shift);
    if (idx < 0) {
        usage(stderr);
        return 2;
    }
    char **rest = argv + shift + idx;
    slinky_jail_spec *spec = NULL;
    slinky_jail_job job;
    job_of(&job, &o);
    if (!strcmp(cmd, "validate")) {
        if (slinky_jail_spec_load(&spec, what) < 0)
            return die(NULL);
        printf("%s: valid\n", what);
        slinky_jail_spec_free(spec);
        return 0;
    }
    if (!strcmp(cmd, "render"))
        return cmd_render(what, &o, rest);
    if (!strcmp(cmd, "dump")) {
        if (!o.spec_path)
            o.use_default = true;
        char *out = NULL;
        if (load(&spec, &o) < 0 || slinky_jail_spec_dump(&out, spec, !o.json) < 0) {
            slinky_jail_spec_free(spec);
            return die(NULL);
        }
        fputs(out, stdout);
        slinky_free(out);
        slinky_jail_spec_free(spec);
        return 0;
    }
    if (load(&spec, &o) < 0)
        return die(NULL);
    int rc = 0, status = 0;
    if (!strcmp(cmd, "run")) {
        if (!rest[0]) {
            fprintf(stderr, "%s: run needs a command after --\n", cli_prog);
            rc = 2;
        } else if (slinky_jail_run(&status, spec, &job, (const char *const *)rest, !o.keep) < 0) {
            rc = die("run");
        } else {
            rc = status;
        }
    } else if (!strcmp(cmd, "setup")) {
        rc = slinky_jail_setup(spec, &job, (int64_t)getppid()) < 0 ? die("setup") : 0;
    } else if (!strcmp(cmd, "cleanup")) {
        size_t removed = 0;
        if (o.stale) {
            rc = slinky_jail_cleanup_stale(&removed, spec, o.job) < 0 ? die("cleanup") : 0;
            if (rc == 0)
                printf("removed %zu stale job folder(s)\n", removed);
        } else {
            rc = slinky_jail_cleanup(spec, o.job) < 0 ? die("cleanup") : 0;
        }
    } else {
        rc = 2; /* not reached: is_command() said yes */
    }
    slinky_jail_spec_free(spec);
    return rc;
}
