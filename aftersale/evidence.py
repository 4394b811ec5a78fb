"""A ticket's evidence as the approval console shows it: readable tables in the reader's language, never raw JSON.

The order's items, the policy passages with the cited ones marked, the traveller's own words, for a paused cancel
what it would cancel (read from the booking row), the verdict with its reason worded again from its code, and the
execution's result. Every moment is shown in the site's time zone (TIME_ZONE) to the second at most; everything
that came from a row or a model is escaped (format_html).
"""

import re
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from django.utils import timezone
from django.utils.dateformat import format as date_format
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.text import capfirst
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from aftersale.models import (
    MONEY_ACTIONS,
    HitlTicket,
    OrderCategory,
    OrderStatus,
    ReasonKind,
    TicketKind,
    TicketStatus,
    Verdict,
    item_name,
)
from aftersale.policy import REASONS, policy_reason_text, ticket_verdict_reason
from aftersale.reasons import event_reason_text, reasons_text, summary_text
from aftersale.selectors import ticket_confirmation
from bookings.models import BizType, BookingRecord, BookingStatus
from bookings.selectors import booking_facts
from bookings.vocabulary import names_shown
from core.languages import bilingual

EMPTY = "—"
MOMENT = "Y-m-d H:i:s"
MINUTE = "Y-m-d H:i"
SHORT_MOMENT = "m-d H:i"
_ISO_MOMENT = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}")

# Keys of a ticket's evidence that have their own section; any other key is shown under "Other evidence".
SHOWN_KEYS = frozenset({"request", "order", "order_facts", "policies", "assessment", "verdict", "booking", "summary"})

# Words for the keys the evidence and the execution results use; an unknown key is shown as it is spelt.
KEY_LABELS: dict[str, Any] = {
    "order_id": gettext_lazy("order number"),
    "category": gettext_lazy("category"),
    "status": gettext_lazy("status"),
    "amount": gettext_lazy("amount"),
    "items": gettext_lazy("items"),
    "paid_at": gettext_lazy("paid at"),
    "delivered_at": gettext_lazy("delivered at"),
    "service_date": gettext_lazy("service date"),
    "refundId": gettext_lazy("refund number"),
    "at": gettext_lazy("at"),
    "orderId": gettext_lazy("order number"),
    "requestId": gettext_lazy("idempotency key (request id)"),
    "recovered": gettext_lazy("found from an earlier attempt"),
    "orderStatus": gettext_lazy("order status after"),
    "order_not_updated": gettext_lazy("order NOT updated, because"),
    "attempt": gettext_lazy("attempt"),
    "ok": gettext_lazy("succeeded"),
    "stage": gettext_lazy("failed at"),
    "code": gettext_lazy("code"),
    "message": gettext_lazy("message"),
    "reasons": gettext_lazy("reasons"),
    "tool": gettext_lazy("tool"),
    "booking_id": gettext_lazy("booking number"),
    "already_cancelled": gettext_lazy("was already cancelled"),
    "call_the_hotel": gettext_lazy("the traveller must call the hotel"),
    "path": gettext_lazy("workflow path"),
    "provider": gettext_lazy("provider"),
    "model": gettext_lazy("model"),
    "error": gettext_lazy("error"),
    "biz_type": gettext_lazy("type"),
    "external_order_no": gettext_lazy("supplier order number"),
    "created_at": gettext_lazy("created at"),
}
# Stored codes worded by their labels, by the key they appear under.
CODE_LABELS: dict[str, Any] = {
    "status": (OrderStatus, TicketStatus, BookingStatus),
    "orderStatus": (OrderStatus,),
    "category": (OrderCategory,),
    "biz_type": (BizType,),
    "verdict": (Verdict,),
}


# -- small pieces ---------------------------------------------------------------------------------------------------


def moment(value: Any, *, short: bool = False, fmt: str = "") -> str:
    """A moment (a datetime, or an ISO 8601 string as evidence keeps them) in the site's time zone, without
    fractions of a second: "2026-12-02 17:25:03" (short: "12-02 17:25"; or `fmt`). Anything else is returned as
    text."""
    if value in (None, ""):
        return EMPTY
    when = value
    if isinstance(value, str):
        if not _ISO_MOMENT.match(value):
            return value
        try:
            when = datetime.fromisoformat(value)
        except ValueError:
            return value
    if not isinstance(when, datetime):
        return str(value)
    if timezone.is_naive(when):
        when = timezone.make_aware(when)  # a naive moment is site time
    return date_format(timezone.localtime(when), fmt or (SHORT_MOMENT if short else MOMENT))


