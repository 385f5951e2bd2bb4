"""rk.server.platform.db: piccolo tables, engine configuration and migrations."""
