"""Writes of the after-sale app, one module per concern:

- `transitions`: the only way a ticket or an order changes status (row lock, transition table, event row);
- `workflow`: the refund/return graph and the workflow-ticket gate (`wfa:` keys);
- `checkpoints`: HIGH-risk tool calls paused into tickets (`hitl:` keys) and the gate around them;
- `execution`: deciding tickets and executing approved ones exactly once.
"""

from aftersale.services.transitions import AftersaleError, order_transition, ticket_number, ticket_transition

__all__ = ["AftersaleError", "order_transition", "ticket_number", "ticket_transition"]
