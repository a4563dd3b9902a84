#!/usr/bin/python3
"""Generate the model module's C tables, typed accessors and CRD manifests
from the one schema source (slinky.schema, notation described at its top).

usage: gen_model.py SCHEMA OUTDIR
writes OUTDIR/libslinky/model/model_schema.c, OUTDIR/libslinky/model/model_fields.c,
OUTDIR/include/slinky/model_fields.h and OUTDIR/share/libslinky/crds/*.yaml.
Standard library only (Debian's /usr/bin/python3).
"""
import json
import os
import re
import shlex
import sys

SCALARS = ("string", "integer", "boolean", "intstr")
TYPES = ("object", "array", "string", "integer", "boolean", "intstr", "any")
NODE_ATTRS = ("default", "enum", "format", "pattern", "min", "max", "minLength", "maxLength",
              "required", "nullable", "preserve", "atomic", "list", "listKeys", "materialize",
              "desc")


class Fail(Exception):
    pass


class Node:
    def __init__(self, name, typ):
        self.name = name
        self.type = typ
        self.attrs = {}
        self.props = []      # list of Node, in source order
        self.items = None    # Node
        self.addl = None     # Node
        self.rules = []      # (id, message, cel)

    def clone(self, name):
        n = Node(name, self.type)
        n.attrs = dict(self.attrs)
        n.props = [p.clone(p.name) for p in self.props]
        n.items = self.items.clone("[]") if self.items else None
        n.addl = self.addl.clone("{}") if self.addl else None
        n.rules = list(self.rules)
        return n

    def add_child(self, child, where):
        if child.name == "[]":
            if self.type != "array":
                raise Fail("%s: [] under a non-array" % where)
            self.items = child
        elif child.name == "{}":
            self.addl = child
        else:
            for i, p in enumerate(self.props):
                if p.name == child.name:
                    raise Fail("%s: duplicate property %s" % (where, child.name))
            self.props.append(child)


class Kind:
    def __init__(self, name, attrs):
        self.name = name
        self.attrs = attrs
        self.columns = []
        self.scale = None
        self.root = Node("", "object")
        self.root.props = [Node("apiVersion", "string"), Node("kind", "string"),
                           Node("metadata", "object")]


def parse_attrs(tokens, consts, where):
    attrs = {}
    for t in tokens:
        if "=" in t:
            k, v = t.split("=", 1)
        else:
            k, v = t, True
        if isinstance(v, str) and v.startswith("$"):
            if v[1:] not in consts:
                raise Fail("%s: unknown constant %s" % (where, v))
            v = consts[v[1:]]
        attrs[k] = v
    return attrs


def parse(path):
    consts, defs, kinds = {}, {}, []
    stack = []  # (indent, Node or Kind)
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for lineno, raw in enumerate(lines, 1):
        where = "%s:%d" % (os.path.basename(path), lineno)
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        indent = len(raw) - len(raw.lstrip(" "))
        if indent % 2:
            raise Fail("%s: odd indentation" % where)
        try:
            tok = shlex.split(raw.strip())
        except ValueError as e:
            raise Fail("%s: %s" % (where, e))
        if indent == 0:
            stack = []
            if tok[0] == "const":
                consts[tok[1]] = tok[2]
            elif tok[0] == "def":
                n = make_node(tok[1], tok[2], tok[3:], consts, defs, where)
                defs[tok[1]] = n
                stack = [(0, n)]
            elif tok[0] == "kind":
                k = Kind(tok[1], parse_attrs(tok[2:], consts, where))
                if "desc" in k.attrs:
                    k.root.attrs["desc"] = k.attrs.pop("desc")
                kinds.append(k)
                stack = [(0, k)]
            else:
                raise Fail("%s: unknown directive %s" % (where, tok[0]))
            continue
        while stack and stack[-1][0] >= indent:
            stack.pop()
        if not stack or stack[-1][0] != indent - 2:
            raise Fail("%s: bad indentation" % where)
        parent = stack[-1][1]
        if tok[0] == "%column":
            a = parse_attrs(tok[4:], consts, where)
            col = {"name": tok[1], "type": tok[2], "jsonPath": tok[3]}
            if "priority" in a:
                col["priority"] = int(a["priority"])
            if "desc" in a:
                col["description"] = a["desc"]
            parent.columns.append(col)
            continue
        if tok[0] == "%scale":
            parent.scale = {"specReplicasPath": tok[1], "statusReplicasPath": tok[2],
                            "labelSelectorPath": tok[3]}
            continue
        if tok[0] == "%rule":
            target = parent.root if isinstance(parent, Kind) else parent
            if not re.match(r"^[a-z0-9_]+$", tok[1]):
                raise Fail("%s: bad rule id" % where)
            target.rules.append((tok[1], tok[2], tok[3]))
            continue
        n = make_node(tok[0], tok[1], tok[2:], consts, defs, where)
        target = parent.root if isinstance(parent, Kind) else parent
        target.add_child(n, where)
        stack.append((indent, n))
    return defs, kinds


