"""rk.server.db: piccolo tables, engine configuration and migrations."""
