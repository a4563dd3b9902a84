/* jail module bindings (owned by the jail module). */