def make_node(name, typ, rest, consts, defs, where):
    attrs = parse_attrs(rest, consts, where)
    for k in attrs:
        if k not in NODE_ATTRS:
            raise Fail("%s: unknown attribute %s" % (where, k))
    if typ.startswith("@"):
        if typ[1:] not in defs:
            raise Fail("%s: unknown type %s" % (where, typ))
        n = defs[typ[1:]].clone(name)
        n.attrs.update(attrs)
        return n
    if typ not in TYPES:
        raise Fail("%s: unknown type %s" % (where, typ))
    n = Node(name, typ)
    n.attrs = attrs
    return n


def default_value(text):
    try:
        return json.loads(text)
    except ValueError:
        return text


# ------------------------------------------------------------------ CRD output

def schema_of(n):
    s = {}
    a = n.attrs
    if n.type == "intstr":
        s["anyOf"] = [{"type": "integer"}, {"type": "string"}]
        s["x-kubernetes-int-or-string"] = True
    elif n.type != "any":
        s["type"] = n.type
    if n.props:
        s["properties"] = {p.name: schema_of(p) for p in n.props}
    if n.items:
        s["items"] = schema_of(n.items)
    if n.addl:
        s["additionalProperties"] = schema_of(n.addl)
    if "required" in a:
        s["required"] = a["required"].split(",")
    if "default" in a:
        s["default"] = default_value(a["default"])
    if "enum" in a:
        s["enum"] = a["enum"].split("|")
    for k in ("format", "pattern"):
        if k in a:
            s[k] = a[k]
    if "min" in a:
        s["minimum"] = int(a["min"])
    if "max" in a:
        s["maximum"] = int(a["max"])
    if "minLength" in a:
        s["minLength"] = int(a["minLength"])
    if "maxLength" in a:
        s["maxLength"] = int(a["maxLength"])
    if a.get("nullable"):
        s["nullable"] = True
    if a.get("preserve"):
        s["x-kubernetes-preserve-unknown-fields"] = True
    if a.get("atomic"):
        s["x-kubernetes-map-type"] = "atomic"
    if "list" in a:
        s["x-kubernetes-list-type"] = a["list"]
    if "listKeys" in a:
        s["x-kubernetes-list-map-keys"] = a["listKeys"].split(",")
    if "desc" in a:
        s["description"] = a["desc"]
    if n.rules:
        s["x-kubernetes-validations"] = [{"message": m, "rule": r} for (_, m, r) in n.rules]
    return s


def crd_of(k):
    group = k.attrs.get("group", "slinky.slurm.net")
    version = k.attrs.get("version", "v1beta1")
    plural = k.attrs["plural"]
    names = {"kind": k.name, "listKind": k.name + "List", "plural": plural,
             "singular": k.attrs["singular"]}
    if "short" in k.attrs:
        names["shortNames"] = k.attrs["short"].split(",")
    sub = {}
    if k.attrs.get("status"):
        sub["status"] = {}
    if k.scale:
        sub["scale"] = dict(k.scale)
    ver = {"name": version, "served": True, "storage": True,
           "schema": {"openAPIV3Schema": schema_of(k.root)}}
    if k.columns:
        ver["additionalPrinterColumns"] = k.columns
    if sub:
        ver["subresources"] = sub
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "%s.%s" % (plural, group),
                         "annotations": {"libslinky.io/generated-from": "libslinky/model/schema/slinky.schema"}},
            "spec": {"group": group, "names": names, "scope": "Namespaced", "versions": [ver]}}


PLAIN_OK = re.compile(r"^[A-Za-z0-9_./][A-Za-z0-9_./ ()=<>|&^$+%,-]*$")
YAML_SPECIAL = re.compile(r"^(true|false|yes|no|on|off|y|n|null|~|[-+]?[0-9].*|\.inf|\.nan)$",
                          re.IGNORECASE)


