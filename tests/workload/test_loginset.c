/*
 * workload/loginset: a LoginSet's objects, field by field, as upstream's
 * ../shared/upstream/slinky/src/internal/builder/loginbuilder
 * (login_secret.go, login_config.go, login_service.go, login_app.go) and
 * builder/common (InitconfContainer, EtcSlurmVolume, ConfiglessArgs,
 * BuildSecret/BuildConfigMap/BuildService), plus seamless SSH (the ledger's
 * fragment in sshd_config). sshd loads the result in workload/sshd.
 */
#include "workload/wl_test.h"

#include <gnutls/crypto.h>

static void sha256_hex(char out[65], const void *data, size_t len)
{
    unsigned char h[32];
    assert_int_equal(gnutls_hash_fast(GNUTLS_DIG_SHA256, data, len, h), 0);
    for (int i = 0; i < 32; i++)
        snprintf(out + 2 * i, 3, "%02x", h[i]);
}

static const char *cluster_yaml =
    "apiVersion: slinky.slurm.net/v1beta1\nkind: Controller\n"
    "metadata: {name: slurm, namespace: slinky, uid: c-uid}\n"
    "spec: {slurmKeyRef: {name: slurm-auth, key: slurm.key}, jwtKeyRef: {name: jwt, key: jwt.key}}\n"
    "---\n"
    "apiVersion: slinky.slurm.net/v1beta1\nkind: LoginSet\n"
    "metadata: {name: login, namespace: slinky, uid: l-uid, labels: {team: hpc}, annotations: {a: b}}\n"
    "spec:\n"
    "  controllerRef: {name: slurm}\n"
    "  replicas: 2\n"
    "  sssdConfRef: {name: sssd, key: sssd.conf}\n"
    "  rootSshAuthorizedKeys: \"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIExample root@x\"\n"
    "  extraSshdConfig: \"LoginGraceTime 600\"\n"
    "  login: {image: login:1, env: [{name: A, value: a}]}\n"
    "  initconf: {image: alpine:1}\n"
    "  service: {spec: {type: LoadBalancer}, port: 2022, nodePort: 30022,\n"
    "            metadata: {labels: {svc: x}}}\n"
    "  template:\n"
    "    metadata: {labels: {tmpl: tv}, annotations: {t: z}}\n"
    "    spec: {nodeSelector: {kubernetes.io/os: linux}}\n"
    "---\n"
    "apiVersion: v1\nkind: Secret\nmetadata: {name: sssd, namespace: slinky}\n"
    "stringData: {sssd.conf: \"[sssd]\\n\"}\n";

static slinky_workload_loginset_options opts_2048(void)
{
    slinky_workload_loginset_options o;
    assert_int_equal(slinky_workload_loginset_options_init(&o, SLINKY_WORKLOAD_LOGINSET_OPTIONS_VERSION), 0);
    o.rsa_bits = 2048; /* keeps valgrind short; the default 4096 is generated in workload/sshd */
    return o;
}

/* The first build's host-key Secret, handed to later builds as the live one (key generation
 * is what costs under valgrind; test_objects_and_order makes the keys, the rest reuse them). */
static slinky_model_object *cached_keys;

static void build(wl_cluster *c, const slinky_workload_loginset_options *o)
{
    bool have = false;
    for (size_t i = 0; i < c->n; i++)
        have |= !strcmp(slinky_model_object_get_name(c->objs[i]), "login-ssh-host-keys");
    if (cached_keys && !have) {
        assert_true(c->n < WL_MAX);
        assert_int_equal(slinky_model_object_copy(&c->objs[c->n++], cached_keys), 0);
        c->in.object_count = c->n;
    }
    if (slinky_workload_build_loginset(c->w, wl_obj(c, SLINKY_MODEL_KIND_LOGINSET, "login"), &c->in, o))
        fail_msg("build: %s", slinky_error_last()->message);
    slinky_doc *d = NULL;
    if (!cached_keys && !slinky_workload_find(&d, c->w, "Secret", "login-ssh-host-keys"))
        assert_int_equal(slinky_model_object_new_from_value(&cached_keys, slinky_doc_root(d)), 0);
}

static int teardown(void **state)
{
    (void)state;
    slinky_model_object_free(cached_keys);
    return 0;
}

