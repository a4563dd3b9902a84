/*
 * workload/common: the shared pieces the builders stand on, as upstream's
 *   ../shared/upstream/slinky/src/internal/builder/common/{pod_template.go,
 *     container.go,service.go} (StrategicMergePatch with removeEmpty, MergeList),
 *   ../shared/upstream/slinky/src/internal/utils/structutils/kube.go (removeEmpty),
 *   ../shared/upstream/slinky/src/internal/utils/crypto/crypto.go (CheckSumFromMap;
 *     crypto_test.go values), builder/labels/labels.go, builder/metadata/metadata.go;
 * and the object set API (add, find, splice, YAML/JSON dumps), input lookups.
 */
#include "wl_test.h"

#include "workload/workload_internal.h"

static slinky_doc *json(const char *s)
{
    slinky_doc *d = NULL;
    if (slinky_doc_parse_json(&d, s, strlen(s)))
        fail_msg("json: %s", slinky_error_last()->message);
    return d;
}

static void merge_eq(const char *base, const char *patch, slinky_workload__smp_type t,
                     const char *want)
{
    slinky_doc *b = json(base), *p = json(patch);
    int rc = t == SLINKY_WL_SMP_POD_SPEC
                 ? slinky_workload__merge_pod_spec(slinky_doc_root(b), slinky_doc_root(p))
             : t == SLINKY_WL_SMP_CONTAINER
                 ? slinky_workload__merge_container(slinky_doc_root(b), slinky_doc_root(p))
                 : slinky_workload__smp(slinky_doc_root(b), slinky_doc_root(p), t);
    assert_int_equal(rc, 0);
    wl_json_eq(slinky_doc_root(b), "", want);
    slinky_doc_free(b);
    slinky_doc_free(p);
}

/* pod_template.go: containers appended (MergeList), volumes merged by name, empty patch values dropped. */
static void test_merge_pod_spec(void **state)
{
    (void)state;
    merge_eq("{\"automountServiceAccountToken\":false,\"containers\":[{\"name\":\"slurmd\"}],"
             "\"volumes\":[{\"name\":\"a\",\"emptyDir\":{}}],\"tolerations\":[{\"key\":\"x\"}]}",
             "{\"automountServiceAccountToken\":false,\"containers\":[{\"name\":\"side\"}],"
             "\"volumes\":[{\"name\":\"a\",\"emptyDir\":{\"medium\":\"Memory\"}},{\"name\":\"b\"}],"
             "\"tolerations\":[{\"key\":\"y\"}],\"priorityClassName\":\"\",\"affinity\":{},"
             "\"imagePullSecrets\":null,\"nodeSelector\":{\"os\":\"linux\"}}",
             SLINKY_WL_SMP_POD_SPEC,
             "{\"automountServiceAccountToken\":false,\"containers\":[{\"name\":\"slurmd\"},{\"name\":\"side\"}],"
             "\"volumes\":[{\"name\":\"a\",\"emptyDir\":{\"medium\":\"Memory\"}},{\"name\":\"b\"}],"
             "\"tolerations\":[{\"key\":\"y\"}],\"nodeSelector\":{\"os\":\"linux\"}}");
    /* a user true overrides; a user false cannot (removeEmpty drops it) */
    merge_eq("{\"hostNetwork\":false}", "{\"hostNetwork\":true}", SLINKY_WL_SMP_POD_SPEC,
             "{\"hostNetwork\":true}");
    merge_eq("{\"enableServiceLinks\":true}", "{\"enableServiceLinks\":false}", SLINKY_WL_SMP_POD_SPEC,
             "{\"enableServiceLinks\":true}");
    /* nested maps lose their empty members too */
    merge_eq("{}", "{\"securityContext\":{\"runAsUser\":0,\"fsGroup\":5}}", SLINKY_WL_SMP_POD_SPEC,
             "{\"securityContext\":{\"fsGroup\":5}}");
}

