"""xrelay: TVM Relay on xDSL."""
