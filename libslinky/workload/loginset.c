/*
 * workload: LoginSet -> the host-key Secret, the ssh-config ConfigMap, the
 * Service and the Deployment, as upstream's internal/builder/loginbuilder
 * (login_secret.go, login_config.go, login_service.go, login_app.go) and
 * common (InitconfContainer, EtcSlurmVolume, ConfiglessArgs).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gnutls/gnutls.h>

#include "workload/workload_internal.h"
#ifdef SLINKY_HAVE_LEDGER
#include "slinky/ledger.h"
#endif

#define LOGIN_PORT 22
#define SACKD_VOLUME "sackd-dir"
#define SACKD_DIR "/run/slurm"
#define SACKD_SOCKET SACKD_DIR "/sack.socket"
#define SSH_CONFIG_VOLUME "ssh-config"
#define SSH_HOST_KEYS_VOLUME "ssh-host-keys"
#define SSSD_CONF_VOLUME "sssd-conf"
#define SSSD_CONF_FILE "sssd.conf"
#define SSSD_CONF_PATH "/etc/sssd/sssd.conf"
#define SSHD_CONFIG_FILE "sshd_config"
#define AUTHORIZED_KEYS_FILE "authorized_keys"
#define ROOT_AUTHORIZED_KEYS "/root/.ssh/authorized_keys"
#define ANN_SSH_HOST_KEYS_HASH "slinky.slurm.net/ssh-host-keys-hash"
#define ANN_SSHD_CONF_HASH "slinky.slurm.net/sshd-conf-hash"
#define ANN_SSSD_CONF_HASH "slinky.slurm.net/sssd-conf-hash"

/* The host key files, in the order upstream mounts and projects them. */
static const struct {
    const char *file; /* Secret key, projected path and /etc/ssh/<file> */
    slinky_workload_ssh_key_type type;
} host_keys[3] = {{"ssh_host_rsa_key", SLINKY_WORKLOAD_SSH_KEY_RSA},
                  {"ssh_host_ed25519_key", SLINKY_WORKLOAD_SSH_KEY_ED25519},
                  {"ssh_host_ecdsa_key", SLINKY_WORKLOAD_SSH_KEY_ECDSA}};

/* Initconf: copies the projected config files and keys (from /mnt/slurm) into the
 * /etc/slurm emptyDir with Slurm's owner and modes (ephemeral volumes have no
 * securityContext for this, kubernetes#81089). */
static const char initconf_script[] =
    "set -eu\n"
    "src=/mnt/slurm dst=/mnt/etc/slurm owner=401:401\n"
    "mkdir -p \"$dst\"\n"
    "for f in \"$src\"/*.conf \"$src\"/*.key; do [ -f \"$f\" ] && cp -v \"$f\" \"$dst\"/; done\n"
    "for f in \"$dst\"/*; do [ -f \"$f\" ] || continue; chown -v \"$owner\" \"$f\"\n"
    "  case $f in *slurmdbd.conf|*.key) chmod -v 600 \"$f\" ;; *.conf) chmod -v 644 \"$f\" ;; esac\n"
    "done\n"
    "ls -lAF \"$dst\"\n";

slinky_status slinky_workload_loginset_options_init(slinky_workload_loginset_options *opts,
                                                    unsigned int version)
{
    if (!opts || version != SLINKY_WORKLOAD_LOGINSET_OPTIONS_VERSION)
        return slinky__error_set(SLINKY_EINVALID,
                                 "unknown slinky_workload_loginset_options version %u", version);
    slinky_workload_loginset_options d = SLINKY_WORKLOAD_LOGINSET_OPTIONS_INIT;
    *opts = d;
    return 0;
}

static int check_opts(const slinky_workload_loginset_options *o)
{
    if (o && o->version != SLINKY_WORKLOAD_LOGINSET_OPTIONS_VERSION)
        return slinky__error_set(SLINKY_EINVALID,
                                 "unknown slinky_workload_loginset_options version %u", o->version);
    return 0;
}

