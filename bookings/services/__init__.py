"""Writes of bookings, one module per use case: `create` (and its card), `cancel`, `rebook`, `pay`, `command` (the
traveller's own platform command), `search` (options), `passengers`, `recording` (what the platform made) with
`numbering`, `transitions` (the one state machine), `notices`, and `errors` (BookingError). Importers name the module."""
