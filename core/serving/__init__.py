"""Serving: delivering routes to harnesses (warm server, hook context, MCP, batch engines)."""