/* LoginSet annotations and labels, `extra` ({labels, annotations}), then WithLoginLabels. */
static int login_meta(slinky_doc_value *meta, const slinky_model_loginset *ls,
                      const slinky_doc_value *extra)
{
    slinky_doc_value *labels = NULL;
    int rc;
    if ((rc = slinky_workload__map_copy(meta, "annotations", wl_meta(ls, "annotations"))) ||
        (rc = slinky_workload__map_copy(meta, "labels", wl_meta(ls, "labels"))) ||
        (rc = slinky_workload__map_copy(meta, "annotations",
                                        slinky_doc_value_get(extra, "annotations"))) ||
        (rc = slinky_workload__map_copy(meta, "labels", slinky_doc_value_get(extra, "labels"))) ||
        (rc = slinky_workload__obj(&labels, meta, "labels")))
        return rc;
    return slinky_workload__labels(labels, SLINKY_WL_APP_LOGIN, slinky_model_object_get_name(ls),
                                   SLINKY_WL_COMP_LOGIN);
}

/* A Secret/ConfigMap owned by the LoginSet: skeleton, login_meta, immutable, owner. */
static int owned_object(slinky_doc **out, slinky_doc_value **root_out,
                        const slinky_model_loginset *ls, const char *kind, const char *suffix,
                        bool immutable)
{
    char *name = slinky__sprintf("%s-%s", slinky_model_object_get_name(ls), suffix);
    slinky_doc *doc = NULL;
    slinky_doc_value *root = NULL, *meta = NULL;
    int rc = name ? 0 : SLINKY_ENOMEM;
    if (!rc && !(rc = slinky_workload__object_new(&doc, &root, &meta, "v1", kind,
                                                  slinky_model_object_get_namespace(ls), name)) &&
        !(rc = login_meta(meta, ls, NULL))) {
        slinky_workload__meta_prune(meta);
        if (!(rc = slinky_workload__set_controller_ref(meta, ls)))
            rc = slinky_doc_value_object_set_bool(root, "immutable", immutable);
    }
    free(name);
    if (rc) {
        slinky_doc_free(doc);
        return rc;
    }
    *out = doc;
    *root_out = root;
    return 0;
}

static int put_b64(slinky_doc_value *data, const char *key, const char *text)
{
    char *b = NULL;
    int rc = slinky_base64_encode(&b, text, strlen(text), SLINKY_BASE64_DEFAULT);
    if (rc)
        return rc;
    rc = slinky_doc_value_object_set_string(data, key, b);
    gnutls_memset(b, 0, strlen(b));
    slinky_free(b);
    return rc;
}

/* New keys (login_secret.go BuildLoginSshHostKeys), data keys in Go's map order (sorted). */
static int new_host_keys(slinky_doc_value *data, unsigned rsa_bits)
{
    char *priv[3] = {NULL, NULL, NULL}, *pub[3] = {NULL, NULL, NULL};
    int rc = 0;
    for (int i = 0; i < 3 && !rc; i++)
        rc = slinky_workload_ssh_keygen(&priv[i], &pub[i], host_keys[i].type,
                                        host_keys[i].type == SLINKY_WORKLOAD_SSH_KEY_RSA ? rsa_bits
                                                                                         : 0);
    /* ecdsa, ed25519, rsa: each private key then its .pub */
    static const int order[3] = {2, 1, 0};
    for (int j = 0; j < 3 && !rc; j++) {
        int i = order[j];
        char pubname[64];
        snprintf(pubname, sizeof(pubname), "%s.pub", host_keys[i].file);
        if (!(rc = put_b64(data, host_keys[i].file, priv[i])))
            rc = put_b64(data, pubname, pub[i]);
    }
    for (int i = 0; i < 3; i++) {
        if (priv[i]) {
            gnutls_memset(priv[i], 0, strlen(priv[i]));
            slinky_free(priv[i]);
        }
        slinky_free(pub[i]);
    }
    return rc;
}

