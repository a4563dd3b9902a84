/* doc module bindings (owned by the doc module). */
