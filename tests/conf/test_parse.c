/* conf/parse: slurm.conf grammar, round trip, edits that change exactly one line. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/internal.h"
#include "slinky/conf.h"
#include "slinky/error.h"

static char *data_path(const char *name)
{
    const char *d = getenv("SLINKY_TEST_DATA");
    assert_non_null(d);
    char *p = NULL;
    assert_true(asprintf(&p, "%s/conf/%s", d, name) > 0);
    return p;
}

static char *slurp(const char *path, size_t *len)
{
    char *s = NULL;
    assert_int_equal(slinky__read_file(&s, len, path), 0);
    return s;
}

static slinky_conf *load(const char *name, slinky_conf_kind kind)
{
    char *p = data_path(name);
    slinky_conf_parse_options o = SLINKY_CONF_PARSE_OPTIONS_INIT;
    o.kind = kind;
    slinky_conf *c = NULL;
    int rc = slinky_conf_load(&c, p, &o);
    if (rc)
        fail_msg("%s: %s", name, slinky_error_last()->message);
    free(p);
    return c;
}

static void assert_round_trip_text(const char *text, size_t len, const char *name,
                                   slinky_conf_kind kind)
{
    slinky_conf_parse_options o = SLINKY_CONF_PARSE_OPTIONS_INIT;
    o.kind = kind;
    o.no_includes = true;
    slinky_conf *c = NULL;
    if (slinky_conf_parse(&c, text, len, name, &o))
        fail_msg("%s: %s", name, slinky_error_last()->message);
    char *out = NULL;
    size_t olen = 0;
    assert_int_equal(slinky_conf_render(&out, &olen, c), 0);
    assert_int_equal(olen, len);
    assert_memory_equal(out, text, len);
    slinky_free(out);
    slinky_conf_free(c);
}

static void test_round_trip_own_files(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        slinky_conf_kind kind;
    } files[] = {{"grammar.conf", SLINKY_CONF_KIND_SLURM},
                 {"crlf_noeol.conf", SLINKY_CONF_KIND_SLURM},
                 {"inc/ci_extra.conf", SLINKY_CONF_KIND_SLURM},
                 {"inc/nested.conf", SLINKY_CONF_KIND_SLURM},
                 {"cgroup.conf", SLINKY_CONF_KIND_CGROUP},
                 {"gres.conf", SLINKY_CONF_KIND_GRES},
                 {"slurmdbd.conf", SLINKY_CONF_KIND_SLURMDBD},
                 {"job_container.conf", SLINKY_CONF_KIND_JOB_CONTAINER},
                 {"plugstack.conf", SLINKY_CONF_KIND_PLUGSTACK}};
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        char *p = data_path(files[i].name);
        size_t len = 0;
        char *text = slurp(p, &len);
        assert_round_trip_text(text, len, files[i].name, files[i].kind);
        free(text);
        free(p);
    }
}

/* The examples Debian's Slurm packages ship (gzip), read at test time. */
static void test_round_trip_debian_examples(void **state)
{
    (void)state;
    glob_t g;
    int n = 0;
    if (glob("/usr/share/doc/slurm*/examples/*.conf*", 0, NULL, &g) != 0) {
        skip();
        return;
    }
    for (size_t i = 0; i < g.gl_pathc; i++) {
        const char *p = g.gl_pathv[i];
        char cmd[4200];
        snprintf(cmd, sizeof(cmd), "gzip -dcf '%s'", p);
        FILE *f = popen(cmd, "r");
        assert_non_null(f);
        slinky__buf b = SLINKY__BUF_INIT;
        char buf[4096];
        size_t r;
        while ((r = fread(buf, 1, sizeof(buf), f)) > 0)
            slinky__buf_put(&b, buf, r);
        assert_int_equal(pclose(f), 0);
        const char *base = strrchr(p, '/') + 1;
        slinky_conf_kind kind = !strncmp(base, "cgroup.conf", 11)     ? SLINKY_CONF_KIND_CGROUP
                                : !strncmp(base, "slurmdbd.conf", 13) ? SLINKY_CONF_KIND_SLURMDBD
                                                                      : SLINKY_CONF_KIND_SLURM;
        assert_round_trip_text(b.data ? b.data : "", b.len, p, kind);
        slinky__buf_dispose(&b);
        n++;
    }
    globfree(&g);
    assert_true(n > 0);
}