slinky_status slinky_workload_loginset_host_keys(slinky_doc **out, const slinky_model_loginset *ls,
                                                 const slinky_workload_input *in,
                                                 const slinky_workload_loginset_options *opts)
{
    int rc = slinky_workload__builder_args(out, ls, in, SLINKY_MODEL_KIND_LOGINSET);
    if (rc || (rc = check_opts(opts)))
        return rc;
    slinky_doc *doc = NULL;
    slinky_doc_value *root = NULL, *data = NULL;
    if ((rc = owned_object(&doc, &root, ls, "Secret", "ssh-host-keys", true)) ||
        (rc = slinky_workload__obj(&data, root, "data")))
        return slinky_workload__hand_out(out, doc, rc);
    /* immutable once made: an existing Secret's keys are kept, not regenerated */
    const slinky_model_object *live = NULL;
    char *name = slinky__sprintf("%s-ssh-host-keys", slinky_model_object_get_name(ls));
    if (!name)
        return slinky_workload__hand_out(out, doc, SLINKY_ENOMEM);
    if (!slinky_workload_input_find(&live, in, SLINKY_MODEL_KIND_SECRET,
                                    slinky_model_object_get_namespace(ls), name)) {
        const slinky_doc_value *ld = slinky_doc_value_get(slinky_model_object_get_value(live), "data");
        for (int i = 0; i < 3 && !rc; i++) {
            char pubname[64];
            snprintf(pubname, sizeof(pubname), "%s.pub", host_keys[i].file);
            if (!slinky_doc_value_get_string(slinky_doc_value_get(ld, host_keys[i].file)) ||
                !slinky_doc_value_get_string(slinky_doc_value_get(ld, pubname)))
                rc = slinky__error_set(SLINKY_EINVALID,
                                       "workload: %s: Secret %s has no %s: delete it to have new "
                                       "host keys made (it is immutable)",
                                       slinky_workload__describe(ls), name, host_keys[i].file);
        }
        if (!rc)
            rc = slinky_doc_value_set_copy(data, ld);
    } else {
        slinky_error_clear();
        rc = new_host_keys(data, opts ? opts->rsa_bits : 0);
    }
    free(name);
    return slinky_workload__hand_out(out, doc, rc);
}

/* ---------------------------------------------------------------- ssh config */

static int seamless_fragment(char **out, const slinky_model_loginset *ls,
                             const slinky_workload_loginset_options *o, int64_t port)
{
#ifdef SLINKY_HAVE_LEDGER
    slinky_ledger_sshd_options so;
    int rc = slinky_ledger_sshd_options_init(&so, SLINKY_LEDGER_SSHD_OPTIONS_VERSION);
    if (rc)
        return rc;
    so.enable_seamless = true;
    so.port = (unsigned)port;
    so.keys_command = o->keys_command;
    so.keys_command_user = o->keys_command_user;
    if ((rc = slinky_ledger_sshd_render(out, &so)))
        slinky__error_prefix("workload: %s: seamless SSH: ", slinky_workload__describe(ls));
    return rc;
#else
    (void)out;
    (void)o;
    (void)port;
    return slinky__error_set(SLINKY_EUNSUPPORTED,
                             "workload: %s: seamless SSH needs the ledger module (not built)",
                             slinky_workload__describe(ls));
#endif
}

/* The sshd port: 22, or the containerPort of the user's port named "login" (login_app.go). */
static int64_t ssh_port(const slinky_model_loginset *ls)
{
    const slinky_doc_value *ports = slinky_doc_value_path(wl_spec(ls), "login.ports");
    int64_t port = LOGIN_PORT;
    for (size_t i = 0; i < slinky_doc_value_size(ports); i++) {
        const slinky_doc_value *p = slinky_doc_value_at(ports, i);
        int64_t cp = slinky_doc_value_path_int(p, "containerPort", 0);
        if (!strcmp(slinky_doc_value_path_string(p, "name", ""), SLINKY_WL_APP_LOGIN) && cp)
            port = cp;
    }
    return port;
}

slinky_status slinky_workload_loginset_sshd_config(char **out, const slinky_model_loginset *ls,
                                                   const slinky_workload_loginset_options *opts)
{
    if (!out || !ls || slinky_model_object_get_kind(ls) != SLINKY_MODEL_KIND_LOGINSET)
        return slinky__error_set(SLINKY_EINVALID, "workload: sshd_config: expected a LoginSet");
    int rc = check_opts(opts);
    if (rc)
        return rc;
    char *frag = NULL;
    if (opts && opts->seamless_ssh && (rc = seamless_fragment(&frag, ls, opts, ssh_port(ls))))
        return rc;
    const char *extra = slinky_doc_value_path_string(wl_spec(ls), "extraSshdConfig", "");
    slinky__buf b = SLINKY__BUF_INIT;
    /* sshd takes the first value of a keyword: the ledger's settings come first */
    if (frag)
        slinky__buf_printf(&b, "#\n### SEAMLESS SSH ###\n%s", frag);
    slinky__buf_printf(&b,
                       "#\n### GENERAL ###\n"
                       "Include /etc/ssh/sshd_config.d/*.conf\n"
                       "UsePAM yes\n"
                       "X11Forwarding yes\n"
                       "Subsystem sftp internal-sftp\n"
                       "#\n### EXTRA CONFIG ###\n%s\n",
                       extra);
    slinky_free(frag);
    return slinky__buf_finish(out, NULL, &b);
}

