"""slinky.ledger: Pythonic layer over the ledger module (owned by that module)."""
__all__ = []
