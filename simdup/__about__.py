"""The package version (the algorithm has its own, see ``simdup.params``)."""

__version__ = "0.1.0"
