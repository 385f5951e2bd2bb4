"""rk against the tool a user would pick instead, on the same machine, data and run (issue 31).

``python -m bench.peers`` prints one table per pair: media (img2dataset), the job queue
(procrastinate), vectors (faiss and hnswlib). The peers come from the ``bench`` extra.
"""