/* container.go: args appended, probe handlers replaced, env/ports/mounts merged by key. */
static void test_merge_container(void **state)
{
    (void)state;
    merge_eq("{\"name\":\"c\",\"args\":[\"-Z\"],\"env\":[{\"name\":\"A\",\"value\":\"1\"}],"
             "\"ports\":[{\"name\":\"p\",\"containerPort\":1}],"
             "\"volumeMounts\":[{\"name\":\"v\",\"mountPath\":\"/m\"}],"
             "\"livenessProbe\":{\"httpGet\":{\"path\":\"/livez\"},\"periodSeconds\":10}}",
             "{\"args\":[\"-v\"],\"env\":[{\"name\":\"A\",\"value\":\"2\"},{\"name\":\"B\",\"value\":\"3\"}],"
             "\"ports\":[{\"containerPort\":1,\"hostPort\":9}],"
             "\"volumeMounts\":[{\"name\":\"w\",\"mountPath\":\"/m\",\"readOnly\":true}],"
             "\"livenessProbe\":{\"exec\":{\"command\":[\"true\"]},\"periodSeconds\":5},"
             "\"readinessProbe\":{\"tcpSocket\":{\"port\":1}},\"image\":\"img\",\"resources\":{}}",
             SLINKY_WL_SMP_CONTAINER,
             "{\"name\":\"c\",\"args\":[\"-Z\",\"-v\"],\"env\":[{\"name\":\"A\",\"value\":\"2\"},"
             "{\"name\":\"B\",\"value\":\"3\"}],\"ports\":[{\"name\":\"p\",\"containerPort\":1,\"hostPort\":9}],"
             "\"volumeMounts\":[{\"name\":\"w\",\"mountPath\":\"/m\",\"readOnly\":true}],"
             "\"livenessProbe\":{\"exec\":{\"command\":[\"true\"]},\"periodSeconds\":5},"
             "\"readinessProbe\":{\"tcpSocket\":{\"port\":1}},\"image\":\"img\"}");
}

/* apimachinery's element order: server-only elements and the patch's (in patch order)
 * interleaved by their original places; new ones after the server-only ones before them. */
static void test_merge_list_order(void **state)
{
    (void)state;
    /* patch reorders existing keys: patch order wins among them, C (server only) stays last */
    merge_eq("{\"name\":\"c\",\"env\":[{\"name\":\"A\"},{\"name\":\"B\"},{\"name\":\"C\"}]}",
             "{\"env\":[{\"name\":\"B\",\"value\":\"2\"},{\"name\":\"A\",\"value\":\"1\"}]}",
             SLINKY_WL_SMP_CONTAINER,
             "{\"name\":\"c\",\"env\":[{\"name\":\"B\",\"value\":\"2\"},{\"name\":\"A\",\"value\":\"1\"},"
             "{\"name\":\"C\"}]}");
    /* the design doc's example: live [B, C, A], patch [A', B', D] -> [C, A', B', D] */
    merge_eq("{\"volumes\":[{\"name\":\"B\"},{\"name\":\"C\"},{\"name\":\"A\"}]}",
             "{\"volumes\":[{\"name\":\"A\",\"x\":1},{\"name\":\"B\",\"x\":1},{\"name\":\"D\"}]}",
             SLINKY_WL_SMP_POD_SPEC,
             "{\"volumes\":[{\"name\":\"C\"},{\"name\":\"A\",\"x\":1},{\"name\":\"B\",\"x\":1},{\"name\":\"D\"}]}");
    /* an existing key plus a new one: [SLURM_JWT', SECURITY, EXTRA] */
    merge_eq("{\"name\":\"c\",\"env\":[{\"name\":\"J\",\"value\":\"d\"},{\"name\":\"S\",\"value\":\"s\"}]}",
             "{\"env\":[{\"name\":\"J\",\"value\":\"d\"},{\"name\":\"E\",\"value\":\"1\"}]}",
             SLINKY_WL_SMP_CONTAINER,
             "{\"name\":\"c\",\"env\":[{\"name\":\"J\",\"value\":\"d\"},{\"name\":\"S\",\"value\":\"s\"},"
             "{\"name\":\"E\",\"value\":\"1\"}]}");
    /* a key the patch repeats is one element */
    merge_eq("{\"name\":\"c\",\"env\":[{\"name\":\"A\"}]}",
             "{\"env\":[{\"name\":\"N\",\"value\":\"1\"},{\"name\":\"N\",\"value\":\"2\"}]}",
             SLINKY_WL_SMP_CONTAINER,
             "{\"name\":\"c\",\"env\":[{\"name\":\"A\"},{\"name\":\"N\",\"value\":\"2\"}]}");
}

