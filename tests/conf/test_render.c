/*
 * conf/render: byte-for-byte equal to upstream's expected strings in
 * $SLINKY_SHARED_DIR/upstream/slinky/fixtures (read at test time), the 11
 * merge cases, and the other upstream behaviours, each pinned.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "slinky/conf.h"
#include "slinky/doc.h"
#include "slinky/error.h"
#include "slinky/model.h"

static char *fixture(const char *name)
{
    const char *d = getenv("SLINKY_SHARED_DIR");
    assert_non_null(d);
    char path[4096];
    snprintf(path, sizeof(path), "%s/upstream/slinky/fixtures/%s", d, name);
    char *s = NULL;
    size_t n = 0;
    if (slinky__read_file(&s, &n, path))
        fail_msg("%s", slinky_error_last()->message);
    return s;
}

static char *render(const slinky_conf_cluster *c, const slinky_conf_profile *p)
{
    char *out = NULL;
    if (slinky_conf_render_slurm(&out, c, p))
        fail_msg("render: %s", slinky_error_last()->message);
    return out;
}

static void base_external(slinky_conf_cluster *c)
{
    assert_int_equal(slinky_conf_cluster_init(c, SLINKY_CONF_CLUSTER_VERSION), 0);
    c->name = "slurm";
    c->namespace_ = "";
    c->external = true;
    c->external_host = "my-controller";
    c->external_port = 6817;
}

static void test_external_minimal(void **state)
{
    (void)state;
    slinky_conf_cluster c;
    base_external(&c);
    char *want = fixture("external_minimal_default.conf"), *got = render(&c, NULL);
    assert_string_equal(got, want);
    slinky_free(got);
    free(want);
    /* extraConf is ignored by the minimal builder */
    c.extra_conf = "MinJobAge=2";
    want = fixture("external_minimal_with_extraconf.conf");
    got = render(&c, NULL);
    assert_string_equal(got, want);
    slinky_free(got);
    free(want);
    /* an Accounting adds the AccountingStorage* lines; NodeSets are ignored */
    slinky_conf_nodeset ns = {"nodeset-0", NULL, true, "MaxTime=UNLIMITED", 0, NULL, NULL};
    c.accounting_name = "slurm";
    c.nodesets = &ns;
    c.nodeset_count = 1;
    want = fixture("external_minimal_with_accounting.conf");
    got = render(&c, NULL);
    assert_string_equal(got, want);
    slinky_free(got);
    free(want);
    /* external without host is refused */
    c.external_host = NULL;
    char *out = (char *)0x1;
    assert_int_equal(slinky_conf_render_slurm(&out, &c, NULL), SLINKY_EINVALID);
    assert_ptr_equal(out, (char *)0x1);
}

/* Return the text between "### NAME ###\n" and the next "\n#\n###" (or the end). */
static char *section_body(const char *conf, const char *name)
{
    char hdr[128];
    snprintf(hdr, sizeof(hdr), "#\n### %s ###\n", name);
    const char *s = strstr(conf, hdr);
    if (!s)
        return NULL;
    s += strlen(hdr);
    const char *e = strstr(s, "\n#\n###");
    size_t n = e ? (size_t)(e - s) : strlen(s);
    if (!e && n && s[n - 1] == '\n')
        n--;
    return strndup(s, n);
}

static void test_nodeset_partition_snippet(void **state)
{
    (void)state;
    /* input in another order: output sorted by NodeSet name */
    slinky_conf_nodeset ns[3] = {
        {"nodeset-2", NULL, true, "MaxTime=UNLIMITED PreemptMode=REQUEUE", 0, NULL, NULL},
        {"nodeset-0", NULL, false, "MaxTime=UNLIMITED OverSubscribe=EXCLUSIVE", 0, NULL, NULL},
        {"nodeset-1", NULL, true, "MaxTime=UNLIMITED OverSubscribe=EXCLUSIVE", 0, NULL, NULL},
    };
    slinky_conf_cluster c;
    assert_int_equal(slinky_conf_cluster_init(&c, SLINKY_CONF_CLUSTER_VERSION), 0);
    c.name = "slurm";
    c.namespace_ = "slurm";
    c.nodesets = ns;
    c.nodeset_count = 3;
    char *got = render(&c, NULL), *want = fixture("nodeset_partition_snippet.conf");
    char *body = section_body(got, "NODESET & PARTITION");
    assert_non_null(body);
    assert_string_equal(body, want);
    free(body);
    free(want);
    slinky_free(got);
    /* a hostname overrides the NodeSet name (first word, dashes trimmed) */
    slinky_conf_nodeset h = {"zz", "slinky- extra", true, "State=UP", 0, NULL, NULL};
    c.nodesets = &h;
    c.nodeset_count = 1;
    got = render(&c, NULL);
    body = section_body(got, "NODESET & PARTITION");
    assert_string_equal(body, "NodeSet=slinky Feature=slinky\nPartitionName=slinky Nodes=slinky State=UP");
    free(body);
    slinky_free(got);
}

