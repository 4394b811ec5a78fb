"""Demo and synthetic data, in one place of its own: `manage.py seed_demo` (the demo users, catalogue, policies and
orders, and with `--traffic` labelled synthetic traffic for the operations page) and `manage.py seed_bulk` (bulk rows
for load and query-plan work).

It writes every app's rows, so it sits above the apps in the layering (`.importlinter`) and no app imports it.

| module | seeds |
| --- | --- |
| `demo.users` | the demo accounts (`DEMO_LOGINS`), the approvers' and support groups, interest profiles |
| `demo.catalogue` | the activities of `demo/data/activities.json` |
| `demo.orders` | the policies and orders of `demo/data/policies.json` and `demo/data/orders.json` |
| `demo.traffic` | 14 days of synthetic, labelled traffic (`seed_demo --traffic`) |
| `demo.bulk` | `BULK-` rows in any number (`seed_bulk`) |
"""
