"""rk.server.similarity.vectors: the built-in vector indexes (``pgvector``, ``exact``) and their
choice."""