static void test_prolog_epilog_snippets(void **state)
{
    (void)state;
    const char *pro[] = {"prolog-2.sh", "prolog-0.sh", "prolog-1.sh"};
    const char *epi[] = {"epilog-1.sh", "epilog-2.sh", "epilog-0.sh"};
    const char *cpro[] = {"prolog-slurmctld-1.sh", "prolog-slurmctld-0.sh", "prolog-slurmctld-2.sh"};
    const char *cepi[] = {"epilog-slurmctld-2.sh", "epilog-slurmctld-0.sh", "epilog-slurmctld-1.sh"};
    slinky_conf_cluster c;
    assert_int_equal(slinky_conf_cluster_init(&c, SLINKY_CONF_CLUSTER_VERSION), 0);
    c.name = "slurm";
    c.namespace_ = "slurm";
    c.prolog = pro;
    c.prolog_count = 3;
    c.epilog = epi;
    c.epilog_count = 3;
    c.prolog_slurmctld = cpro;
    c.prolog_slurmctld_count = 3;
    c.epilog_slurmctld = cepi;
    c.epilog_slurmctld_count = 3;
    char *got = render(&c, NULL);
    char *w1 = fixture("prolog_epilog_snippet.conf"), *w2 = fixture("prolog_epilog_slurmctld_snippet.conf");
    char *b1 = section_body(got, "PROLOG & EPILOG"), *b2 = section_body(got, "SLURMCTLD PROLOG & EPILOG");
    assert_non_null(b1);
    assert_non_null(b2);
    assert_string_equal(b1, w1);
    assert_string_equal(b2, w2);
    /* the slurmctld section comes first */
    assert_true(strstr(got, "### SLURMCTLD PROLOG & EPILOG ###") < strstr(got, "### PROLOG & EPILOG ###"));
    free(b1);
    free(b2);
    free(w1);
    free(w2);
    slinky_free(got);
}

static void test_ha_hosts(void **state)
{
    (void)state;
    slinky_conf_cluster c;
    assert_int_equal(slinky_conf_cluster_init(&c, SLINKY_CONF_CLUSTER_VERSION), 0);
    c.name = "slurm";
    c.namespace_ = "slurm";
    c.ha_enabled = true;
    c.ha_backups = 1;
    char *got = render(&c, NULL), *want = fixture("ha_slurmctldhost_lines.conf");
    assert_non_null(strstr(got, want));
    free(want);
    slinky_free(got);
    /* singleton: only the first host; backups default to 1 */
    c.ha_enabled = false;
    got = render(&c, NULL);
    assert_non_null(strstr(got, "\nSlurmctldHost=slurm-controller-0(slurm-controller-0.slurm-controller-internal.slurm)\nSlurmctldPort=6817\n"));
    assert_null(strstr(got, "slurm-controller-1"));
    slinky_free(got);
    c.ha_enabled = true;
    c.ha_backups = -1;
    got = render(&c, NULL);
    assert_non_null(strstr(got, "SlurmctldHost=slurm-controller-1("));
    assert_null(strstr(got, "slurm-controller-2"));
    slinky_free(got);
}