static void test_grammar_values(void **state)
{
    (void)state;
    slinky_conf *c = load("grammar.conf", SLINKY_CONF_KIND_SLURM);
    /* last value wins, keys are case-insensitive */
    assert_string_equal(slinky_conf_get(c, "KILLWAIT"), "30");
    assert_int_equal(slinky_conf_get_count(c, "killwait"), 2);
    assert_string_equal(slinky_conf_get_at(c, "KillWait", 0), "77");
    /* quoted value, \# escape, continuation */
    assert_string_equal(slinky_conf_get(c, "MailProg"), "/bin/true");
    assert_string_equal(slinky_conf_get(c, "SlurmctldParameters"), "foo#bar");
    assert_string_equal(slinky_conf_get(c, "SchedulerParameters"), "bf_interval=15,max_rpc_cnt=5");
    assert_string_equal(slinky_conf_get(c, "CommunicationParameters"), "NoInAddrAny,NoCtldInAddrAny");
    /* SlurmctldHost is multi-valued: first is the primary */
    assert_string_equal(slinky_conf_get(c, "SlurmctldHost"), "localhost");
    assert_int_equal(slinky_conf_get_count(c, "SlurmctldHost"), 2);
    assert_string_equal(slinky_conf_get_at(c, "SlurmctldHost", 1), "backup1(127.0.0.2)");
    /* includes: %c, nested and relative to the including file */
    assert_string_equal(slinky_conf_get(c, "MinJobAge"), "2");
    assert_string_equal(slinky_conf_get(c, "MessageTimeout"), "25");
    assert_null(slinky_conf_get(c, "NoSuchKey"));
    /* a warning for the repeated KillWait, with position */
    int found = 0;
    for (size_t i = 0; i < slinky_conf_warning_count(c); i++)
        found |= strstr(slinky_conf_warning_at(c, i), "KillWait specified more than once") != NULL &&
                 strstr(slinky_conf_warning_at(c, i), ":10:1:") != NULL;
    assert_true(found);
    slinky_conf_free(c);
}

static void test_records_and_defaults(void **state)
{
    (void)state;
    slinky_conf *c = load("grammar.conf", SLINKY_CONF_KIND_SLURM);
    assert_int_equal(slinky_conf_record_count(c, "NodeName"), 3);
    assert_string_equal(slinky_conf_record_name_at(c, "nodename", 2), "node[001-003,010]");
    /* n7: first defaults; n8: later DEFAULT adds Features=f2, own RealMemory */
    assert_string_equal(slinky_conf_record_get(c, "NodeName", "n7", "Features"), "f1");
    assert_string_equal(slinky_conf_record_get(c, "NodeName", "n7", "RealMemory"), "500");
    assert_string_equal(slinky_conf_record_get(c, "NodeName", "n8", "Features"), "f2");
    assert_string_equal(slinky_conf_record_get(c, "NodeName", "n8", "RealMemory"), "300");
    assert_string_equal(slinky_conf_record_get(c, "NodeName", "n8", "CPUs"), "1");
    assert_string_equal(slinky_conf_record_get(c, "NodeName", "n8", "Reason"), "a b");
    /* a host inside a hostlist record */
    assert_string_equal(slinky_conf_record_get(c, "NodeName", "node010", "State"), "FUTURE");
    assert_null(slinky_conf_record_get(c, "NodeName", "node004", "State"));
    /* partitions: p2 60, p3 own 10, p4 the later default 30; all UP */
    assert_string_equal(slinky_conf_record_get(c, "PartitionName", "p2", "MaxTime"), "60");
    assert_string_equal(slinky_conf_record_get(c, "PartitionName", "p3", "MaxTime"), "10");
    assert_string_equal(slinky_conf_record_get(c, "PartitionName", "p4", "MaxTime"), "30");
    assert_string_equal(slinky_conf_record_get(c, "PartitionName", "p4", "State"), "UP");
    assert_int_equal(slinky_conf_record_count(c, "PartitionName"), 3);
    assert_int_equal(slinky_conf_record_count(c, "NodeSet"), 1);
    assert_int_equal(slinky_conf_record_count(c, "DownNodes"), 1);
    slinky_conf_free(c);
}