static void check_login_meta(const slinky_doc_value *v)
{
    assert_string_equal(wl_str(v, "metadata.namespace"), "slinky");
    assert_string_equal(wl_str(v, "metadata.labels.team"), "hpc");
    assert_string_equal(wl_str(v, "metadata.annotations.a"), "b");
    /* labels.WithLoginLabels */
    assert_string_equal(wl_str(v, "metadata.labels[\"app.kubernetes.io/name\"]"), "login");
    assert_string_equal(wl_str(v, "metadata.labels[\"app.kubernetes.io/instance\"]"), "login");
    assert_string_equal(wl_str(v, "metadata.labels[\"app.kubernetes.io/component\"]"), "login");
    /* controllerutil.SetControllerReference to the LoginSet */
    wl_json_eq(v, "metadata.ownerReferences",
               "[{\"apiVersion\":\"slinky.slurm.net/v1beta1\",\"kind\":\"LoginSet\",\"name\":\"login\","
               "\"uid\":\"l-uid\",\"controller\":true,\"blockOwnerDeletion\":true}]");
}

static void test_objects_and_order(void **state)
{
    (void)state;
    wl_cluster c = {0};
    wl_add(&c, cluster_yaml);
    slinky_workload_loginset_options o = opts_2048();
    build(&c, &o);
    /* loginset_sync.go: SSH Host Keys, SSH Config, Service, Deployment */
    assert_int_equal(slinky_workload_count(c.w), 4);
    assert_string_equal(slinky_workload_kind_at(c.w, 0), "Secret");
    assert_string_equal(slinky_workload_name_at(c.w, 0), "login-ssh-host-keys");
    assert_string_equal(slinky_workload_kind_at(c.w, 1), "ConfigMap");
    assert_string_equal(slinky_workload_name_at(c.w, 1), "login-ssh-config");
    assert_string_equal(slinky_workload_kind_at(c.w, 2), "Service");
    assert_string_equal(slinky_workload_name_at(c.w, 2), "login");
    assert_string_equal(slinky_workload_kind_at(c.w, 3), "Deployment");
    assert_string_equal(slinky_workload_name_at(c.w, 3), "login");
    wl_free(&c);
}

/* login_secret.go */
static void test_host_keys_secret(void **state)
{
    (void)state;
    wl_cluster c = {0};
    wl_add(&c, cluster_yaml);
    slinky_workload_loginset_options o = opts_2048();
    build(&c, &o);
    const slinky_doc_value *s = wl_built(&c, "Secret", "login-ssh-host-keys");
    check_login_meta(s);
    assert_true(wl_bool(s, "immutable"));
    static const char *const keys[] = {"ssh_host_ecdsa_key", "ssh_host_ecdsa_key.pub",
                                       "ssh_host_ed25519_key", "ssh_host_ed25519_key.pub",
                                       "ssh_host_rsa_key", "ssh_host_rsa_key.pub"};
    const slinky_doc_value *data = slinky_doc_value_get(s, "data");
    assert_int_equal(slinky_doc_value_size(data), 6);
    for (size_t i = 0; i < 6; i++) {
        assert_string_equal(slinky_doc_value_key_at(data, i), keys[i]);
        char *dec = NULL;
        assert_int_equal(slinky_base64_decode(&dec, NULL, slinky_doc_value_get_string(
                                                              slinky_doc_value_member_at(data, i)),
                                              SLINKY_BASE64_STRICT),
                         0);
        if (strstr(keys[i], ".pub"))
            assert_true(!strncmp(dec, "ecdsa-sha2-nistp256 ", 20) || !strncmp(dec, "ssh-ed25519 ", 12) ||
                        !strncmp(dec, "ssh-rsa ", 8));
        else
            assert_memory_equal(dec, "-----BEGIN OPENSSH PRIVATE KEY-----\n", 36);
        slinky_free(dec);
    }
    /* the Secret in the input is kept: same keys, same bytes, no new generation */
    slinky_doc *first = NULL;
    assert_int_equal(slinky_doc_new_copy(&first, s), 0);
    wl_add(&c, "apiVersion: v1\nkind: Secret\nmetadata: {name: placeholder}\n");
    slinky_model_object *live = NULL;
    assert_int_equal(slinky_model_object_new_from_value(&live, slinky_doc_root(first)), 0);
    slinky_model_object_free(c.objs[c.n - 1]);
    c.objs[c.n - 1] = live;
    slinky_workload_clear(c.w);
    build(&c, &o);
    assert_true(slinky_doc_value_equal(wl_built(&c, "Secret", "login-ssh-host-keys"),
                                       slinky_doc_root(first)));
    slinky_doc_free(first);
    wl_free(&c);
}

