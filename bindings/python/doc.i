/*
 * doc module bindings. A slinky_doc is a Python object that frees itself
 * (slinky_doc_free) when collected. slinky_doc_value pointers are borrowed:
 * the Pythonic layer (slinky/doc.py) keeps the owning document referenced
 * while it uses them and hands out plain Python values
 * (dict/list/str/int/float/bool/None) built by slinky_py_doc_to_python.
 */
SLINKY_OUT_OBJECT(slinky_doc)

/* slinky_doc_value **out: a borrowed pointer (no ownership) */
%typemap(in, numinputs=0) slinky_doc_value **out (slinky_doc_value *tmp = NULL) { $1 = &tmp; }
%typemap(argout) slinky_doc_value **out {
    $result = SWIG_Python_AppendOutput($result,
        SWIG_NewPointerObj(SWIG_as_voidptr(*$1), $*1_descriptor, 0));
}

%nodefaultctor slinky_doc;
%nodefaultdtor slinky_doc;
%nodefaultctor slinky_doc_value;
%nodefaultdtor slinky_doc_value;
struct slinky_doc {};
struct slinky_doc_value {};
%extend slinky_doc {
    ~slinky_doc() { slinky_doc_free($self); }
}

%{
#define SLINKY_PY_DOC_MAX_DEPTH 1000
/* strings up to this length are shared through the memo (keys always are) */
#define SLINKY_PY_MEMO_MAX 64

/* A str for s; with a memo dict, equal strings come out as one shared object
 * (many objects of a list repeat the same keys and values). */
static PyObject *slinky_py_memo_str(PyObject *memo, const char *s, size_t len)
{
    PyObject *o = slinky_py_str(s, len);
    if (!o || !memo)
        return o;
    PyObject *m = PyDict_SetDefault(memo, o, o);
    Py_XINCREF(m);
    Py_DECREF(o);
    return m;
}

static PyObject *slinky_py_doc_value(const slinky_doc_value *v, int depth, PyObject *memo)
{
    if (depth > SLINKY_PY_DOC_MAX_DEPTH) {
        PyErr_SetString(PyExc_ValueError, "document nested too deeply");
        return NULL;
    }
    switch (slinky_doc_value_type(v)) {
    case SLINKY_DOC_NULL:
        Py_RETURN_NONE;
    case SLINKY_DOC_BOOL:
        return PyBool_FromLong(slinky_doc_value_get_bool(v));
    case SLINKY_DOC_INT:
        return PyLong_FromLongLong((long long)slinky_doc_value_get_int(v));
    case SLINKY_DOC_DOUBLE: {
        const char *t = slinky_doc_value_get_number_text(v);
        if (t && !strpbrk(t, ".eE"))
            return PyLong_FromString(t, NULL, 10); /* an integer beyond int64 */
        return PyFloat_FromDouble(slinky_doc_value_get_double(v));
    }
    case SLINKY_DOC_STRING: {
        size_t len = slinky_doc_value_get_string_len(v);
        return slinky_py_memo_str(len <= SLINKY_PY_MEMO_MAX ? memo : NULL,
                                  slinky_doc_value_get_string(v), len);
    }
    case SLINKY_DOC_ARRAY: {
        size_t n = slinky_doc_value_size(v);
        PyObject *list = PyList_New((Py_ssize_t)n);
        if (!list)
            return NULL;
        for (size_t i = 0; i < n; i++) {
            PyObject *o = slinky_py_doc_value(slinky_doc_value_at(v, i), depth + 1, memo);
            if (!o) {
                Py_DECREF(list);
                return NULL;
            }
            PyList_SET_ITEM(list, (Py_ssize_t)i, o);
        }
        return list;
    }
    case SLINKY_DOC_OBJECT: {
        size_t n = slinky_doc_value_size(v);
        PyObject *dict = PyDict_New();
        if (!dict)
            return NULL;
        for (size_t i = 0; i < n; i++) {
            const char *k = slinky_doc_value_key_at(v, i);
            PyObject *key = slinky_py_memo_str(memo, k, strlen(k));
            PyObject *o = key ? slinky_py_doc_value(slinky_doc_value_member_at(v, i), depth + 1, memo)
                              : NULL;
            if (!o || PyDict_SetItem(dict, key, o) < 0) {
                Py_XDECREF(key);
                Py_XDECREF(o);
                Py_DECREF(dict);
                return NULL;
            }
            Py_DECREF(key);
            Py_DECREF(o);
        }
        return dict;
    }
    }
    Py_RETURN_NONE;
}

/* Store obj into v; 0, or -1 with a Python exception set. */
static int slinky_py_doc_store(slinky_doc_value *v, PyObject *obj, int depth)
{
    int rc = 0;
    if (depth > SLINKY_PY_DOC_MAX_DEPTH) {
        PyErr_SetString(PyExc_ValueError, "value nested too deeply (or recursive)");
        return -1;
    }
    if (obj == Py_None) {
        rc = slinky_doc_value_set_null(v);
    } else if (PyBool_Check(obj)) {
        rc = slinky_doc_value_set_bool(v, obj == Py_True);
    } else if (PyLong_Check(obj)) {
        int overflow = 0;
        long long x = PyLong_AsLongLongAndOverflow(obj, &overflow);
        if (x == -1 && PyErr_Occurred())
            return -1;
        if (!overflow) {
            rc = slinky_doc_value_set_int(v, (int64_t)x);
        } else {
            /* beyond int64: keep the digits as number text */
            PyObject *s = PyObject_Str(obj);
            const char *t = s ? PyUnicode_AsUTF8(s) : NULL;
            slinky_doc *tmp = NULL;
            if (!t) {
                Py_XDECREF(s);
                return -1;
            }
            rc = slinky_doc_parse_json(&tmp, t, strlen(t));
            if (rc == 0)
                rc = slinky_doc_value_set_copy(v, slinky_doc_root(tmp));
            slinky_doc_free(tmp);
            Py_DECREF(s);
        }
    } else if (PyFloat_Check(obj)) {
        rc = slinky_doc_value_set_double(v, PyFloat_AS_DOUBLE(obj));
    } else if (PyUnicode_Check(obj)) {
        Py_ssize_t n;
        const char *s = PyUnicode_AsUTF8AndSize(obj, &n);
        if (!s)
            return -1;
        rc = slinky_doc_value_set_string_len(v, s, (size_t)n);
    } else if (PyDict_Check(obj)) {
        rc = slinky_doc_value_set_object(v);
        PyObject *key, *val;
        Py_ssize_t pos = 0;
        while (rc == 0 && PyDict_Next(obj, &pos, &key, &val)) {
            if (!PyUnicode_Check(key)) {
                PyErr_Format(PyExc_TypeError, "object keys must be str, not %s",
                             Py_TYPE(key)->tp_name);
                return -1;
            }
            const char *k = PyUnicode_AsUTF8(key);
            if (!k)
                return -1;
            slinky_doc_value *slot;
            rc = slinky_doc_value_object_put(&slot, v, k);
            if (rc == 0 && slinky_py_doc_store(slot, val, depth + 1) < 0)
                return -1;
        }
    } else if (PyList_Check(obj) || PyTuple_Check(obj)) {
        rc = slinky_doc_value_set_array(v);
        PyObject *seq = PySequence_Fast(obj, "expected a sequence");
        if (!seq)
            return -1;
        Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
        for (Py_ssize_t i = 0; rc == 0 && i < n; i++) {
            slinky_doc_value *slot;
            rc = slinky_doc_value_array_append(&slot, v);
            if (rc == 0 && slinky_py_doc_store(slot, PySequence_Fast_GET_ITEM(seq, i), depth + 1) < 0) {
                Py_DECREF(seq);
                return -1;
            }
        }
        Py_DECREF(seq);
    } else {
        PyErr_Format(PyExc_TypeError, "cannot store a %s in a document", Py_TYPE(obj)->tp_name);
        return -1;
    }
    if (rc < 0) {
        slinky_py_raise(rc);
        return -1;
    }
    return 0;
}
%}

%inline %{
/** The value as plain Python objects (dict/list/str/int/float/bool/None). */
PyObject *slinky_py_doc_to_python(const slinky_doc_value *v)
{
    /* no cyclic GC passes while a tree of new containers (none of them in a
     * cycle) is built: they would walk every object built so far, again and again */
    int gc_was = PyGC_Disable();
    PyObject *o = slinky_py_doc_value(v, 0, NULL);
    if (gc_was)
        PyGC_Enable();
    return o;
}

/** Replace v by the Python value obj (dict with str keys, list/tuple, str, int, float, bool, None). */
PyObject *slinky_py_doc_set_python(slinky_doc_value *v, PyObject *obj)
{
    if (!v) {
        PyErr_SetString(PyExc_ValueError, "no value");
        return NULL;
    }
    if (slinky_py_doc_store(v, obj, 0) < 0)
        return NULL;
    Py_RETURN_NONE;
}
%}

%ignore slinky_doc_free;
%include "slinky/doc.h"
