/*
 * Core typemaps shared by every module's .i file.
 *
 *  - slinky_status return values: negative -> raise the slinky.Error subclass
 *    of the code, built by the factory slinky/errors.py registers, with code,
 *    http_status, message, reason and details (the Kubernetes Status behind an
 *    HTTP failure), line, column; 0 or positive -> None (or the out-values).
 *  - SLINKY_OUT_OBJECT(TYPE, FREE): `TYPE **out` becomes a returned Python
 *    proxy owning the object (the proxy's destructor calls FREE).
 *  - `char **out`/`char **json_out`/`char **yaml_out` + optional `size_t *len_out`:
 *    returned as str (or bytes for invalid UTF-8), released with slinky_free.
 */
%{
/* The exception factory registered by slinky/errors.py:
 * make(code, message, http_status, reason, details, line, column) -> instance. */
static PyObject *slinky_py_error_factory;

static PyObject *slinky_py_kube_details(const slinky_kube_status *st)
{
    PyObject *causes = PyList_New(0);
    for (size_t i = 0; causes && i < st->ncauses; i++) {
        PyObject *c = Py_BuildValue("{s:s,s:s,s:s}", "reason", st->causes[i].reason,
                                    "message", st->causes[i].message, "field", st->causes[i].field);
        if (!c || PyList_Append(causes, c) < 0) {
            Py_XDECREF(c);
            Py_CLEAR(causes);
            break;
        }
        Py_DECREF(c);
    }
    if (!causes)
        return NULL;
    return Py_BuildValue("{s:s,s:s,s:N,s:l}", "name", st->name, "kind", st->kind, "causes", causes,
                         "retryAfterSeconds", st->retry_after_seconds);
}

static void slinky_py_raise(int code)
{
    const slinky_error *e = slinky_error_last();
    int same = e->code == code;
    int http = same ? e->http_status : 0;
    const char *reason = "";
    PyObject *details = NULL;
    if (http) {
        const slinky_kube_status *st = slinky_kube_status_last();
        if (st->http_status == http) {
            reason = st->reason;
            details = slinky_py_kube_details(st);
        }
    }
    if (!details) {
        PyErr_Clear();
        details = PyDict_New();
    }
    if (!slinky_py_error_factory) {
        Py_XDECREF(details);
        PyErr_Format(PyExc_RuntimeError, "libslinky error %d: %s", code, e->message);
        return;
    }
    const char *m = same ? e->message : "";
    PyObject *msg = PyUnicode_DecodeUTF8(m, (Py_ssize_t)strlen(m), "replace");
    PyObject *exc = PyObject_CallFunction(slinky_py_error_factory, "iNisNii", code, msg, http,
                                          reason, details,
                                          same ? e->line : 0, same ? e->column : 0);
    if (!exc)
        return;
    PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
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

%inline %{
/* Register the exception factory (slinky/errors.py does, at import). */
PyObject *slinky_py_set_error_factory(PyObject *make)
{
    Py_XINCREF(make);
    Py_XSETREF(slinky_py_error_factory, make);
    Py_RETURN_NONE;
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