def yscalar(v):
    if v is True:
        return "true"
    if v is False:
        return "false"
    if v is None:
        return "null"
    if isinstance(v, int):
        return str(v)
    s = str(v)
    if (not s or not PLAIN_OK.match(s) or YAML_SPECIAL.match(s) or s.endswith(" ")
            or ": " in s or " #" in s):
        return json.dumps(s)
    return s


def yemit(v, indent, out):
    pad = "  " * indent
    if isinstance(v, dict):
        for key in sorted(v):
            val = v[key]
            if isinstance(val, dict) and val:
                out.append("%s%s:" % (pad, key))
                yemit(val, indent + 1, out)
            elif isinstance(val, list) and val:
                out.append("%s%s:" % (pad, key))
                yemit(val, indent, out)
            else:
                out.append("%s%s: %s" % (pad, key, "{}" if val == {} else
                                         "[]" if val == [] else yscalar(val)))
    elif isinstance(v, list):
        for item in v:
            if isinstance(item, dict) and item:
                sub = []
                yemit(item, indent + 1, sub)
                first = sub[0][len(pad) + 2:]
                out.append("%s- %s" % (pad, first))
                out.extend(sub[1:])
            else:
                out.append("%s- %s" % (pad, yscalar(item)))


def to_yaml(doc):
    out = ["---"]
    yemit(doc, 0, out)
    return "\n".join(out) + "\n"


# ------------------------------------------------------------------ C output

def cstr(s):
    if s is None:
        return "NULL"
    r = ['"']
    for ch in s:
        o = ord(ch)
        if ch == '"':
            r.append('\\"')
        elif ch == "\\":
            r.append("\\\\")
        elif ch == "\n":
            r.append("\\n")
        elif ch == "?":
            r.append("\\?")  # no trigraphs
        elif 32 <= o < 127:
            r.append(ch)
        else:
            for b in ch.encode("utf-8"):
                r.append("\\%03o" % b)
    r.append('"')
    return "".join(r)


def snake(name):
    s = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name)
    s = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", s)
    return s.lower()


CTYPE = {"object": "SLINKY_MODEL__T_OBJECT", "array": "SLINKY_MODEL__T_ARRAY",
         "string": "SLINKY_MODEL__T_STRING", "integer": "SLINKY_MODEL__T_INTEGER",
         "boolean": "SLINKY_MODEL__T_BOOLEAN", "intstr": "SLINKY_MODEL__T_INTSTR",
         "any": "SLINKY_MODEL__T_ANY"}


def kind_enum(k):
    return "SLINKY_MODEL_KIND_" + k.name.upper()


def kind_prefix(k):
    return k.name.lower()


def flatten(kinds):
    """BFS over every kind's root: children of a node are contiguous."""
    flat, rules = [], []
    for k in kinds:
        root = k.root
        k.root_index = len(flat)
        root.path = ""
        queue = [root]
        flat.append(root)
        while queue:
            n = queue.pop(0)
            kids = []
            for p in n.props:
                p.path = (n.path + "." if n.path else "") + p.name
                kids.append(p)
            if n.items:
                n.items.path = n.path + "[]"
                kids.append(n.items)
            if n.addl:
                n.addl.path = n.path + ".{}"
                kids.append(n.addl)
            n.first_child = len(flat) if kids else -1
            n.n_children = len(kids)
            flat.extend(kids)
            queue.extend(kids)
            n.first_rule = len(rules) if n.rules else -1
            for r in n.rules:
                rules.append(r)
        k.flat_end = len(flat)
    idx = {id(n): i for i, n in enumerate(flat)}
    return flat, rules, idx


