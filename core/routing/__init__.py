"""Routing: from scores to an answer (operating point, fusion, selection, explanation)."""