static int ssh_config(slinky_doc **out, const slinky_model_loginset *ls,
                      const slinky_workload_loginset_options *opts)
{
    slinky_doc *doc = NULL;
    slinky_doc_value *root = NULL, *data = NULL;
    char *sshd = NULL, *keys = NULL;
    int rc;
    if ((rc = slinky_workload_loginset_sshd_config(&sshd, ls, opts)) ||
        (rc = owned_object(&doc, &root, ls, "ConfigMap", "ssh-config", false)))
        goto done;
    keys = slinky__sprintf("#\n### SLINKY ###\n%s\n",
                           slinky_doc_value_path_string(wl_spec(ls), "rootSshAuthorizedKeys", ""));
    if (!keys)
        rc = SLINKY_ENOMEM;
    if (rc || (rc = slinky_workload__obj(&data, root, "data")) ||
        (rc = slinky_doc_value_object_set_string(data, AUTHORIZED_KEYS_FILE, keys)))
        goto done;
    rc = slinky_doc_value_object_set_string(data, SSHD_CONFIG_FILE, sshd);
done:
    slinky_free(sshd);
    free(keys);
    return slinky_workload__hand_out(out, doc, rc);
}

/* ---------------------------------------------------------------- Deployment */

/* {name, mountPath, subPath, readOnly: true} */
static int sub_mount(slinky_doc_value *mounts, const char *volume, const char *dir,
                     const char *file)
{
    slinky_doc_value *m = NULL;
    char path[256];
    snprintf(path, sizeof(path), "%s/%s", dir, file);
    int rc;
    if ((rc = slinky_workload__push_obj(&m, mounts)) ||
        (rc = slinky_doc_value_object_set_string(m, "name", volume)) ||
        (rc = slinky_doc_value_object_set_string(m, "mountPath", path)) ||
        (rc = slinky_doc_value_object_set_string(m, "subPath", file)))
        return rc;
    return slinky_doc_value_object_set_bool(m, "readOnly", true);
}

