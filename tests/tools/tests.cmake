# tools: the command-line habits every program shares (tests/tools/cli.sh).
# The programs' files are also a global property for man/check.
set(_progs)
foreach(t slinkyctl slinky-jail slinky-user-add slinky-ledger-keys slinky-operator)
  if(TARGET ${t})
    list(APPEND _progs $<TARGET_FILE:${t}>)
  endif()
endforeach()
set_property(GLOBAL PROPERTY SLINKY_PROGRAM_FILES ${_progs})
if(_progs)
  add_test(NAME tools/cli COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/cli.sh ${_progs})
  set_tests_properties(tools/cli PROPERTIES LABELS unit TIMEOUT 120 ENVIRONMENT "${SLINKY_TEST_ENV}")
endif()
# against slinky-apiserver: slinkyctl's cluster commands compared with kubectl
# (slinkyctl_kubectl.sh), and the Controller's printer columns as kubectl shows
# them from the generated CRD (printer_columns.sh)
if(TARGET slinkyctl AND TARGET slinky-apiserver AND "kube" IN_LIST SLINKY_ENABLED_MODULES)
  foreach(t slinkyctl_kubectl printer_columns)
    string(REPLACE "_" "-" n ${t})
    add_test(NAME tools/${n} COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/${t}.sh $<TARGET_FILE:slinkyctl>)
    set_tests_properties(tools/${n} PROPERTIES LABELS integration TIMEOUT 180
      SKIP_RETURN_CODE 77 ENVIRONMENT "${SLINKY_TEST_ENV}")
  endforeach()
endif()
# bash completion generated from slinkyctl's command table
if(TARGET slinkyctl-completion)
  add_test(NAME tools/completion COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/completion.sh
    $<TARGET_FILE:slinkyctl> ${CMAKE_BINARY_DIR}/tools/slinkyctl/slinkyctl.bash)
  set_tests_properties(tools/completion PROPERTIES LABELS unit TIMEOUT 60 ENVIRONMENT "${SLINKY_TEST_ENV}")
endif()
# the installed tree: RUNPATH, no build paths, config paths from the prefix, SPANK dir
add_test(NAME tools/install COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/install.sh ${CMAKE_BINARY_DIR})
set_tests_properties(tools/install PROPERTIES LABELS "integration;nosan" TIMEOUT 300 ENVIRONMENT "${SLINKY_TEST_ENV}")
# Debian packages: cpack, lintian, apt into a fresh Debian 12 root (root; the Debian mirror apt uses)
add_test(NAME tools/debian COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/debian.sh ${CMAKE_BINARY_DIR})
set_tests_properties(tools/debian PROPERTIES LABELS "integration;nosan" TIMEOUT 2400 SKIP_RETURN_CODE 77
  ENVIRONMENT "${SLINKY_TEST_ENV}")
# deploy/10-rbac.yaml against the operator's recorded requests
if(TARGET slinky-operator AND TARGET slinky-apiserver AND TARGET slinkyctl)
  add_test(NAME tools/rbac COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/rbac.sh)
  set_tests_properties(tools/rbac PROPERTIES LABELS integration TIMEOUT 120 SKIP_RETURN_CODE 77
    ENVIRONMENT "${SLINKY_TEST_ENV}")
endif()