static void test_line_types(void **state)
{
    (void)state;
    slinky_conf *c = load("grammar.conf", SLINKY_CONF_KIND_SLURM);
    assert_int_equal(slinky_conf_line_type_at(c, 0), SLINKY_CONF_LINE_COMMENT);
    assert_int_equal(slinky_conf_line_type_at(c, 1), SLINKY_CONF_LINE_PAIR);
    /* the continued SchedulerParameters is one logical line of two physical lines */
    assert_string_equal(slinky_conf_line_text_at(c, 7),
                        "SchedulerParameters=bf_interval=15,\\\nmax_rpc_cnt=5\n");
    assert_int_equal(slinky_conf_line_type_at(c, 10), SLINKY_CONF_LINE_BLANK);
    assert_int_equal(slinky_conf_line_type_at(c, 11), SLINKY_CONF_LINE_RECORD);
    size_t n = slinky_conf_line_count(c);
    assert_int_equal(slinky_conf_line_type_at(c, n - 1), SLINKY_CONF_LINE_INCLUDE);
    slinky_conf_free(c);
    c = load("plugstack.conf", SLINKY_CONF_KIND_PLUGSTACK);
    assert_int_equal(slinky_conf_line_type_at(c, 1), SLINKY_CONF_LINE_DIRECTIVE);
    slinky_conf_free(c);
    c = load("gres.conf", SLINKY_CONF_KIND_GRES);
    assert_int_equal(slinky_conf_line_type_at(c, 2), SLINKY_CONF_LINE_RECORD);
    assert_int_equal(slinky_conf_line_type_at(c, 1), SLINKY_CONF_LINE_PAIR);
    assert_string_equal(slinky_conf_get(c, "AutoDetect"), "off");
    assert_null(slinky_conf_get(c, "File")); /* per-node/per-gres lines are not globals */
    slinky_conf_free(c);
    /* several global pairs on one job_container.conf line */
    c = load("job_container.conf", SLINKY_CONF_KIND_JOB_CONTAINER);
    assert_string_equal(slinky_conf_get(c, "BasePath"), "/var/nvme/storage");
    assert_string_equal(slinky_conf_get(c, "autobasepath"), "true");
    assert_null(slinky_conf_get(c, "Dirs"));
    slinky_conf_free(c);
}

