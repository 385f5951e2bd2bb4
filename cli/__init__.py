"""rk.cli: the Typer app behind the rk command."""
