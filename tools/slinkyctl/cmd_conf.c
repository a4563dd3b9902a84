/* slinkyctl conf: check, get, set, diff, render, validate slurm.conf; hostlists. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "conf_report.h"
#include "resources.h"
#include "slinky.h"
#include "slinky/conf.h"
#include "slinky/doc.h"

static int usage(FILE *f)
{
    fprintf(f,
            "usage: slinkyctl conf COMMAND ...\n"
            "  check [-V VERSION] [-k KIND] FILE   static checks (exit 1 with FILE:LINE:COL errors)\n"
            "  get FILE KEY                         effective value of a global key\n"
            "  set [-V VERSION] FILE KEY=VALUE      edit one line (or append one); exit 4 when the\n"
            "                                       result fails the static check (nothing written)\n"
            "  unset FILE KEY...                    remove keys (always; findings are reported)\n"
            "  set|unset|get KEY[=VALUE]... [--controller NAME] [-n NS] [--context C] [--kubeconfig F]\n"
            "        [--slurm-version VERSION] [--dry-run]\n"
            "                                       edit a live Controller's spec.extraConf\n"
            "  diff [-V VERSION] OLD NEW            changes with their class and the overall class\n"
            "  render [-V VERSION] [--local DIR] [--ports CTLD,SLURMD,DBD] [--munge SOCKET]\n"
            "         [--file slurm|cgroup|gres|slurmdbd] RESOURCE.yaml...\n"
            "                                       render from a Controller, its NodeSets, Accounting\n"
            "                                       and referenced ConfigMaps/Secrets (\"-\": stdin)\n"
            "  validate [--munge SOCKET] [--parse-only] FILE   ask the installed Slurm\n"
            "  hostlist expand|compress EXPR...\n"
            "VERSION is 22.05, 24.11, 25.05 or 0 (newest); KIND is slurm, cgroup, gres, slurmdbd,\n"
            "job_container or plugstack (default: from the file name).\n"
            "Exit codes: 0 done, 1 failure, 2 usage error, 4 refused by the static check.\n");
    return 2;
}

static int fail(const char *what)
{
    fprintf(stderr, "slinkyctl conf %s: %s\n", what, slinky_error_last()->message);
    return 1;
}

static unsigned int parse_version(const char *s)
{
    unsigned int a = 0, b = 0;
    if (!strcmp(s, "0"))
        return 0;
    if (sscanf(s, "%u.%u", &a, &b) != 2 || a < 20 || b > 99)
        return (unsigned)-1;
    return a * 100 + b;
}

static int kind_of(const char *name, const char *file)
{
    static const char *const kinds[] = {"slurm", "cgroup", "gres", "slurmdbd", "job_container",
                                        "plugstack"};
    if (name) {
        for (int i = 0; i < 6; i++)
            if (!strcmp(name, kinds[i]))
                return i;
        return -1;
    }
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    for (int i = 5; i > 0; i--) {
        size_t n = strlen(kinds[i]);
        if (!strncmp(base, kinds[i], n) && !strncmp(base + n, ".conf", 5))
            return i;
    }
    return SLINKY_CONF_KIND_SLURM;
}

/* "FILE: line L, column C: msg" (the library's form) as "FILE:L:C: error: msg". */
static void print_parse_error(const char *file)
{
    const slinky_error *e = slinky_error_last();
    const char *m = e->message, *p = strstr(m, ": line ");
    const char *q = p ? strstr(p, ", column ") : NULL;
    const char *r = q ? strstr(q + 9, ": ") : NULL;
    if (e->line > 0 && p && q && r)
        fprintf(stderr, "%.*s:%d:%d: error: %s\n", (int)(p - m), m, e->line, e->column, r + 2);
    else
        fprintf(stderr, "%s: error: %s\n", file, m);
}

static int load(slinky_conf **out, const char *path, int kind)
{
    slinky_conf_parse_options o = SLINKY_CONF_PARSE_OPTIONS_INIT;
    o.kind = (slinky_conf_kind)kind;
    return slinky_conf_load(out, path, &o);
}

