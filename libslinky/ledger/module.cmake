# The ledger's Kubernetes sink uses the kube module: built only when kube is.
# Without it, replaying into SLINKY_LEDGER_SINK_KUBE is SLINKY_EUNSUPPORTED.
if("kube" IN_LIST SLINKY_MODULES)
  list(APPEND SLINKY_SOURCES ${CMAKE_SOURCE_DIR}/libslinky/ledger/kube/sink_kube.c)
endif()
