"""How much one approver may approve, and when a second approver must approve too (a payment console's rules).

- An approver's limit is the highest of the limits set in the admin for them and for their groups
  (`ApprovalLimit`); with none set, the site's AFTERSALE_APPROVAL_LIMIT. Superusers have no limit.
- Above AFTERSALE_FOUR_EYES_ABOVE a ticket needs two approvals by two different people before anything executes.

Both are asked about the money an approval moves (`moved_amount`): the amount approved for a refund or a return,
the booking's amount for an approved cancel. `aftersale.services.decisions` applies them to every decision.
"""

from decimal import Decimal

from django.db.models import Max, Q
from django.utils.translation import gettext as _

from aftersale import conf
from aftersale.models import ApprovalLimit, HitlTicket


def approval_limit(user) -> Decimal | None:
    """The most `user` may approve alone; None for no limit (a superuser)."""
    if user.is_superuser:
        return None
    highest = ApprovalLimit.objects.filter(Q(user=user) | Q(group__user=user)).aggregate(most=Max("max_amount"))
    return highest["most"] if highest["most"] is not None else conf.default_approval_limit()


def moved_amount(ticket: HitlTicket, approved: Decimal | None) -> Decimal:
    """What approving `ticket` moves: the approved amount, else the amount on the ticket (a cancel's booking), else
    nothing."""
    if approved is not None:
        return approved
    return ticket.amount if ticket.amount is not None else Decimal(0)


def needs_four_eyes(amount: Decimal) -> bool:
    return amount > conf.four_eyes_above()


def over_limit(amount: Decimal, limit: Decimal | None) -> bool:
    return limit is not None and amount > limit


def over_limit_message(ticket: HitlTicket, amount: Decimal, limit: Decimal) -> str:
    return _(
        "%(ticket)s: ¥%(amount)s is above your approval limit of ¥%(limit)s: an approver with a higher limit must "
        "approve it."
    ) % {"ticket": ticket.ticket_no, "amount": amount, "limit": limit}


def four_eyes_message(ticket: HitlTicket) -> str:
    return _("%(ticket)s: above ¥%(above)s two approvers decide it, each on its own page.") % {
        "ticket": ticket.ticket_no,
        "above": conf.four_eyes_above(),
    }


def own_second_approval_message(ticket: HitlTicket) -> str:
    return _("You gave %(ticket)s its first approval: a second approver, not you, must give the other.") % {
        "ticket": ticket.ticket_no
    }


def approval_outlook(ticket: HitlTicket, approver) -> str:
    """What `approver`'s approval of `ticket` will do, for them to read before they confirm (the order in which
    `ticket_decide` applies these rules): refused above their limit, refused as a second approval of their own, the
    second approval that lets it run, or only the first of two; "" when it is an ordinary approval."""
    moved = moved_amount(ticket, ticket.first_approved_amount)
    limit = approval_limit(approver)
    if over_limit(moved, limit):
        return over_limit_message(ticket, moved, limit)
    if ticket.first_approved_by_id == approver.pk:
        return own_second_approval_message(ticket)
    if ticket.first_approved_by_id is not None:
        return _(
            "%(who)s gave this ticket its first approval. Yours is the second: the request then runs, for the amount "
            "they approved."
        ) % {"who": ticket.first_approved_by.get_username()}
    if needs_four_eyes(moved):
        return _(
            "Above ¥%(above)s two approvers approve: yours is recorded as the first, and nothing runs until a "
            "second approver approves too."
        ) % {"above": conf.four_eyes_above()}
    return ""


def limit_setting_refusal(editor, *, user, group) -> str | None:
    """Why `editor` may not set this approver's or group's limit (None when they may): nobody but a superuser sets a
    limit that applies to themselves."""
    if editor is None or editor.is_superuser:
        return None
    if user is not None and user.pk == editor.pk:
        return _("Nobody sets their own approval limit.")
    if group is not None and editor.groups.filter(pk=group.pk).exists():
        return _("Nobody sets the approval limit of a group they belong to.")
    return None
