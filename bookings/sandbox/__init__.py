"""The sandbox supplier: a command-line program with the supplier platform's grammar and a store of its own.

    python -m bookings.sandbox call <flight|hotel|train|order> <search|saveOrder|cancelOrder|queryOrder|pay|refund> -a '<json>'
    python -m bookings.sandbox event <cancel|change|expire> <orderNo> [--delay-minutes N]
    python -m bookings.sandbox stats

It is a separate program, not part of the Django site: it imports no Django and keeps its orders in a SQLite file
of its own (`SANDBOX_SUPPLIER_STORE`). TripDesk talks to it only through `bookings.platform`, exactly as it would
talk to the real supplier's CLI. See `bookings/sandbox/cli.py` for the environment it reads.
"""
