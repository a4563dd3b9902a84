# zlib: odb_guard.c inflates loose objects itself (libgit2 1.5 spins forever on
# a truncated one).
pkg_check_modules(ZLIB REQUIRED IMPORTED_TARGET zlib)
list(APPEND SLINKY_MODULE_LIBS PkgConfig::ZLIB)
list(APPEND SLINKY_MODULE_PC zlib)
# The ledger's Kubernetes sink uses the kube module: built only when kube is.
# Without it, replaying into SLINKY_LEDGER_SINK_KUBE is SLINKY_EUNSUPPORTED.
if("kube" IN_LIST SLINKY_MODULES)
  list(APPEND SLINKY_SOURCES ${CMAKE_SOURCE_DIR}/libslinky/ledger/kube/sink_kube.c)
endif()
# The LDAP sink speaks to the directory with libldap (OpenLDAP's client
# library, Debian libldap-dev): built when it is found; without it replaying
# into SLINKY_LEDGER_SINK_LDAP is SLINKY_EUNSUPPORTED.
pkg_check_modules(LDAP IMPORTED_TARGET ldap)
if(LDAP_FOUND)
  list(APPEND SLINKY_SOURCES ${CMAKE_SOURCE_DIR}/libslinky/ledger/ldap/sink_ldap.c)
  list(APPEND SLINKY_MODULE_LIBS PkgConfig::LDAP)
  list(APPEND SLINKY_MODULE_PC ldap)
endif()
