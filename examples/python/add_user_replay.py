#!/usr/bin/python3
"""add_user_replay.py: add a user to the identity ledger and replay it into /etc files.

    /usr/bin/python3 add_user_replay.py LEDGER NAME --key-file id.pub [--group G ...]
                                        [--account A] --root DIR

Creates the ledger when missing, records NAME like slinky-user-add (running it
again records nothing), then converges the posix sink under DIR (etc/passwd,
etc/group, the user's authorized keys) and prints the plan. A second replay of
an unchanged ledger prints "up to date".
"""
import argparse
import os

import slinky


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("ledger")
    ap.add_argument("name")
    ap.add_argument("--key-file", action="append", default=[])
    ap.add_argument("--group", action="append", default=[])
    ap.add_argument("--account")
    ap.add_argument("--root", required=True)
    args = ap.parse_args()

    if os.path.exists(args.ledger):
        ledger = slinky.Ledger.open(args.ledger)
    else:
        ledger = slinky.Ledger.init(args.ledger, cluster="example")
    with ledger:
        r = ledger.add_user(args.name, keys=args.key_file, groups=args.group, account=args.account)
        print("%s: uid %d, recorded %s" % (args.name, r["uid"],
                                           ", ".join(e["kind"] for e in r["recorded"]) or "nothing"))
        plan = ledger.replay(sinks=["posix"], root=args.root, incarnation="example")
        for line in plan or ["up to date"]:
            print("replay: " + line)
        print("history of %s: %s" % (args.name, ", ".join(e["kind"] for e in ledger.history(args.name))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
