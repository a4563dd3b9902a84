#!/usr/bin/python3
"""ledger_user.py: create a ledger, record a user with a key, replay it into a folder."""
import tempfile

import slinky

with tempfile.TemporaryDirectory() as d:
    with slinky.Ledger.init(d + "/ledger.git") as ledger:
        print("recorded:", ledger.append("user-add", "alice", gecos="Alice Example"))
        ledger.append("key-add", "alice", tag="laptop",
                      key="ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl alice@laptop")
        print("\n".join(ledger.replay(sinks=("posix",), root=d + "/root")))
    print([l for l in open(d + "/root/etc/passwd") if l.startswith("alice:")][0], end="")
