"""rk.plugins: the built-in plugins, registered through the rk entry-point group."""
