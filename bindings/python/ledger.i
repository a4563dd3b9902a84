/* ledger module bindings (owned by the ledger module). */