/* The whole file upstream's buildSlurmConf writes (substrings asserted upstream; order pinned here). */
static void test_full_layout(void **state)
{
    (void)state;
    slinky_conf_cluster c;
    assert_int_equal(slinky_conf_cluster_init(&c, SLINKY_CONF_CLUSTER_VERSION), 0);
    c.name = "slurm";
    c.namespace_ = "slurm";
    c.accounting_name = "slurm";
    c.jwks = true;
    c.metrics_enabled = true;
    c.extra_conf = "MinJobAge=2\nSlurmctldParameters=Enable_Stepmgr,enable_configless";
    char *got = render(&c, NULL);
    const char *want =
        "#\n### GENERAL ###\nClusterName=slurm_slurm\nSlurmUser=slurm\n"
        "SlurmctldHost=slurm-controller-0(slurm-controller-0.slurm-controller-internal.slurm)\n"
        "SlurmctldPort=6817\nSlurmctldAddr=slurm-controller.slurm\n"
        "StateSaveLocation=/var/spool/slurmctld/slurm_slurm\nSlurmdUser=root\nSlurmdPort=6818\n"
        "SlurmdSpoolDir=/var/spool/slurmd\nMaxNodeCount=1024\n"
        "#\n### LOGGING ###\nSlurmctldLogFile=/var/log/slurm/slurmctld.log\n"
        "SlurmSchedLogFile=/var/log/slurm/slurmctld.log\nSlurmdLogFile=/var/log/slurm/slurmd.log\n"
        "#\n### PLUGINS & PARAMETERS ###\nAuthType=auth/slurm\nCredType=cred/slurm\n"
        "AuthAltTypes=auth/jwt\nAuthAltParameters=jwt_key=/etc/slurm/jwt.key,jwks=/etc/slurm/jwks.json\n"
        "AuthInfo=use_client_ids\nSlurmctldParameters=enable_configless,reconfig_on_restart\n"
        "MetricsType=metrics/openmetrics\n"
        "#\n### ACCOUNTING ###\nAccountingStorageType=accounting_storage/slurmdbd\n"
        "AccountingStorageHost=slurm-accounting\nAccountingStoragePort=6819\n"
        "#\n### EXTRA CONFIG ###\nMinJobAge=2\nSlurmctldParameters=Enable_Stepmgr,enable_configless\n"
        "#\n### MERGED CONFIG ###\n"
        "SlurmctldParameters=enable_configless,enable_stepmgr,reconfig_on_restart\n";
    assert_string_equal(got, want);
    slinky_free(got);
    /* ClusterName from spec.clusterName; no accounting -> accounting_storage/none */
    c.cluster_name = "mycluster";
    c.accounting_name = NULL;
    c.extra_conf = NULL;
    got = render(&c, NULL);
    assert_non_null(strstr(got, "\nClusterName=mycluster\n"));
    assert_non_null(strstr(got, "\nStateSaveLocation=/var/spool/slurmctld/mycluster\n"));
    assert_non_null(strstr(got, "### ACCOUNTING ###\nAccountingStorageType=accounting_storage/none\n"));
    assert_null(strstr(got, "MERGED CONFIG"));
    assert_null(strstr(got, "EXTRA CONFIG"));
    slinky_free(got);
}