static int cmd_check(int argc, char **argv)
{
    unsigned int v = 0;
    const char *kname = NULL, *file = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-V") && i + 1 < argc)
            v = parse_version(argv[++i]);
        else if (!strcmp(argv[i], "-k") && i + 1 < argc)
            kname = argv[++i];
        else if (!file)
            file = argv[i];
        else
            return usage(stderr);
    }
    int kind = file ? kind_of(kname, file) : -1;
    if (!file || kind < 0 || v == (unsigned)-1)
        return usage(stderr);
    slinky_conf *c = NULL;
    if (load(&c, file, kind) < 0) {
        print_parse_error(file);
        return 1;
    }
    char *report = NULL;
    int rc = slinky_conf_check(&report, c, v);
    if (rc == SLINKY_ENOMEM) {
        slinky_conf_free(c);
        return fail("check");
    }
    slinkyctl_report_map map = {(slinky_conf_kind)kind, v, NULL, NULL, 0, 0};
    int errors = slinkyctl_conf_report(rc ? stderr : stdout, report, &map);
    slinky_free(report);
    slinky_conf_free(c);
    return rc || errors ? 1 : 0;
}

static int cmd_get(int argc, char **argv)
{
    if (argc != 3)
        return usage(stderr);
    slinky_conf *c = NULL;
    if (load(&c, argv[1], kind_of(NULL, argv[1])) < 0) {
        fprintf(stderr, "%s\n", slinky_error_last()->message);
        return 1;
    }
    size_t n = slinky_conf_get_count(c, argv[2]);
    int rc = 1;
    if (n && (!strcasecmp(argv[2], "SlurmctldHost") || !strcasecmp(argv[2], "Prolog") ||
              !strcasecmp(argv[2], "Epilog"))) {
        for (size_t i = 0; i < n; i++)
            printf("%s\n", slinky_conf_get_at(c, argv[2], i));
        rc = 0;
    } else if (n) {
        printf("%s\n", slinky_conf_get(c, argv[2]));
        rc = 0;
    } else
        fprintf(stderr, "slinkyctl conf get: %s is not set in %s\n", argv[2], argv[1]);
    slinky_conf_free(c);
    return rc;
}

static int edit_file(const char *file, char **argv, int nargs, bool set, unsigned v)
{
    if (!file || !nargs || (set && nargs != 1))
        return usage(stderr);
    int first = 0;
    for (int i = first; i < first + nargs; i++) {
        const char *eq = strchr(argv[i], '=');
        const char *bad = eq ? slinkyctl_conf_bad_value(eq + 1, strlen(eq + 1)) : NULL;
        if (set && (!eq || eq == argv[i])) {
            fprintf(stderr, "slinkyctl conf set: '%s': want KEY=VALUE\n", argv[i]);
            return 2;
        }
        if (!set && eq) {
            fprintf(stderr, "slinkyctl conf unset: '%s': want a key without a value\n", argv[i]);
            return 2;
        }
        if (bad) {
            fprintf(stderr, "slinkyctl conf set: the value of %.*s holds %s: one slurm.conf "
                            "line cannot carry it\n", (int)(eq - argv[i]), argv[i], bad);
            return 2;
        }
    }
    int kind = kind_of(NULL, file);
    slinky_conf *c = NULL;
    slinky_conf_parse_options o = SLINKY_CONF_PARSE_OPTIONS_INIT;
    o.kind = (slinky_conf_kind)kind;
    o.no_includes = true;
    char *text = NULL;
    int rc = slinky_conf_load(&c, file, &o) < 0 ? fail(set ? "set" : "unset") : 0;
    for (int i = first; rc == 0 && i < first + nargs; i++) {
        if (set) {
            char *key = strdup(argv[i]);
            if (!key)
                return 1;
            char *val = strchr(key, '=');
            *val++ = '\0';
            rc = slinky_conf_set(c, key, val) < 0 ? fail("set") : 0;
            free(key);
        } else {
            int r = slinky_conf_unset(c, argv[i]);
            if (r == SLINKY_ENOTFOUND) {
                fprintf(stderr, "slinkyctl conf unset: %s was not set in %s\n", argv[i], file);
                slinky_error_clear();
            } else if (r < 0) {
                rc = fail("unset");
            }
        }
    }
    if (rc == 0)
        rc = slinky_conf_render(&text, NULL, c) < 0 ? fail("set") : 0;
    slinkyctl_report_map map = {(slinky_conf_kind)kind, v, NULL, NULL, 0, 0};
    if (rc == 0) { /* findings are shown when there is an error among them */
        char *found = NULL;
        size_t flen = 0;
        FILE *mem = open_memstream(&found, &flen);
        int errors = mem ? slinkyctl_conf_check_text(mem, text, file, &map) : -1;
        if (mem)
            fclose(mem);
        if (errors > 0)
            fputs(found, stderr);
        if (errors < 0)
            rc = 1;
        else if (errors > 0 && set) {
            fprintf(stderr, "slinkyctl conf set: %s not written: the result fails the static "
                            "check the operator applies\n", file);
            rc = SLINKYCTL_EXIT_INVALID;
        } else if (errors > 0) {
            fprintf(stderr, "slinkyctl conf unset: removed; %s still fails the static check\n",
                    file);
        }
        free(found);
    }
    if (rc == 0)
        rc = slinky_conf_save(c, file) < 0 ? fail(set ? "set" : "unset") : 0;
    slinky_free(text);
    slinky_conf_free(c);
    return rc;
}

