"""The site's seasons: names read as a fashion reader reads them (year, collection, URL slug),
the index of every season with its shows counted, one season's shows grouped by designer,
and the latest season that leads the front page.
"""
