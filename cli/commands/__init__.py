"""The commands: one module per command (``gov card`` subcommands in their own modules).

Each exports ``register(app)``; a command parses its options, calls the library function
of the same name, and renders the result through :mod:`gov.cli.reporters`.
"""
