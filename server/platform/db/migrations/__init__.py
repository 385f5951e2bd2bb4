"""The one migration history of rk, run on SQLite and PostgreSQL by
``rk.server.platform.db.migrate``.

To add a migration:

1. Create ``m<NNNN>_<what>.py`` here, ``NNNN`` being the next number (``m0002_brand_notes``);
   its id is the name without the ``m`` (``0002_brand_notes``). Never edit or renumber a
   migration that has been released: databases remember which ids they applied.
2. Give it a docstring and ``async def forwards(engine: Engine) -> None``. Use
   ``rk.server.platform.db.migrate.create_table`` for new tables (fresh piccolo columns written out
   in the module, not imported from ``tables.py``) and ``execute`` for SQL both engines
   accept: ``CREATE [UNIQUE] INDEX``, ``ALTER TABLE … ADD COLUMN … NOT NULL DEFAULT …``.
   Where the dialects differ, branch on ``engine.engine_type`` (``"sqlite"``/``"postgres"``).
   ``rk.server.platform.db.migration_steps`` holds the steps several migrations take
   (``forwards = schema_steps(STATEMENTS)``, ``each_engine``, ``table_ddl``, ``bigint_ids``);
   it lives outside this package, which holds migrations only.
3. Change ``tables.py`` to match, and run ``tests/integration/db``: it checks that the
   migrated columns equal the tables' columns on both engines.

Each migration runs in one transaction under the migration lock, so it must not commit
by itself (no ``CREATE INDEX CONCURRENTLY``).
"""
