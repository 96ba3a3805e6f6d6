"""CLI command groups, kept apart from cli.py so each stays small; cli.py registers them."""