static size_t count_lines(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* Compare two texts line by line: how many lines differ (same line count required). */
static size_t changed_lines(const char *a, const char *b)
{
    size_t diff = 0;
    assert_int_equal(count_lines(a), count_lines(b));
    while (*a || *b) {
        const char *ea = strchr(a, '\n'), *eb = strchr(b, '\n');
        size_t la = ea ? (size_t)(ea - a) : strlen(a), lb = eb ? (size_t)(eb - b) : strlen(b);
        diff += la != lb || memcmp(a, b, la) != 0;
        a += la + (ea ? 1 : 0);
        b += lb + (eb ? 1 : 0);
    }
    return diff;
}

static void test_set_changes_one_line(void **state)
{
    (void)state;
    slinky_conf *c = load("grammar.conf", SLINKY_CONF_KIND_SLURM);
    char *before = NULL, *after = NULL;
    assert_int_equal(slinky_conf_render(&before, NULL, c), 0);
    /* the last KillWait line is rewritten; the first (with its comment) stays */
    assert_int_equal(slinky_conf_set(c, "killwait", "45"), 0);
    assert_int_equal(slinky_conf_render(&after, NULL, c), 0);
    assert_int_equal(changed_lines(before, after), 1);
    assert_non_null(strstr(after, "\nKillWait=45\n"));
    assert_non_null(strstr(after, "  killwait = 77    # keys"));
    assert_string_equal(slinky_conf_get(c, "KillWait"), "45");
    slinky_free(after);
    /* a line with a trailing comment keeps it */
    assert_int_equal(slinky_conf_set(c, "CommunicationParameters", "NoInAddrAny"), 0);
    assert_int_equal(slinky_conf_render(&after, NULL, c), 0);
    assert_non_null(strstr(after, "\nCommunicationParameters=NoInAddrAny\t# tab before comment\n"));
    assert_int_equal(changed_lines(before, after), 2);
    slinky_free(after);
    /* editing the same line again keeps its comment (also after a quoted value) */
    assert_int_equal(slinky_conf_set(c, "CommunicationParameters", "a b"), 0);
    assert_int_equal(slinky_conf_set(c, "CommunicationParameters", "NoCtldInAddrAny"), 0);
    assert_int_equal(slinky_conf_render(&after, NULL, c), 0);
    assert_non_null(strstr(after, "\nCommunicationParameters=NoCtldInAddrAny\t# tab before comment\n"));
    assert_int_equal(changed_lines(before, after), 2);
    slinky_free(after);
    /* values that need quoting or escaping */
    assert_int_equal(slinky_conf_set(c, "MailProg", "/usr/bin/my mail#1"), 0);
    assert_int_equal(slinky_conf_render(&after, NULL, c), 0);
    assert_non_null(strstr(after, "\nMailProg=\"/usr/bin/my mail\\#1\"\n"));
    slinky_free(after);
    /* re-parse what we wrote: Slurm reads the same value back */
    assert_int_equal(slinky_conf_render(&after, NULL, c), 0);
    slinky_conf *c2 = NULL;
    slinky_conf_parse_options o = SLINKY_CONF_PARSE_OPTIONS_INIT;
    o.no_includes = true;
    assert_int_equal(slinky_conf_parse(&c2, after, strlen(after), "x.conf", &o), 0);
    assert_string_equal(slinky_conf_get(c2, "MailProg"), "/usr/bin/my mail#1");
    slinky_conf_free(c2);
    slinky_free(after);
    slinky_free(before);
    slinky_conf_free(c);
}

static void test_set_appends_and_continuation(void **state)
{
    (void)state;
    const char *text = "ClusterName=x\nSchedulerParameters=a,\\\nb # c\nMinJobAge=3";
    slinky_conf *c = NULL;
    assert_int_equal(slinky_conf_parse(&c, text, strlen(text), "t.conf", NULL), 0);
    /* a continued line becomes one line, the rest is untouched */
    assert_int_equal(slinky_conf_set(c, "SchedulerParameters", "x,y"), 0);
    char *out = NULL;
    assert_int_equal(slinky_conf_render(&out, NULL, c), 0);
    assert_string_equal(out, "ClusterName=x\nSchedulerParameters=x,y # c\nMinJobAge=3");
    slinky_free(out);
    /* appending to a file without a final newline */
    assert_int_equal(slinky_conf_set(c, "AccountingStorageEnforce", "associations,limits,qos"), 0);
    assert_int_equal(slinky_conf_render(&out, NULL, c), 0);
    assert_string_equal(out, "ClusterName=x\nSchedulerParameters=x,y # c\nMinJobAge=3\n"
                             "AccountingStorageEnforce=associations,limits,qos\n");
    slinky_free(out);
    /* a file that ends in a continuation: the appended line must stay a line of its own */
    slinky_conf *c3 = NULL;
    const char *cont = "ClusterName=x\nMinJobAge=3\\";
    assert_int_equal(slinky_conf_parse(&c3, cont, strlen(cont), "t.conf", NULL), 0);
    assert_int_equal(slinky_conf_set(c3, "KillWait", "9"), 0);
    assert_int_equal(slinky_conf_render(&out, NULL, c3), 0);
    assert_string_equal(out, "ClusterName=x\nMinJobAge=3\\\n\nKillWait=9\n");
    slinky_conf_free(c3);
    c3 = NULL;
    assert_int_equal(slinky_conf_parse(&c3, out, strlen(out), "t.conf", NULL), 0);
    assert_string_equal(slinky_conf_get(c3, "KillWait"), "9");
    assert_string_equal(slinky_conf_get(c3, "MinJobAge"), "3");
    slinky_conf_free(c3);
    slinky_free(out);
    /* bad edits leave the tree unchanged */
    assert_int_equal(slinky_conf_set(c, "KillWait", ""), SLINKY_EINVALID);
    assert_int_equal(slinky_conf_set(c, "NodeName", "n1"), SLINKY_EINVALID);
    assert_int_equal(slinky_conf_set(c, "Bad Key", "1"), SLINKY_EINVALID);
    assert_int_equal(slinky_conf_set(c, "Reason", "a\"b"), SLINKY_EINVALID);
    assert_int_equal(slinky_conf_unset(c, "MinJobAge"), 0);
    assert_int_equal(slinky_conf_unset(c, "MinJobAge"), SLINKY_ENOTFOUND);
    assert_null(slinky_conf_get(c, "MinJobAge"));
    slinky_conf_free(c);
}

static void test_record_set(void **state)
{
    (void)state;
    slinky_conf *c = load("grammar.conf", SLINKY_CONF_KIND_SLURM);
    char *before = NULL, *after = NULL;
    assert_int_equal(slinky_conf_render(&before, NULL, c), 0);
    assert_int_equal(slinky_conf_record_set(c, "partitionname", "p3", "MaxTime", "20"), 0);
    assert_int_equal(slinky_conf_record_set(c, "PartitionName", "p3", "Hidden", "YES"), 0);
    assert_int_equal(slinky_conf_record_set(c, "NodeName", "n8", "Reason", "new reason"), 0);
    assert_int_equal(slinky_conf_render(&after, NULL, c), 0);
    assert_int_equal(changed_lines(before, after), 2);
    assert_non_null(strstr(after, "\nPartitionName=p3 Nodes=ns MaxTime=20 Hidden=YES\n"));
    assert_non_null(strstr(after, "\nNodeName=n8 NodeAddr=127.0.0.1 RealMemory=300 Reason=\"new reason\"\n"));
    assert_string_equal(slinky_conf_record_get(c, "PartitionName", "p3", "MaxTime"), "20");
    assert_string_equal(slinky_conf_record_get(c, "NodeName", "n8", "Reason"), "new reason");
    assert_string_equal(slinky_conf_record_get(c, "NodeName", "n8", "Features"), "f2");
    assert_int_equal(slinky_conf_record_set(c, "PartitionName", "nosuch", "MaxTime", "1"), SLINKY_ENOTFOUND);
    assert_int_equal(slinky_conf_record_set(c, "PartitionName", "p3", "PartitionName", "x"), SLINKY_EINVALID);
    assert_int_equal(slinky_conf_record_set(c, "Bogus", "p3", "MaxTime", "1"), SLINKY_EINVALID);
    assert_int_equal(slinky_conf_record_set(c, "PartitionName", "p3", "MaxTime", ""), SLINKY_EINVALID);
    slinky_free(after);
    slinky_free(before);
    slinky_conf_free(c);
}

/* set() makes its value the effective one, also when an Include after the line sets it again. */
static void test_set_before_include(void **state)
{
    (void)state;
    char dir[] = "/tmp/slinky-conf-inc.XXXXXX", p[256];
    assert_non_null(mkdtemp(dir));
    snprintf(p, sizeof(p), "%s/extra.conf", dir);
    assert_int_equal(slinky__write_file_atomic(p, "KillWait=2\n", 11, 0644), 0);
    const char *text = "KillWait=1\nInclude extra.conf\n";
    slinky_conf_parse_options o = SLINKY_CONF_PARSE_OPTIONS_INIT;
    o.include_dir = dir;
    slinky_conf *c = NULL;
    assert_int_equal(slinky_conf_parse(&c, text, strlen(text), "top.conf", &o), 0);
    assert_string_equal(slinky_conf_get(c, "KillWait"), "2");
    assert_int_equal(slinky_conf_set(c, "KillWait", "3"), 0);
    assert_string_equal(slinky_conf_get(c, "KillWait"), "3");
    char *out = NULL;
    assert_int_equal(slinky_conf_render(&out, NULL, c), 0);
    assert_string_equal(out, "KillWait=3\nInclude extra.conf\nKillWait=3\n");
    slinky_free(out);
    slinky_conf_free(c);
    /* several global pairs on one line (job_container.conf): that pair is edited */
    const char *jc = "AutoBasePath=true BasePath=/a # c\nNodeName=n1 BasePath=/b\n";
    o = (slinky_conf_parse_options)SLINKY_CONF_PARSE_OPTIONS_INIT;
    o.kind = SLINKY_CONF_KIND_JOB_CONTAINER;
    assert_int_equal(slinky_conf_parse(&c, jc, strlen(jc), "job_container.conf", &o), 0);
    assert_int_equal(slinky_conf_set(c, "BasePath", "/x"), 0);
    assert_int_equal(slinky_conf_render(&out, NULL, c), 0);
    assert_string_equal(out, "AutoBasePath=true BasePath=/x # c\nNodeName=n1 BasePath=/b\n");
    slinky_free(out);
    slinky_conf_free(c);
    unlink(p);
    rmdir(dir);
}

static void expect_parse_error(const char *text, int line, int col, const char *msg)
{
    slinky_conf *c = NULL;
    slinky_conf_parse_options o = SLINKY_CONF_PARSE_OPTIONS_INIT;
    o.no_includes = true;
    int rc = slinky_conf_parse(&c, text, strlen(text), "x.conf", &o);
    if (rc != SLINKY_EPARSE)
        fail_msg("expected a parse error for [%s], got %d", text, rc);
    assert_null(c);
    const slinky_error *e = slinky_error_last();
    if (!strstr(e->message, msg) || e->line != line || e->column != col)
        fail_msg("for [%s]: got line %d col %d \"%s\", want %d:%d \"%s\"", text, e->line,
                 e->column, e->message, line, col, msg);
    assert_non_null(strstr(e->message, "x.conf"));
}

static void test_parse_errors(void **state)
{
    (void)state;
    /* the messages slurmctld prints (notes section 7) */
    expect_parse_error("ClusterName=x\nKillWait=\n", 2, 1,
                       "Parse error in file x.conf line 2: \"KillWait=\"");
    expect_parse_error("MessageTimeout=25 TCPTimeout=7\n", 1, 18,
                       "Parse error in file x.conf line 1: \" TCPTimeout=7\"");
    expect_parse_error("a=1\nFooBar\n", 2, 1, "Parsing error at unrecognized key: FooBar");
    expect_parse_error("Reason=\"unterminated\n", 1, 8, "Parse error in file x.conf line 1");
    expect_parse_error("NodeName=n1 CPUs\n", 1, 13, "Parse error in file x.conf line 1: \"CPUs\"");
    /* a NUL byte (fuzz_conf: a value holding one broke the pair storage's bookkeeping) */
    static const char nul[] = "ClusterName=x\nNodeName=gpu Type=a\0b Gres=x\n";
    slinky_conf *c = NULL;
    assert_int_equal(slinky_conf_parse(&c, nul, sizeof(nul) - 1, "x.conf", NULL), SLINKY_EPARSE);
    assert_null(c);
    assert_int_equal(slinky_error_last()->line, 2);
    assert_int_equal(slinky_error_last()->column, 20);
    assert_non_null(strstr(slinky_error_last()->message, "NUL"));
}

static void test_include_missing(void **state)
{
    (void)state;
    const char *text = "ClusterName=x\nInclude nosuch_%c.conf\n";
    slinky_conf *c = NULL;
    char *dir = data_path("");
    slinky_conf_parse_options o = SLINKY_CONF_PARSE_OPTIONS_INIT;
    o.include_dir = dir;
    assert_int_equal(slinky_conf_parse(&c, text, strlen(text), "mem.conf", &o), SLINKY_ENOTFOUND);
    assert_non_null(strstr(slinky_error_last()->message, "nosuch_x.conf"));
    assert_int_equal(slinky_error_last()->line, 2);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_own_files),
        cmocka_unit_test(test_round_trip_debian_examples),
        cmocka_unit_test(test_grammar_values),
        cmocka_unit_test(test_records_and_defaults),
        cmocka_unit_test(test_line_types),
        cmocka_unit_test(test_set_changes_one_line),
        cmocka_unit_test(test_set_appends_and_continuation),
        cmocka_unit_test(test_record_set),
        cmocka_unit_test(test_set_before_include),
        cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_include_missing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
