/*
 * workload/sshd (integration): the SSH host keys the library generates
 * (upstream's sizes: RSA 4096, ECDSA P-256, Ed25519) are what OpenSSH loads
 * and serves:
 *   - ssh-keygen -y derives from each private key the public line we wrote;
 *   - the real sshd (-t) accepts them as HostKey files;
 *   - a running sshd on a free loopback port presents exactly these keys to
 *     ssh-keyscan (the key exchange is signed with the private halves);
 *   - python3 (standard library) checks the RSA parameters: n = p*q,
 *     e*d = 1 mod lcm(p-1, q-1), iqmp*q = 1 mod p;
 *   - a LoginSet's built objects: the host-key Secret's files and the
 *     ssh-config ConfigMap's sshd_config, written out as the pod's projected
 *     volumes would, pass sshd -t; with seamless SSH on, sshd -T shows the
 *     ledger's AuthorizedKeysCommand in effect.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf/itest_util.h"
#include "slinky.h"

static char W[64];
static const char *const names[] = {"rsa", "ecdsa", "ed25519"};
static const slinky_workload_ssh_key_type types[] = {
    SLINKY_WORKLOAD_SSH_KEY_RSA, SLINKY_WORKLOAD_SSH_KEY_ECDSA, SLINKY_WORKLOAD_SSH_KEY_ED25519};
static char *pubs[3];

static void write_file(const char *path, const char *text, mode_t mode)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
    fclose(f);
    assert_int_equal(chmod(path, mode), 0);
}

static int free_port(void)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t l = sizeof(a);
    if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)) || getsockname(s, (struct sockaddr *)&a, &l))
        return -1;
    close(s);
    return ntohs(a.sin_port);
}

static int setup(void **state)
{
    (void)state;
    if (access("/usr/sbin/sshd", X_OK) || access("/usr/bin/ssh-keygen", X_OK)) {
        fprintf(stderr, "openssh-server/openssh-client are not installed\n");
        return -1;
    }
    snprintf(W, sizeof(W), "/tmp/itest-sshd.XXXXXX");
    if (!mkdtemp(W))
        return -1;
    for (int i = 0; i < 3; i++) {
        char *priv = NULL;
        if (slinky_workload_ssh_keygen(&priv, &pubs[i], types[i], 0)) {
            fprintf(stderr, "keygen %s: %s\n", names[i], slinky_error_last()->message);
            return -1;
        }
        char path[128];
        snprintf(path, sizeof(path), "%s/ssh_host_%s_key", W, names[i]);
        write_file(path, priv, 0600);
        snprintf(path, sizeof(path), "%s/ssh_host_%s_key.pub", W, names[i]);
        write_file(path, pubs[i], 0644);
        slinky_free(priv);
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    for (int i = 0; i < 3; i++)
        slinky_free(pubs[i]);
    sh("rm -rf %s", W);
    return 0;
}

/* "TYPE BASE64" of a line (drops a comment and the newline). */
static char *key_part(const char *line)
{
    const char *sp = strchr(line, ' ');
    assert_non_null(sp);
    size_t n = (size_t)(sp - line) + 1 + strcspn(sp + 1, " \n");
    return strndup(line, n);
}

static void test_keygen_derives_public(void **state)
{
    (void)state;
    for (int i = 0; i < 3; i++) {
        char *out = capture("ssh-keygen -y -f %s/ssh_host_%s_key 2>&1", W, names[i]);
        char *a = key_part(out), *b = key_part(pubs[i]);
        assert_string_equal(a, b);
        free(a);
        free(b);
        free(out);
    }
    char *fp = capture("ssh-keygen -l -f %s/ssh_host_rsa_key.pub", W);
    assert_int_equal(atoi(fp), 4096); /* crypto.DefaultRsaBitLength */
    free(fp);
    fp = capture("ssh-keygen -l -f %s/ssh_host_ecdsa_key.pub", W);
    assert_int_equal(atoi(fp), 256);
    free(fp);
}