/* service.go: user ports first, ours appended; selector merged; externalIPs dropped; headless. */
static void test_service_spec(void **state)
{
    (void)state;
    slinky_doc *root = json("{}"), *user = json("{\"ports\":[{\"name\":\"extra\",\"port\":9}],"
                                                "\"externalIPs\":[\"1.1.1.1\"],\"selector\":{\"u\":\"1\"}}");
    slinky_doc *sel = json("{\"app\":\"x\"}");
    slinky_model_object *o = NULL;
    const char *y = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: m}\n";
    assert_int_equal(slinky_model_object_parse(&o, y, strlen(y)), 0);
    slinky_workload__port p = {"main", 80, 30080};
    assert_int_equal(slinky_workload__service_spec(slinky_doc_root(root), slinky_doc_root(user),
                                                   slinky_doc_root(sel), &p, true, o, "spec"), 0);
    wl_json_eq(slinky_doc_root(root), "spec",
               "{\"ports\":[{\"name\":\"extra\",\"port\":9},{\"name\":\"main\",\"protocol\":\"TCP\",\"port\":80,"
               "\"targetPort\":\"main\",\"nodePort\":30080}],\"selector\":{\"u\":\"1\",\"app\":\"x\"},"
               "\"clusterIP\":\"None\",\"publishNotReadyAddresses\":true}");
    slinky_doc_free(root);
    /* validateServicePorts: the same number twice */
    root = json("{}");
    slinky_workload__port q = {"other", 9, 0};
    assert_int_equal(slinky_workload__service_spec(slinky_doc_root(root), slinky_doc_root(user),
                                                   slinky_doc_root(sel), &q, false, o, "spec.service.spec"),
                     SLINKY_EINVALID);
    assert_non_null(strstr(slinky_error_last()->message, "spec.service.spec.ports: port number '9'"));
    slinky_doc_free(root);
    slinky_doc_free(user);
    slinky_doc_free(sel);
    slinky_model_object_free(o);
}

