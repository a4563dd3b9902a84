/* Ledger events: kinds, copies, JSON form, commit messages with trailers. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ledger_internal.h"

static const char *const kind_names[] = {
    "init",         "user-add",      "user-update", "user-disable", "user-enable",
    "user-delete",  "key-add",       "key-remove",  "group-add",    "group-remove",
    "member-add",   "member-remove", "account-add", "assoc-add",    "assoc-remove",
};

const char *slinky_ledger_event_kind_name(slinky_ledger_event_kind kind)
{
    if ((int)kind < 1 || (size_t)kind >= SLINKY__ARRAY_SIZE(kind_names))
        return NULL;
    return kind_names[kind];
}

static int kind_from_name(const char *name)
{
    for (size_t i = 0; name && i < SLINKY__ARRAY_SIZE(kind_names); i++)
        if (!strcmp(kind_names[i], name))
            return (int)i;
    return -1;
}

slinky_status slinky_ledger_event_kind_parse(slinky_ledger_event_kind *out, const char *name)
{
    int k = kind_from_name(name);
    if (!out || k < 1)
        return slinky__error_set(SLINKY_EINVALID, "unknown ledger event kind '%s'",
                                 name ? name : "(null)");
    *out = (slinky_ledger_event_kind)k;
    return 0;
}

slinky_status slinky_ledger_event_init(slinky_ledger_event *ev, unsigned int version)
{
    if (!ev || version != SLINKY_LEDGER_EVENT_VERSION)
        return slinky__error_set(SLINKY_EINVALID, "unknown slinky_ledger_event version %u",
                                 version);
    slinky_ledger_event init = SLINKY_LEDGER_EVENT_INIT;
    *ev = init;
    return 0;
}

bool slinky_ledger_name_is_valid(const char *name)
{
    if (!name || !*name || strlen(name) > 32)
        return false;
    if (!((name[0] >= 'a' && name[0] <= 'z') || name[0] == '_'))
        return false;
    for (const char *p = name; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_' || *p == '-' ||
              *p == '.'))
            return false;
    return true;
}

void slinky_ledger__event_dispose(slinky_ledger__event *ev)
{
    if (!ev)
        return;
    char **s[] = {&ev->name,  &ev->target,      &ev->tag,          &ev->key,
                  &ev->gecos, &ev->home,        &ev->shell,        &ev->description,
                  &ev->organization, &ev->actor, &ev->request_id, &ev->cluster};
    for (size_t i = 0; i < SLINKY__ARRAY_SIZE(s); i++) {
        free(*s[i]);
        *s[i] = NULL;
    }
    memset(ev, 0, sizeof(*ev));
}

static int dup_opt(char **dst, const char *src)
{
    *dst = NULL;
    if (!src)
        return 0;
    *dst = slinky__strdup(src);
    return *dst ? 0 : SLINKY_ENOMEM;
}

int slinky_ledger__event_copy(slinky_ledger__event *out, const slinky_ledger_event *in)
{
    if (!in || in->version != SLINKY_LEDGER_EVENT_VERSION)
        return slinky__error_set(SLINKY_EINVALID, "unknown slinky_ledger_event version %u",
                                 in ? in->version : 0);
    memset(out, 0, sizeof(*out));
    out->kind = (int)in->kind;
    out->id = in->id;
    if (dup_opt(&out->name, in->name) || dup_opt(&out->target, in->target) ||
        dup_opt(&out->tag, in->tag) || dup_opt(&out->key, in->key) ||
        dup_opt(&out->gecos, in->gecos) || dup_opt(&out->home, in->home) ||
        dup_opt(&out->shell, in->shell) || dup_opt(&out->description, in->description) ||
        dup_opt(&out->organization, in->organization) || dup_opt(&out->actor, in->actor) ||
        dup_opt(&out->request_id, in->request_id)) {
        slinky_ledger__event_dispose(out);
        return SLINKY_ENOMEM;
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* JSON                                                               */
/* ------------------------------------------------------------------ */