static void test_rsa_parameters_python(void **state)
{
    (void)state;
    static const char py[] =
        "import base64,sys\n"
        "t=open(sys.argv[1]).read().split('\\n')\n"
        "b=base64.b64decode(''.join(l for l in t if l and not l.startswith('-----')))\n"
        "assert b.startswith(b'openssh-key-v1\\0'); b=b[15:]\n"
        "def s(b):\n"
        "  n=int.from_bytes(b[:4],'big'); return b[4:4+n], b[4+n:]\n"
        "def i(b):\n"
        "  v,b=s(b); return int.from_bytes(v,'big'), b\n"
        "c,b=s(b); k,b=s(b); o,b=s(b); b=b[4:]; pub,b=s(b); sec,b=s(b)\n"
        "sec=sec[8:]; t,sec=s(sec); assert t==b'ssh-rsa', t\n"
        "n,sec=i(sec); e,sec=i(sec); d,sec=i(sec); iqmp,sec=i(sec); p,sec=i(sec); q,sec=i(sec)\n"
        "import math\n"
        "assert n==p*q, 'n != p*q'\n"
        "l=(p-1)*(q-1)//math.gcd(p-1,q-1)\n"
        "assert (e*d)%l==1, 'e*d != 1 mod lcm'\n"
        "assert (iqmp*q)%p==1, 'iqmp is not q^-1 mod p'\n"
        "assert n.bit_length()==4096\n"
        "m=12345678901234567890\n"
        "assert pow(pow(m,e,n),d,n)==m\n"
        "print('ok')\n";
    char path[128];
    snprintf(path, sizeof(path), "%s/check.py", W);
    write_file(path, py, 0644);
    char *out = capture("/usr/bin/python3 %s/check.py %s/ssh_host_rsa_key 2>&1", W, W);
    assert_string_equal(out, "ok\n");
    free(out);
}

static void test_sshd_loads_and_serves(void **state)
{
    (void)state;
    int port = free_port();
    assert_true(port > 0);
    char cfg[8192];
    snprintf(cfg, sizeof(cfg),
             "Port %d\nListenAddress 127.0.0.1\nPidFile %s/sshd.pid\nUsePAM no\n"
             "HostKey %s/ssh_host_rsa_key\nHostKey %s/ssh_host_ecdsa_key\n"
             "HostKey %s/ssh_host_ed25519_key\n",
             port, W, W, W, W);
    char path[128];
    snprintf(path, sizeof(path), "%s/sshd_config", W);
    write_file(path, cfg, 0600);
    sh("mkdir -p /run/sshd");
    char *t = capture("/usr/sbin/sshd -t -f %s/sshd_config 2>&1; echo rc=$?", W);
    assert_string_equal(t, "rc=0\n");
    free(t);
    /* the check can fail: the same config with only a damaged copy of the ed25519 key */
    assert_int_equal(sh("sed '2s/^\\(....\\)./\\1%%/' %s/ssh_host_ed25519_key > %s/bad_key && "
                        "chmod 600 %s/bad_key && grep -v HostKey %s/sshd_config > %s/bad_config && "
                        "echo HostKey %s/bad_key >> %s/bad_config",
                        W, W, W, W, W, W, W),
                     0);
    t = capture("/usr/sbin/sshd -t -f %s/bad_config 2>&1; echo rc=$?", W);
    assert_string_not_equal(t, "rc=0\n");
    free(t);
    /* serve, and read the host keys back over the key exchange */
    assert_int_equal(sh("/usr/sbin/sshd -f %s/sshd_config -E %s/sshd.log", W, W), 0);
    char *scan = NULL;
    for (int i = 0; i < 100; i++) {
        free(scan);
        scan = capture("ssh-keyscan -p %d -t rsa,ecdsa,ed25519 127.0.0.1 2>/dev/null | sort", port);
        if (strstr(scan, "ssh-rsa") && strstr(scan, "ecdsa") && strstr(scan, "ed25519"))
            break;
        usleep(100000);
    }
    char *pid = capture("cat %s/sshd.pid 2>/dev/null", W);
    if (atoi(pid) > 0)
        kill(atoi(pid), SIGTERM);
    free(pid);
    for (int i = 0; i < 3; i++) {
        char *k = key_part(pubs[i]);
        if (!strstr(scan, k))
            fail_msg("ssh-keyscan did not see our %s key:\n%s", names[i], scan);
        free(k);
    }
    free(scan);
}

static const char *loginset_yaml =
    "apiVersion: slinky.slurm.net/v1beta1\nkind: Controller\n"
    "metadata: {name: slurm, namespace: slinky, uid: c-uid}\n"
    "spec: {slurmKeyRef: {name: slurm-auth, key: slurm.key}}\n"
    "---\n"
    "apiVersion: slinky.slurm.net/v1beta1\nkind: LoginSet\n"
    "metadata: {name: login, namespace: slinky, uid: l-uid}\n"
    "spec: {controllerRef: {name: slurm}, sssdConfRef: {name: sssd, key: sssd.conf},\n"
    "  extraSshdConfig: \"LoginGraceTime 600\"}\n";

