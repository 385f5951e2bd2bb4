"""The site's SQL, one module per view family: shows, images, brands, facets and search.

Every read keeps to ``LIVE`` (published, not deleted) or to the published counts that
migration 0032's triggers keep, so nothing else can reach a visitor.
"""