void slinky_ledger__json_str(slinky__buf *b, const char *s)
{
    slinky__buf_putc(b, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': slinky__buf_puts(b, "\\\""); break;
        case '\\': slinky__buf_puts(b, "\\\\"); break;
        case '\n': slinky__buf_puts(b, "\\n"); break;
        case '\r': slinky__buf_puts(b, "\\r"); break;
        case '\t': slinky__buf_puts(b, "\\t"); break;
        default:
            if (*p < 0x20)
                slinky__buf_printf(b, "\\u%04x", *p);
            else
                slinky__buf_putc(b, (char)*p);
        }
    }
    slinky__buf_putc(b, '"');
}

static void put_str(slinky__buf *b, const char *k, const char *v)
{
    if (!v)
        return;
    slinky__buf_printf(b, ",\"%s\":", k);
    slinky_ledger__json_str(b, v);
}

int slinky_ledger__event_json(char **out, const slinky_ledger__event *ev)
{
    slinky__buf b = SLINKY__BUF_INIT;
    slinky__buf_puts(&b, "{\"kind\":");
    slinky_ledger__json_str(&b, kind_names[ev->kind]);
    put_str(&b, "name", ev->name);
    put_str(&b, "target", ev->target);
    if (ev->id)
        slinky__buf_printf(&b, ",\"id\":%u", ev->id);
    put_str(&b, "tag", ev->tag);
    put_str(&b, "key", ev->key);
    put_str(&b, "gecos", ev->gecos);
    put_str(&b, "home", ev->home);
    put_str(&b, "shell", ev->shell);
    put_str(&b, "description", ev->description);
    put_str(&b, "organization", ev->organization);
    put_str(&b, "cluster", ev->cluster);
    if (ev->kind == SLINKY_LEDGER__INIT)
        slinky__buf_printf(&b, ",\"id_min\":%u,\"id_max\":%u", ev->id_min, ev->id_max);
    slinky__buf_putc(&b, '}');
    return slinky__buf_finish(out, NULL, &b);
}

static int str_member(char **dst, const slinky_doc_value *v, const char *key)
{
    if (slinky_doc_value_type(v) != SLINKY_DOC_STRING)
        return slinky__error_set(SLINKY_EINVALID, "event field '%s' must be a string", key);
    if (slinky_doc_value_get_string_len(v) != strlen(slinky_doc_value_get_string(v)))
        return slinky__error_set(SLINKY_EINVALID, "event field '%s' contains a NUL byte", key);
    free(*dst);
    *dst = slinky__strdup(slinky_doc_value_get_string(v));
    return *dst ? 0 : SLINKY_ENOMEM;
}

static int id_member(uint32_t *dst, const slinky_doc_value *v, const char *key)
{
    if (slinky_doc_value_type(v) != SLINKY_DOC_INT)
        return slinky__error_set(SLINKY_EINVALID, "event field '%s' must be an integer", key);
    int64_t i = slinky_doc_value_get_int(v);
    if (i < 0 || i > 0x7fffffff)
        return slinky__error_set(SLINKY_EINVALID, "event field '%s' out of range: %lld", key,
                                 (long long)i);
    *dst = (uint32_t)i;
    return 0;
}

