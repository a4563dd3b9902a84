# Ledger tests written as shell scripts over the tools: the command-line tools
# (no daemons), and integration tests with real slurmdbd/MariaDB, real sshd,
# real OpenLDAP slapd, and the project's API server + kubectl.
if(NOT (TARGET slinkyctl AND TARGET slinky-user-add AND TARGET slinky-ledger-keys))
  return()
endif()
set(_ledger_sh reprovision seamless_ssh)
if(TARGET slinky-apiserver AND "kube" IN_LIST SLINKY_ENABLED_MODULES)
  list(APPEND _ledger_sh kube)
endif()
# the LDAP sink is built when libldap is (libslinky/ledger/module.cmake); the
# test needs Debian's slapd, ldap-utils and gnutls-bin (.ci/packages.txt)
if(LDAP_FOUND)
  list(APPEND _ledger_sh ldap)
endif()
foreach(t ${_ledger_sh})
  add_test(NAME ledger/${t} COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/itest_${t}.sh)
  set_tests_properties(ledger/${t} PROPERTIES LABELS integration TIMEOUT 900
    ENVIRONMENT "${SLINKY_TEST_ENV}")
endforeach()
if(LDAP_FOUND AND "kube" IN_LIST _ledger_sh)
  # the LDAP bind password from a Secret of the project's API server too
  set_property(TEST ledger/ldap APPEND PROPERTY ENVIRONMENT LDAP_TEST_SECRET=1)
endif()

foreach(t cli damaged user_add)
  add_test(NAME ledger/${t} COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/${t}.sh)
  set_tests_properties(ledger/${t} PROPERTIES LABELS unit TIMEOUT 300
    ENVIRONMENT "${SLINKY_TEST_ENV}")
endforeach()
