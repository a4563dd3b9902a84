# kube tests: libm for the doc module's floor() in Debug builds (until
# slinky_static carries -lm itself).
foreach(t test_kube_faults test_kube_informer test_kube_rest test_kube_config test_kube_decoder
    test_kube_query test_kube_workqueue test_kube_tls)
  if(TARGET ${t})
    target_link_libraries(${t} PRIVATE m)
  endif()
endforeach()

# slinkyctl kube over a real slinky-apiserver (when slinkyctl is built)
if(TARGET slinkyctl)
  add_test(NAME kube/slinkyctl COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/slinkyctl_kube.sh $<TARGET_FILE:slinkyctl>)
  set_tests_properties(kube/slinkyctl PROPERTIES LABELS integration TIMEOUT 120
    ENVIRONMENT "${SLINKY_TEST_ENV}")
endif()
