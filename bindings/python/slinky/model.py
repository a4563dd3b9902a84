"""slinky.model: Pythonic layer over the model module (owned by that module)."""
__all__ = []