/* login_config.go buildAuthorizedKeys / buildSshdConfig */
static void test_ssh_config(void **state)
{
    (void)state;
    wl_cluster c = {0};
    wl_add(&c, cluster_yaml);
    slinky_workload_loginset_options o = opts_2048();
    build(&c, &o);
    const slinky_doc_value *cm = wl_built(&c, "ConfigMap", "login-ssh-config");
    check_login_meta(cm);
    assert_false(wl_bool(cm, "immutable"));
    assert_string_equal(wl_str(cm, "data.authorized_keys"),
                        "#\n### SLINKY ###\nssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIExample root@x\n");
    assert_string_equal(wl_str(cm, "data.sshd_config"),
                        "#\n### GENERAL ###\nInclude /etc/ssh/sshd_config.d/*.conf\nUsePAM yes\n"
                        "X11Forwarding yes\nSubsystem sftp internal-sftp\n"
                        "#\n### EXTRA CONFIG ###\nLoginGraceTime 600\n");
    assert_int_equal(wl_size(cm, "data"), 2);
    wl_free(&c);
}

static void test_seamless_ssh(void **state)
{
    (void)state;
    wl_cluster c = {0};
    wl_add(&c, cluster_yaml);
    slinky_workload_loginset_options o = opts_2048();
    o.seamless_ssh = true;
    o.keys_command = "/usr/bin/slinky-ledger-keys --ledger /ledger %u";
    build(&c, &o);
    const char *sshd = wl_str(wl_built(&c, "ConfigMap", "login-ssh-config"), "data.sshd_config");
    /* the ledger's own fragment, on the login port, ahead of everything else */
    slinky_ledger_sshd_options lo;
    assert_int_equal(slinky_ledger_sshd_options_init(&lo, SLINKY_LEDGER_SSHD_OPTIONS_VERSION), 0);
    lo.enable_seamless = true;
    lo.port = 22;
    lo.keys_command = o.keys_command;
    char *frag = NULL;
    assert_int_equal(slinky_ledger_sshd_render(&frag, &lo), 0);
    char *want = NULL;
    assert_true(asprintf(&want, "#\n### SEAMLESS SSH ###\n%s#\n### GENERAL ###\n", frag) > 0);
    assert_memory_equal(sshd, want, strlen(want));
    assert_non_null(strstr(sshd, "\nAuthorizedKeysCommand /usr/bin/slinky-ledger-keys --ledger /ledger %u\n"));
    assert_non_null(strstr(sshd, "### EXTRA CONFIG ###\nLoginGraceTime 600\n"));
    free(want);
    slinky_free(frag);
    /* the config hash follows */
    const char *h1 = wl_str(wl_built(&c, "Deployment", "login"),
                            "spec.template.metadata.annotations[\"slinky.slurm.net/sshd-conf-hash\"]");
    char h[65];
    snprintf(h, sizeof(h), "%s", h1);
    slinky_workload_clear(c.w);
    slinky_workload_loginset_options plain = opts_2048();
    build(&c, &plain);
    assert_string_not_equal(h, wl_str(wl_built(&c, "Deployment", "login"),
                                      "spec.template.metadata.annotations[\"slinky.slurm.net/sshd-conf-hash\"]"));
    /* a keys command sshd would refuse is refused here, nothing built */
    slinky_workload_clear(c.w);
    o.keys_command = "relative/keys %u";
    assert_int_equal(slinky_workload_build_loginset(c.w, wl_obj(&c, SLINKY_MODEL_KIND_LOGINSET, "login"),
                                                    &c.in, &o),
                     SLINKY_EINVALID);
    assert_non_null(strstr(slinky_error_last()->message, "seamless SSH"));
    assert_int_equal(slinky_workload_count(c.w), 0);
    wl_free(&c);
}

