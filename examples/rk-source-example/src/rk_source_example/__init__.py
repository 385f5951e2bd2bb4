"""rk-source-example: an rk source plugin (``source.py``) and its demo site (``demo_site.py``)."""