static int login_container(slinky_doc_value *containers, const slinky_model_loginset *ls,
                           const slinky_model_controller *c)
{
    const slinky_doc_value *cs = wl_spec(c);
    slinky_doc_value *ct = NULL, *env = NULL, *e = NULL, *ports = NULL, *p = NULL, *probe = NULL,
                     *ex = NULL, *cmd = NULL, *mounts = NULL;
    /* ConfiglessArgs: the Controller's Service, or the external slurmctld */
    char *sackd = NULL;
    if (slinky_doc_value_path_bool(cs, "external", false))
        sackd = slinky__sprintf("--conf-server %s:%lld",
                                slinky_doc_value_path_string(cs, "externalConfig.host", ""),
                                (long long)slinky_doc_value_path_int(cs, "externalConfig.port", 0));
    else
        sackd = slinky__sprintf("--conf-server %s-controller.%s:%d", slinky_model_object_get_name(c),
                                slinky_model_object_get_namespace(c)
                                    ? slinky_model_object_get_namespace(c)
                                    : "",
                                SLINKY_WL_SLURMCTLD_PORT);
    int rc = sackd ? 0 : SLINKY_ENOMEM;
    if (rc || (rc = slinky_workload__push_obj(&ct, containers)) ||
        (rc = slinky_doc_value_object_set_string(ct, "name", SLINKY_WL_APP_LOGIN)) ||
        (rc = slinky_workload__arr(&env, ct, "env")) || (rc = slinky_workload__push_obj(&e, env)) ||
        (rc = slinky_doc_value_object_set_string(e, "name", "SACKD_OPTIONS")) ||
        (rc = slinky_doc_value_object_set_string(e, "value", sackd)) ||
        (rc = slinky_workload__arr(&ports, ct, "ports")) ||
        (rc = slinky_workload__push_obj(&p, ports)) ||
        (rc = slinky_doc_value_object_set_string(p, "name", SLINKY_WL_APP_LOGIN)) ||
        (rc = slinky_doc_value_object_set_int(p, "containerPort", ssh_port(ls))) ||
        (rc = slinky_doc_value_object_set_string(p, "protocol", "TCP")) ||
        (rc = slinky_workload__obj(&probe, ct, "readinessProbe")) ||
        (rc = slinky_workload__obj(&ex, probe, "exec")) ||
        (rc = slinky_workload__arr(&cmd, ex, "command")) ||
        (rc = slinky_workload__push_str(cmd, "test")) || (rc = slinky_workload__push_str(cmd, "-S")) ||
        (rc = slinky_workload__push_str(cmd, SACKD_SOCKET)) ||
        (rc = slinky_workload__arr(&mounts, ct, "volumeMounts")) ||
        (rc = slinky_workload__mount(mounts, SLINKY_WL_ETC_VOLUME, SLINKY_WL_ETC_DIR, true)) ||
        (rc = slinky_workload__mount(mounts, SACKD_VOLUME, SACKD_DIR, false)))
        goto done;
    for (int i = 0; i < 3 && !rc; i++) {
        char pubname[64];
        snprintf(pubname, sizeof(pubname), "%s.pub", host_keys[i].file);
        if (!(rc = sub_mount(mounts, SSH_HOST_KEYS_VOLUME, "/etc/ssh", host_keys[i].file)))
            rc = sub_mount(mounts, SSH_HOST_KEYS_VOLUME, "/etc/ssh", pubname);
    }
    if (rc || (rc = sub_mount(mounts, SSH_CONFIG_VOLUME, "/etc/ssh", SSHD_CONFIG_FILE)) ||
        (rc = sub_mount(mounts, SSH_CONFIG_VOLUME, "/root/.ssh", AUTHORIZED_KEYS_FILE)) ||
        (rc = sub_mount(mounts, SSSD_CONF_VOLUME, "/etc/sssd", SSSD_CONF_FILE)))
        goto done;
    rc = slinky_workload__merge_container(ct, slinky_doc_value_get(wl_spec(ls), "login"));
done:
    free(sackd);
    return rc;
}

static int initconf_container(slinky_doc_value *inits, const slinky_model_loginset *ls)
{
    slinky_doc_value *ct = NULL, *env = NULL, *e = NULL, *cmd = NULL, *mounts = NULL;
    int rc;
    if ((rc = slinky_workload__push_obj(&ct, inits)) ||
        (rc = slinky_doc_value_object_set_string(ct, "name", "initconf")) ||
        (rc = slinky_workload__arr(&env, ct, "env")) || (rc = slinky_workload__push_obj(&e, env)) ||
        (rc = slinky_doc_value_object_set_string(e, "name", "SLURM_USER")) ||
        (rc = slinky_doc_value_object_set_string(e, "value", SLINKY_WL_SLURM_USER)) ||
        (rc = slinky_workload__arr(&cmd, ct, "command")) ||
        (rc = slinky_workload__push_str(cmd, "sh")) || (rc = slinky_workload__push_str(cmd, "-c")) ||
        (rc = slinky_workload__push_str(cmd, initconf_script)) ||
        (rc = slinky_workload__arr(&mounts, ct, "volumeMounts")) ||
        (rc = slinky_workload__mount(mounts, SLINKY_WL_ETC_VOLUME, SLINKY_WL_ETC_MOUNT_DIR, false)) ||
        (rc = slinky_workload__mount(mounts, SLINKY_WL_CONFIG_VOLUME, SLINKY_WL_CONFIG_DIR, true)))
        return rc;
    return slinky_workload__merge_container(ct, slinky_doc_value_get(wl_spec(ls), "initconf"));
}