static void test_profiles(void **state)
{
    (void)state;
    slinky_conf_cluster c;
    assert_int_equal(slinky_conf_cluster_init(&c, SLINKY_CONF_CLUSTER_VERSION), 0);
    c.name = "slurm";
    c.namespace_ = "slurm";
    c.metrics_enabled = true;
    c.accounting_name = "slurm";
    c.extra_conf = "AuthInfo=ttl=60";
    slinky_conf_profile p;
    assert_int_equal(slinky_conf_profile_init(&p, SLINKY_CONF_PROFILE_VERSION), 0);
    p.slurm_version = SLINKY_CONF_SLURM_22_05;
    char *got = render(&c, &p);
    assert_non_null(strstr(got, "\nAuthType=auth/munge\nCredType=cred/munge\n"));
    assert_null(strstr(got, "use_client_ids"));
    assert_null(strstr(got, "reconfig_on_restart"));
    assert_null(strstr(got, "MetricsType"));
    assert_non_null(strstr(got, "\nSlurmctldParameters=enable_configless\n"));
    assert_non_null(strstr(got, "\nSelectType=select/cons_tres\n"));
    /* 22.05 needs a partition to start: a placeholder when no NodeSet has one */
    assert_non_null(strstr(got, "### NODESET & PARTITION ###\nPartitionName=all Nodes=ALL Default=YES State=UP\n"));
    /* the user's AuthInfo is kept, no operator option on 22.05 without a munge socket */
    assert_non_null(strstr(got, "### MERGED CONFIG ###\nAuthInfo=ttl=60\n"));
    slinky_free(got);
    /* local: hosts, ports and paths for 127.0.0.1 */
    p.local = true;
    p.local_dir = "/tmp/x";
    p.slurmctld_port = 20001;
    p.slurmd_port = 20002;
    p.slurmdbd_port = 20003;
    p.munge_socket = "/tmp/x/munge.socket";
    got = render(&c, &p);
    assert_non_null(strstr(got, "\nSlurmctldHost=localhost\nSlurmctldPort=20001\nSlurmctldAddr=127.0.0.1\n"));
    assert_non_null(strstr(got, "\nSlurmdPort=20002\nSlurmdSpoolDir=/tmp/x/spool/%n\n"));
    assert_non_null(strstr(got, "\nAuthInfo=socket=/tmp/x/munge.socket\n"));
    assert_non_null(strstr(got, "\nAccountingStorageHost=localhost\nAccountingStoragePort=20003\n"
                                "AccountingStoragePass=/tmp/x/munge.socket\n"));
    assert_non_null(strstr(got, "\nAuthAltParameters=jwt_key=/tmp/x/etc/jwt.key\n"));
    assert_non_null(strstr(got, "### MERGED CONFIG ###\nAuthInfo=socket=/tmp/x/munge.socket,ttl=60\n"));
    assert_null(strstr(got, "/var/"));
    slinky_free(got);
    /* 24.11: auth/slurm and the newer options, still no MetricsType (25.05) */
    p.slurm_version = SLINKY_CONF_SLURM_24_11;
    p.local = false;
    got = render(&c, &p);
    assert_non_null(strstr(got, "\nAuthType=auth/slurm\n"));
    assert_non_null(strstr(got, "\nAuthInfo=use_client_ids\n"));
    assert_non_null(strstr(got, "reconfig_on_restart"));
    assert_null(strstr(got, "MetricsType"));
    assert_null(strstr(got, "SelectType"));
    slinky_free(got);
    /* every rendered file passes the static checks of its version */
    for (int v = 0; v < 3; v++) {
        p.slurm_version = v == 0 ? SLINKY_CONF_SLURM_22_05 : v == 1 ? SLINKY_CONF_SLURM_24_11 : 0;
        p.local = v == 0;
        got = render(&c, &p);
        slinky_conf *parsed = NULL;
        assert_int_equal(slinky_conf_parse(&parsed, got, strlen(got), "rendered.conf", NULL), 0);
        char *report = NULL;
        if (slinky_conf_check(&report, parsed, p.slurm_version))
            fail_msg("version %u: %s\n%s", p.slurm_version, slinky_error_last()->message, report);
        slinky_free(report);
        slinky_conf_free(parsed);
        slinky_free(got);
    }
}