/* login_service.go */
static void test_service(void **state)
{
    (void)state;
    wl_cluster c = {0};
    wl_add(&c, cluster_yaml);
    slinky_workload_loginset_options o = opts_2048();
    build(&c, &o);
    const slinky_doc_value *svc = wl_built(&c, "Service", "login");
    check_login_meta(svc);
    assert_string_equal(wl_str(svc, "metadata.labels.svc"), "x");
    assert_string_equal(wl_str(svc, "spec.type"), "LoadBalancer");
    wl_json_eq(svc, "spec.selector",
               "{\"app.kubernetes.io/name\":\"login\",\"app.kubernetes.io/instance\":\"login\"}");
    wl_json_eq(svc, "spec.ports",
               "[{\"name\":\"login\",\"protocol\":\"TCP\",\"port\":2022,\"targetPort\":\"login\","
               "\"nodePort\":30022}]");
    wl_free(&c);
}

/* login_service_test.go "with nodeport" and "with external IPs" (the Service spec exactly);
 * login_app_test.go: a port named "login" in the container moves sshd (and seamless's Port) */
static void test_service_cases_and_port(void **state)
{
    (void)state;
    wl_cluster c = {0};
    wl_add(&c, "apiVersion: slinky.slurm.net/v1beta1\nkind: Controller\n"
               "metadata: {name: slurm, namespace: ns, uid: c}\nspec: {}\n"
               "---\n"
               "apiVersion: slinky.slurm.net/v1beta1\nkind: LoginSet\n"
               "metadata: {name: slurm, namespace: ns, uid: l}\n"
               "spec: {controllerRef: {name: slurm}, sssdConfRef: {name: s, key: k},\n"
               "  service: {nodePort: 32222}}\n"
               "---\n"
               "apiVersion: slinky.slurm.net/v1beta1\nkind: LoginSet\n"
               "metadata: {name: ext, namespace: ns, uid: e}\n"
               "spec: {controllerRef: {name: slurm}, sssdConfRef: {name: s, key: k},\n"
               "  service: {spec: {externalIPs: [169.254.169.254]}},\n"
               "  login: {ports: [{name: login, containerPort: 2222}]}}\n");
    slinky_workload_loginset_options o = opts_2048();
    o.seamless_ssh = true;
    assert_int_equal(slinky_workload_build_loginset(c.w, wl_obj(&c, SLINKY_MODEL_KIND_LOGINSET, "slurm"), &c.in, &o), 0);
    wl_json_eq(wl_built(&c, "Service", "slurm"), "spec",
               "{\"ports\":[{\"name\":\"login\",\"protocol\":\"TCP\",\"port\":22,\"targetPort\":\"login\","
               "\"nodePort\":32222}],\"selector\":{\"app.kubernetes.io/instance\":\"slurm\","
               "\"app.kubernetes.io/name\":\"login\"}}");
    assert_int_equal(slinky_workload_build_loginset(c.w, wl_obj(&c, SLINKY_MODEL_KIND_LOGINSET, "ext"), &c.in, &o), 0);
    wl_json_eq(wl_built(&c, "Service", "ext"), "spec",
               "{\"ports\":[{\"name\":\"login\",\"protocol\":\"TCP\",\"port\":22,\"targetPort\":\"login\"}],"
               "\"selector\":{\"app.kubernetes.io/instance\":\"ext\",\"app.kubernetes.io/name\":\"login\"}}");
    const slinky_doc_value *lc = wl_container(wl_built(&c, "Deployment", "ext"), "spec.template.spec.containers", "login");
    wl_json_eq(lc, "ports", "[{\"name\":\"login\",\"containerPort\":2222,\"protocol\":\"TCP\"}]");
    assert_non_null(strstr(wl_str(wl_built(&c, "ConfigMap", "ext-ssh-config"), "data.sshd_config"), "\nPort 2222\n"));
    wl_free(&c);
}