/* {name, projected: {defaultMode: 0600, sources: [{secret|configMap: {name, items}}]}}; *items_out. */
static int projected(slinky_doc_value **items_out, slinky_doc_value *vols, const char *volume,
                     bool secret, const char *source)
{
    slinky_doc_value *v = NULL, *proj = NULL, *src = NULL, *s = NULL, *ref = NULL;
    int rc;
    if ((rc = slinky_workload__push_obj(&v, vols)) ||
        (rc = slinky_doc_value_object_set_string(v, "name", volume)) ||
        (rc = slinky_workload__obj(&proj, v, "projected")) ||
        (rc = slinky_doc_value_object_set_int(proj, "defaultMode", 0600)) ||
        (rc = slinky_workload__arr(&src, proj, "sources")) ||
        (rc = slinky_workload__push_obj(&s, src)) ||
        (rc = slinky_workload__obj(&ref, s, secret ? "secret" : "configMap")) ||
        (rc = slinky_doc_value_object_set_string(ref, "name", source)))
        return rc;
    return slinky_workload__arr(items_out, ref, "items");
}

/* {key, path[, mode]} (mode < 0: none) */
static int item(slinky_doc_value *items, const char *key, const char *path, int mode)
{
    slinky_doc_value *i = NULL;
    int rc;
    if ((rc = slinky_workload__push_obj(&i, items)) ||
        (rc = slinky_doc_value_object_set_string(i, "key", key)) ||
        (rc = slinky_doc_value_object_set_string(i, "path", path)))
        return rc;
    return mode < 0 ? 0 : slinky_doc_value_object_set_int(i, "mode", mode);
}

static int login_volumes(slinky_doc_value *vols, const slinky_model_loginset *ls,
                         const slinky_model_controller *c)
{
    const char *name = slinky_model_object_get_name(ls);
    const slinky_doc_value *s = wl_spec(ls);
    char keys_secret[320], ssh_cm[320];
    snprintf(keys_secret, sizeof(keys_secret), "%s-ssh-host-keys", name);
    snprintf(ssh_cm, sizeof(ssh_cm), "%s-ssh-config", name);
    slinky_doc_value *items = NULL;
    int rc;
    if ((rc = slinky_workload__empty_dir(vols, SLINKY_WL_ETC_VOLUME, true)) ||
        (rc = slinky_workload__empty_dir(vols, SACKD_VOLUME, true)) ||
        (rc = projected(&items, vols, SLINKY_WL_CONFIG_VOLUME, true,
                        slinky_doc_value_path_string(wl_spec(c), "slurmKeyRef.name", ""))) ||
        (rc = item(items, slinky_doc_value_path_string(wl_spec(c), "slurmKeyRef.key", ""),
                   SLINKY_WL_SLURM_KEY_FILE, -1)) ||
        (rc = projected(&items, vols, SSH_HOST_KEYS_VOLUME, true, keys_secret)))
        return rc;
    for (int i = 0; i < 3 && !rc; i++) {
        char pubname[64];
        snprintf(pubname, sizeof(pubname), "%s.pub", host_keys[i].file);
        if (!(rc = item(items, host_keys[i].file, host_keys[i].file, 0600)))
            rc = item(items, pubname, pubname, 0644);
    }
    if (rc || (rc = projected(&items, vols, SSH_CONFIG_VOLUME, false, ssh_cm)) ||
        (rc = item(items, SSHD_CONFIG_FILE, SSHD_CONFIG_FILE, 0600)) ||
        (rc = item(items, AUTHORIZED_KEYS_FILE, AUTHORIZED_KEYS_FILE, 0600)) ||
        (rc = projected(&items, vols, SSSD_CONF_VOLUME, true,
                        slinky_doc_value_path_string(s, "sssdConfRef.name", ""))))
        return rc;
    return item(items, slinky_doc_value_path_string(s, "sssdConfRef.key", ""), SSSD_CONF_FILE,
                0600);
}

