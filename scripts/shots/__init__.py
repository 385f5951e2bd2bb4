"""The parts of ``scripts.screenshots``: the demo world, and one module per set of pages.

Each page module (``admin``, ``public``) defines ``seed(world)`` (what its pages need
beyond the shared archive: users, published articles, embeddings…) and ``pages(world)``
(the ``Shot`` list to take, in order).
"""