def status_label(choices, value: str) -> str:
    try:
        return str(choices(value).label)
    except ValueError:
        return value or EMPTY


def pays_back(ticket: HitlTicket) -> bool:
    """A refund or return request with an amount: an approver may approve it in full or in part."""
    return ticket.kind == TicketKind.WORKFLOW and ticket.action in MONEY_ACTIONS and ticket.amount is not None


def _label(key: Any) -> str:
    return str(KEY_LABELS.get(key, str(key).replace("_", " ")))


def _coded(key: str, value: Any) -> Any:
    for choices in CODE_LABELS.get(key, ()):
        if isinstance(value, str) and value in choices.values:
            return str(choices(value).label)
    return value


def value(item: Any, key: str = "") -> SafeString | str:
    """One value, readable: moments in local time, codes as their labels, yes/no, lists and objects as tables."""
    if item is None or item == "" or item == [] or item == {}:
        return EMPTY
    if isinstance(item, bool):
        return _("yes") if item else _("no")
    if isinstance(item, Mapping):
        return facts_table(item.items())
    if isinstance(item, list | tuple):
        if all(isinstance(entry, Mapping) for entry in item):
            return rows_table(item)
        return ", ".join(str(value(entry)) for entry in item)
    if isinstance(item, str) and _ISO_MOMENT.match(item):
        return moment(item)
    return str(_coded(key, item))


def facts_table(rows: Iterable[tuple[Any, Any]], *, css: str = "ticket-facts") -> SafeString:
    """Label / value rows; keys that are evidence keys get their words (KEY_LABELS)."""
    cells = [
        (_label(key) if isinstance(key, str) else str(key), value(item, key if isinstance(key, str) else ""))
        for key, item in rows
    ]
    if not cells:
        return format_html("{}", EMPTY)
    return format_html(
        '<table class="{}">{}</table>', css, format_html_join("", "<tr><th>{}</th><td>{}</td></tr>", cells)
    )


def rows_table(entries: list[Mapping[str, Any]]) -> SafeString:
    """A list of objects as one table: a column per key, in the order the keys first appear."""
    columns: list[str] = []
    for entry in entries:
        columns += [key for key in entry if key not in columns]
    head = format_html_join("", "<th>{}</th>", ((_label(key),) for key in columns))
    body = format_html_join(
        "",
        "<tr>{}</tr>",
        (
            (format_html_join("", "<td>{}</td>", ((value(entry.get(key), key),) for key in columns)),)
            for entry in entries
        ),
    )
    return format_html('<table class="ticket-rows"><thead><tr>{}</tr></thead><tbody>{}</tbody></table>', head, body)


def _evidence(ticket: HitlTicket) -> dict[str, Any]:
    return ticket.evidence if isinstance(ticket.evidence, dict) else {}


def _dict(item: Any) -> dict[str, Any]:
    return item if isinstance(item, dict) else {}


# -- sections -----------------------------------------------------------------------------------------------------


def traveller_words(ticket: HitlTicket) -> SafeString:
    """The traveller's own words (escaped), the reason as understood, which picked the policy, and (a refund or
    return request) whether and how the traveller confirmed it."""
    words = ticket.request_reason or _dict(_evidence(ticket).get("request")).get("reason") or ""
    kind = ticket.reason_kind or _dict(_evidence(ticket).get("request")).get("reason_kind") or ""
    understood = status_label(ReasonKind, kind) if kind else _("not stated (the action decided the policy)")
    confirmed = confirmation_line(ticket) if ticket.kind == TicketKind.WORKFLOW else ""
    if not words:
        return format_html(
            '<p class="ticket-words-missing">{}</p><p>{} {}</p>{}',
            _("The traveller gave no reason in words."),
            _("Understood as:"),
            understood,
            confirmed,
        )
    return format_html(
        '<blockquote class="ticket-reason" data-traveller-words>{}</blockquote><p>{} {}</p>{}',
        words,
        _("Understood as:"),
        understood,
        confirmed,
    )


CONFIRMED_VIA = {
    "chat": gettext_lazy("Confirmed by the traveller on the chat's confirmation card"),
    "page": gettext_lazy("Submitted by the traveller on their requests page"),
    "api": gettext_lazy("Submitted by the traveller through the API"),
}