int slinky_ledger__event_parse(slinky_ledger__event *out, const char *json, size_t len)
{
    slinky_doc *doc = NULL;
    int rc = slinky_doc_parse_json(&doc, json, len);
    if (rc < 0)
        return rc;
    slinky_ledger__event ev;
    memset(&ev, 0, sizeof(ev));
    ev.kind = -1;
    slinky_doc_value *root = slinky_doc_root(doc);
    if (slinky_doc_value_type(root) != SLINKY_DOC_OBJECT) {
        rc = slinky__error_set(SLINKY_EINVALID, "event must be a JSON object");
        goto done;
    }
    for (size_t i = 0; rc == 0 && i < slinky_doc_value_size(root); i++) {
        const char *k = slinky_doc_value_key_at(root, i);
        slinky_doc_value *v = slinky_doc_value_member_at(root, i);
        struct {
            const char *key;
            char **dst;
        } strs[] = {
            {"name", &ev.name},       {"target", &ev.target},
            {"tag", &ev.tag},         {"key", &ev.key},
            {"gecos", &ev.gecos},     {"home", &ev.home},
            {"shell", &ev.shell},     {"description", &ev.description},
            {"organization", &ev.organization}, {"actor", &ev.actor},
            {"request_id", &ev.request_id}, {"cluster", &ev.cluster},
        };
        size_t j;
        for (j = 0; j < SLINKY__ARRAY_SIZE(strs); j++)
            if (!strcmp(k, strs[j].key))
                break;
        if (j < SLINKY__ARRAY_SIZE(strs)) {
            rc = str_member(strs[j].dst, v, k);
        } else if (!strcmp(k, "kind")) {
            if (slinky_doc_value_type(v) != SLINKY_DOC_STRING ||
                (ev.kind = kind_from_name(slinky_doc_value_get_string(v))) < 0)
                rc = slinky__error_set(SLINKY_EINVALID, "event field 'kind': unknown kind '%s'",
                                       slinky_doc_value_get_string(v)
                                           ? slinky_doc_value_get_string(v)
                                           : slinky_doc_type_name(slinky_doc_value_type(v)));
        } else if (!strcmp(k, "id") || !strcmp(k, "uid") || !strcmp(k, "gid")) {
            rc = id_member(&ev.id, v, k);
        } else if (!strcmp(k, "id_min")) {
            rc = id_member(&ev.id_min, v, k);
        } else if (!strcmp(k, "id_max")) {
            rc = id_member(&ev.id_max, v, k);
        } else if (!strcmp(k, "commit") || !strcmp(k, "time") || !strcmp(k, "schema") ||
                   !strcmp(k, "subject")) {
            /* informational members of exported lines */
        } else {
            rc = slinky__error_set(SLINKY_EINVALID, "unknown event field '%s'", k);
        }
    }
    if (rc == 0 && ev.kind < 0)
        rc = slinky__error_set(SLINKY_EINVALID, "event has no 'kind'");
done:
    slinky_doc_free(doc);
    if (rc < 0) {
        slinky_ledger__event_dispose(&ev);
        return rc;
    }
    *out = ev;
    return 0;
}

/* ------------------------------------------------------------------ */
/* Checks and defaults                                                */
/* ------------------------------------------------------------------ */

static int need(const char *v, const char *field, const slinky_ledger__event *ev)
{
    if (!v || !*v)
        return slinky__error_set(SLINKY_EINVALID, "%s: field '%s' is required",
                                 kind_names[ev->kind], field);
    return 0;
}

static int forbid(const void *v, const char *field, const slinky_ledger__event *ev)
{
    if (v)
        return slinky__error_set(SLINKY_EINVALID, "%s: field '%s' is not allowed",
                                 kind_names[ev->kind], field);
    return 0;
}

static int check_name(const char *v, const char *field)
{
    if (!slinky_ledger_name_is_valid(v))
        return slinky__error_set(SLINKY_EINVALID,
                                 "%s '%s' is not a portable name (lowercase letters, digits, "
                                 "'_', '-', '.', starting with a letter or '_', at most 32)",
                                 field, v ? v : "");
    return 0;
}

/* Names of the base system (Debian's base-passwd, OpenSSH, Slurm, MUNGE): a
 * ledger entry of that name would shadow or be shadowed by a system account. */
static const char *const reserved_names[] = {
    "root",     "daemon",  "bin",     "sys",        "sync",     "games",   "man",   "lp",
    "mail",     "news",    "uucp",    "proxy",      "www-data", "backup",  "list",  "irc",
    "gnats",    "nobody",  "nogroup", "sshd",       "adm",      "tty",     "disk",  "kmem",
    "dialout",  "fax",     "voice",   "cdrom",      "floppy",   "tape",    "sudo",  "audio",
    "dip",      "operator", "src",    "shadow",     "utmp",     "video",   "sasl",  "plugdev",
    "staff",    "users",   "wheel",   "messagebus", "_apt",     "slurm",   "munge", "mysql",
    "openldap", "systemd-network", "systemd-resolve", "systemd-timesync", "systemd-journal",
};

bool slinky_ledger_name_is_reserved(const char *name)
{
    for (size_t i = 0; name && i < SLINKY__ARRAY_SIZE(reserved_names); i++)
        if (!strcmp(reserved_names[i], name))
            return true;
    return false;
}

