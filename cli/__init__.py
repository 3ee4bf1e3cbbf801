"""gov's command-line interface: thin commands over :mod:`gov.core`."""
