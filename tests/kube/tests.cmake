# kube tests: libm for the doc module's floor() in Debug builds (until
# slinky_static carries -lm itself).
foreach(t test_kube_faults test_kube_informer test_kube_rest test_kube_config test_kube_decoder
    test_kube_query test_kube_workqueue)
  if(TARGET ${t})
    target_link_libraries(${t} PRIVATE m)
  endif()
endforeach()
