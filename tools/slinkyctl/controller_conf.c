/*
 * slinkyctl conf set|unset|get on a live Controller: edits spec.extraConf of a
 * Controller resource through the Kubernetes API. The operator then renders,
 * validates and applies the change (reconfigure or restart, by its class).
 *
 *   slinkyctl conf set KEY=VALUE... [--controller NAME] [-n NS] [--kubeconfig F] [--dry-run]
 *   slinkyctl conf unset KEY... [same options]
 *   slinkyctl conf get KEY [same options]
 *
 * Every key of set/get is checked against the Slurm key catalogue first (unset
 * removes whatever it is given); a set is then put through the operator's own
 * checks (the Controller's validation and the static check of the rendered
 * slurm.conf) and refused with exit 4 when they fail. Nothing is written when
 * any argument is bad. The update carries the resourceVersion
 * that was read, so a concurrent edit is retried, never overwritten.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "conf_report.h"
#include "slinky.h"

static const slinky_kube_resource controllers = {"slinky.slurm.net", "v1beta1", "controllers",
                                                 true};

static int err(const char *what)
{
    const slinky_error *e = slinky_error_last();
    fprintf(stderr, "slinkyctl conf: %s: %s\n", what, e->message);
    return 1;
}

struct edit {
    char **keys, **values; /* values[i] NULL: unset */
    int n;
    unsigned version;
    char *old_extra, *new_extra;
    const slinky_doc_value **nodesets; /* the Controller's, for the static check */
    size_t nn;
    const slinky_doc_value *accounting;
    bool check, invalid;
};

/* The operator's checks on the edited Controller (controller_check.c's order:
 * the resource, then the rendered slurm.conf); findings in spec.extraConf are
 * reported with its own line numbers. True when it passes. */
static bool operator_check(FILE *out, const slinky_doc_value *obj, struct edit *e)
{
    slinky_model_object *model = NULL;
    slinky_model_problems *problems = NULL;
    bool ok = true;
    if (slinky_model_object_new_from_value(&model, obj) < 0 ||
        slinky_model_validate(&problems, model) < 0) {
        fprintf(out, "slinkyctl conf: Controller: %s\n", slinky_error_last()->message);
        ok = false;
    }
    for (size_t i = 0; problems && i < slinky_model_problems_count(problems); i++)
        fprintf(out, "%s: %s\n", slinky_model_problems_get_path(problems, i),
                slinky_model_problems_get_message(problems, i));
    if (problems && slinky_model_problems_error_count(problems))
        ok = false;
    slinky_model_problems_free(problems);

    /* the slurm.conf the operator would render: the Controller, its NodeSets
     * and Accounting as typed models (their schema defaults are the only ones) */
    size_t n = 0;
    slinky_model_object **objs = ok ? calloc(e->nn + 1, sizeof(*objs)) : NULL;
    if (ok && !objs) {
        fprintf(out, "slinkyctl conf: out of memory\n");
        ok = false;
    }
    for (size_t i = 0; ok && i < e->nn + 1; i++) {
        const slinky_doc_value *v = i < e->nn ? e->nodesets[i] : e->accounting;
        if (v && slinky_model_object_new_from_value(&objs[n], v) < 0) {
            fprintf(out, "slinkyctl conf: %s\n", slinky_error_last()->message);
            ok = false;
        } else if (v) {
            n++;
        }
    }
    slinky_conf_models *models = NULL;
    slinky_conf_profile profile;
    char *text = NULL;
    slinky_conf_profile_init(&profile, SLINKY_CONF_PROFILE_VERSION);
    profile.slurm_version = e->version;
    if (ok && (slinky_conf_models_new(&models, model, (const slinky_model_object *const *)objs, n) < 0 ||
               slinky_conf_render_slurm(&text, slinky_conf_models_cluster(models), &profile) < 0)) {
        fprintf(out, "slinkyctl conf: render slurm.conf: %s\n", slinky_error_last()->message);
        ok = false;
    }
    slinky_conf_models_free(models);
    for (size_t i = 0; i < n; i++)
        slinky_model_object_free(objs[i]);
    free(objs);
    slinky_model_object_free(model);
    if (!ok) {
        slinky_free(text);
        return false;
    }
    /* spec.extraConf follows the "### EXTRA CONFIG ###" line verbatim */
    slinkyctl_report_map map = {SLINKY_CONF_KIND_SLURM, e->version, "slurm.conf (rendered)",
                                "spec.extraConf", 0, 0};
    const char *mark = strstr(text, "\n### EXTRA CONFIG ###\n");
    if (mark && e->new_extra) {
        map.first_line = 2;
        for (const char *p = text; p <= mark; p++)
            map.first_line += *p == '\n';
        for (const char *p = e->new_extra; *p; p++)
            map.line_count += *p == '\n';
        map.line_count += e->new_extra[0] && e->new_extra[strlen(e->new_extra) - 1] != '\n';
    }
    int errors = slinkyctl_conf_check_text(out, text, "slurm.conf", &map);
    slinky_free(text);
    return errors == 0;
}

