/* conf module bindings (owned by the conf module). */