/* login_app.go BuildLogin / loginPodTemplate / loginVolumes / loginContainer */
static void test_deployment(void **state)
{
    (void)state;
    wl_cluster c = {0};
    wl_add(&c, cluster_yaml);
    slinky_workload_loginset_options o = opts_2048();
    build(&c, &o);
    const slinky_doc_value *d = wl_built(&c, "Deployment", "login");
    assert_string_equal(wl_str(d, "apiVersion"), "apps/v1");
    check_login_meta(d);
    assert_string_equal(wl_str(d, "metadata.labels.tmpl"), "tv"); /* WithMetadata(template.metadata) */
    assert_int_equal(wl_int(d, "spec.replicas"), 2);
    assert_int_equal(wl_int(d, "spec.revisionHistoryLimit"), 0);
    wl_json_eq(d, "spec.strategy", "{}");
    wl_json_eq(d, "spec.selector.matchLabels",
               "{\"app.kubernetes.io/name\":\"login\",\"app.kubernetes.io/instance\":\"login\"}");
    const slinky_doc_value *t = slinky_doc_value_path(d, "spec.template");
    assert_string_equal(wl_str(t, "metadata.name"), "login");
    assert_string_equal(wl_str(t, "metadata.labels.tmpl"), "tv");
    assert_string_equal(wl_str(t, "metadata.labels[\"app.kubernetes.io/component\"]"), "login");
    assert_string_equal(wl_str(t, "metadata.annotations.t"), "z");
    assert_string_equal(wl_str(t, "metadata.annotations[\"kubectl.kubernetes.io/default-container\"]"), "login");
    const slinky_doc_value *ps = slinky_doc_value_get(t, "spec");
    assert_false(wl_bool(ps, "automountServiceAccountToken"));
    assert_false(wl_bool(ps, "enableServiceLinks"));
    assert_string_equal(wl_str(ps, "nodeSelector[\"kubernetes.io/os\"]"), "linux");
    wl_json_eq(ps, "dnsConfig", "{\"searches\":[\"slurm-workers-slurm.slinky.svc.cluster.local\"]}");
    const slinky_doc_value *lc = wl_container(t, "spec.containers", "login");
    assert_string_equal(wl_str(lc, "image"), "login:1");
    wl_json_eq(lc, "env", "[{\"name\":\"SACKD_OPTIONS\",\"value\":\"--conf-server slurm-controller.slinky:6817\"},"
                          "{\"name\":\"A\",\"value\":\"a\"}]");
    wl_json_eq(lc, "ports", "[{\"name\":\"login\",\"containerPort\":22,\"protocol\":\"TCP\"}]");
    wl_json_eq(lc, "readinessProbe", "{\"exec\":{\"command\":[\"test\",\"-S\",\"/run/slurm/sack.socket\"]}}");
    wl_json_eq(lc, "volumeMounts",
               "[{\"name\":\"slurm-etc\",\"mountPath\":\"/etc/slurm\",\"readOnly\":true},"
               "{\"name\":\"sackd-dir\",\"mountPath\":\"/run/slurm\"},"
               "{\"name\":\"ssh-host-keys\",\"mountPath\":\"/etc/ssh/ssh_host_rsa_key\",\"subPath\":\"ssh_host_rsa_key\",\"readOnly\":true},"
               "{\"name\":\"ssh-host-keys\",\"mountPath\":\"/etc/ssh/ssh_host_rsa_key.pub\",\"subPath\":\"ssh_host_rsa_key.pub\",\"readOnly\":true},"
               "{\"name\":\"ssh-host-keys\",\"mountPath\":\"/etc/ssh/ssh_host_ed25519_key\",\"subPath\":\"ssh_host_ed25519_key\",\"readOnly\":true},"
               "{\"name\":\"ssh-host-keys\",\"mountPath\":\"/etc/ssh/ssh_host_ed25519_key.pub\",\"subPath\":\"ssh_host_ed25519_key.pub\",\"readOnly\":true},"
               "{\"name\":\"ssh-host-keys\",\"mountPath\":\"/etc/ssh/ssh_host_ecdsa_key\",\"subPath\":\"ssh_host_ecdsa_key\",\"readOnly\":true},"
               "{\"name\":\"ssh-host-keys\",\"mountPath\":\"/etc/ssh/ssh_host_ecdsa_key.pub\",\"subPath\":\"ssh_host_ecdsa_key.pub\",\"readOnly\":true},"
               "{\"name\":\"ssh-config\",\"mountPath\":\"/etc/ssh/sshd_config\",\"subPath\":\"sshd_config\",\"readOnly\":true},"
               "{\"name\":\"ssh-config\",\"mountPath\":\"/root/.ssh/authorized_keys\",\"subPath\":\"authorized_keys\",\"readOnly\":true},"
               "{\"name\":\"sssd-conf\",\"mountPath\":\"/etc/sssd/sssd.conf\",\"subPath\":\"sssd.conf\",\"readOnly\":true}]");
    const slinky_doc_value *ic = wl_container(t, "spec.initContainers", "initconf");
    assert_string_equal(wl_str(ic, "image"), "alpine:1");
    wl_json_eq(ic, "env", "[{\"name\":\"SLURM_USER\",\"value\":\"slurm\"}]");
    assert_string_equal(wl_str(ic, "command[0]"), "sh");
    assert_string_equal(wl_str(ic, "command[1]"), "-c");
    wl_json_eq(ic, "volumeMounts", "[{\"name\":\"slurm-etc\",\"mountPath\":\"/mnt/etc/slurm\"},"
                                   "{\"name\":\"slurm-config\",\"mountPath\":\"/mnt/slurm\",\"readOnly\":true}]");
    wl_json_eq(ps, "volumes",
               "[{\"name\":\"slurm-etc\",\"emptyDir\":{\"medium\":\"Memory\"}},"
               "{\"name\":\"sackd-dir\",\"emptyDir\":{\"medium\":\"Memory\"}},"
               "{\"name\":\"slurm-config\",\"projected\":{\"defaultMode\":384,\"sources\":[{\"secret\":{\"name\":\"slurm-auth\","
               "\"items\":[{\"key\":\"slurm.key\",\"path\":\"slurm.key\"}]}}]}},"
               "{\"name\":\"ssh-host-keys\",\"projected\":{\"defaultMode\":384,\"sources\":[{\"secret\":{\"name\":\"login-ssh-host-keys\","
               "\"items\":[{\"key\":\"ssh_host_rsa_key\",\"path\":\"ssh_host_rsa_key\",\"mode\":384},"
               "{\"key\":\"ssh_host_rsa_key.pub\",\"path\":\"ssh_host_rsa_key.pub\",\"mode\":420},"
               "{\"key\":\"ssh_host_ed25519_key\",\"path\":\"ssh_host_ed25519_key\",\"mode\":384},"
               "{\"key\":\"ssh_host_ed25519_key.pub\",\"path\":\"ssh_host_ed25519_key.pub\",\"mode\":420},"
               "{\"key\":\"ssh_host_ecdsa_key\",\"path\":\"ssh_host_ecdsa_key\",\"mode\":384},"
               "{\"key\":\"ssh_host_ecdsa_key.pub\",\"path\":\"ssh_host_ecdsa_key.pub\",\"mode\":420}]}}]}},"
               "{\"name\":\"ssh-config\",\"projected\":{\"defaultMode\":384,\"sources\":[{\"configMap\":{\"name\":\"login-ssh-config\","
               "\"items\":[{\"key\":\"sshd_config\",\"path\":\"sshd_config\",\"mode\":384},"
               "{\"key\":\"authorized_keys\",\"path\":\"authorized_keys\",\"mode\":384}]}}]}},"
               "{\"name\":\"sssd-conf\",\"projected\":{\"defaultMode\":384,\"sources\":[{\"secret\":{\"name\":\"sssd\","
               "\"items\":[{\"key\":\"sssd.conf\",\"path\":\"sssd.conf\",\"mode\":384}]}}]}}]");
    wl_json_eq(d, "metadata.ownerReferences[0].kind", "\"LoginSet\"");
    wl_free(&c);
}