/* crypto_test.go: CheckSumFromMap over values in key order; "" for empty data. */
static void test_checksum_map(void **state)
{
    (void)state;
    char h[65];
    slinky_doc *d = json("{}");
    assert_int_equal(slinky_workload__checksum_map(h, slinky_doc_root(d), false), 0);
    assert_string_equal(h, "");
    slinky_doc_free(d);
    /* {"b":"o","a":"fo"} -> sha256("foo") */
    d = json("{\"b\":\"o\",\"a\":\"fo\"}");
    assert_int_equal(slinky_workload__checksum_map(h, slinky_doc_root(d), false), 0);
    assert_string_equal(h, "2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae");
    slinky_doc_free(d);
    /* Secret data is base64: decoded first */
    d = json("{\"k\":\"Zm9v\"}");
    assert_int_equal(slinky_workload__checksum_map(h, slinky_doc_root(d), true), 0);
    assert_string_equal(h, "2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae");
    slinky_doc_free(d);
    slinky_workload__sha256_hex(h, "", 0);
    assert_string_equal(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

static void test_fnv(void **state)
{
    (void)state;
    char a[17], b[17], c[17];
    slinky_doc *x = json("{\"a\":1,\"b\":[\"x\",true]}"), *y = json("{\"b\":[\"x\",true],\"a\":1}"),
               *z = json("{\"a\":1,\"b\":[\"x\",false]}");
    assert_int_equal(slinky_workload__value_fnv(a, slinky_doc_root(x)), 0);
    assert_int_equal(slinky_workload__value_fnv(b, slinky_doc_root(y)), 0);
    assert_int_equal(slinky_workload__value_fnv(c, slinky_doc_root(z)), 0);
    assert_string_equal(a, b); /* member order does not matter */
    assert_string_not_equal(a, c);
    assert_int_equal(strlen(a), 16);
    slinky_doc_free(x);
    slinky_doc_free(y);
    slinky_doc_free(z);
}

static void test_quantity(void **state)
{
    (void)state;
    static const struct {
        const char *q;
        int64_t v;
    } cases[] = {{"\"2\"", 2},       {"\"500m\"", 1},        {"\"1500m\"", 2},
                 {"\"4Gi\"", 4294967296LL}, {"\"1k\"", 1000}, {"\"1.5Ki\"", 1536},
                 {"3", 3},           {"\"64Mi\"", 67108864}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
        slinky_doc *d = json(cases[i].q);
        int64_t v = -1;
        assert_int_equal(slinky_workload__quantity(&v, slinky_doc_root(d)), 0);
        assert_int_equal(v, cases[i].v);
        slinky_doc_free(d);
    }
    slinky_doc *d = json("\"12 cores\"");
    int64_t v;
    assert_int_equal(slinky_workload__quantity(&v, slinky_doc_root(d)), SLINKY_EINVALID);
    slinky_doc_free(d);
}

/* labels.go and metadata.go: the object skeleton and the controller reference. */
static void test_skeleton(void **state)
{
    (void)state;
    slinky_doc *d = NULL;
    slinky_doc_value *root, *meta;
    assert_int_equal(slinky_workload__object_new(&d, &root, &meta, "v1", "Service", "ns", "n"), 0);
    slinky_doc *extra = json("{\"a\":\"1\",\"num\":2}");
    assert_int_equal(slinky_workload__map_copy(meta, "labels", slinky_doc_root(extra)), 0);
    slinky_doc_value *labels = slinky_doc_value_get(meta, "labels");
    assert_int_equal(slinky_workload__labels(labels, "slurmd", "gpu", "worker"), 0);
    assert_int_equal(slinky_workload__map_put(meta, "annotations", "k", "v"), 0);
    slinky_model_object *owner = NULL;
    const char *y = "apiVersion: slinky.slurm.net/v1beta1\nkind: NodeSet\nmetadata: {name: gpu, uid: u-1}\n";
    assert_int_equal(slinky_model_object_parse(&owner, y, strlen(y)), 0);
    assert_int_equal(slinky_workload__set_controller_ref(meta, owner), 0);
    wl_json_eq(root, "",
               "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"n\",\"namespace\":\"ns\","
               "\"labels\":{\"a\":\"1\",\"app.kubernetes.io/name\":\"slurmd\",\"app.kubernetes.io/instance\":\"gpu\","
               "\"app.kubernetes.io/component\":\"worker\"},\"annotations\":{\"k\":\"v\"},"
               "\"ownerReferences\":[{\"apiVersion\":\"slinky.slurm.net/v1beta1\",\"kind\":\"NodeSet\","
               "\"name\":\"gpu\",\"uid\":\"u-1\",\"controller\":true,\"blockOwnerDeletion\":true}]}}");
    assert_int_equal(slinky_model_unset(owner, "metadata.uid"), 0);
    assert_int_equal(slinky_workload__set_controller_ref(meta, owner), SLINKY_EINVALID);
    slinky_model_object_free(owner);
    slinky_doc_free(extra);
    slinky_doc_free(d);
}

static void test_line_values(void **state)
{
    (void)state;
    slinky_model_object *o = NULL;
    const char *y = "apiVersion: slinky.slurm.net/v1beta1\nkind: Controller\nmetadata: {name: c, namespace: ns1}\n";
    assert_int_equal(slinky_model_object_parse(&o, y, strlen(y)), 0);
    assert_int_equal(slinky_workload__check_line_value(o, "spec.clusterName", "ok_1-x", 6), 0);
    assert_int_equal(slinky_workload__check_line_value(o, "spec.clusterName", "a\nb", 3), SLINKY_EINVALID);
    assert_non_null(strstr(slinky_error_last()->message, "Controller ns1/c: spec.clusterName: a newline at offset 1"));
    assert_int_equal(slinky_workload__check_line_value(o, "f", "a\rb", 3), SLINKY_EINVALID);
    assert_int_equal(slinky_workload__check_line_value(o, "f", "a\0b", 3), SLINKY_EINVALID);
    assert_int_equal(slinky_workload__check_line_value(o, "f", "a#b", 3), SLINKY_EINVALID);
    slinky_model_object_free(o);
}

static void test_set(void **state)
{
    (void)state;
    slinky_workload *w = NULL, *w2 = NULL;
    assert_int_equal(slinky_workload_new(&w), 0);
    assert_int_equal(slinky_workload_new(&w2), 0);
    assert_int_equal(slinky_workload_add(w, json("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\","
                                                 "\"metadata\":{\"name\":\"a\",\"namespace\":\"ns1\"}}")), 0);
    assert_int_equal(slinky_workload_add(w, json("{\"kind\":\"ConfigMap\"}")), SLINKY_EINVALID);
    assert_int_equal(slinky_workload_add(w2, json("{\"apiVersion\":\"v1\",\"kind\":\"Secret\","
                                                  "\"metadata\":{\"name\":\"b\"}}")), 0);
    assert_int_equal(slinky_workload_splice(w, w2), 0);
    assert_int_equal(slinky_workload_count(w), 2);
    assert_int_equal(slinky_workload_count(w2), 0);
    assert_string_equal(slinky_workload_kind_at(w, 1), "Secret");
    assert_string_equal(slinky_workload_namespace_at(w, 0), "ns1");
    assert_null(slinky_workload_namespace_at(w, 1));
    assert_null(slinky_workload_at(w, 2));
    slinky_doc *d = NULL;
    assert_int_equal(slinky_workload_find(&d, w, "Secret", "b"), 0);
    assert_int_equal(slinky_workload_find(&d, w, "Secret", "a"), SLINKY_ENOTFOUND);
    assert_int_equal(slinky_workload_find(&d, w, NULL, "a"), 0);
    char *y = NULL;
    assert_int_equal(slinky_workload_dump_yaml(&y, NULL, w), 0);
    assert_string_equal(y, "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: ns1\n"
                           "---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: b\n");
    slinky_free(y);
    assert_int_equal(slinky_workload_dump_json(&y, NULL, w, 0), 0);
    assert_string_equal(y, "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[{\"apiVersion\":\"v1\","
                           "\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"a\",\"namespace\":\"ns1\"}},"
                           "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"b\"}}]}");
    slinky_free(y);
    slinky_workload_clear(w);
    assert_int_equal(slinky_workload_count(w), 0);
    assert_int_equal(slinky_workload_dump_yaml(&y, NULL, w), 0);
    assert_string_equal(y, "");
    slinky_free(y);
    slinky_workload_free(w);
    slinky_workload_free(w2);
}

static void test_input(void **state)
{
    (void)state;
    slinky_workload_input in;
    assert_int_equal(slinky_workload_input_init(&in, 99), SLINKY_EINVALID);
    assert_int_equal(slinky_workload_input_init(&in, SLINKY_WORKLOAD_INPUT_VERSION), 0);
    wl_cluster c = {0};
    wl_add(&c, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: nsx}\n"
               "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: nsy}\n"
               "---\napiVersion: v1\nkind: Secret\nmetadata: {name: a, namespace: nsx}\n");
    const slinky_model_object *o = NULL;
    assert_int_equal(slinky_workload_input_find(&o, &c.in, SLINKY_MODEL_KIND_CONFIGMAP, "nsy", "a"), 0);
    assert_ptr_equal(o, c.objs[1]);
    assert_int_equal(slinky_workload_input_find(&o, &c.in, SLINKY_MODEL_KIND_SECRET, "nsx", "a"), 0);
    assert_ptr_equal(o, c.objs[2]);
    assert_int_equal(slinky_workload_input_find(&o, &c.in, SLINKY_MODEL_KIND_SECRET, "nsy", "a"), SLINKY_ENOTFOUND);
    assert_non_null(strstr(slinky_error_last()->message, "no Secret nsy/a in the input"));
    /* a Secret key read from data (base64) or stringData */
    char *v = NULL;
    size_t n = 0;
    wl_add(&c, "apiVersion: v1\nkind: Secret\nmetadata: {name: s, namespace: nsx}\n"
               "data: {k: Zm9v}\nstringData: {t: bar}\n");
    assert_int_equal(slinky_workload__secret_value(&v, &n, &c.in, c.objs[0], "f", "s", "k"), 0);
    assert_string_equal(v, "foo");
    free(v);
    assert_int_equal(slinky_workload__secret_value(&v, &n, &c.in, c.objs[0], "f", "s", "t"), 0);
    assert_string_equal(v, "bar");
    free(v);
    assert_int_equal(slinky_workload__secret_value(&v, &n, &c.in, c.objs[0], "spec.ref", "s", "zz"),
                     SLINKY_ENOTFOUND);
    assert_non_null(strstr(slinky_error_last()->message, "spec.ref: Secret \"s\" has no key \"zz\""));
    wl_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_merge_pod_spec),
        cmocka_unit_test(test_merge_container),
        cmocka_unit_test(test_merge_list_order),
        cmocka_unit_test(test_service_spec),
        cmocka_unit_test(test_checksum_map),
        cmocka_unit_test(test_fnv),
        cmocka_unit_test(test_quantity),
        cmocka_unit_test(test_skeleton),
        cmocka_unit_test(test_line_values),
        cmocka_unit_test(test_set),
        cmocka_unit_test(test_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
