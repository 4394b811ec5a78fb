"""The reasons of ticket and order events, worded for their reader (`event_reason_text`).

The after-sale services write each event's reason as stable English text, the audit record (tests and people
searching the history read it as it was written); the console shows it in the reader's language by reading it back
here into a message and its values (`core.reasons`). An approver's own words and a supplier's message have no
template: they are shown as they were written. A service that writes a new kind of reason adds its template here.
"""

import re
from functools import partial

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from aftersale.models import OrderStatus, TicketAction, Verdict
from bookings.models import BizType
from core.reasons import ReasonTemplate, label_of, reason_text

# The reason of the first event of each demo order (`manage.py seed_demo`, demo/orders.py), read back below.
SEED_REASON = "Demo data created by seed_demo."

ID = r"[A-Za-z0-9_.:-]+"
AMOUNT = r"[\d.]+"
action_word = label_of(TicketAction)


def reasons_text(text: str) -> str:
    """Reasons joined by "; " (the reconciliation's mismatches, a failed execution's message), each worded."""
    return _("; ").join(event_reason_text(part) for part in text.split("; "))


def _lower_action(code: str) -> str:
    return action_word(code).lower()


# Why a ticket may not be executed against its order (aftersale.reconciliation, the executor's checks).
MISMATCHES = (
    ReasonTemplate(
        rf"action (?P<action>{ID}) does not refund an order",
        gettext_lazy("the action %(action)s does not refund an order"),
        {"action": action_word},
    ),
    ReasonTemplate(rf"order (?P<order>{ID}) no longer exists", gettext_lazy("order %(order)s no longer exists")),
    ReasonTemplate(
        rf"order (?P<order>{ID}) is not the ticket's order (?P<entity>{ID})",
        gettext_lazy("order %(order)s is not the ticket's order %(entity)s"),
    ),
    ReasonTemplate(
        rf"order (?P<order>{ID}) no longer belongs to the requester",
        gettext_lazy("order %(order)s no longer belongs to the requester"),
    ),
    ReasonTemplate(
        rf"(?P<order>{ID}) is being refunded by ticket (?P<ticket>{ID})",
        gettext_lazy("%(order)s is being refunded by ticket %(ticket)s"),
    ),
    ReasonTemplate(
        rf"order (?P<order>{ID}) is (?P<status>{ID}), it cannot become (?P<target>{ID})",
        gettext_lazy("order %(order)s is %(status)s, it cannot become %(target)s"),
        {"status": label_of(OrderStatus), "target": label_of(OrderStatus)},
    ),
    ReasonTemplate(
        rf"amounts differ: ticket ¥(?P<ticket>{AMOUNT}), order ¥(?P<order>{AMOUNT})",
        gettext_lazy("the amounts differ: ticket ¥%(ticket)s, order ¥%(order)s"),
    ),
    ReasonTemplate(
        rf"order (?P<order>{ID}) already got ¥(?P<amount>{AMOUNT}) back",
        gettext_lazy("order %(order)s already got ¥%(amount)s back"),
    ),
    ReasonTemplate(
        rf"the approved amount ¥(?P<paid>{AMOUNT}) is not within ¥0–¥(?P<asked>{AMOUNT})",
        gettext_lazy("the approved amount ¥%(paid)s is not within ¥0–¥%(asked)s"),
    ),
    ReasonTemplate(
        rf"(?P<order>{ID}) was not claimed for ticket (?P<ticket>{ID}) any more",
        gettext_lazy("%(order)s was not claimed for ticket %(ticket)s any more"),
    ),
    ReasonTemplate(
        rf"the supplier refunded ¥(?P<refunded>{AMOUNT}), the approval was ¥(?P<approved>{AMOUNT})",
        gettext_lazy("the supplier refunded ¥%(refunded)s, the approval was ¥%(approved)s"),
    ),
    ReasonTemplate(
        r"could not check the supplier for an earlier refund: (?P<said>.*)",
        gettext_lazy("could not check the supplier for an earlier refund: %(said)s"),
    ),
)


# A paused call's one-line summary (bookings' cancel above the approval amount).
SUMMARIES = (
    ReasonTemplate(
        rf"Cancel (?P<type>flight|hotel|train) booking (?P<booking>{ID}) \(¥(?P<amount>{AMOUNT})\)",
        gettext_lazy("cancel %(type)s booking %(booking)s (¥%(amount)s)"),
        {"type": lambda code: label_of(BizType)(code).lower()},
    ),
)