def confirmation_line(ticket: HitlTicket) -> SafeString:
    """How the traveller confirmed the request (when, and the pending action in the chat), or a warning that
    nothing says they did: such a ticket is never approved in bulk."""
    confirmation = ticket_confirmation(ticket)
    if confirmation is None:
        return format_html(
            '<p class="ticket-unconfirmed" data-confirmation="none"><strong>{}</strong></p>',
            _("No confirmation by the traveller is on record: this request is not approved in bulk."),
        )
    action = confirmation["action"]
    return format_html(
        '<p class="ticket-confirmed" data-confirmation="{}">✔ {}, {}{}</p>',
        confirmation["via"],
        CONFIRMED_VIA[confirmation["via"]],
        moment(confirmation["at"]),
        format_html(" ({} {})", _("confirmation"), action) if action else "",
    )


def items_table(items: Any) -> SafeString:
    """The order's items: name, quantity, unit price and subtotal."""
    rows = []
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, Mapping):
            continue
        qty, price = item.get("qty"), item.get("price")
        try:
            subtotal = f"¥{float(qty) * float(price):.2f}"
        except (TypeError, ValueError):
            subtotal = EMPTY
        rows.append(
            (
                item_name(item) or EMPTY,
                qty if qty is not None else EMPTY,
                f"¥{price}" if price is not None else EMPTY,
                subtotal,
            )
        )
    if not rows:
        return format_html("{}", EMPTY)
    return format_html(
        '<table class="ticket-rows ticket-items"><thead><tr><th>{}</th><th>{}</th><th>{}</th><th>{}</th></tr></thead>'
        "<tbody>{}</tbody></table>",
        _("item"),
        _("quantity"),
        _("unit price"),
        _("subtotal"),
        format_html_join("", "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>", rows),
    )


def order_section(ticket: HitlTicket) -> SafeString:
    """The order as it was when the request came (the evidence), with its status and refunds now, and its items."""
    facts = _dict(_evidence(ticket).get("order") or _evidence(ticket).get("order_facts"))
    order = ticket.order
    if not facts and order is None:
        return format_html("{}", EMPTY)
    rows: list[tuple[str, Any]] = [
        (_("order number"), facts.get("order_id") or ticket.entity),
        (_("category"), _coded("category", facts.get("category") or (order.category if order else ""))),
        (_("status when asked"), _coded("status", facts.get("status", ""))),
    ]
    if order is not None:
        rows.append((_("status now"), order.get_status_display()))
    rows.append((_("amount"), f"¥{facts['amount']}" if facts.get("amount") else EMPTY))
    if order is not None and order.refunded_amount:
        rows.append((_("refunded so far"), f"¥{order.refunded_amount}"))
    rows += [
        (_("paid at"), moment(facts.get("paid_at"))),
        (_("delivered at"), moment(facts.get("delivered_at"))),
        (_("service date"), facts.get("service_date") or EMPTY),
    ]
    known = {"order_id", "category", "status", "amount", "paid_at", "delivered_at", "service_date", "items"}
    rows += [(key, item) for key, item in facts.items() if key not in known]
    items = facts.get("items") if facts.get("items") else (order.items if order else [])
    return format_html(
        '{}<h4 class="ticket-subhead">{}</h4>{}',
        facts_table(rows),
        _("Items"),
        items_table(items),
    )


def cancel_section(ticket: HitlTicket) -> SafeString:
    """For a paused cancel: what it would cancel, read from the booking row (hotel or flight / train, route,
    dates, passengers, amount); the booking facts kept in the evidence when the row is gone."""
    summary = _evidence(ticket).get("summary")
    booking = BookingRecord.objects.filter(booking_id=ticket.entity).first()
    if booking is None:
        kept = _dict(_evidence(ticket).get("booking"))
        body = facts_table(kept.items()) if kept else format_html("<p>{}</p>", _("The booking is no longer on record."))
        return format_html("{}{}", _summary(summary), body)
    f = booking_facts(booking)
    shown = names_shown(f, booking.biz_type)  # the airline, hotel, places and seat in the reader's language
    rows: list[tuple[str, Any]] = [
        (_("booking number"), booking.booking_id),
        (_("type"), booking.get_biz_type_display()),
    ]
    if booking.biz_type == BizType.HOTEL:
        rows.append(
            (
                _("hotel"),
                " ".join(part for part in (shown["name"], f"({f['number']})" if f["number"] else "") if part) or EMPTY,
            )
        )
        rows.append((_("city"), shown["city"] or EMPTY))
        rows.append((_("check-in"), f["check_in"] or EMPTY))
        rows.append((_("check-out"), f["check_out"] or EMPTY))
        if f["nights"] is not None:
            rows.append((_("nights"), f["nights"]))
    else:
        rows.append((_("flight or train"), " ".join(part for part in (f["number"], shown["name"]) if part) or EMPTY))
        rows.append((_("route"), shown["route"] or EMPTY))
        rows.append((_("departs"), moment(f["depart"], fmt=MINUTE) if f["depart"] else (f["date"] or EMPTY)))
        rows.append((_("arrives"), moment(f["arrive"], fmt=MINUTE) if f["arrive"] else EMPTY))
        if shown["seat"]:
            rows.append((_("seat"), shown["seat"]))
    rows += [
        (_("passengers"), ", ".join(f["passengers"]) or EMPTY),
        (_("amount"), f"¥{booking.amount}"),
        (_("status now"), booking.get_status_display()),
        (_("supplier order number"), booking.external_order_no or EMPTY),
    ]
    return format_html("{}{}", _summary(summary), facts_table(rows, css="ticket-facts ticket-cancel"))


