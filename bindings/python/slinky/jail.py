"""slinky.jail: Pythonic layer over the jail module (owned by that module)."""
__all__ = []