TEMPLATES = (
    # a ticket opened by the workflow (`_create_ticket`) or paused by the approval gate (`checkpoint_gate`)
    ReasonTemplate(
        rf"(?P<action>refund|return) requested; verdict (?P<verdict>{ID}) \(flagged\)",
        gettext_lazy("%(action)s requested; verdict: %(verdict)s (flagged for close review)"),
        {"action": action_word, "verdict": label_of(Verdict)},
    ),
    ReasonTemplate(
        rf"(?P<action>refund|return) requested; verdict (?P<verdict>{ID})",
        gettext_lazy("%(action)s requested; verdict: %(verdict)s"),
        {"action": action_word, "verdict": label_of(Verdict)},
    ),
    ReasonTemplate(
        r"Paused for approval: (?P<summary>.*)",
        gettext_lazy("Paused for approval: %(summary)s"),
        {"summary": lambda text: reason_text(text, SUMMARIES)},
    ),
    # decisions (`ticket_decide`, `ticket_item_received`, `ticket_retry`); an approver's own words have no template
    ReasonTemplate(r"approved", gettext_lazy("approved")),
    ReasonTemplate(
        rf"partial refund ¥(?P<paid>{AMOUNT}) of ¥(?P<asked>{AMOUNT}): (?P<reason>.*)",
        gettext_lazy("partial refund ¥%(paid)s of ¥%(asked)s: %(reason)s"),
    ),
    ReasonTemplate(
        rf"first approval ¥(?P<amount>{AMOUNT}); a second approver must approve",
        gettext_lazy("first approval, ¥%(amount)s; a second approver must approve"),
    ),
    ReasonTemplate(
        r"second approval \(first by (?P<who>[^)]+)\): (?P<decision>.*)",
        gettext_lazy("second approval (the first by %(who)s): %(decision)s"),
        {"decision": lambda text: event_reason_text(text)},
    ),
    ReasonTemplate(r"item received back; refund started", gettext_lazy("item received back; refund started")),
    ReasonTemplate(r"retry requested", gettext_lazy("retry requested")),
    ReasonTemplate(r"deadline passed", gettext_lazy("deadline passed")),
    # execution (`_claim`, `_succeed`, `_fail`)
    ReasonTemplate(
        r"execution started \(attempt (?P<attempt>\d+)\)", gettext_lazy("execution started (attempt %(attempt)s)")
    ),
    ReasonTemplate(
        r"the previous executor's lease expired \(attempt (?P<attempt>\d+)\)",
        gettext_lazy("the previous executor's lease expired; taken over (attempt %(attempt)s)"),
    ),
    ReasonTemplate(r"retry \(attempt (?P<attempt>\d+)\)", gettext_lazy("retry (attempt %(attempt)s)")),
    ReasonTemplate(
        rf"refunded on the supplier (?P<refund>{ID}); order NOT updated",
        gettext_lazy("refunded on the supplier (%(refund)s); the order was NOT updated"),
    ),
    ReasonTemplate(
        rf"refunded on the supplier (?P<refund>{ID})", gettext_lazy("refunded on the supplier (%(refund)s)")
    ),
    ReasonTemplate(
        rf"refund found on the supplier from an earlier attempt (?P<refund>{ID}); order NOT updated",
        gettext_lazy("refund %(refund)s found on the supplier from an earlier attempt; the order was NOT updated"),
    ),
    ReasonTemplate(
        rf"refund found on the supplier from an earlier attempt (?P<refund>{ID})",
        gettext_lazy("refund %(refund)s found on the supplier from an earlier attempt"),
    ),
    ReasonTemplate(rf"booking (?P<booking>{ID}) cancelled", gettext_lazy("booking %(booking)s cancelled")),
    # order events (`_order_claim`, `_release_claim`, `_finish_refund`, the demo data)
    ReasonTemplate(
        rf"refund claimed by ticket (?P<ticket>{ID}) \((?P<action>refund|return) ¥(?P<amount>{AMOUNT}), "
        rf"attempt (?P<attempt>\d+)\)",
        gettext_lazy("refund claimed by ticket %(ticket)s (%(action)s ¥%(amount)s, attempt %(attempt)s)"),
        {"action": _lower_action},
    ),
    ReasonTemplate(
        rf"refund claim released: ticket (?P<ticket>{ID}) failed: (?P<code>{ID})",
        gettext_lazy("refund claim released: ticket %(ticket)s failed (%(code)s)"),
    ),
    ReasonTemplate(
        rf"refund claim released: ticket (?P<ticket>{ID}) executed, order NOT updated",
        gettext_lazy("refund claim released: ticket %(ticket)s executed, the order was NOT updated"),
    ),
    ReasonTemplate(
        rf"(?P<action>refund|return) (?P<refund>{ID}) \(¥(?P<paid>{AMOUNT}) of ¥(?P<total>{AMOUNT})\) "
        rf"for ticket (?P<ticket>{ID})",
        gettext_lazy("%(action)s %(refund)s (¥%(paid)s of ¥%(total)s) for ticket %(ticket)s"),
        {"action": action_word},
    ),
    ReasonTemplate(
        rf"(?P<action>refund|return) (?P<refund>{ID}) for ticket (?P<ticket>{ID})",
        gettext_lazy("%(action)s %(refund)s for ticket %(ticket)s"),
        {"action": action_word},
    ),
    ReasonTemplate(re.escape(SEED_REASON), gettext_lazy("Demo data (seed_demo).")),
    # an execution that failed (`_fail`): its code, and what went wrong (the checks' words, or the supplier's own)
    ReasonTemplate(
        r"(?P<code>[A-Z][A-Z0-9_]+): (?P<message>.*)",
        gettext_lazy("execution failed (%(code)s): %(message)s"),
        {"message": reasons_text},
    ),
    *MISMATCHES,
)


def event_reason_text(reason: str) -> str:
    """A ticket or order event's stored reason in the active language (as written when no template reads it)."""
    return reason_text(reason, TEMPLATES)


summary_text = partial(reason_text, templates=SUMMARIES)