static int check_text(const char *v, const char *field, size_t max)
{
    if (!v)
        return 0;
    if (strlen(v) > max)
        return slinky__error_set(SLINKY_EINVALID, "field '%s' is longer than %zu bytes", field,
                                 max);
    for (const unsigned char *p = (const unsigned char *)v; *p; p++)
        if (*p < 0x20 || *p == 0x7f || *p == ':')
            return slinky__error_set(SLINKY_EINVALID,
                                     "field '%s' contains a control character or ':'", field);
    return 0;
}

static int check_token(const char *v, const char *field)
{
    if (!v)
        return 0;
    if (!*v || strlen(v) > 200)
        return slinky__error_set(SLINKY_EINVALID, "field '%s' must have 1 to 200 characters",
                                 field);
    for (const unsigned char *p = (const unsigned char *)v; *p; p++)
        if (*p <= 0x20 || *p >= 0x7f)
            return slinky__error_set(SLINKY_EINVALID,
                                     "field '%s' may only contain printable ASCII without spaces",
                                     field);
    return 0;
}

static int check_tag(const char *v)
{
    if (!v || !*v || strlen(v) > 64)
        return slinky__error_set(SLINKY_EINVALID, "key tag must have 1 to 64 characters");
    for (const char *p = v; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '_' || *p == '-' || *p == '.' || *p == '@'))
            return slinky__error_set(SLINKY_EINVALID,
                                     "key tag '%s' may only hold letters, digits, '_-.@'", v);
    return 0;
}

static char *random_request_id(void)
{
    unsigned char r[16];
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0 || read(fd, r, sizeof(r)) != (ssize_t)sizeof(r)) {
        if (fd >= 0)
            close(fd);
        for (size_t i = 0; i < sizeof(r); i++)
            r[i] = (unsigned char)(rand() ^ (getpid() >> (i % 8)));
    } else {
        close(fd);
    }
    char hex[33];
    for (size_t i = 0; i < sizeof(r); i++)
        snprintf(hex + 2 * i, 3, "%02x", r[i]);
    return slinky__sprintf("auto-%s", hex);
}

