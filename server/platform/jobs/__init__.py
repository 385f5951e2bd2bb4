"""rk.server.platform.jobs: the job queue every background job runs on: its
policy (``engine``), one backend per database engine, claims, leases and named locks.
"""
