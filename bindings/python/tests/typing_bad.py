"""Must FAIL mypy (test_typing.py checks that the stubs catch these); never run."""
import slinky

c = slinky.Client(kubeconfig=3)
n: str = slinky.WorkQueue().num_requeues("k")
slinky.Ledger.open("/x").add_user(name=1)