/* merged_config_cases.json: 11 cases of upstream's Test_BuildMergedConfig. */
static void test_merge_cases(void **state)
{
    (void)state;
    char *json = fixture("merged_config_cases.json");
    slinky_doc *doc = NULL;
    assert_int_equal(slinky_doc_parse_json(&doc, json, strlen(json)), 0);
    slinky_doc_value *cases = slinky_doc_value_get(slinky_doc_root(doc), "cases");
    assert_non_null(cases);
    size_t n = slinky_doc_value_size(cases);
    assert_int_equal(n, 11);
    for (size_t i = 0; i < n; i++) {
        slinky_doc_value *tc = slinky_doc_value_at(cases, i);
        const char *name = slinky_doc_value_path_string(tc, "name", "?");
        const char *raw = slinky_doc_value_path_string(tc, "confRaw", NULL);
        const char *want = slinky_doc_value_path_string(tc, "want", NULL);
        slinky_doc_value *mp = slinky_doc_value_get(tc, "mergeParameters");
        size_t nk = slinky_doc_value_size(mp);
        const char *keys[8];
        const char **vals[8];
        assert_true(nk <= 8);
        for (size_t k = 0; k < nk; k++) {
            keys[k] = slinky_doc_value_key_at(mp, k);
            slinky_doc_value *arr = slinky_doc_value_member_at(mp, k);
            size_t na = slinky_doc_value_size(arr);
            vals[k] = calloc(na + 1, sizeof(char *));
            for (size_t a = 0; a < na; a++)
                vals[k][a] = slinky_doc_value_get_string(slinky_doc_value_at(arr, a));
        }
        char *got = NULL;
        assert_int_equal(slinky_conf_merge_parameters(&got, raw, keys,
                                                      (const char *const *const *)vals, nk), 0);
        if (strcmp(got, want))
            fail_msg("merge case \"%s\": got [%s], want [%s]", name, got, want);
        slinky_free(got);
        for (size_t k = 0; k < nk; k++)
            free(vals[k]);
    }
    slinky_doc_free(doc);
    free(json);
    /* more of upstream's parser: continuation (also on the last line), CRLF, blanks */
    const char *keys[] = {"Foo"};
    const char *ops[] = {"Op", NULL};
    const char *const *vals[] = {ops};
    static const struct {
        const char *raw, *want;
    } more[] = {
        {"Foo=a,\\\nb", "Foo=Op,a,b"},
        {"Foo=a,\\", "Foo=Op,a"},
        {"  foo = x,Y \r\nBar=1", "Foo=Op,x,y"},
        {"Foo=X , y", ""},
        {"Foo=a b", ""},
        {"Foo=", ""},
        {"Foo=a\nFoo=b=1,B=2", "Foo=Op,b=1"},
    };
    for (size_t i = 0; i < sizeof(more) / sizeof(more[0]); i++) {
        char *got = NULL;
        assert_int_equal(slinky_conf_merge_parameters(&got, more[i].raw, keys, vals, 1), 0);
        if (strcmp(got, more[i].want))
            fail_msg("merge [%s]: got [%s], want [%s]", more[i].raw, got, more[i].want);
        slinky_free(got);
    }
}

static void test_other_files(void **state)
{
    (void)state;
    char *out = NULL;
    assert_int_equal(slinky_conf_render_cgroup(&out, NULL), 0);
    assert_string_equal(out, "CgroupPlugin=cgroup/v2\nIgnoreSystemd=yes\n");
    slinky_free(out);
    slinky_conf_accounting a = {"slurm", "mariadb", 3306, "slurm", "pw", "slurm_acct_db", NULL, false};
    assert_int_equal(slinky_conf_render_slurmdbd(&out, &a, NULL), 0);
    assert_string_equal(out,
                        "#\n### GENERAL ###\nDbdHost=slurm-accounting-0\nDbdPort=6819\nSlurmUser=slurm\n"
                        "#\n### PLUGINS & PARAMETERS ###\nAuthType=auth/slurm\nAuthAltTypes=auth/jwt\n"
                        "AuthAltParameters=jwt_key=/etc/slurm/jwt.key\nAuthInfo=use_client_ids\n"
                        "#\n### STORAGE ###\nStorageType=accounting_storage/mysql\nStorageHost=mariadb\n"
                        "StoragePort=3306\nStorageUser=slurm\nStorageLoc=slurm_acct_db\nStoragePass=pw\n"
                        "#\n### LOGGING ###\nLogFile=/dev/null\n");
    slinky_free(out);
    slinky_conf_nodeset ns[2] = {{"cpu", NULL, true, NULL, 0, NULL, NULL},
                                 {"gpu", NULL, true, NULL, 4, "a100", "/dev/nvidia[0-3]"}};
    slinky_conf_cluster c;
    assert_int_equal(slinky_conf_cluster_init(&c, SLINKY_CONF_CLUSTER_VERSION), 0);
    c.name = "slurm";
    c.nodesets = ns;
    c.nodeset_count = 2;
    assert_int_equal(slinky_conf_render_gres(&out, &c), 0);
    assert_string_equal(out, "NodeName=gpu-[0-1023] Name=gpu Type=a100 File=/dev/nvidia[0-3]\n");
    slinky_free(out);
    char *jc = NULL, *ps = NULL;
    assert_int_equal(slinky_conf_render_jail(&jc, &ps, "/var/jail", "/usr/lib/slinky/jail.so"), 0);
    assert_string_equal(jc, "AutoBasePath=true\nBasePath=/var/jail\n");
    assert_string_equal(ps, "required /usr/lib/slinky/jail.so\n");
    slinky_free(jc);
    slinky_free(ps);
    assert_int_equal(slinky_conf_render_jail(&jc, &ps, "relative", NULL), SLINKY_EINVALID);
    /* each parses with its grammar */
    slinky_conf_parse_options o = SLINKY_CONF_PARSE_OPTIONS_INIT;
    o.kind = SLINKY_CONF_KIND_SLURMDBD;
    slinky_conf *parsed = NULL;
    assert_int_equal(slinky_conf_render_slurmdbd(&out, &a, NULL), 0);
    assert_int_equal(slinky_conf_parse(&parsed, out, strlen(out), "slurmdbd.conf", &o), 0);
    assert_int_equal(slinky_conf_check(NULL, parsed, 0), 0);
    slinky_conf_free(parsed);
    slinky_free(out);
}

