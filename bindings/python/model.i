/* model module bindings (owned by the model module). */
