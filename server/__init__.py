"""rk.server: the Litestar backend, database, queues and workers."""
