"""The similarity slice's SQL: embeddings, neighbour lists, search and the vector copies."""
