"""The one migration history of rk, run on SQLite and PostgreSQL."""
