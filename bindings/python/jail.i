/* jail module bindings (owned by the jail module).
 *
 * A slinky_jail_spec is a Python object that frees itself when collected.
 * A job context (const slinky_jail_job *) is passed as a dict with the keys
 * job_id, user, node, uid, gid, groups (list of int), gpus, cwd (all optional;
 * None means "not set"). argv/envp are lists of str. The bwrap argv and the
 * environment come back as lists of str. slinky/jail.py wraps all of it. */
%{
#include "slinky/jail.h"

/* a job dict -> slinky_jail_job (strings borrowed from the dict for the call) */
static int slinky_py_jail_job(PyObject *o, slinky_jail_job *job, uint32_t **groups)
{
    slinky_jail_job init = SLINKY_JAIL_JOB_INIT;
    *job = init;
    *groups = NULL;
    if (o == Py_None)
        return 0;
    if (!PyDict_Check(o)) {
        PyErr_SetString(PyExc_TypeError, "job: expected a dict or None");
        return -1;
    }
    static const char *const skeys[] = {"job_id", "user", "node", "gpus", "cwd"};
    const char **sdst[] = {&job->job_id, &job->user, &job->node, &job->gpus, &job->cwd};
    for (size_t i = 0; i < 5; i++) {
        PyObject *v = PyDict_GetItemString(o, skeys[i]);
        if (!v || v == Py_None)
            continue;
        if (!PyUnicode_Check(v)) {
            PyErr_Format(PyExc_TypeError, "job[%s]: expected str", skeys[i]);
            return -1;
        }
        *sdst[i] = PyUnicode_AsUTF8(v);
        if (!*sdst[i])
            return -1;
    }
    static const char *const ikeys[] = {"uid", "gid"};
    int64_t *idst[] = {&job->uid, &job->gid};
    for (size_t i = 0; i < 2; i++) {
        PyObject *v = PyDict_GetItemString(o, ikeys[i]);
        if (!v || v == Py_None)
            continue;
        long long n = PyLong_AsLongLong(v);
        if (n == -1 && PyErr_Occurred())
            return -1;
        *idst[i] = n;
    }
    PyObject *g = PyDict_GetItemString(o, "groups");
    if (g && g != Py_None) {
        Py_ssize_t n = PySequence_Length(g);
        if (n < 0)
            return -1;
        *groups = calloc((size_t)n + 1, sizeof(uint32_t));
        for (Py_ssize_t i = 0; *groups && i < n; i++) {
            PyObject *e = PySequence_GetItem(g, i);
            (*groups)[i] = (uint32_t)PyLong_AsUnsignedLong(e);
            Py_XDECREF(e);
        }
        if (PyErr_Occurred())
            return -1;
        job->groups = *groups;
        job->ngroups = (size_t)n;
    }
    return 0;
}

/* list of str -> NULL-terminated array of borrowed strings (NULL for None) */
static int slinky_py_strv(PyObject *o, const char ***out)
{
    *out = NULL;
    if (o == Py_None)
        return 0;
    if (!PyList_Check(o) && !PyTuple_Check(o)) {
        PyErr_SetString(PyExc_TypeError, "expected a list of str or None");
        return -1;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
    const char **v = calloc((size_t)n + 1, sizeof(char *));
    if (!v) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *e = PySequence_Fast_GET_ITEM(o, i);
        if (!PyUnicode_Check(e) || !(v[i] = PyUnicode_AsUTF8(e))) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_TypeError, "expected a list of str");
            free(v);
            return -1;
        }
    }
    *out = v;
    return 0;
}

/* NUL-separated strings -> list of str */
static PyObject *slinky_py_nul_list(const char *s, size_t count)
{
    PyObject *l = PyList_New((Py_ssize_t)count);
    for (size_t i = 0; l && i < count; i++) {
        PyList_SET_ITEM(l, (Py_ssize_t)i, slinky_py_str(s, strlen(s)));
        s += strlen(s) + 1;
    }
    return l;
}
%}

SLINKY_OUT_OBJECT(slinky_jail_spec)
%nodefaultctor slinky_jail_spec;
%nodefaultdtor slinky_jail_spec;
struct slinky_jail_spec {};
%extend slinky_jail_spec {
    ~slinky_jail_spec() { slinky_jail_spec_free($self); }
}

%typemap(in) const slinky_jail_job *job (slinky_jail_job tmp, uint32_t *groups = NULL) {
    if (slinky_py_jail_job($input, &tmp, &groups) < 0)
        SWIG_fail;
    $1 = &tmp;
}
%typemap(freearg) const slinky_jail_job *job { free(groups$argnum); }

%typemap(in) const char *const *argv (const char **tmp = NULL), const char *const *envp (const char **tmp = NULL) {
    if (slinky_py_strv($input, &tmp) < 0)
        SWIG_fail;
    $1 = ($1_ltype)tmp;
}
%typemap(freearg) const char *const *argv, const char *const *envp { free((void *)$1); }

%typemap(in, numinputs=0) (char **args_out, size_t *count_out, size_t *len_out)
    (char *s = NULL, size_t n = 0, size_t l = 0) { $1 = &s; $2 = &n; $3 = &l; }
%typemap(argout) (char **args_out, size_t *count_out, size_t *len_out) {
    if (*$1) {
        $result = SWIG_Python_AppendOutput($result, slinky_py_nul_list(*$1, *$2));
        slinky_free(*$1);
    }
}
%typemap(in, numinputs=0) (char **out, size_t *count_out) (char *s = NULL, size_t n = 0) {
    $1 = &s;
    $2 = &n;
}
%typemap(argout) (char **out, size_t *count_out) {
    if (*$1) {
        $result = SWIG_Python_AppendOutput($result, slinky_py_nul_list(*$1, *$2));
        slinky_free(*$1);
    }
}
%typemap(in, numinputs=0) int *exit_out (int tmp = 0) { $1 = &tmp; }
%typemap(argout) int *exit_out { $result = SWIG_Python_AppendOutput($result, PyLong_FromLong(*$1)); }
%typemap(in, numinputs=0) size_t *removed_out (size_t tmp = 0) { $1 = &tmp; }
%typemap(argout) size_t *removed_out {
    $result = SWIG_Python_AppendOutput($result, PyLong_FromSize_t(*$1));
}

/* the C-struct job context and its init are replaced by dicts in Python */
%ignore slinky_jail_job;
%ignore slinky_jail_job_init;
/* slinky_doc handles: use dump() (text) from Python */
%ignore slinky_jail_spec_from_doc;
%ignore slinky_jail_spec_to_doc;
/* Python names the Slurm files with strings (slinky/jail.py) */
%ignore slinky_jail_slurm_file_parse;
%include "slinky/jail.h"
