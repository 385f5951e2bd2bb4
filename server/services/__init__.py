"""Backend logic, one module per job: ingest, fetch, media cleanup, brand lookup."""
