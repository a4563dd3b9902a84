/* SWIG interface for libslinky (Python). One file per module: <module>.i. */
%module(package="slinky") native

%{
#include "slinky.h"
%}

%include <stdint.i>
%include "core.i"
%include "doc.i"
%include "kube.i"
%include "model.i"
%include "conf.i"
%include "ledger.i"
%include "jail.i"