/* set FILE KEY=VALUE [-V VERSION]: the edited file must pass the static check
 * (exit 4, nothing written); unset FILE KEY...: always removes, then reports. */
static int cmd_edit(int argc, char **argv, bool set)
{
    unsigned int v = 0;
    const char *file = NULL;
    int nargs = 0;
    char **args = calloc((size_t)argc, sizeof(*args));
    if (!args)
        return 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-V") || !strcmp(argv[i], "--slurm-version")) {
            if (i + 1 >= argc || (v = parse_version(argv[++i])) == (unsigned)-1) {
                free(args);
                return usage(stderr);
            }
        } else if (!file) {
            file = argv[i];
        } else {
            args[nargs++] = argv[i];
        }
    }
    int rc = edit_file(file, args, nargs, set, v);
    free(args);
    return rc;
}

static int cmd_diff(int argc, char **argv)
{
    unsigned int v = 0;
    const char *f[2] = {NULL, NULL};
    int nf = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-V") && i + 1 < argc)
            v = parse_version(argv[++i]);
        else if (nf < 2)
            f[nf++] = argv[i];
        else
            return usage(stderr);
    }
    if (nf != 2 || v == (unsigned)-1)
        return usage(stderr);
    slinky_conf *a = NULL, *b = NULL;
    slinky_conf_diff *d = NULL;
    char *txt = NULL;
    int rc = load(&a, f[0], kind_of(NULL, f[0]));
    if (rc == 0)
        rc = load(&b, f[1], kind_of(NULL, f[1]));
    if (rc == 0)
        rc = slinky_conf_diff_new(&d, a, b, v);
    if (rc == 0)
        rc = slinky_conf_diff_render(&txt, d);
    if (rc == 0)
        fputs(txt, stdout);
    else
        fail("diff");
    slinky_free(txt);
    slinky_conf_diff_free(d);
    slinky_conf_free(a);
    slinky_conf_free(b);
    return rc ? 1 : 0;
}

