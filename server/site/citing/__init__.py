"""Citing the archive: citations of shows and looks (plain text, BibTeX, CSL-JSON), the
schema.org JSON-LD the pages carry, and each show as a IIIF Presentation 3 manifest.

Everything here is built from the site's published views only; every string in it came
from a crawled page, so each format escapes it by its own rules.
"""
