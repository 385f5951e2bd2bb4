"""Search by colour on the site: ``search`` runs ``/search?colour=`` and ``/api/search?colour=``
on the colour slice (``rk.server.colour``), alone or with words, a photo or show filters,
and counts the colour facet's swatches."""