static slinky_model_object *model(const char *yaml)
{
    slinky_model_object *o = NULL;
    if (slinky_model_object_parse(&o, yaml, strlen(yaml)))
        fail_msg("parse: %s", slinky_error_last()->message);
    return o;
}

/* A ConfigMap in namespace slurm with the given file names (empty scripts). */
static slinky_model_object *configmap(const char *name, const char *const *files, size_t n)
{
    char y[2048];
    int k = snprintf(y, sizeof(y), "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: %s, namespace: slurm}\ndata:\n", name);
    for (size_t i = 0; i < n; i++)
        k += snprintf(y + k, sizeof(y) - (size_t)k, "  %s: \"#!/bin/sh\\n\"\n", files[i]);
    return model(y);
}

static const char *ctl_yaml =
    "apiVersion: slinky.slurm.net/v1beta1\nkind: Controller\n"
    "metadata: {name: slurm, namespace: slurm}\n"
    "spec:\n  ha: {enabled: true}\n  extraConf: MinJobAge=2\n  accountingRef: {name: slurm}\n"
    "  slurmKeyRef: {name: k, key: slurm.key}\n  jwtKeyRef: {name: j, key: jwt.key}\n"
    "  configFileRefs: [{name: files}]\n"
    "  prologScriptRefs: [{name: pro-b}, {name: pro-a}]\n  epilogScriptRefs: [{name: epi}]\n"
    "  prologSlurmctldScriptRefs: [{name: cpro}]\n  epilogSlurmctldScriptRefs: [{name: cepi}]\n";

typedef struct cluster_objs {
    slinky_model_object *ctl;
    slinky_model_object *o[12];
    size_t n;
} cluster_objs;

static void cluster_objs_make(cluster_objs *x)
{
    static const char *const pro_b[] = {"prolog-2.sh", "prolog-0.sh"}, *const pro_a[] = {"prolog-1.sh"};
    static const char *const epi[] = {"epilog-1.sh", "epilog-2.sh", "epilog-0.sh"};
    static const char *const cpro[] = {"prolog-slurmctld-1.sh", "prolog-slurmctld-0.sh", "prolog-slurmctld-2.sh"};
    static const char *const cepi[] = {"epilog-slurmctld-2.sh", "epilog-slurmctld-0.sh", "epilog-slurmctld-1.sh"};
    static const char *const files[] = {"cgroup.conf", "gres.conf"};
    x->n = 0;
    x->ctl = model(ctl_yaml);
    x->o[x->n++] = model("apiVersion: slinky.slurm.net/v1beta1\nkind: NodeSet\n"
                         "metadata: {name: nodeset-1, namespace: slurm}\n"
                         "spec: {controllerRef: {name: slurm}, partition: {enabled: true, config: MaxTime=UNLIMITED}}\n");
    /* another Controller's NodeSet, and one in another namespace: not ours */
    x->o[x->n++] = model("apiVersion: slinky.slurm.net/v1beta1\nkind: NodeSet\n"
                         "metadata: {name: other, namespace: slurm}\nspec: {controllerRef: {name: other}}\n");
    x->o[x->n++] = model("apiVersion: slinky.slurm.net/v1beta1\nkind: NodeSet\n"
                         "metadata: {name: elsewhere, namespace: x}\nspec: {controllerRef: {name: slurm}}\n");
    x->o[x->n++] = model("apiVersion: slinky.slurm.net/v1beta1\nkind: Accounting\n"
                         "metadata: {name: slurm, namespace: slurm}\n"
                         "spec: {storageConfig: {host: db, username: u, database: d,"
                         " passwordKeyRef: {name: dbpass, key: password}}}\n");
    x->o[x->n++] = configmap("pro-b", pro_b, 2);
    x->o[x->n++] = configmap("pro-a", pro_a, 1);
    x->o[x->n++] = configmap("epi", epi, 3);
    x->o[x->n++] = configmap("cpro", cpro, 3);
    x->o[x->n++] = configmap("cepi", cepi, 3);
    x->o[x->n++] = configmap("files", files, 2);
}

