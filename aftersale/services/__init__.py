"""Writes of the after-sale app, one module per concern:

- `transitions`: the only way a ticket or an order changes status (row lock, transition table, event row);
- `workflow`: the refund/return graph and the workflow-ticket gate (`wfa:` keys);
- `request_preview`: what a refund or return request would file, for the traveller to confirm;
- `checkpoints`: calls that need an approver paused into tickets (`hitl:` keys): the project's approval gate;
- `decisions`: an approver's decisions on tickets (one or many), an item received, a retry;
- `execution`: executing approved tickets exactly once, and the sweeps (time-outs, stalled executions);
- `notices`: what a decided ticket tells the traveller.
"""

from aftersale.services.transitions import AftersaleError, order_transition, ticket_number, ticket_transition

__all__ = ["AftersaleError", "order_transition", "ticket_number", "ticket_transition"]