/* getLoginHashes: CheckSumFromMap(host keys data), CheckSum(sshd_config), CheckSum(sssd.conf),
 * recomputed here with GnuTLS from the built objects */
static void test_hashes(void **state)
{
    (void)state;
    wl_cluster c = {0};
    wl_add(&c, cluster_yaml);
    slinky_workload_loginset_options o = opts_2048();
    build(&c, &o);
    const slinky_doc_value *t = slinky_doc_value_path(wl_built(&c, "Deployment", "login"),
                                                      "spec.template.metadata.annotations");
    char want[65];
    sha256_hex(want, "[sssd]\n", 7);
    assert_string_equal(wl_str(t, "[\"slinky.slurm.net/sssd-conf-hash\"]"), want);
    const char *sshd = wl_str(wl_built(&c, "ConfigMap", "login-ssh-config"), "data.sshd_config");
    sha256_hex(want, sshd, strlen(sshd));
    assert_string_equal(wl_str(t, "[\"slinky.slurm.net/sshd-conf-hash\"]"), want);
    /* the values in key order (the data map is already sorted), decoded, concatenated */
    const slinky_doc_value *data = slinky_doc_value_get(wl_built(&c, "Secret", "login-ssh-host-keys"), "data");
    char *all = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&all, &n);
    for (size_t i = 0; i < slinky_doc_value_size(data); i++) {
        char *d = NULL;
        size_t dn = 0;
        assert_int_equal(slinky_base64_decode(&d, &dn, slinky_doc_value_get_string(slinky_doc_value_member_at(data, i)), 0), 0);
        fwrite(d, 1, dn, f);
        slinky_free(d);
    }
    fclose(f);
    sha256_hex(want, all, n);
    free(all);
    assert_string_equal(wl_str(t, "[\"slinky.slurm.net/ssh-host-keys-hash\"]"), want);
    /* no sssd Secret in the input yet: the hash of nothing, as upstream (CheckSum(nil)) */
    slinky_workload_clear(c.w);
    for (size_t i = 0; i < c.n; i++) /* drop the sssd Secret from the input */
        if (!strcmp(slinky_model_object_get_name(c.objs[i]), "sssd")) {
            slinky_model_object_free(c.objs[i]);
            c.objs[i] = c.objs[--c.n];
            c.in.object_count = c.n;
            break;
        }
    build(&c, &o);
    sha256_hex(want, "", 0);
    assert_string_equal(wl_str(slinky_doc_value_path(wl_built(&c, "Deployment", "login"),
                                                     "spec.template.metadata.annotations"),
                               "[\"slinky.slurm.net/sssd-conf-hash\"]"),
                        want);
    wl_free(&c);
}

