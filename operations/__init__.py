"""The operators' ways in: the admin's operations page (`/admin/operations/`: turns, model latency, tokens and cost,
supplier faults, the ticket backlog and the time to a decision, drawn as server-side SVG charts) and `/metrics`
(Prometheus' text format).

| module | what |
| --- | --- |
| `operations.overview` | the figures, read from the rows of assistant, aftersale and bookings |
| `operations.charts` | the charts' geometry (templates/admin/operations/ write it out as SVG) |
| `operations.views` | the page and the /metrics endpoint |
| `operations.conf` | the settings it reads |

It reads every app's models, so it sits above the apps in the layering (`.importlinter`) and no app imports it.
"""
