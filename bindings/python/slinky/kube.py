"""slinky.kube: Pythonic layer over the kube module (owned by that module)."""
__all__ = []