def gen_schema_c(kinds, flat, rules, idx, crd_texts):
    o = ["/* Generated by libslinky/model/schema/gen_model.py from slinky.schema. Do not edit. */",
         '#include "model/internal.h"', ""]
    # string lists
    lists = {}

    def strlist(values):
        key = tuple(values)
        if key not in lists:
            name = "sl_%d" % len(lists)
            lists[key] = name
            o.append("static const char *const %s[] = {%s, NULL};" %
                     (name, ", ".join(cstr(v) for v in values)))
        return lists[key]

    rows = []
    for i, n in enumerate(flat):
        a = n.attrs
        flags = []
        for attr, fl in (("nullable", "NULLABLE"), ("preserve", "PRESERVE"), ("atomic", "ATOMIC"),
                         ("materialize", "MATERIALIZE")):
            if a.get(attr):
                flags.append("SLINKY_MODEL__F_" + fl)
        for attr, fl in (("min", "HAS_MIN"), ("max", "HAS_MAX"), ("minLength", "HAS_MIN_LEN"),
                         ("maxLength", "HAS_MAX_LEN")):
            if attr in a:
                flags.append("SLINKY_MODEL__F_" + fl)
        if a.get("list") == "map":
            flags.append("SLINKY_MODEL__F_LIST_MAP")
        enums = strlist(a["enum"].split("|")) if "enum" in a else "NULL"
        req = strlist(a["required"].split(",")) if "required" in a else "NULL"
        dflt = json.dumps(default_value(a["default"])) if "default" in a else None
        items = idx[id(n.items)] if n.items else -1
        addl = idx[id(n.addl)] if n.addl else -1
        rows.append("    {%s, %s, %s, %s, %s, %s, %s, %s, %s, %sLL, %sLL, %sLL, %sLL, %d, %d, %d, %d, %d, %d},"
                    % (cstr(n.name), cstr(n.path), CTYPE[n.type], " | ".join(flags) or "0",
                       cstr(a.get("format")), cstr(a.get("pattern")), cstr(dflt), enums, req,
                       a.get("min", 0), a.get("max", 0), a.get("minLength", 0),
                       a.get("maxLength", 0), n.first_child, n.n_children, items, addl,
                       n.first_rule, len(n.rules)))
    o.append("")
    o.append("const slinky_model__node slinky_model__nodes[] = {")
    o.extend(rows)
    o.append("};")
    o.append("const size_t slinky_model__n_nodes = %d;" % len(flat))
    o.append("")
    for rid in sorted(set(r[0] for r in rules)):
        o.append("int slinky_model__rule_%s(const slinky_doc_value *self);" % rid)
    o.append("")
    o.append("const slinky_model__rule slinky_model__rules[] = {")
    for (rid, msg, cel) in rules:
        o.append("    {%s, %s, %s, slinky_model__rule_%s}," % (cstr(rid), cstr(msg), cstr(cel), rid))
    o.append("    {NULL, NULL, NULL, NULL}")
    o.append("};")
    o.append("const size_t slinky_model__n_rules = %d;" % len(rules))
    o.append("")
    for k in kinds:
        if k.name in crd_texts:
            o.append("static const char crd_%s[] =" % kind_prefix(k))
            for line in crd_texts[k.name].split("\n")[:-1]:
                o.append("    %s" % cstr(line + "\n"))
            o.append("    ;")
    o.append("")
    kind_rows = []
    for k in kinds:
        builtin = bool(k.attrs.get("builtin"))
        group = "" if builtin else k.attrs.get("group", "slinky.slurm.net")
        version = k.attrs.get("version", "v1beta1")
        api = k.attrs["apiVersion"] if builtin else "%s/%s" % (group, version)
        shorts = strlist(k.attrs["short"].split(",")) if "short" in k.attrs else "NULL"
        crd = "NULL" if builtin else "crd_" + kind_prefix(k)
        fname = "NULL" if builtin else cstr("%s_%s.yaml" % (group, k.attrs["plural"]))
        kind_rows.append("    {%s, %s, %s, %s, %s, %s, %s, %s, %d, %d, %s, %s}," %
                 (kind_enum(k), cstr(k.name), cstr(api), cstr(k.attrs["plural"]),
                  cstr(k.attrs["singular"]), cstr(k.name + "List"), shorts,
                  "true" if k.attrs.get("status") else "false", k.root_index, k.flat_end, crd,
                  fname))
    o.append("const slinky_model__kind_info slinky_model__kinds[] = {")
    o.extend(kind_rows)
    o.append("};")
    o.append("const size_t slinky_model__n_kinds = %d;" % len(kinds))
    return "\n".join(o) + "\n"


class Acc:
    def __init__(self):
        self.h = []
        self.c = []
        self.names = set()

    def fn(self, k, doc, ret, name, params, body):
        full = "slinky_model_%s_%s" % (kind_prefix(k), name)
        if full in self.names:
            raise Fail("accessor name clash: " + full)
        self.names.add(full)
        self.h.append("/** %s */" % doc)
        self.h.append("SLINKY_API %s %s(%s);" % (ret, full, params))
        self.c.append("%s %s(%s)\n{\n    return %s;\n}\n" % (ret, full, params, body))