static void cluster_objs_free(cluster_objs *x)
{
    for (size_t i = 0; i < x->n; i++)
        slinky_model_object_free(x->o[i]);
    slinky_model_object_free(x->ctl);
}

/* conf fed from models: upstream's gathering (controller_config.go BuildControllerConfig) */
static void test_from_models(void **state)
{
    (void)state;
    cluster_objs x;
    cluster_objs_make(&x);
    slinky_model_object *ctl = x.ctl;
    slinky_conf_models *m = NULL;
    if (slinky_conf_models_new(&m, ctl, (const slinky_model_object *const *)x.o, x.n))
        fail_msg("models: %s", slinky_error_last()->message);
    const slinky_conf_cluster *c = slinky_conf_models_cluster(m);
    assert_non_null(c);
    /* schema/operator defaults: clusterName <namespace>_<name>, ha.backups 1 */
    assert_string_equal(c->cluster_name, "slurm_slurm");
    assert_int_equal(c->ha_backups, 1);
    assert_int_equal(c->nodeset_count, 1);
    assert_true(c->has_cgroup_conf);
    char *got = render(c, NULL);
    assert_non_null(strstr(got, "ClusterName=slurm_slurm\n"));
    assert_non_null(strstr(got, "SlurmctldHost=slurm-controller-1("));
    assert_non_null(strstr(got, "AccountingStorageHost=slurm-accounting\n"));
    assert_non_null(strstr(got, "PartitionName=nodeset-1 Nodes=nodeset-1 MaxTime=UNLIMITED\n"));
    assert_null(strstr(got, "NodeSet=other"));
    assert_null(strstr(got, "NodeSet=elsewhere"));
    assert_non_null(strstr(got, "### EXTRA CONFIG ###\nMinJobAge=2\n"));
    /* the script ConfigMaps' file names give upstream's sections byte for byte */
    char *w1 = fixture("prolog_epilog_snippet.conf"), *w2 = fixture("prolog_epilog_slurmctld_snippet.conf");
    char *b1 = section_body(got, "PROLOG & EPILOG"), *b2 = section_body(got, "SLURMCTLD PROLOG & EPILOG");
    assert_non_null(b1);
    assert_non_null(b2);
    assert_string_equal(b1, w1);
    assert_string_equal(b2, w2);
    free(b1);
    free(b2);
    free(w1);
    free(w2);
    slinky_free(got);
    /* slurmdbd input: the schema's storage port default (3306); no password Secret given */
    slinky_conf_accounting a;
    assert_int_equal(slinky_conf_models_accounting(&a, m), 0);
    assert_string_equal(a.name, "slurm");
    assert_string_equal(a.storage_host, "db");
    assert_int_equal(a.storage_port, 3306);
    assert_null(a.storage_pass);
    slinky_conf_models_free(m);
    /* with the Secret, StoragePass comes from it */
    slinky_model_object *sec = model("apiVersion: v1\nkind: Secret\nmetadata: {name: dbpass, namespace: slurm}\n"
                                     "data: {password: c2VjcmV0}\n");
    x.o[x.n++] = sec;
    assert_int_equal(slinky_conf_models_new(&m, NULL, (const slinky_model_object *const *)x.o, x.n), 0);
    assert_null(slinky_conf_models_cluster(m));
    assert_int_equal(slinky_conf_models_accounting(&a, m), 0);
    assert_string_equal(a.storage_pass, "secret");
    slinky_conf_models_free(m);
    cluster_objs_free(&x);
}

