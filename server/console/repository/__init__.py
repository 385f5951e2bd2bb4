"""The console's SQL: one module per service of the console (articles, brands, crawl, ...)."""