/* getLoginHashes, over the objects this build makes (what the cluster holds once applied). */
static int login_hashes(slinky_doc_value *meta, const slinky_model_loginset *ls,
                        const slinky_workload_input *in, const slinky_doc *keys,
                        const slinky_doc *cm)
{
    char h[65];
    const slinky_doc_value *s = wl_spec(ls);
    int rc = slinky_workload__checksum_map(
        h, slinky_doc_value_get(slinky_doc_root((slinky_doc *)keys), "data"), true);
    if (rc || (rc = slinky_workload__map_put(meta, "annotations", ANN_SSH_HOST_KEYS_HASH, h)))
        return rc;
    const char *sshd = slinky_doc_value_path_string(slinky_doc_root((slinky_doc *)cm),
                                                    "data." SSHD_CONFIG_FILE, "");
    slinky_workload__sha256_hex(h, sshd, strlen(sshd));
    if ((rc = slinky_workload__map_put(meta, "annotations", ANN_SSHD_CONF_HASH, h)))
        return rc;
    /* the sssd.conf Secret may not exist yet: the hash of nothing, as upstream */
    char *sssd = NULL;
    size_t n = 0;
    if (slinky_workload__secret_value(&sssd, &n, in, ls, "spec.sssdConfRef",
                                      slinky_doc_value_path_string(s, "sssdConfRef.name", ""),
                                      slinky_doc_value_path_string(s, "sssdConfRef.key", "")) ==
        SLINKY_ENOMEM)
        return SLINKY_ENOMEM;
    slinky_error_clear();
    slinky_workload__sha256_hex(h, sssd ? sssd : "", sssd ? n : 0);
    free(sssd);
    return slinky_workload__map_put(meta, "annotations", ANN_SSSD_CONF_HASH, h);
}

static int deployment(slinky_doc **out, const slinky_model_loginset *ls,
                      const slinky_model_controller *c, const slinky_workload_input *in,
                      const slinky_doc *keys, const slinky_doc *cm)
{
    const slinky_doc_value *s = wl_spec(ls), *tm = slinky_doc_value_path(s, "template.metadata");
    const char *name = slinky_model_object_get_name(ls), *nsn = slinky_model_object_get_namespace(ls);
    const char *cref = slinky_doc_value_path_string(s, "controllerRef.name", "");
    slinky_doc *doc = NULL;
    slinky_doc_value *root, *meta, *spec = NULL, *sel = NULL, *ml = NULL, *tmpl = NULL,
                     *tmeta = NULL, *pspec = NULL, *containers = NULL, *inits = NULL, *dns = NULL,
                     *search = NULL, *vols = NULL, *strategy = NULL;
    char *workers = slinky__sprintf("slurm-workers-%s", cref);
    char *fq = workers ? slinky_workload__fqdn(in, workers, nsn) : NULL;
    int rc = fq ? 0 : SLINKY_ENOMEM;
    if (rc || (rc = slinky_workload__object_new(&doc, &root, &meta, "apps/v1", "Deployment", nsn, name)) ||
        (rc = login_meta(meta, ls, tm)) || (rc = slinky_workload__obj(&spec, root, "spec")))
        goto done;
    const slinky_doc_value *replicas = slinky_doc_value_get(s, "replicas");
    if (slinky_doc_value_type(replicas) == SLINKY_DOC_INT &&
        (rc = slinky_doc_value_object_set_int(spec, "replicas", slinky_doc_value_get_int(replicas))))
        goto done;
    /* Strategy is a struct in the DeploymentSpec: {} when the LoginSet has none */
    if ((rc = slinky_doc_value_object_set_int(spec, "revisionHistoryLimit", 0)) ||
        (rc = slinky_workload__obj(&strategy, spec, "strategy")) ||
        (slinky_doc_value_type(slinky_doc_value_get(s, "strategy")) == SLINKY_DOC_OBJECT &&
         (rc = slinky_doc_value_set_copy(strategy, slinky_doc_value_get(s, "strategy")))) ||
        (rc = slinky_workload__obj(&sel, spec, "selector")) ||
        (rc = slinky_workload__obj(&ml, sel, "matchLabels")) ||
        (rc = slinky_workload__labels(ml, SLINKY_WL_APP_LOGIN, name, NULL)) ||
        (rc = slinky_workload__obj(&tmpl, spec, "template")) ||
        (rc = slinky_workload__obj(&tmeta, tmpl, "metadata")) ||
        (rc = slinky_doc_value_object_set_string(tmeta, "name", name)) ||
        (nsn && *nsn && (rc = slinky_doc_value_object_set_string(tmeta, "namespace", nsn))) ||
        (rc = login_meta(tmeta, ls, tm)) || (rc = login_hashes(tmeta, ls, in, keys, cm)) ||
        (rc = slinky_workload__map_put(tmeta, "annotations", SLINKY_WL_ANN_DEFAULT_CONTAINER,
                                       SLINKY_WL_APP_LOGIN)) ||
        (rc = slinky_workload__obj(&pspec, tmpl, "spec")) ||
        (rc = slinky_doc_value_object_set_bool(pspec, "automountServiceAccountToken", false)) ||
        (rc = slinky_doc_value_object_set_bool(pspec, "enableServiceLinks", false)) ||
        (rc = slinky_workload__arr(&containers, pspec, "containers")) ||
        (rc = login_container(containers, ls, c)) ||
        (rc = slinky_workload__arr(&inits, pspec, "initContainers")) ||
        (rc = initconf_container(inits, ls)) ||
        (rc = slinky_workload__obj(&dns, pspec, "dnsConfig")) ||
        (rc = slinky_workload__arr(&search, dns, "searches")) ||
        (rc = slinky_workload__push_str(search, fq)) ||
        (rc = slinky_workload__arr(&vols, pspec, "volumes")) ||
        (rc = login_volumes(vols, ls, c)) ||
        (rc = slinky_workload__merge_pod_spec(pspec, slinky_doc_value_path(s, "template.spec"))) ||
        (rc = slinky_workload__set_controller_ref(meta, ls)))
        goto done;
    slinky_workload__meta_prune(meta);
done:
    free(workers);
    free(fq);
    return slinky_workload__hand_out(out, doc, rc);
}