/* Rewrite extraConf with the edits (one line per key, the rest untouched). */
static slinky_status apply_edits(slinky_doc_value *obj, void *payload)
{
    struct edit *e = payload;
    slinky_conf *conf = NULL;
    const char *extra = slinky_doc_value_path_string(obj, "spec.extraConf", "");
    slinky_status rc = slinky_conf_parse(&conf, extra, strlen(extra), "spec.extraConf", NULL);
    if (rc < 0)
        return rc;
    for (int i = 0; i < e->n && rc == 0; i++) {
        if (e->values[i])
            rc = slinky_conf_set(conf, e->keys[i], e->values[i]);
        else if (slinky_conf_unset(conf, e->keys[i]) == SLINKY_ENOTFOUND)
            slinky_error_clear(); /* already absent: fine */
    }
    char *text = NULL;
    if (rc == 0)
        rc = slinky_conf_render(&text, NULL, conf);
    slinky_conf_free(conf);
    if (rc < 0)
        return rc;
    slinky_doc_value *v = NULL;
    rc = slinky_doc_value_path_put(&v, obj, "spec.extraConf");
    if (rc == 0)
        rc = slinky_doc_value_set_string(v, text);
    free(e->old_extra);
    free(e->new_extra);
    e->old_extra = strdup(extra);
    e->new_extra = text;
    if (rc == 0 && e->check && !operator_check(stderr, obj, e)) {
        e->invalid = true;
        return SLINKY_EINVALID;
    }
    return rc;
}

/* The Controller's NodeSets (spec.controllerRef) and its Accounting, as the operator gathers them. */
static int gather(slinky_doc **nodesets, slinky_doc **acct, struct edit *e, slinky_kube_client *c,
                  const char *ns, const char *name, const slinky_doc_value *ctl_value)
{
    static const slinky_kube_resource nodeset_res = {"slinky.slurm.net", "v1beta1", "nodesets", true};
    static const slinky_kube_resource acct_res = {"slinky.slurm.net", "v1beta1", "accountings", true};
    slinky_doc *ctl = NULL;
    if (slinky_kube_list(nodesets, c, &nodeset_res, ns, NULL) < 0 ||
        (!ctl_value && slinky_kube_get(&ctl, c, &controllers, ns, name, NULL) < 0))
        return err("gather the Controller's NodeSets");
    if (!ctl_value)
        ctl_value = slinky_doc_root(ctl);
    const slinky_doc_value *items = slinky_doc_value_get(slinky_doc_root(*nodesets), "items");
    e->nodesets = calloc(slinky_doc_value_size(items) + 1, sizeof(*e->nodesets));
    for (size_t i = 0; e->nodesets && i < slinky_doc_value_size(items); i++) {
        const slinky_doc_value *o = slinky_doc_value_at(items, i);
        const char *ref = slinky_doc_value_path_string(o, "spec.controllerRef.name", "");
        const char *refns = slinky_doc_value_path_string(o, "spec.controllerRef.namespace", ns);
        if (!strcmp(ref, name) && (!*refns || !strcmp(refns, ns)))
            e->nodesets[e->nn++] = o;
    }
    const char *an = slinky_doc_value_path_string(ctl_value, "spec.accountingRef.name", "");
    const char *ans = slinky_doc_value_path_string(ctl_value, "spec.accountingRef.namespace", ns);
    int rc = e->nodesets ? 0 : 1;
    if (rc == 0 && *an && slinky_kube_get(acct, c, &acct_res, *ans ? ans : ns, an, NULL) == 0)
        e->accounting = slinky_doc_root(*acct);
    else
        slinky_error_clear(); /* a missing Accounting: the operator waits for it; render without */
    slinky_doc_free(ctl);
    return rc;
}