int slinky_ledger__event_check(slinky_ledger__event *ev)
{
    int rc = 0;
    int k = ev->kind;
    if (k < 1 || (size_t)k >= SLINKY__ARRAY_SIZE(kind_names))
        return slinky__error_set(SLINKY_EINVALID, "unknown ledger event kind %d", k);
    if ((rc = need(ev->name, "name", ev)) < 0)
        return rc;
    const char *what = (k == SLINKY_LEDGER_GROUP_ADD || k == SLINKY_LEDGER_GROUP_REMOVE)
                           ? "group name"
                       : k == SLINKY_LEDGER_ACCOUNT_ADD ? "account name"
                                                        : "user name";
    if ((rc = check_name(ev->name, what)) < 0)
        return rc;
    if ((k == SLINKY_LEDGER_USER_ADD || k == SLINKY_LEDGER_GROUP_ADD) &&
        slinky_ledger_name_is_reserved(ev->name))
        return slinky__error_set(SLINKY_EINVALID,
                                 "%s '%s' is reserved for the base system (the ledger never "
                                 "records system accounts)",
                                 what, ev->name);
    bool has_target = k == SLINKY_LEDGER_MEMBER_ADD || k == SLINKY_LEDGER_MEMBER_REMOVE ||
                      k == SLINKY_LEDGER_ASSOC_ADD || k == SLINKY_LEDGER_ASSOC_REMOVE;
    if (has_target) {
        if ((rc = need(ev->target, "target", ev)) < 0 ||
            (rc = check_name(ev->target, k <= SLINKY_LEDGER_MEMBER_REMOVE ? "group name"
                                                                           : "account name")) < 0)
            return rc;
    } else if ((rc = forbid(ev->target, "target", ev)) < 0) {
        return rc;
    }
    bool has_id = k == SLINKY_LEDGER_USER_ADD || k == SLINKY_LEDGER_GROUP_ADD;
    if (!has_id && ev->id)
        return slinky__error_set(SLINKY_EINVALID, "%s: field 'id' is not allowed", kind_names[k]);
    if (ev->id && (ev->id < 1000 || ev->id > 0x7fffffff || ev->id == 65534 || ev->id == 65535))
        return slinky__error_set(SLINKY_EINVALID,
                                 "id %u is not allowed (ids below 1000, 65534 and 65535 are "
                                 "reserved)",
                                 ev->id);
    bool user_fields = k == SLINKY_LEDGER_USER_ADD || k == SLINKY_LEDGER_USER_UPDATE;
    if (!user_fields && ((rc = forbid(ev->gecos, "gecos", ev)) < 0 ||
                         (rc = forbid(ev->home, "home", ev)) < 0 ||
                         (rc = forbid(ev->shell, "shell", ev)) < 0))
        return rc;
    if ((rc = check_text(ev->gecos, "gecos", 256)) < 0 ||
        (rc = check_text(ev->home, "home", 4096)) < 0 ||
        (rc = check_text(ev->shell, "shell", 4096)) < 0)
        return rc;
    if (ev->home && ev->home[0] != '/')
        return slinky__error_set(SLINKY_EINVALID, "field 'home' must be an absolute path");
    if (ev->shell && ev->shell[0] != '/')
        return slinky__error_set(SLINKY_EINVALID, "field 'shell' must be an absolute path");
    if (k == SLINKY_LEDGER_USER_UPDATE && !ev->gecos && !ev->home && !ev->shell)
        return slinky__error_set(SLINKY_EINVALID,
                                 "user-update: nothing to change (gecos, home or shell)");
    if (k == SLINKY_LEDGER_KEY_ADD || k == SLINKY_LEDGER_KEY_REMOVE) {
        if ((rc = check_tag(ev->tag)) < 0)
            return rc;
    } else if ((rc = forbid(ev->tag, "tag", ev)) < 0) {
        return rc;
    }
    if (k == SLINKY_LEDGER_KEY_ADD) {
        if ((rc = need(ev->key, "key", ev)) < 0 || (rc = slinky_ledger__ssh_key_check(ev->key)) < 0)
            return rc;
    } else if ((rc = forbid(ev->key, "key", ev)) < 0) {
        return rc;
    }
    if (k != SLINKY_LEDGER_ACCOUNT_ADD && ((rc = forbid(ev->description, "description", ev)) < 0 ||
                                           (rc = forbid(ev->organization, "organization", ev)) < 0))
        return rc;
    if ((rc = check_text(ev->description, "description", 256)) < 0 ||
        (rc = check_text(ev->organization, "organization", 256)) < 0)
        return rc;
    if ((rc = forbid(ev->cluster, "cluster", ev)) < 0)
        return rc;
    /* defaults */
    if (k == SLINKY_LEDGER_USER_ADD) {
        if (!ev->home && !(ev->home = slinky__sprintf("/home/%s", ev->name)))
            return SLINKY_ENOMEM;
        if (!ev->shell && !(ev->shell = slinky__strdup("/bin/bash")))
            return SLINKY_ENOMEM;
        if (!ev->gecos && !(ev->gecos = slinky__strdup("")))
            return SLINKY_ENOMEM;
    }
    if (!ev->actor) {
        const char *u = getenv("USER");
        if (!(ev->actor = slinky__strdup(u && *u ? u : "slinky")))
            return SLINKY_ENOMEM;
    }
    if (!ev->request_id && !(ev->request_id = random_request_id()))
        return SLINKY_ENOMEM;
    if ((rc = check_token(ev->actor, "actor")) < 0 ||
        (rc = check_token(ev->request_id, "request_id")) < 0)
        return rc;
    return 0;
}

/* ------------------------------------------------------------------ */
/* Commit messages                                                    */
/* ------------------------------------------------------------------ */

char *slinky_ledger__event_subject(const slinky_ledger__event *ev)
{
    switch (ev->kind) {
    case SLINKY_LEDGER__INIT: return slinky__strdup("ledger");
    case SLINKY_LEDGER_GROUP_ADD:
    case SLINKY_LEDGER_GROUP_REMOVE: return slinky__sprintf("group/%s", ev->name);
    case SLINKY_LEDGER_ACCOUNT_ADD: return slinky__sprintf("account/%s", ev->name);
    default: return slinky__sprintf("user/%s", ev->name);
    }
}