def describe(n):
    parts = [n.type if n.type != "intstr" else "int-or-string"]
    if "format" in n.attrs:
        parts.append(n.attrs["format"])
    if "default" in n.attrs:
        parts.append("default " + json.dumps(default_value(n.attrs["default"])))
    if "enum" in n.attrs:
        parts.append("one of " + n.attrs["enum"])
    text = ", ".join(parts)
    if "desc" in n.attrs:
        text += "; " + n.attrs["desc"].replace("*/", "* /")
    return text


def gen_accessors(kinds):
    acc = Acc()
    for k in kinds:
        T = "slinky_model_%s" % kind_prefix(k)
        K = kind_enum(k)
        cT = "const %s *o" % T

        def leaf(n, fname, path):
            p = cstr(path)
            d = "%s (%s)" % (path, describe(n))
            acc.fn(k, d + ": true when set (present and not null).", "bool", "has_" + fname, cT,
                   "slinky_model__k_has(o, %s, %s)" % (K, p))
            if n.type == "string":
                acc.fn(k, d + ". *out borrowed until o changes; ENOTFOUND when unset.",
                       "slinky_status", "get_" + fname, "const char **out, " + cT,
                       "slinky_model__k_get_string(out, o, %s, %s)" % (K, p))
                acc.fn(k, d + ": set (copied).", "slinky_status", "set_" + fname,
                       "%s *o, const char *value" % T,
                       "slinky_model__k_set_string(o, %s, %s, value)" % (K, p))
            elif n.type == "integer":
                acc.fn(k, d + ". ENOTFOUND when unset.", "slinky_status", "get_" + fname,
                       "int64_t *out, " + cT, "slinky_model__k_get_int(out, o, %s, %s)" % (K, p))
                acc.fn(k, d + ": set.", "slinky_status", "set_" + fname,
                       "%s *o, int64_t value" % T,
                       "slinky_model__k_set_int(o, %s, %s, value)" % (K, p))
            elif n.type == "boolean":
                acc.fn(k, d + ". ENOTFOUND when unset.", "slinky_status", "get_" + fname,
                       "bool *out, " + cT, "slinky_model__k_get_bool(out, o, %s, %s)" % (K, p))
                acc.fn(k, d + ": set.", "slinky_status", "set_" + fname,
                       "%s *o, bool value" % T,
                       "slinky_model__k_set_bool(o, %s, %s, value)" % (K, p))
            elif n.type == "intstr":
                acc.fn(k, d + ": the string form; ENOTFOUND when unset, EINVALID when it is an integer.",
                       "slinky_status", "get_%s_string" % fname, "const char **out, " + cT,
                       "slinky_model__k_get_string(out, o, %s, %s)" % (K, p))
                acc.fn(k, d + ": the integer form; ENOTFOUND when unset, EINVALID when it is a string.",
                       "slinky_status", "get_%s_int" % fname, "int64_t *out, " + cT,
                       "slinky_model__k_get_int(out, o, %s, %s)" % (K, p))
                acc.fn(k, d + ": set to a string such as \"25%\".", "slinky_status",
                       "set_%s_string" % fname, "%s *o, const char *value" % T,
                       "slinky_model__k_set_string(o, %s, %s, value)" % (K, p))
                acc.fn(k, d + ": set to an integer.", "slinky_status", "set_%s_int" % fname,
                       "%s *o, int64_t value" % T,
                       "slinky_model__k_set_int(o, %s, %s, value)" % (K, p))
            else:
                acc.fn(k, d + ": the value (borrowed until o changes); ENOTFOUND when unset.",
                       "slinky_status", "get_" + fname,
                       "const slinky_doc_value **out, " + cT,
                       "slinky_model__k_get_value(out, o, %s, %s)" % (K, p))
                acc.fn(k, d + ": replace by a deep copy of value.", "slinky_status",
                       "set_" + fname, "%s *o, const slinky_doc_value *value" % T,
                       "slinky_model__k_set_value(o, %s, %s, value)" % (K, p))
            if n.type == "array":
                acc.fn(k, path + ": number of elements (0 when unset).", "size_t",
                       "get_%s_count" % fname, cT, "slinky_model__k_count(o, %s, %s)" % (K, p))
                it = n.items
                if it and it.type == "string":
                    acc.fn(k, path + "[i]: element i; ENOTFOUND when out of range.",
                           "slinky_status", "get_%s_item" % fname,
                           "const char **out, %s, size_t i" % cT,
                           "slinky_model__k_get_item_string(out, o, %s, %s, i, NULL)" % (K, p))
                elif it and it.type == "object":
                    for c in it.props:
                        cf = "%s_%s" % (fname, snake(c.name))
                        cd = "%s[i].%s (%s)" % (path, c.name, describe(c))
                        if c.type == "string":
                            acc.fn(k, cd + "; ENOTFOUND when unset or out of range.",
                                   "slinky_status", "get_" + cf,
                                   "const char **out, %s, size_t i" % cT,
                                   "slinky_model__k_get_item_string(out, o, %s, %s, i, %s)" %
                                   (K, p, cstr(c.name)))
                        elif c.type == "integer":
                            acc.fn(k, cd + "; ENOTFOUND when unset or out of range.",
                                   "slinky_status", "get_" + cf,
                                   "int64_t *out, %s, size_t i" % cT,
                                   "slinky_model__k_get_item_int(out, o, %s, %s, i, %s)" %
                                   (K, p, cstr(c.name)))
                        elif c.type == "boolean":
                            acc.fn(k, cd + "; ENOTFOUND when unset or out of range.",
                                   "slinky_status", "get_" + cf,
                                   "bool *out, %s, size_t i" % cT,
                                   "slinky_model__k_get_item_bool(out, o, %s, %s, i, %s)" %
                                   (K, p, cstr(c.name)))
            if n.type == "object" and n.addl and n.addl.type == "string":
                acc.fn(k, path + "[key]: one entry; ENOTFOUND when absent.", "slinky_status",
                       "get_%s_entry" % fname, "const char **out, %s, const char *key" % cT,
                       "slinky_model__k_get_entry(out, o, %s, %s, key)" % (K, p))
                acc.fn(k, path + "[key]: set one entry (creating the map).", "slinky_status",
                       "set_%s_entry" % fname, "%s *o, const char *key, const char *value" % T,
                       "slinky_model__k_set_entry(o, %s, %s, key, value)" % (K, p))
            if n.type == "object":
                for c in n.props:
                    leaf(c, "%s_%s" % (fname, snake(c.name)), path + "." + c.name)

        for top in k.root.props:
            if top.name in ("apiVersion", "kind", "metadata"):
                continue
            if top.name == "spec":
                for c in top.props:
                    leaf(c, snake(c.name), "spec." + c.name)
            else:
                leaf(top, snake(top.name), top.name)
    hdr = ["/* Generated by libslinky/model/schema/gen_model.py from slinky.schema. Do not edit.",
           " * Typed accessors, one set per schema property; included by slinky/model.h.",
           " * Naming: slinky_model_<kind>_{has,get,set}_<field>, where <field> is the",
           " * property path below .spec (other top-level fields keep their name, e.g.",
           " * status_ready_replicas) in snake_case. Getters return SLINKY_ENOTFOUND when",
           " * the field is unset (absent or null), SLINKY_EINVALID when the value has the",
           " * wrong type or the object is another kind; *out is unchanged on failure.",
           " * Setters create missing parent objects. Threads: as the object (model.h). */",
           "#ifndef SLINKY_MODEL_FIELDS_H", "#define SLINKY_MODEL_FIELDS_H", "",
           "SLINKY_BEGIN_DECLS", ""] + acc.h + ["", "SLINKY_END_DECLS", "", "#endif", ""]
    src = ["/* Generated by libslinky/model/schema/gen_model.py from slinky.schema. Do not edit. */",
           '#include "model/internal.h"', ""] + acc.c
    return "\n".join(hdr), "\n".join(src)


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    try:
        with open(path, encoding="utf-8") as f:
            if f.read() == text:
                return
    except OSError:
        pass
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(path + ".tmp", path)


def main():
    if len(sys.argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    schema, out = sys.argv[1], sys.argv[2]
    try:
        defs, kinds = parse(schema)
        crd_texts = {}
        for k in kinds:
            if not k.attrs.get("builtin"):
                text = to_yaml(crd_of(k))
                crd_texts[k.name] = text
                write(os.path.join(out, "share/libslinky/crds",
                                   "%s_%s.yaml" % (k.attrs.get("group", "slinky.slurm.net"),
                                                   k.attrs["plural"])), text)
        flat, rules, idx = flatten(kinds)
        hdr, fields = gen_accessors(kinds)
        write(os.path.join(out, "libslinky/model/model_schema.c"),
              gen_schema_c(kinds, flat, rules, idx, crd_texts))
        write(os.path.join(out, "libslinky/model/model_fields.c"), fields)
        write(os.path.join(out, "include/slinky/model_fields.h"), hdr)
    except Fail as e:
        sys.stderr.write("gen_model.py: %s\n" % e)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
