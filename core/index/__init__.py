"""Index: the corpus encoded once and stored in one file (build, file format, tables, graph)."""