/* Build the LoginSet (upstream key sizes), write its files like the projected volumes, and
 * return sshd's verdict on them ("-t", or "-T" output). */
static char *sshd_on_loginset(bool seamless, const char *mode)
{
    slinky_doc *d = NULL;
    assert_int_equal(slinky_doc_parse_yaml_all(&d, loginset_yaml, strlen(loginset_yaml)), 0);
    slinky_model_object *objs[2] = {NULL, NULL};
    for (int i = 0; i < 2; i++)
        assert_int_equal(slinky_model_object_new_from_value(&objs[i], slinky_doc_value_at(slinky_doc_root(d), i)), 0);
    slinky_doc_free(d);
    slinky_workload_input in;
    assert_int_equal(slinky_workload_input_init(&in, SLINKY_WORKLOAD_INPUT_VERSION), 0);
    in.objects = (const slinky_model_object *const *)objs;
    in.object_count = 2;
    slinky_workload_loginset_options o;
    assert_int_equal(slinky_workload_loginset_options_init(&o, SLINKY_WORKLOAD_LOGINSET_OPTIONS_VERSION), 0);
    o.seamless_ssh = seamless;
    o.keys_command = "/usr/bin/slinky-ledger-keys --ledger /ledger %u";
    slinky_workload *w = NULL;
    assert_int_equal(slinky_workload_new(&w), 0);
    if (slinky_workload_build_loginset(w, objs[1], &in, &o))
        fail_msg("build: %s", slinky_error_last()->message);
    slinky_doc *sec = NULL, *cm = NULL;
    assert_int_equal(slinky_workload_find(&sec, w, "Secret", "login-ssh-host-keys"), 0);
    assert_int_equal(slinky_workload_find(&cm, w, "ConfigMap", "login-ssh-config"), 0);
    char dir[128], path[256], args[1024] = "";
    snprintf(dir, sizeof(dir), "%s/login-%d", W, seamless);
    sh("mkdir -p %s", dir);
    const slinky_doc_value *data = slinky_doc_value_get(slinky_doc_root(sec), "data");
    for (size_t i = 0; i < slinky_doc_value_size(data); i++) {
        const char *k = slinky_doc_value_key_at(data, i);
        char *v = NULL;
        assert_int_equal(slinky_base64_decode(&v, NULL, slinky_doc_value_get_string(slinky_doc_value_member_at(data, i)), 0), 0);
        snprintf(path, sizeof(path), "%s/%s", dir, k);
        write_file(path, v, strstr(k, ".pub") ? 0644 : 0600); /* the projected items' modes */
        slinky_free(v);
        if (!strstr(k, ".pub"))
            snprintf(args + strlen(args), sizeof(args) - strlen(args), " -h %s", path);
    }
    snprintf(path, sizeof(path), "%s/sshd_config", dir);
    write_file(path, slinky_doc_value_path_string(slinky_doc_root(cm), "data.sshd_config", ""), 0600);
    char *out = capture("/usr/sbin/sshd %s -f %s%s -o PidFile=%s/pid 2>&1; echo rc=$?", mode, path, args, dir);
    slinky_workload_free(w);
    slinky_model_object_free(objs[0]);
    slinky_model_object_free(objs[1]);
    return out;
}

static void test_loginset_sshd_config(void **state)
{
    (void)state;
    sh("mkdir -p /run/sshd");
    char *t = sshd_on_loginset(false, "-t");
    assert_string_equal(t, "rc=0\n");
    free(t);
    t = sshd_on_loginset(true, "-T");
    if (!strstr(t, "\nauthorizedkeyscommand /usr/bin/slinky-ledger-keys --ledger /ledger %u\n") ||
        !strstr(t, "\npasswordauthentication no\n") || !strstr(t, "\nlogingracetime 600\n") ||
        !strstr(t, "\nrc=0\n"))
        fail_msg("sshd -T on the seamless LoginSet config:\n%s", t);
    free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_keygen_derives_public),
        cmocka_unit_test(test_rsa_parameters_python),
        cmocka_unit_test(test_sshd_loads_and_serves),
        cmocka_unit_test(test_loginset_sshd_config),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
