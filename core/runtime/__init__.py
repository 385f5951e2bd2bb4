"""rk.core.runtime: the spider and embedder runtime that runs away from the backend.

The polite HTTP client, the crawler and ``rk spider serve``, media download and upload with
thumbnails and renditions, the signed backend client, the embed worker, their metrics, and
the fault switches the system tests use. It builds on ``rk.core.api`` and never the reverse.
"""
