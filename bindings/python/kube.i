/* kube module bindings (owned by the kube module). */