char *slinky_ledger__event_message(const slinky_ledger__event *ev)
{
    char *json = NULL, *subject = slinky_ledger__event_subject(ev);
    if (!subject || slinky_ledger__event_json(&json, ev) < 0) {
        free(subject);
        return NULL;
    }
    char *msg = slinky__sprintf("%s %s\n\n%s\n\nSlinky-Event: %s\nSlinky-Subject: %s\n"
                                "Slinky-Actor: %s\nSlinky-Request-Id: %s\nSlinky-Schema: %d\n",
                                kind_names[ev->kind], subject, json, kind_names[ev->kind],
                                subject, ev->actor, ev->request_id, SLINKY_LEDGER_FORMAT);
    free(json);
    free(subject);
    return msg;
}

int slinky_ledger__event_from_message(slinky_ledger__event *out, const char *msg)
{
    const char *p = strstr(msg, "\n\n{");
    if (!p)
        return slinky__error_set(SLINKY_EINVALID, "commit message holds no event line");
    p += 2;
    const char *e = strchr(p, '\n');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    slinky_ledger__event ev;
    int rc = slinky_ledger__event_parse(&ev, p, len);
    if (rc < 0)
        return rc;
    if ((rc = slinky__git_init()) < 0) {
        slinky_ledger__event_dispose(&ev);
        return rc;
    }
    git_message_trailer_array arr;
    memset(&arr, 0, sizeof(arr));
    if (git_message_trailers(&arr, msg) < 0) {
        slinky_ledger__event_dispose(&ev);
        return slinky_ledger__git_error(SLINKY_EINVALID, "parse commit trailers");
    }
    const char *kind = NULL, *schema = NULL, *subject = NULL;
    for (size_t i = 0; i < arr.count && rc == 0; i++) {
        const char *k = arr.trailers[i].key, *v = arr.trailers[i].value;
        if (!strcmp(k, "Slinky-Event"))
            kind = v;
        else if (!strcmp(k, "Slinky-Schema"))
            schema = v;
        else if (!strcmp(k, "Slinky-Subject"))
            subject = v;
        else if (!strcmp(k, "Slinky-Actor") || !strcmp(k, "Slinky-Request-Id")) {
            char **dst = k[7] == 'A' ? &ev.actor : &ev.request_id;
            if (*dst)
                rc = slinky__error_set(SLINKY_EINVALID, "trailer %s is repeated", k);
            else
                rc = dup_opt(dst, v);
        }
    }
    if (rc == 0 && (!kind || strcmp(kind, kind_names[ev.kind]) != 0))
        rc = slinky__error_set(SLINKY_EINVALID, "trailer Slinky-Event '%s' does not match the "
                               "event line kind '%s'",
                               kind ? kind : "(missing)", kind_names[ev.kind]);
    if (rc == 0 && (!schema || atoi(schema) != SLINKY_LEDGER_FORMAT))
        rc = slinky__error_set(SLINKY_EUNSUPPORTED, "trailer Slinky-Schema '%s' is not %d",
                               schema ? schema : "(missing)", SLINKY_LEDGER_FORMAT);
    if (rc == 0 && (!ev.actor || !ev.request_id))
        rc = slinky__error_set(SLINKY_EINVALID, "trailer Slinky-Actor or Slinky-Request-Id missing");
    if (rc == 0) {
        char *want = slinky_ledger__event_subject(&ev);
        if (!want)
            rc = SLINKY_ENOMEM;
        else if (!subject || strcmp(want, subject) != 0)
            rc = slinky__error_set(SLINKY_EINVALID, "trailer Slinky-Subject '%s' is not '%s'",
                                   subject ? subject : "(missing)", want);
        free(want);
    }
    git_message_trailer_array_free(&arr);
    if (rc < 0) {
        slinky_ledger__event_dispose(&ev);
        return rc;
    }
    *out = ev;
    return 0;
}
