"""Bulk data for load and query-plan work: `manage.py seed_bulk --activities 100000`.

Rows are derived from the demo catalogue's destinations (`demo/data/activities.json`): varied titles
(in Chinese and English, from the same words),
prices, availability windows over the coming months, tags and system tags. Every row has a deterministic natural
key carrying a `BULK-` marker and its sequence number, and its content is a pure function of that number (and of
the seed day, like the demo data), so seeding is idempotent: it reads which sequence numbers are present, creates
only the absent ones, and running it twice adds nothing; asking for more adds the difference.

| rows | natural key |
| --- | --- |
| users | `bulk-user-000001` (unusable password, an interest profile) and `bulk-approver` |
| activities | a title ending in ` · BULK-0000001` |
| orders | `ORD-BULK-0000001` (and one event row) |
| bookings | `BK-BULK-0000001` (and one event row) |
| tickets | `T-BULK-0000001` about order (or, for every tenth, booking) number 1 (and one event row) |

Rows are written with `bulk_create` in batches, each batch in its own transaction, so an interrupted run keeps what
it wrote and the next run completes it. On PostgreSQL the tables are ANALYZEd afterwards, so the planner sees the
new sizes at once. This package is a tool for benchmarks and capacity checks, not a product path: it writes around
the services on purpose (like a bulk import) and gives each row the single event saying the seed created it.
"""

from demo.bulk.activities import bulk_activity_fields
from demo.bulk.seed import BATCH_SIZE, BulkCount, BulkPlan, bulk_seed

__all__ = ["BATCH_SIZE", "BulkCount", "BulkPlan", "bulk_activity_fields", "bulk_seed"]
