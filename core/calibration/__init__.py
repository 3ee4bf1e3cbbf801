"""Calibration: choosing an operating point from labelled prompts, and measuring routing."""
