"""negtui: multi-party negotiation over binding commitments, in the terminal."""

__version__ = "0.1.0"