bool slinkyctl_controller_check(FILE *out, slinky_kube_client *c, const char *ns,
                                const slinky_doc_value *ctl, unsigned version)
{
    struct edit e;
    slinky_doc *nodesets = NULL, *acct = NULL;
    memset(&e, 0, sizeof(e));
    e.version = version;
    e.new_extra = strdup(slinky_doc_value_path_string(ctl, "spec.extraConf", ""));
    const char *name = slinky_doc_value_path_string(ctl, "metadata.name", "");
    bool ok = e.new_extra && gather(&nodesets, &acct, &e, c, ns, name, ctl) == 0 &&
              operator_check(out, ctl, &e);
    free(e.new_extra);
    free(e.nodesets);
    slinky_doc_free(nodesets);
    slinky_doc_free(acct);
    return ok;
}

static int find_controller(char **name_out, slinky_kube_client *c, const char *ns)
{
    slinky_doc *list = NULL;
    if (slinky_kube_list(&list, c, &controllers, ns, NULL) < 0)
        return err("list controllers");
    const slinky_doc_value *items = slinky_doc_value_get(slinky_doc_root(list), "items");
    size_t n = slinky_doc_value_size(items);
    if (n != 1) {
        fprintf(stderr, "slinkyctl conf: %zu Controllers in namespace %s: name one with --controller\n",
                n, ns);
        slinky_doc_free(list);
        return 2;
    }
    *name_out = strdup(slinky_doc_value_path_string(slinky_doc_value_at(items, 0),
                                                    "metadata.name", ""));
    slinky_doc_free(list);
    return 0;
}