def _summary(summary: Any) -> SafeString | str:
    """The paused call's one line, stored in English, worded in the reader's language (`aftersale.reasons`)."""
    return format_html('<p class="ticket-summary">{}</p>', capfirst(summary_text(str(summary)))) if summary else ""


def _cited_ids(ticket: HitlTicket) -> list[Any]:
    evidence = _evidence(ticket)
    cited = _dict(evidence.get("verdict")).get("policy_ids") or _dict(evidence.get("assessment")).get("policy_ids")
    return list(cited) if isinstance(cited, list) else []


def policies_section(ticket: HitlTicket) -> SafeString:
    """The retrieved policy passages, best first, those the verdict cites marked."""
    policies = _evidence(ticket).get("policies")
    if not isinstance(policies, list) or not policies:
        return format_html("{}", _("No policy passage was retrieved."))
    cited = _cited_ids(ticket)
    rows = []
    for passage in policies:
        passage = passage if isinstance(passage, Mapping) else {"text": passage}
        is_cited = passage.get("id") is not None and passage.get("id") in cited
        mark = format_html('<span class="policy-cited-mark">✔ {}</span>', _("cited by the verdict")) if is_cited else ""
        rows.append(
            (
                " policy-cited" if is_cited else "",
                "yes" if is_cited else "no",
                bilingual(passage.get("title") or passage.get("name")) or EMPTY,
                mark,
                bilingual(passage.get("text") or passage.get("passage")) or EMPTY,
            )
        )
    return format_html(
        '<table class="ticket-rows ticket-policies"><thead><tr><th>{}</th><th>{}</th></tr></thead><tbody>{}</tbody>'
        "</table>",
        _("policy"),
        _("passage"),
        format_html_join(
            "",
            '<tr class="policy-row{}" data-cited="{}"><td><strong>{}</strong><br>{}</td>'
            '<td class="policy-passage">{}</td></tr>',
            rows,
        ),
    )


def verdict_section(ticket: HitlTicket) -> SafeString:
    """Why the verdict is what it is: the reason (in the reader's language when code gave it), who judged, whether
    a model agreed with the policy, the policy's own assessment, and the flag."""
    evidence = _evidence(ticket)
    recorded = _dict(evidence.get("verdict"))
    assessment = _dict(evidence.get("assessment"))
    if not ticket.verdict and not recorded:
        return format_html("<p>{}</p>", _("No verdict: an action awaiting approval is decided on its facts."))
    rows: list[tuple[str, Any]] = [(_("reason"), ticket_verdict_reason(ticket) or EMPTY)]
    provider = recorded.get("provider") or ""
    if recorded.get("from_policy") or provider == "rules":
        rows.append((_("judged by"), _("the policy rules (code)")))
    elif provider:
        rows.append(
            (
                _("judged by"),
                _("model %(provider)s %(model)s") % {"provider": provider, "model": recorded.get("model") or ""},
            )
        )
    if "agrees_with_policy" in recorded and not recorded.get("from_policy"):
        rows.append((_("agrees with the policy rules"), bool(recorded["agrees_with_policy"])))
        code = assessment.get("reason_code")
        policy_says = (
            policy_reason_text(code, assessment.get("reason_facts")) if code in REASONS else assessment.get("reason")
        )
        if assessment:
            rows.append(
                (
                    _("the policy rules say"),
                    f"{status_label(Verdict, str(assessment.get('verdict') or ''))}: {policy_says or EMPTY}",
                )
            )
    if recorded.get("error"):
        rows.append((_("error"), recorded["error"]))
    if ticket.flagged:
        rows.append(
            (_("flagged"), _("yes: review closely (the verdict failed, was uncertain or disagreed with the policy)"))
        )
    return facts_table(rows)


