"""Encode: turning text into numbers (TF-IDF, sentence embeddings, the bundled model, the cache)."""