static void test_bad_input(void **state)
{
    (void)state;
    wl_cluster c = {0};
    wl_add(&c, "apiVersion: slinky.slurm.net/v1beta1\nkind: LoginSet\n"
               "metadata: {name: login, namespace: slinky, uid: l}\n"
               "spec: {controllerRef: {name: nope}, sssdConfRef: {name: s, key: k}}\n"
               "---\n"
               "apiVersion: slinky.slurm.net/v1beta1\nkind: LoginSet\n"
               "metadata: {name: nosssd, namespace: slinky, uid: l2}\n"
               "spec: {controllerRef: {name: slurm}}\n"
               "---\n"
               "apiVersion: slinky.slurm.net/v1beta1\nkind: LoginSet\n"
               "metadata: {name: nouid, namespace: slinky}\n"
               "spec: {controllerRef: {name: slurm}, sssdConfRef: {name: s, key: k}}\n"
               "---\n"
               "apiVersion: slinky.slurm.net/v1beta1\nkind: Controller\n"
               "metadata: {name: slurm, namespace: slinky, uid: c}\nspec: {}\n");
    slinky_workload_loginset_options o = opts_2048();
    assert_int_equal(slinky_workload_build_loginset(c.w, wl_obj(&c, SLINKY_MODEL_KIND_LOGINSET, "login"),
                                                    &c.in, &o),
                     SLINKY_ENOTFOUND);
    assert_non_null(strstr(slinky_error_last()->message, "spec.controllerRef.name"));
    assert_int_equal(slinky_workload_build_loginset(c.w, wl_obj(&c, SLINKY_MODEL_KIND_LOGINSET, "nosssd"),
                                                    &c.in, &o),
                     SLINKY_EINVALID);
    assert_non_null(strstr(slinky_error_last()->message, "spec.sssdConfRef"));
    assert_int_equal(slinky_workload_build_loginset(c.w, wl_obj(&c, SLINKY_MODEL_KIND_LOGINSET, "nouid"),
                                                    &c.in, &o),
                     SLINKY_EINVALID);
    assert_non_null(strstr(slinky_error_last()->message, "uid"));
    assert_int_equal(slinky_workload_count(c.w), 0);
    /* not a LoginSet; a bad options version */
    assert_int_equal(slinky_workload_build_loginset(c.w, wl_obj(&c, SLINKY_MODEL_KIND_CONTROLLER, "slurm"),
                                                    &c.in, &o),
                     SLINKY_EINVALID);
    o.version = 99;
    assert_int_equal(slinky_workload_build_loginset(c.w, wl_obj(&c, SLINKY_MODEL_KIND_LOGINSET, "login"),
                                                    &c.in, &o),
                     SLINKY_EINVALID);
    assert_int_equal(slinky_workload_count(c.w), 0);
    wl_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_objects_and_order), cmocka_unit_test(test_host_keys_secret),
        cmocka_unit_test(test_ssh_config),        cmocka_unit_test(test_seamless_ssh),
        cmocka_unit_test(test_service),           cmocka_unit_test(test_service_cases_and_port),
        cmocka_unit_test(test_deployment),
        cmocka_unit_test(test_hashes),            cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, teardown);
}
