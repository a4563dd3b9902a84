/* ledger module bindings (owned by the ledger module).
 * slinky_ledger is a proxy that frees itself; results come back as str
 * (JSON text) and counters as int. The Pythonic layer is slinky/ledger.py. */
SLINKY_OUT_OBJECT(slinky_ledger)
SLINKY_OUT_STRING(result_out)
SLINKY_OUT_STRING(jsonl_out)
SLINKY_OUT_STRING(plan_out)
SLINKY_OUT_STRING(bad_commit_out)

%typemap(in, numinputs=0) size_t *events_out (size_t tmp = 0), size_t *applied_out (size_t tmp = 0) {
    $1 = &tmp;
}
%typemap(argout) size_t *events_out, size_t *applied_out {
    $result = SWIG_Python_AppendOutput($result, PyLong_FromSize_t(*$1));
}
%apply (const char *data, size_t len) { (const char *json, size_t len) };
%typemap(in, numinputs=0) slinky_ledger_event_kind *out (slinky_ledger_event_kind tmp) { $1 = &tmp; }
%typemap(argout) slinky_ledger_event_kind *out {
    $result = SWIG_Python_AppendOutput($result, PyLong_FromLong((long)*$1));
}

%nodefaultctor slinky_ledger;
%nodefaultdtor slinky_ledger;
struct slinky_ledger {};
%extend slinky_ledger {
    ~slinky_ledger() { slinky_ledger_free($self); }
}
%ignore slinky_ledger_free;
/* callbacks stay C-only (the Python layer has no progress callback) */
%ignore slinky_ledger_replay_options::progress;
%ignore slinky_ledger_replay_options::payload;
%include "slinky/ledger.h"