def paused_call(ticket: HitlTicket) -> SafeString:
    """The action an approval would let run, as facts in the reader's language: what it does, on which booking or
    order, how much, for whom (the traveller and the booking's passengers), and any other argument it runs with.
    The paused tool's name and raw arguments are the executor's business, not the approver's."""
    saved = _dict(ticket.arguments)
    arguments = _dict(saved.get("arguments"))
    booking = BookingRecord.objects.filter(booking_id=ticket.entity).first()
    passengers = booking_facts(booking)["passengers"] if booking is not None else []
    rows: list[tuple[str, Any]] = [
        (_("action"), ticket.get_action_display()),
        (_("booking number") if ticket.action == "CANCEL_BOOKING" else _("order number"), ticket.entity or EMPTY),
        (_("amount"), f"¥{ticket.amount}" if ticket.amount is not None else EMPTY),
        (_("for"), ticket.requested_by.get_username() if ticket.requested_by_id else EMPTY),
    ]
    if passengers:
        rows.append((_("passengers"), ", ".join(passengers)))
    identifiers = {"booking_id", "order_id", "entity"}
    rows += [(key, item) for key, item in arguments.items() if key not in identifiers]
    return format_html(
        '<p class="ticket-paused-action">{}</p>{}',
        _("Once approved, this is carried out on its own, exactly once:"),
        facts_table(rows, css="ticket-facts ticket-paused"),
    )


# The workflow's steps (aftersale.services.workflow NODES) as an approver reads them.
STEP_LABELS: dict[str, Any] = {
    "query_user": gettext_lazy("traveller checked"),
    "query_order": gettext_lazy("order read"),
    "query_policy": gettext_lazy("policies retrieved"),
    "validate": gettext_lazy("verdict"),
    "submit_ticket": gettext_lazy("ticket opened"),
    "rejected": gettext_lazy("refused"),
}


def _step(step: Any) -> str:
    return str(STEP_LABELS.get(str(step), step))


def other_evidence(ticket: HitlTicket) -> SafeString:
    """What the evidence holds beyond the sections above (the workflow's path, anything a later version adds)."""
    rest = {key: item for key, item in _evidence(ticket).items() if key not in SHOWN_KEYS}
    path = rest.pop("path", None)
    parts = []
    if path:
        steps = path if isinstance(path, list) else [path]
        parts.append(
            format_html('<p class="ticket-path">{}: {}</p>', _label("path"), " → ".join(_step(step) for step in steps))
        )
    if rest:
        parts.append(facts_table(rest.items()))
    if not parts:
        return format_html("{}", EMPTY)
    return format_html_join("", "{}", ((part,) for part in parts))


def execution_section(ticket: HitlTicket) -> SafeString:
    result = ticket.execution_result
    if not result:
        return format_html("{}", EMPTY)
    if not isinstance(result, Mapping):
        return format_html("{}", value(result))
    return facts_table([(key, _result_value(key, item)) for key, item in result.items()])


# Where a failed execution stopped (aftersale.services.execution `_fail`'s stages).
STAGE_LABELS: dict[str, Any] = {
    "verify": gettext_lazy("checking for an earlier refund"),
    "reconcile": gettext_lazy("reconciling with the order"),
    "supplier": gettext_lazy("the supplier's refund"),
    "resume": gettext_lazy("resuming the paused action"),
    "dispatch": gettext_lazy("choosing what to execute"),
    "internal": gettext_lazy("an internal error"),
}


def _result_value(key: str, item: Any) -> Any:
    """An execution result's value: amounts in yuan; what went wrong (stored in English, as the checks said it) in
    the reader's language, a supplier's own words as they are."""
    if key == "amount" and item not in (None, ""):
        return f"¥{item}"
    if key == "stage" and isinstance(item, str):
        return str(STAGE_LABELS.get(item, item))
    if key == "message" and isinstance(item, str):
        return reasons_text(item)
    if key == "reasons" and isinstance(item, list):
        return [event_reason_text(str(reason)) for reason in item]
    return item