static int cmd_hostlist(int argc, char **argv)
{
    if (argc < 3)
        return usage(stderr);
    if (!strcmp(argv[1], "expand")) {
        for (int i = 2; i < argc; i++) {
            char **v = NULL;
            size_t n = 0;
            if (slinky_conf_hostlist_expand(&v, &n, argv[i]) < 0)
                return fail("hostlist");
            for (size_t j = 0; j < n; j++)
                printf("%s\n", v[j]);
            slinky_conf_strv_free(v, n);
        }
        return 0;
    }
    if (!strcmp(argv[1], "compress")) {
        /* each argument may itself be a list: expand first, then compress all */
        char **all = NULL;
        size_t total = 0;
        int rc = 0;
        for (int i = 2; i < argc && rc == 0; i++) {
            char **v = NULL;
            size_t n = 0;
            rc = slinky_conf_hostlist_expand(&v, &n, argv[i]);
            if (rc == 0) {
                char **na = realloc(all, (total + n + 1) * sizeof(*na));
                if (!na) {
                    slinky_conf_strv_free(v, n);
                    rc = 1;
                    break;
                }
                all = na;
                memcpy(all + total, v, n * sizeof(*v));
                total += n;
                free(v);
            }
        }
        char *out = NULL;
        if (rc == 0)
            rc = slinky_conf_hostlist_compress(&out, (const char *const *)all, total);
        slinky_conf_strv_free(all, total);
        if (rc)
            return fail("hostlist");
        printf("%s\n", out);
        slinky_free(out);
        return 0;
    }
    return usage(stderr);
}

/* ---------------------------------------------------------------- render */

static int cmd_render(int argc, char **argv)
{
    slinky_conf_profile p = SLINKY_CONF_PROFILE_INIT;
    const char *file = "slurm";
    slinkyctl_resources r;
    memset(&r, 0, sizeof(r));
    int rc = 0;
    for (int i = 1; rc == 0 && i < argc; i++) {
        if (!strcmp(argv[i], "-V") && i + 1 < argc) {
            p.slurm_version = parse_version(argv[++i]);
            if (p.slurm_version == (unsigned)-1)
                rc = usage(stderr);
        } else if (!strcmp(argv[i], "--local") && i + 1 < argc) {
            p.local = true;
            p.local_dir = argv[++i];
        } else if (!strcmp(argv[i], "--ports") && i + 1 < argc) {
            if (sscanf(argv[++i], "%d,%d,%d", &p.slurmctld_port, &p.slurmd_port,
                       &p.slurmdbd_port) < 2)
                rc = usage(stderr);
        } else if (!strcmp(argv[i], "--munge") && i + 1 < argc)
            p.munge_socket = argv[++i];
        else if (!strcmp(argv[i], "--file") && i + 1 < argc)
            file = argv[++i];
        else
            rc = slinkyctl_resources_load(&r, argv[i], "slinkyctl conf render");
    }
    bool dbd = !strcmp(file, "slurmdbd");
    const slinky_model_object *ctl = slinkyctl_resources_first(&r, SLINKY_MODEL_KIND_CONTROLLER);
    slinky_conf_models *m = NULL;
    char *out = NULL;
    if (rc == 0 && !ctl && !dbd) {
        fprintf(stderr, "slinkyctl conf render: no Controller among the resources\n");
        rc = 1;
    }
    /* an invalid resource is not rendered: the API server and the webhook would refuse it */
    for (size_t i = 0; rc == 0 && i < r.n; i++) {
        slinky_model_kind k = slinky_model_object_get_kind(r.objs[i]);
        if (k != SLINKY_MODEL_KIND_CONTROLLER && k != SLINKY_MODEL_KIND_NODESET &&
            k != SLINKY_MODEL_KIND_ACCOUNTING)
            continue;
        slinky_model_problems *pr = NULL;
        char *report = NULL;
        if (slinky_model_validate(&pr, r.objs[i]) < 0) {
            rc = fail("validate");
        } else if (slinky_model_problems_error_count(pr) > 0) {
            if (slinky_model_problems_dump(&report, pr) == 0)
                fprintf(stderr, "slinkyctl conf render: %s %s is invalid:\n%s",
                        slinky_model_kind_name(k), slinky_model_object_get_name(r.objs[i]),
                        report);
            rc = 1;
        }
        slinky_free(report);
        slinky_model_problems_free(pr);
    }
    if (rc == 0 && slinky_conf_models_new(&m, dbd ? NULL : ctl,
                                          (const slinky_model_object *const *)r.objs, r.n))
        rc = fail("render");
    if (rc == 0) {
        const slinky_conf_cluster *c = slinky_conf_models_cluster(m);
        slinky_conf_accounting a;
        int st;
        if (!strcmp(file, "slurm"))
            st = slinky_conf_render_slurm(&out, c, &p);
        else if (!strcmp(file, "cgroup"))
            st = slinky_conf_render_cgroup(&out, &p);
        else if (!strcmp(file, "gres"))
            st = slinky_conf_render_gres(&out, c);
        else if (dbd && (st = slinky_conf_models_accounting(&a, m)) == 0) {
            if (!a.storage_pass) /* the passwordKeyRef Secret was not given */
                a.storage_pass = getenv("SLINKY_STORAGE_PASS");
            st = slinky_conf_render_slurmdbd(&out, &a, &p);
        } else if (!dbd) {
            fprintf(stderr, "slinkyctl conf render: unknown --file %s\n", file);
            st = -1;
            slinky_error_clear();
        }
        if (st < 0)
            rc = slinky_error_last()->code ? fail("render") : 2;
        else
            fputs(out, stdout);
    }
    slinky_free(out);
    slinky_conf_models_free(m);
    slinkyctl_resources_free(&r);
    return rc;
}

