/*
 * Core typemaps shared by every module's .i file.
 *
 *  - slinky_status return values: negative -> raise slinky.Error (one
 *    subclass per code) carrying code, http_status, message, line, column;
 *    0 or positive -> None (or the appended out-values).
 *  - SLINKY_OUT_OBJECT(TYPE, FREE): `TYPE **out` becomes a returned Python
 *    proxy owning the object (the proxy's destructor calls FREE).
 *  - `char **out`/`char **json_out`/`char **yaml_out` + optional `size_t *len_out`:
 *    returned as str (or bytes for invalid UTF-8), released with slinky_free.
 */
%{
static PyObject *slinky_py_errors[32]; /* index = -code */
static PyObject *slinky_py_error_base;

static PyObject *slinky_py_error_class(int code)
{
    int i = -code;
    if (i > 0 && i < 32 && slinky_py_errors[i])
        return slinky_py_errors[i];
    return slinky_py_error_base;
}

static void slinky_py_raise(int code)
{
    const slinky_error *e = slinky_error_last();
    PyObject *cls = slinky_py_error_class(code);
    PyObject *msg = PyUnicode_DecodeUTF8(e->message, strlen(e->message), "replace");
    PyObject *exc = PyObject_CallFunctionObjArgs(cls, msg, NULL);
    Py_XDECREF(msg);
    if (!exc)
        return;
    PyObject *v;
    v = PyLong_FromLong(code); PyObject_SetAttrString(exc, "code", v); Py_XDECREF(v);
    v = PyLong_FromLong(e->code == code ? e->http_status : 0); PyObject_SetAttrString(exc, "http_status", v); Py_XDECREF(v);
    v = PyLong_FromLong(e->code == code ? e->line : 0); PyObject_SetAttrString(exc, "line", v); Py_XDECREF(v);
    v = PyLong_FromLong(e->code == code ? e->column : 0); PyObject_SetAttrString(exc, "column", v); Py_XDECREF(v);
    PyErr_SetObject(cls, exc);
    Py_DECREF(exc);
}

static PyObject *slinky_py_str(const char *s, size_t len)
{
    PyObject *o = PyUnicode_DecodeUTF8(s, (Py_ssize_t)len, "strict");
    if (!o) {
        PyErr_Clear();
        o = PyBytes_FromStringAndSize(s, (Py_ssize_t)len);
    }
    return o;
}
%}

%init %{
    {
        static const struct { int code; const char *name; } slinky_py_names[] = {
            {SLINKY_ERROR, "slinky.GenericError"}, {SLINKY_ENOMEM, "slinky.NoMemoryError"},
            {SLINKY_EINVALID, "slinky.InvalidError"}, {SLINKY_ENOTFOUND, "slinky.NotFoundError"},
            {SLINKY_EEXISTS, "slinky.ExistsError"}, {SLINKY_ECONFLICT, "slinky.ConflictError"},
            {SLINKY_EAUTH, "slinky.AuthError"}, {SLINKY_ETIMEOUT, "slinky.TimeoutError"},
            {SLINKY_EHTTP, "slinky.HTTPError"}, {SLINKY_EPARSE, "slinky.ParseError"},
            {SLINKY_EGIT, "slinky.GitError"}, {SLINKY_ITEROVER, "slinky.IterOver"},
            {SLINKY_EIO, "slinky.IOError"}, {SLINKY_EGONE, "slinky.GoneError"},
            {SLINKY_EUNSUPPORTED, "slinky.UnsupportedError"}, {SLINKY_EBUSY, "slinky.BusyError"},
            {SLINKY_EFORBIDDEN, "slinky.ForbiddenError"}, {SLINKY_ECANCELED, "slinky.CanceledError"},
            {SLINKY_EUNAVAILABLE, "slinky.UnavailableError"},
        };
        slinky_py_error_base = PyErr_NewException("slinky.Error", NULL, NULL);
        PyModule_AddObject(m, "Error", slinky_py_error_base);
        Py_INCREF(slinky_py_error_base);
        for (size_t k = 0; k < sizeof(slinky_py_names) / sizeof(slinky_py_names[0]); k++) {
            PyObject *cls = PyErr_NewException((char *)slinky_py_names[k].name,
                                               slinky_py_error_base, NULL);
            slinky_py_errors[-slinky_py_names[k].code] = cls;
            PyModule_AddObject(m, strchr(slinky_py_names[k].name, '.') + 1, cls);
            Py_INCREF(cls);
        }
    }
%}

%typemap(out) slinky_status {
    if ($1 < 0) {
        slinky_py_raise($1);
        SWIG_fail;
    }
    $result = Py_None;
    Py_INCREF(Py_None);
}

%define SLINKY_OUT_OBJECT(TYPE)
%typemap(in, numinputs=0) TYPE **out (TYPE *tmp = NULL) { $1 = &tmp; }
%typemap(argout) TYPE **out {
    $result = SWIG_Python_AppendOutput($result,
        SWIG_NewPointerObj(SWIG_as_voidptr(*$1), $*1_descriptor, SWIG_POINTER_OWN));
}
%enddef

%define SLINKY_OUT_STRING(NAME)
%typemap(in, numinputs=0) char **NAME (char *tmp = NULL) { $1 = &tmp; }
%typemap(argout) char **NAME {
    if (*$1) {
        $result = SWIG_Python_AppendOutput($result, slinky_py_str(*$1, strlen(*$1)));
        slinky_free(*$1);
    }
}
%enddef
SLINKY_OUT_STRING(out)
SLINKY_OUT_STRING(json_out)
SLINKY_OUT_STRING(yaml_out)
SLINKY_OUT_STRING(text_out)

/* optional length out-params are dropped in Python */
%typemap(in, numinputs=0) size_t *len_out (size_t tmp = 0) { $1 = &tmp; }

/* (const char *data, size_t len) input pairs take a str or bytes */
%typemap(in) (const char *data, size_t len) (Py_ssize_t n = 0, char *p = NULL, PyObject *tmpb = NULL) {
    if (PyUnicode_Check($input)) {
        p = (char *)PyUnicode_AsUTF8AndSize($input, &n);
        if (!p) SWIG_fail;
    } else if (PyBytes_Check($input)) {
        PyBytes_AsStringAndSize($input, &p, &n);
    } else {
        PyErr_SetString(PyExc_TypeError, "expected str or bytes");
        SWIG_fail;
    }
    $1 = p; $2 = (size_t)n;
}

%ignore slinky_free;
%ignore slinky_log_set_callback;
%include "slinky/common.h"
%immutable slinky_error::message;
%include "slinky/error.h"
%include "slinky/version.h"
%include "slinky/core.h"
