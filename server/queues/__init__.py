"""rk.server.queues: the ingest job queue engine and its database backends."""