static int cmd_validate(int argc, char **argv)
{
    slinky_conf_validate_options o = SLINKY_CONF_VALIDATE_OPTIONS_INIT;
    const char *file = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--munge") && i + 1 < argc)
            o.munge_socket = argv[++i];
        else if (!strcmp(argv[i], "--parse-only"))
            o.parse_only = true;
        else if (!strcmp(argv[i], "--prefix") && i + 1 < argc)
            o.bin_prefix = argv[++i];
        else if (!file)
            file = argv[i];
        else
            return usage(stderr);
    }
    if (!file)
        return usage(stderr);
    char *msg = NULL;
    int rc = slinky_conf_validate_slurm(&msg, file, &o);
    if (rc == 0)
        printf("ACCEPTED\n");
    else
        fprintf(stderr, "%s\n", slinky_error_last()->message);
    slinky_free(msg);
    return rc == 0 ? 0 : rc == SLINKY_ETIMEOUT ? 2 : 1;
}

/* set/get/unset edit a file when the first operand (after -V VERSION) is one. */
static bool names_a_file(int argc, char **argv)
{
    int i = 1;
    if (i + 1 < argc && (!strcmp(argv[i], "-V") || !strcmp(argv[i], "--slurm-version")))
        i += 2;
    return i < argc && access(argv[i], F_OK) == 0;
}

int slinkyctl_cmd_conf(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
        return argc < 2 ? usage(stderr) : (usage(stdout), 0);
    const char *sub = argv[1];
    argc--;
    argv++;
    if (!strcmp(sub, "check"))
        return cmd_check(argc, argv);
    /* set/get/unset on a live Controller when the first argument is not a file */
    if (slinkyctl_conf_controller &&
        (!strcmp(sub, "set") || !strcmp(sub, "get") || !strcmp(sub, "unset")) &&
        !names_a_file(argc, argv))
        return slinkyctl_conf_controller(argc, argv);
    if (!strcmp(sub, "get"))
        return cmd_get(argc, argv);
    if (!strcmp(sub, "set") || !strcmp(sub, "unset"))
        return cmd_edit(argc, argv, !strcmp(sub, "set"));
    if (!strcmp(sub, "diff"))
        return cmd_diff(argc, argv);
    if (!strcmp(sub, "render"))
        return cmd_render(argc, argv);
    if (!strcmp(sub, "validate"))
        return cmd_validate(argc, argv);
    if (!strcmp(sub, "hostlist"))
        return cmd_hostlist(argc, argv);
    fprintf(stderr, "slinkyctl conf: unknown command '%s'\n", sub);
    return usage(stderr);
}