static void test_from_models_errors(void **state)
{
    (void)state;
    cluster_objs x;
    cluster_objs_make(&x);
    slinky_model_object *ctl = x.ctl;
    slinky_conf_models *m = NULL;
    /* a referenced ConfigMap missing: ENOTFOUND naming the field */
    slinky_model_object *pro_a = x.o[5];
    x.o[5] = x.o[--x.n];
    assert_int_equal(slinky_conf_models_new(&m, ctl, (const slinky_model_object *const *)x.o, x.n),
                     SLINKY_ENOTFOUND);
    assert_non_null(strstr(slinky_error_last()->message, "spec.prologScriptRefs[1]"));
    assert_non_null(strstr(slinky_error_last()->message, "pro-a"));
    x.o[x.n++] = x.o[5];
    x.o[5] = pro_a;
    assert_null(m);
    /* a NodeSet as the Controller */
    assert_int_equal(slinky_conf_models_new(&m, x.o[0], NULL, 0), SLINKY_EINVALID);
    /* values that would break a slurm.conf line */
    slinky_model_object *bad = model("apiVersion: slinky.slurm.net/v1beta1\nkind: Controller\n"
                                     "metadata: {name: slurm, namespace: slurm}\n"
                                     "spec: {clusterName: \"a\\nSlurmUser=root\"}\n");
    assert_int_equal(slinky_conf_models_new(&m, bad, NULL, 0), SLINKY_EINVALID);
    assert_non_null(strstr(slinky_error_last()->message, "spec.clusterName"));
    slinky_model_object_free(bad);
    slinky_model_object *bns = model("apiVersion: slinky.slurm.net/v1beta1\nkind: NodeSet\n"
                                     "metadata: {name: bad, namespace: slurm}\n"
                                     "spec: {controllerRef: {name: slurm}, partition: {enabled: true,"
                                     " config: \"MaxTime=1 # x\"}}\n");
    slinky_model_object *plain = model("apiVersion: slinky.slurm.net/v1beta1\nkind: Controller\n"
                                       "metadata: {name: slurm, namespace: slurm}\nspec: {}\n");
    const slinky_model_object *one[] = {bns};
    assert_int_equal(slinky_conf_models_new(&m, plain, one, 1), SLINKY_EINVALID);
    if (!strstr(slinky_error_last()->message, "NodeSet slurm/bad: spec.partition.config"))
        fail_msg("%s", slinky_error_last()->message);
    slinky_model_object_free(bns);
    bns = model("apiVersion: slinky.slurm.net/v1beta1\nkind: NodeSet\n"
                "metadata: {name: bad, namespace: slurm}\n"
                "spec: {controllerRef: {name: slurm}, template: {spec: {hostname: \"h\\rx\"}}}\n");
    one[0] = bns;
    assert_int_equal(slinky_conf_models_new(&m, plain, one, 1), SLINKY_EINVALID);
    assert_non_null(strstr(slinky_error_last()->message, "spec.template.spec.hostname"));
    /* no Accounting at all */
    assert_int_equal(slinky_conf_models_new(&m, plain, NULL, 0), 0);
    slinky_conf_accounting a;
    assert_int_equal(slinky_conf_models_accounting(&a, m), SLINKY_ENOTFOUND);
    assert_false(slinky_conf_models_cluster(m)->has_cgroup_conf);
    slinky_conf_models_free(m);
    slinky_model_object_free(bns);
    slinky_model_object_free(plain);
    cluster_objs_free(&x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_external_minimal),
        cmocka_unit_test(test_nodeset_partition_snippet),
        cmocka_unit_test(test_prolog_epilog_snippets),
        cmocka_unit_test(test_ha_hosts),
        cmocka_unit_test(test_full_layout),
        cmocka_unit_test(test_profiles),
        cmocka_unit_test(test_merge_cases),
        cmocka_unit_test(test_other_files),
        cmocka_unit_test(test_from_models),
        cmocka_unit_test(test_from_models_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
