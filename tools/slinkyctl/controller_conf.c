/*
 * slinkyctl conf set|unset|get on a live Controller: edits spec.extraConf of a
 * Controller resource through the Kubernetes API. The operator then renders,
 * validates and applies the change (reconfigure or restart, by its class).
 *
 *   slinkyctl conf set KEY=VALUE... [--controller NAME] [-n NS] [--kubeconfig F] [--dry-run]
 *   slinkyctl conf unset KEY... [same options]
 *   slinkyctl conf get KEY [same options]
 *
 * Every key is checked against the Slurm key catalogue first; nothing is
 * written when any argument is bad. The update carries the resourceVersion
 * that was read, so a concurrent edit is retried, never overwritten.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
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
};

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
    return rc;
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
    const char *kubeconfig = NULL, *ns = NULL, *verb = argv[0];
    char *name = NULL;
    bool dry_run = false;
    unsigned version = 2205;
    static const struct option longopts[] = {{"controller", required_argument, 0, 'c'},
                                             {"namespace", required_argument, 0, 'n'},
                                             {"kubeconfig", required_argument, 0, 'k'},
                                             {"slurm-version", required_argument, 0, 'V'},
                                             {"dry-run", no_argument, 0, 'd'},
                                             {0, 0, 0, 0}};
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "n:", longopts, NULL)) != -1) {
        switch (c) {
        case 'c': name = strdup(optarg); break;
        case 'n': ns = optarg; break;
        case 'k': kubeconfig = optarg; break;
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
        if (eq)
            *eq = '\0';
        if (rc == 0 && !slinky_conf_key_is_known(SLINKY_CONF_KIND_SLURM, "global", arg, version)) {
            fprintf(stderr, "slinkyctl conf %s: unknown slurm.conf key '%s' for Slurm %u.%02u\n",
                    verb, arg, version / 100, version % 100);
            rc = 1;
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
        slinky_doc *updated = NULL;
        if (dry_run) {
            slinky_doc *obj = NULL;
            if (slinky_kube_get(&obj, client, &controllers, ns, name, NULL) < 0 ||
                apply_edits(slinky_doc_root(obj), &e) < 0)
                rc = err(name);
            slinky_doc_free(obj);
        } else if (slinky_kube_retry_on_conflict(&updated, client, &controllers, ns, name, 0,
                                                 apply_edits, &e) < 0) {
            rc = err(name);
        }
        slinky_doc_free(updated);
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
