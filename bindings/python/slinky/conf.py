"""slinky.conf: Pythonic layer over the conf module (owned by that module)."""
__all__ = []
