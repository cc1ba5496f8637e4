"""The nardy referee: rules, vision, live session and signals for an over-the-board nardy table."""

__version__ = "0.1.0"
