#!/usr/bin/env python3
"""Generate the Slurm 22.05 key catalogue (catalog_2205.c) from the installed man pages.

Usage: gen_catalog.py OUT.c [MANDIR]   (MANDIR defaults to /usr/share/man/man5)

For each man page (slurm.conf, cgroup.conf, gres.conf, slurmdbd.conf) every
parameter is a roff block ".TP" followed by a line "\\fBName\\fR...".  Blocks are
nested with .RS/.RE; depth 0 blocks are parameters, deeper blocks are options of
the enclosing parameter.  The .SH section decides the record type a key belongs
to (PARAMETERS = global, NODE CONFIGURATION = NodeName, ...).

A parameter (or option) needs a restart when its text uses one of the man page's
restart phrasings (see ../shared/notes/real-slurm-on-loopback.md section 10).  The
sentence decides who must restart: all daemons, slurmctld and slurmd, slurmd, or
slurmctld.  The output is deterministic (sorted) so that the committed file can be
regenerated and compared.
"""
import gzip
import os
import re
import sys

SECTIONS = {
    "PARAMETERS": "global",
    "NODE CONFIGURATION": "NodeName",
    "DOWN NODE CONFIGURATION": "DownNodes",
    "FRONTEND NODE CONFIGURATION": "FrontendName",
    "NODESET CONFIGURATION": "NodeSet",
    "PARTITION CONFIGURATION": "PartitionName",
}
NAME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
RESTART_RE = re.compile(
    r"restart of (the )?(slurmctld|slurmd)[^.]*?is required"
    r"|(?<!rather than )restarting (both )?the slurmctld"
    r"|must be restarted|must be terminated prior to changing", re.I)


def roff_clean(s):
    s = re.sub(r"\\f[BIRP]", "", s).replace("\\-", "-")
    return re.sub(r"\\\(..|\\&|\\e", "", s)


def who_restarts(sentence):
    if re.search(r"All Slurm daemons|must be terminated", sentence):
        return "SLINKY_CONF_CLASS_RESTART_ALL"
    if re.search(r"slurmctld (daemon )?and (the |both )?slurmd", sentence):
        return "SLINKY_CONF_CLASS_RESTART_ALL"
    if re.search(r"restart of the slurmd", sentence):
        return "SLINKY_CONF_CLASS_RESTART_ALL"
    return "SLINKY_CONF_CLASS_RESTART_SLURMCTLD"


def blocks(text):
    """Yield (section, path, body) for every .TP block; path = [param, option...]."""
    lines = text.splitlines()
    section, depth, stack, cur = None, 0, [], None
    out = []
    i = 0
    while i < len(lines):
        l = lines[i]
        if l.startswith(".SH"):
            section = roff_clean(l[3:]).strip().strip('"')
            depth, stack = 0, []
            cur = (section, ["(intro)"], [])
            out.append(cur)
        elif l.startswith(".RS"):
            depth += 1
        elif l.startswith(".RE"):
            depth = max(0, depth - 1)
        elif l.startswith(".TP") and i + 1 < len(lines) and lines[i + 1].startswith("\\fB"):
            head = roff_clean(lines[i + 1]).strip()
            name = re.split(r"[\s=:,\[]", head, 1)[0]
            stack = stack[:depth] + [name]
            cur = (section, list(stack), [])
            out.append(cur)
            i += 2
            continue
        elif cur is not None and not l.startswith("."):
            cur[2].append(roff_clean(l))
        i += 1
    return out


def restart_hits(body):
    t = re.sub(r"\s+", " ", " ".join(body)).replace("e.g. ", "e.g.\u00a0")
    for m in RESTART_RE.finditer(t):
        s = t.rfind(". ", 0, m.start())
        s = 0 if s < 0 else s + 2
        e = t.find(". ", m.end())
        e = len(t) if e < 0 else e + 1
        yield t[s:e].strip()


def cstr(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def main():
    out = sys.argv[1]
    mandir = sys.argv[2] if len(sys.argv) > 2 else "/usr/share/man/man5"
    keys = {}      # (file, scope, lower) -> [file, scope, name]
    restarts = {}  # (file, scope, lower, option_lower) -> [name, option, class, sentence]
    for fname, kind in (("slurm.conf", "SLINKY_CONF_KIND_SLURM"),
                        ("cgroup.conf", "SLINKY_CONF_KIND_CGROUP"),
                        ("gres.conf", "SLINKY_CONF_KIND_GRES"),
                        ("slurmdbd.conf", "SLINKY_CONF_KIND_SLURMDBD")):
        path = os.path.join(mandir, fname + ".5.gz")
        with gzip.open(path, "rt", errors="replace") as f:
            text = f.read()
        for section, path_, body in blocks(text):
            if fname == "slurm.conf":
                scope = SECTIONS.get(section)
            else:
                scope = "global" if section in ("PARAMETERS", "DESCRIPTION") else None
            if scope is None or path_ == ["(intro)"]:
                if fname == "slurm.conf" and section == "NODE CONFIGURATION" and path_ == ["(intro)"]:
                    for sent in restart_hits(body):
                        restarts[(kind, "NodeName", "*", "")] = ["*", "", "SLINKY_CONF_CLASS_RESTART_ALL", sent]
                continue
            name = path_[0]
            if not NAME_RE.match(name):
                continue
            keys.setdefault((kind, scope, name.lower()), [kind, scope, name])
            for sent in restart_hits(body):
                opt = path_[1] if len(path_) > 1 else ""
                if opt and not NAME_RE.match(opt):
                    opt = ""
                k = (kind, scope, name.lower(), opt.lower())
                if k not in restarts:
                    restarts[k] = [name, opt, who_restarts(sent), sent]
    with open(out, "w") as f:
        f.write("/* GENERATED by gen_catalog.py from the installed Slurm 22.05 man pages\n"
                " * (slurm.conf.5, cgroup.conf.5, gres.conf.5, slurmdbd.conf.5). Do not edit:\n"
                " * run `python3 libslinky/conf/gen_catalog.py libslinky/conf/catalog_2205.c`. */\n")
        f.write('#include "conf/catalog.h"\n\n')
        f.write("const slinky_conf__key slinky_conf__keys_2205[] = {\n")
        order = {"SLINKY_CONF_KIND_SLURM": 0, "SLINKY_CONF_KIND_CGROUP": 1,
                 "SLINKY_CONF_KIND_GRES": 2, "SLINKY_CONF_KIND_SLURMDBD": 3}
        # sorted as the C lookup compares: kind number, scope (strcmp), name (strcasecmp)
        for k in sorted(keys, key=lambda k: (order[k[0]], k[1], k[2])):
            kind, scope, name = keys[k]
            f.write("    {%s, %s, %s},\n" % (kind, cstr(scope), cstr(name)))
        f.write("};\nconst size_t slinky_conf__keys_2205_count = sizeof(slinky_conf__keys_2205) / sizeof(slinky_conf__keys_2205[0]);\n\n")
        f.write("const slinky_conf__restart slinky_conf__restarts_2205[] = {\n")
        for k in sorted(restarts):
            name, opt, cls, sent = restarts[k]
            f.write("    {%s, %s, %s, %s, %s,\n     %s},\n" % (k[0], cstr(k[1]), cstr(name), cstr(opt), cls, cstr(sent)))
        f.write("};\nconst size_t slinky_conf__restarts_2205_count = sizeof(slinky_conf__restarts_2205) / sizeof(slinky_conf__restarts_2205[0]);\n")


if __name__ == "__main__":
    main()