static int service_meta(slinky_doc_value *meta, const slinky_model_object *ls,
                        const slinky_doc_value *extra)
{
    return login_meta(meta, ls, extra);
}

slinky_status slinky_workload_build_loginset(slinky_workload *into, const slinky_model_loginset *ls,
                                             const slinky_workload_input *in,
                                             const slinky_workload_loginset_options *opts)
{
    const slinky_model_controller *c = NULL;
    int rc = slinky_workload__builder_args(into, ls, in, SLINKY_MODEL_KIND_LOGINSET);
    if (rc || (rc = check_opts(opts)))
        return rc;
    const slinky_doc_value *s = wl_spec(ls);
    if ((rc = slinky_workload__ref(&c, in, ls, "spec.controllerRef.name",
                                   SLINKY_MODEL_KIND_CONTROLLER,
                                   slinky_doc_value_path_string(s, "controllerRef.name", ""))))
        return rc;
    if (!*slinky_doc_value_path_string(s, "sssdConfRef.name", "") ||
        !*slinky_doc_value_path_string(s, "sssdConfRef.key", ""))
        return slinky__error_set(SLINKY_EINVALID,
                                 "workload: %s: spec.sssdConfRef: name and key are required",
                                 slinky_workload__describe(ls));
    static const char *const texts[] = {"rootSshAuthorizedKeys", "extraSshdConfig"};
    for (size_t i = 0; i < 2; i++) {
        const slinky_doc_value *t = slinky_doc_value_get(s, texts[i]);
        if (slinky_doc_value_get_string(t) &&
            strlen(slinky_doc_value_get_string(t)) != slinky_doc_value_get_string_len(t))
            return slinky__error_set(SLINKY_EINVALID, "workload: %s: spec.%s: holds a NUL byte",
                                     slinky_workload__describe(ls), texts[i]);
    }
    slinky_workload tmp = {0};
    slinky_doc *hk = NULL, *cm = NULL, *dep = NULL;
    if ((rc = slinky_workload_loginset_host_keys(&hk, ls, in, opts)) ||
        (rc = ssh_config(&cm, ls, opts)) ||
        (rc = deployment(&dep, ls, c, in, hk, cm))) {
        slinky_doc_free(hk);
        slinky_doc_free(cm);
        return slinky_workload__commit(into, &tmp, rc);
    }
    /* push owns each doc, also on failure; upstream's order: host keys, ssh config,
     * Service, Deployment */
    slinky_doc *docs[2] = {hk, cm};
    rc = slinky_workload__push(&tmp, docs[0]);
    if (!rc)
        rc = slinky_workload__push(&tmp, docs[1]);
    else
        slinky_doc_free(docs[1]);
    if (!rc)
        rc = slinky_workload__owner_service(&tmp, ls, slinky_model_object_get_name(ls),
                                            SLINKY_WL_APP_LOGIN, LOGIN_PORT, service_meta, NULL,
                                            NULL);
    if (!rc)
        rc = slinky_workload__push(&tmp, dep);
    else
        slinky_doc_free(dep);
    return slinky_workload__commit(into, &tmp, rc);
}