int slinkyctl_conf_controller(int argc, char **argv)
{
    const char *kubeconfig = NULL, *context = NULL, *ns = NULL, *verb = argv[0];
    char *name = NULL;
    bool dry_run = false;
    unsigned version = 2205;
    static const struct option longopts[] = {{"controller", required_argument, 0, 'c'},
                                             {"namespace", required_argument, 0, 'n'},
                                             {"kubeconfig", required_argument, 0, 'k'},
                                             {"context", required_argument, 0, 'x'},
                                             {"slurm-version", required_argument, 0, 'V'},
                                             {"dry-run", no_argument, 0, 'd'},
                                             {0, 0, 0, 0}};
    int c;
    optind = 0; /* GNU: reinitialise (main parsed with "+") */
    while ((c = getopt_long(argc, argv, "n:", longopts, NULL)) != -1) {
        switch (c) {
        case 'c': name = strdup(optarg); break;
        case 'n': ns = optarg; break;
        case 'k': kubeconfig = optarg; break;
        case 'x': context = optarg; break;
        case 'd': dry_run = true; break;
        case 'V': {
            unsigned a = 0, b = 0;
            if (sscanf(optarg, "%u.%u", &a, &b) == 2)
                version = a * 100 + b;
            break;
        }
        default: free(name); return 2;
        }
    }
    int nargs = argc - optind;
    if (nargs < 1) {
        fprintf(stderr, "usage: slinkyctl conf %s %s... [--controller NAME] [-n NS] "
                        "[--kubeconfig F] [--dry-run]\n",
                verb, strcmp(verb, "set") ? "KEY" : "KEY=VALUE");
        free(name);
        return 2;
    }

    /* check every argument before touching anything */
    struct edit e = {calloc((size_t)nargs, sizeof(char *)), calloc((size_t)nargs, sizeof(char *)),
                     0, version, NULL, NULL};
    int rc = 0;
    for (int i = optind; i < argc && rc == 0; i++) {
        char *arg = strdup(argv[i]), *eq = strchr(arg, '=');
        if (!strcmp(verb, "set") && (!eq || eq == arg || !eq[1])) {
            fprintf(stderr, "slinkyctl conf set: '%s': want KEY=VALUE\n", argv[i]);
            rc = 2;
        } else if (strcmp(verb, "set") && eq) {
            fprintf(stderr, "slinkyctl conf %s: '%s': want a key without a value\n", verb, argv[i]);
            rc = 2;
        }
        const char *bad = eq ? slinkyctl_conf_bad_value(eq + 1, strlen(eq + 1)) : NULL;
        if (rc == 0 && bad) {
            fprintf(stderr, "slinkyctl conf set: the value of %.*s holds %s: one slurm.conf "
                            "line cannot carry it\n", (int)(eq - arg), arg, bad);
            rc = 2;
        }
        if (eq)
            *eq = '\0';
        char alt[256];
        /* unset always removes (a typo too); set and get name a key Slurm knows */
        if (rc == 0 && strcmp(verb, "unset") &&
            !slinky_conf_key_is_known(SLINKY_CONF_KIND_SLURM, "global", arg, version)) {
            bool hint = slinkyctl_conf_suggest(alt, sizeof(alt), SLINKY_CONF_KIND_SLURM, arg,
                                               version);
            fprintf(stderr, "slinkyctl conf %s: unknown slurm.conf key '%s' for Slurm %u.%02u%s%s%s\n",
                    verb, arg, version / 100, version % 100, hint ? " (did you mean " : "",
                    hint ? alt : "", hint ? "?)" : "");
            rc = strcmp(verb, "set") ? 1 : SLINKYCTL_EXIT_INVALID;
        }
        e.keys[e.n] = arg;
        e.values[e.n] = eq ? strdup(eq + 1) : NULL;
        e.n++;
    }

    slinky_kube_config *cfg = NULL;
    slinky_kube_client *client = NULL;
    slinky_kube_config_options co;
    bool inited = false;
    if (rc == 0) {
        if (slinky_global_init() < 0)
            rc = err("init");
        else
            inited = true;
    }
    slinky_kube_config_options_init(&co, SLINKY_KUBE_CONFIG_OPTIONS_VERSION);
    co.kubeconfig = kubeconfig;
    co.context = context;
    if (rc == 0 && (slinky_kube_config_load(&cfg, &co) < 0 ||
                    slinky_kube_client_new(&client, cfg, NULL) < 0))
        rc = err("kubeconfig");
    if (rc == 0 && !ns)
        ns = slinky_kube_config_get_namespace(cfg);
    if (rc == 0 && !name)
        rc = find_controller(&name, client, ns);

    if (rc == 0 && !strcmp(verb, "get")) {
        slinky_doc *obj = NULL;
        slinky_conf *conf = NULL;
        if (slinky_kube_get(&obj, client, &controllers, ns, name, NULL) < 0) {
            rc = err(name);
        } else {
            const char *extra = slinky_doc_value_path_string(slinky_doc_root(obj),
                                                             "spec.extraConf", "");
            if (slinky_conf_parse(&conf, extra, strlen(extra), "spec.extraConf", NULL) < 0)
                rc = err("spec.extraConf");
            for (int i = 0; rc == 0 && i < e.n; i++) {
                const char *v = slinky_conf_get(conf, e.keys[i]);
                if (v)
                    printf("%s=%s\n", e.keys[i], v);
                else
                    rc = 1;
            }
        }
        slinky_conf_free(conf);
        slinky_doc_free(obj);
    } else if (rc == 0) {
        slinky_doc *updated = NULL, *nodesets = NULL, *acct = NULL;
        e.check = !strcmp(verb, "set");
        if (e.check)
            rc = gather(&nodesets, &acct, &e, client, ns, name, NULL);
        if (dry_run) {
            slinky_doc *obj = NULL;
            if (rc == 0 && (slinky_kube_get(&obj, client, &controllers, ns, name, NULL) < 0 ||
                            apply_edits(slinky_doc_root(obj), &e) < 0))
                rc = e.invalid ? 0 : err(name);
            slinky_doc_free(obj);
        } else if (rc == 0 && slinky_kube_retry_on_conflict(&updated, client, &controllers, ns,
                                                            name, 0, apply_edits, &e) < 0) {
            rc = e.invalid ? 0 : err(name);
        }
        if (e.invalid) {
            fprintf(stderr, "slinkyctl conf set: Controller %s/%s not changed: the result fails "
                            "the operator's static check\n", ns, name);
            rc = SLINKYCTL_EXIT_INVALID;
        }
        slinky_doc_free(updated);
        slinky_doc_free(nodesets);
        slinky_doc_free(acct);
        free(e.nodesets);
        if (rc == 0) {
            for (int i = 0; i < e.n; i++) {
                const char *reason = NULL;
                slinky_conf_change_class k =
                    slinky_conf_key_change_class(&reason, e.keys[i], NULL, version);
                printf("%s: %s%s%s\n", e.keys[i], slinky_conf_change_class_name(k),
                       reason ? " - " : "", reason ? reason : "");
            }
            if (dry_run)
                printf("--- spec.extraConf (dry run, not written)\n%s", e.new_extra);
            else
                printf("Controller %s/%s: spec.extraConf updated; the operator applies it\n",
                       ns, name);
        }
    }
    for (int i = 0; i < e.n; i++) {
        free(e.keys[i]);
        free(e.values[i]);
    }
    free(e.keys);
    free(e.values);
    free(e.old_extra);
    free(e.new_extra);
    free(name);
    slinky_kube_client_free(client);
    slinky_kube_config_free(cfg);
    if (inited)
        slinky_global_shutdown();
    return rc;
}
