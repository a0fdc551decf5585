"""``python -m tsanalyze`` runs the command line."""

from tsanalyze.cli.app import console

if __name__ == "__main__":
    console()
