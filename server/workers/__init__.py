"""Background workers that run inside the backend process."""
