"""slinky.doc: Pythonic layer over the doc module (owned by that module)."""
__all__ = []
