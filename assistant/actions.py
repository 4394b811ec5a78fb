"""Pending actions: a write (book, cancel, rebook) waits here for the traveller's yes, and runs at most once.

A WRITE tool call that reaches the registry without a confirmed action becomes a `PendingAction` (see
`assistant.agent.registry.may_write_now`): the validated arguments and the preview the traveller is shown, for that
traveller and conversation, until `ASSISTANT_PENDING_ACTION_TTL`. One is open per conversation: a new one supersedes
the older. Confirming is a compare-and-set UPDATE in PostgreSQL (PENDING and not expired → EXECUTING, or an
EXECUTING whose claim ran out), so however many confirmations arrive at once (double click, replay, two tabs) one
request runs the tool; the others get ACTION_IN_PROGRESS or, once it is done, the stored envelope again.

The tool runs through the default registry with `ToolContext.confirmed_action` set to the action's id (which the
registry checks against this table) and `turn_id = action-<id>`, the supplier's idempotency scope: a confirmation
re-run after a crash makes no second order.

Nothing stays in flight: an action left EXECUTING past its claim (the process carrying it out died) is settled
against the supplier by running the same call again in the same scope (the supplier answers with its first result,
so an order it made is not made twice) and recording what it answers, EXECUTED or FAILED. The traveller's own
retry does it (`pending_action_confirm`), and so does the beat's sweep (`pending_actions_settle_stalled`) when
nobody asks.
"""

import datetime as dt
import logging
import time

from django.db.models import F, Q
from django.utils import timezone

from assistant import conf
from assistant.llm.schema import AnswerName
from assistant.models import PendingAction, PendingActionStatus
from assistant.pending import as_uuid, plain
from core.envelope import Code, fail, ok
from core.tools import ToolContext

logger = logging.getLogger("assistant.actions")

KIND = "pending_action"  # envelopes about an action itself (declined, expired, in progress, not found)
# An execution holds the action this long past the supplier's own timeout (per supplier call a tool may make, a
# rebook makes two): a claim never ends while the supplier may still be working on it.
SUPPLIER_CALLS_PER_ACTION = 2
CLAIM_MARGIN_SECONDS = 30
CONFIRMED_REQUEST_TEXT = "(confirmed)"
DONE = (PendingActionStatus.EXECUTED, PendingActionStatus.FAILED)
NOT_FOUND_MESSAGE = "There is no such confirmation for you."
# The sweep settles at most this many stalled actions per run, and starts none after this many seconds (each may take
# a few supplier calls; the task's time limit must never cut one short). The rest wait for the next run.
SETTLE_BATCH = 20
SETTLE_BUDGET_SECONDS = 45


def _claim_until(now: dt.datetime) -> dt.datetime:
    seconds = float(conf.platform_timeout()) * SUPPLIER_CALLS_PER_ACTION + CLAIM_MARGIN_SECONDS
    return now + dt.timedelta(seconds=seconds)


def _about(action: PendingAction | None, **extra) -> dict:
    """The data of an envelope about the action itself (for the confirmation presenter)."""
    if action is None:
        return {"kind": KIND, "pending_id": None, **extra}
    return {
        "kind": KIND,
        "pending_id": str(action.pk),
        "tool": action.tool,
        "status": action.status,
        "preview": action.preview,
        "conversation_id": str(action.conversation_id),
        **extra,
    }


# -- creating ------------------------------------------------------------------------------------------------------


# -- reading -------------------------------------------------------------------------------------------------------


def pending_action_open(*, user, conversation_id) -> PendingAction | None:
    """The conversation's open action (PENDING, not expired) for this user, or None."""
    conversation_pk = as_uuid(conversation_id)
    if conversation_pk is None:
        return None
    return (
        PendingAction.objects.filter(
            user=user,
            conversation_id=conversation_pk,
            status=PendingActionStatus.PENDING,
            expires_at__gt=timezone.now(),
        )
        .order_by("-created_at")
        .first()
    )


def pending_action_awaiting(*, user, conversation_id) -> PendingAction | None:
    """What a typed "yes" or "no" in this conversation answers: the action still PENDING (expired too, so the
    traveller is told it expired) or being carried out right now."""
    conversation_pk = as_uuid(conversation_id)
    if conversation_pk is None:
        return None
    return (
        PendingAction.objects.filter(
            user=user,
            conversation_id=conversation_pk,
            status__in=(PendingActionStatus.PENDING, PendingActionStatus.EXECUTING),
        )
        .order_by("-created_at")
        .first()
    )


def _target(*, user, pending_id, conversation_id) -> PendingAction | None:
    """The action an answer is about: by id, whoever's it is (the compare-and-set that decides it holds the owner
    check, in one statement with the state check), or the user's own awaiting one in the conversation."""
    if pending_id is not None:
        pk = as_uuid(pending_id)
        return PendingAction.objects.filter(pk=pk).first() if pk else None
    return pending_action_awaiting(user=user, conversation_id=conversation_id)


def _theirs(action: PendingAction, user) -> bool:
    """Someone else's action, after a compare-and-set that (being theirs) changed nothing: answered as an unknown id."""
    return action.user_id != user.pk


# -- deciding ------------------------------------------------------------------------------------------------------


def _expire(action: PendingAction) -> None:
    PendingAction.objects.filter(pk=action.pk, status=PendingActionStatus.PENDING).update(
        status=PendingActionStatus.EXPIRED, decided_at=timezone.now()
    )
    action.refresh_from_db()


def _not_open(action: PendingAction | None) -> dict:
    """The answer for an action that cannot be confirmed or declined now, from its state."""
    if action is None:
        return fail(Code.ACTION_NOT_FOUND, NOT_FOUND_MESSAGE, _about(None))
    status = action.status
    if status == PendingActionStatus.PENDING and action.expires_at <= timezone.now():
        _expire(action)
        status = action.status
    if status == PendingActionStatus.EXECUTING:
        return fail(Code.ACTION_IN_PROGRESS, "This is being carried out right now.", _about(action))
    if status == PendingActionStatus.DECLINED:
        return fail(Code.ACTION_DECLINED, "This was declined; nothing was done.", _about(action))
    if status in (PendingActionStatus.EXPIRED, PendingActionStatus.SUPERSEDED):
        return fail(Code.ACTION_EXPIRED, "This confirmation is no longer valid; nothing was done.", _about(action))
    return fail(Code.ACTION_IN_PROGRESS, "This cannot be confirmed now.", _about(action))


def _replayed(action: PendingAction) -> dict:
    """The stored envelope of a done action, marked as a replay (the presenter says it was already done)."""
    envelope = dict(action.result or fail(Code.INTERNAL_ERROR, "no result was kept", None))
    data = envelope.get("data")
    envelope["data"] = {**data, "action_replay": True, "pending_id": str(action.pk)} if isinstance(data, dict) else data
    return envelope


def pending_action_confirm(
    *, user, pending_id=None, conversation_id=None, language: str = "zh-hans", today=None, port=None
) -> dict:
    """Carry out the traveller's pending action once: the executed tool's envelope.

    By id (a button, the API) or the conversation's awaiting action (a typed yes). Another user's or an unknown id
    → ACTION_NOT_FOUND; expired or superseded → ACTION_EXPIRED; declined → ACTION_DECLINED; being carried out by
    another request → ACTION_IN_PROGRESS; already done → the stored envelope again (`data.action_replay`).
    """
    action = _target(user=user, pending_id=pending_id, conversation_id=conversation_id)
    if action is None:
        return _not_open(None)
    now = timezone.now()
    claimed = PendingAction.objects.filter(
        pk=action.pk, user=user, status=PendingActionStatus.PENDING, expires_at__gt=now
    ).update(status=PendingActionStatus.EXECUTING, claimed_until=_claim_until(now), decided_at=now)
    if claimed == 1:
        envelope = _execute(action, user=user, language=language, today=today, port=port)
        _record(action, envelope, how="carried out")
        return envelope
    if _theirs(action, user):
        return _not_open(None)
    if _take_over(action, user=user):  # the confirmation before this one died mid-way: settle it now
        envelope = _execute(action, user=user, language=language, today=today, port=port)
        _record(action, envelope, how="settled on the traveller's retry")
        return envelope
    action.refresh_from_db()
    if action.status in DONE:
        return _replayed(action)
    return _not_open(action)


def _stalled(now: dt.datetime) -> Q:
    """An execution whose claim ran out (or that has none): the process carrying it out is gone."""
    return Q(status=PendingActionStatus.EXECUTING) & (Q(claimed_until__lt=now) | Q(claimed_until__isnull=True))


def _take_over(action: PendingAction, *, user) -> bool:
    """Compare-and-set: claim a stalled execution of `action` for this process (one taker however many try)."""
    now = timezone.now()
    taken = PendingAction.objects.filter(_stalled(now), pk=action.pk, user=user).update(claimed_until=_claim_until(now))
    if taken == 1:
        logger.warning(
            "pending action left in flight: settling it with the supplier",
            extra={"pending_id": str(action.pk), "tool": action.tool, "user_id": user.pk},
        )
    return taken == 1


def _record(action: PendingAction, envelope: dict, *, how: str) -> str:
    """Keep the tool's envelope as the action's result: EXECUTED (ok) or FAILED (its code and message say why).
    Only an execution still in flight is recorded: whoever finished first (a slow original or a settling re-run of
    the same supplier scope, which got the same answer) has recorded it already."""
    status = PendingActionStatus.EXECUTED if envelope.get("ok") else PendingActionStatus.FAILED
    PendingAction.objects.filter(pk=action.pk, status=PendingActionStatus.EXECUTING).update(
        status=status, result=plain(envelope), claimed_until=None
    )
    logger.info(
        f"pending action {how}",
        extra={"pending_id": str(action.pk), "tool": action.tool, "status": status, "code": envelope.get("code")},
    )
    return status


def _execute(action: PendingAction, *, user, language: str, today, port) -> dict:
    from assistant.agent import default_registry  # the registry imports this module's checks

    context = ToolContext(
        user=user,
        conversation_id=str(action.conversation_id),
        language=language,
        today=today or timezone.localdate(),
        port=port,
        request_text=CONFIRMED_REQUEST_TEXT,
        turn_id=f"action-{action.pk}",
        confirmed_action=str(action.pk),
    )
    try:
        return default_registry().call(action.tool, action.arguments, context, call_id=f"action-{action.pk}")
    except Exception:  # the registry never raises; anything else is FAILED (the sync still finds an order made)
        logger.exception("pending action %s could not be carried out", action.pk)
        return fail(Code.INTERNAL_ERROR, "The action could not be carried out; nothing further is known.", None)


def pending_actions_settle_stalled(*, limit: int = SETTLE_BATCH, budget_seconds: float = SETTLE_BUDGET_SECONDS) -> dict:
    """The beat's sweep: settle every action left EXECUTING past its claim that nobody retried, oldest claim first,
    each against the supplier in its own scope (see the module's docstring), in the language of its conversation.
    Safe on any number of beat instances and any overlap with a traveller's retry (each action has one taker).
    Counts of what it did: {"settled", "executed", "failed"}."""
    started = time.monotonic()
    stalled = (
        PendingAction.objects.filter(_stalled(timezone.now()))
        .select_related("user", "conversation")
        .order_by(F("claimed_until").asc(nulls_first=True), "created_at")[:limit]
    )
    counts = {"settled": 0, "executed": 0, "failed": 0}
    for action in list(stalled):
        if time.monotonic() - started > budget_seconds:
            break  # the next run takes the rest
        if not _take_over(action, user=action.user):
            continue  # the traveller's retry or another sweep has it
        language = action.conversation.language or conf.site_language()
        envelope = _execute(action, user=action.user, language=language, today=None, port=None)
        status = _record(action, envelope, how="settled by the sweep")
        counts["settled"] += 1
        counts["executed" if status == PendingActionStatus.EXECUTED else "failed"] += 1
    return counts


def pending_action_decline(*, user, pending_id=None, conversation_id=None) -> dict:
    """The traveller said no: the action is DECLINED and nothing is done. ok with the action's data, or the same
    refusals as `pending_action_confirm` (a done action is not undone: its envelope again)."""
    action = _target(user=user, pending_id=pending_id, conversation_id=conversation_id)
    if action is None:
        return _not_open(None)
    now = timezone.now()
    declined = PendingAction.objects.filter(
        pk=action.pk, user=user, status=PendingActionStatus.PENDING, expires_at__gt=now
    ).update(status=PendingActionStatus.DECLINED, decided_at=now)
    if _theirs(action, user):
        return _not_open(None)
    action.refresh_from_db()
    if declined == 1:
        return ok(_about(action), "declined; nothing was done")
    if action.status in DONE:
        return _replayed(action)
    return _not_open(action)


def pending_action_withdraw(*, user, conversation_id, keep: set[str] = frozenset()) -> int:
    """The conversation's open actions are no longer what the traveller wants (they changed the booking's facts, or
    asked for another one): SUPERSEDED, so a later "确认" cannot carry out a card that no longer matches what they
    asked. `keep`: ids of actions this very turn prepared. Returns how many were withdrawn."""
    conversation_pk = as_uuid(conversation_id)
    if conversation_pk is None:
        return 0
    now = timezone.now()
    return (
        PendingAction.objects.filter(user=user, conversation_id=conversation_pk, status=PendingActionStatus.PENDING)
        .exclude(pk__in=[pk for pk in (as_uuid(value) for value in keep) if pk is not None])
        .update(status=PendingActionStatus.SUPERSEDED, decided_at=now)
    )


def conversation_bookings(*, user, conversation_id) -> list[str]:
    """The booking ids this conversation's confirmed actions made (newest first): what "取消我的火车票" or "改签"
    most likely means when the traveller has several bookings."""
    conversation_pk = as_uuid(conversation_id)
    if conversation_pk is None:
        return []
    results = (
        PendingAction.objects.filter(user=user, conversation_id=conversation_pk, status=PendingActionStatus.EXECUTED)
        .order_by("-decided_at", "-created_at")
        .values_list("result", flat=True)
    )
    found: list[str] = []
    for result in results:
        data = result.get("data") if isinstance(result, dict) else None
        data = data if isinstance(data, dict) else {}
        new = data.get("new") if isinstance(data.get("new"), dict) else {}
        booking_id = new.get("booking_id") or data.get("booking_id")
        if isinstance(booking_id, str) and booking_id not in found:
            found.append(booking_id)
    return found


# -- a chat message that answers a confirmation --------------------------------------------------------------------


def pending_action_get(*, user, pending_id) -> PendingAction | None:
    """The user's action with that id (None for an unknown, malformed or someone else's id)."""
    pk = as_uuid(pending_id)
    return PendingAction.objects.filter(pk=pk, user=user).first() if pk else None


def pending_action_answer(
    *, user, conversation_id, answer: str | None, action_id=None, language: str, today=None, port=None, choosing=False
) -> dict | None:
    """The envelope answering a yes or a no (`answer`: what the card's button says, or the reading of a typed
    "确认" / "不要了") to the action the button names, else to the conversation's awaiting one; None when there is no
    such answer (or nothing awaits one): the turn then goes on as any other, and the action stays open. `choosing`:
    the conversation offers options to pick from, so a yes with nothing to confirm goes on as a turn (it picks)."""
    if answer not in (AnswerName.YES, AnswerName.NO):
        return None
    if action_id in (None, ""):
        awaiting = pending_action_awaiting(user=user, conversation_id=conversation_id)
        if awaiting is None:
            # A bare "确认" with nothing to confirm is told so (nothing is done); a bare "no" is just talk.
            return _not_open(None) if answer == AnswerName.YES and not choosing else None
        action_id = awaiting.pk
    if answer == AnswerName.YES:
        return pending_action_confirm(user=user, pending_id=action_id, language=language, today=today, port=port)
    return pending_action_decline(user=user, pending_id=action_id)


def pending_action_statuses(*, user, pending_ids) -> dict[str, str]:
    """{id: status} of the user's actions among `pending_ids` (what a reloaded page shows on old cards)."""
    pks = [pk for pk in (as_uuid(value) for value in pending_ids) if pk is not None]
    if not pks:
        return {}
    rows = PendingAction.objects.filter(user=user, pk__in=pks).values_list("pk", "status", "expires_at")
    now = timezone.now()
    return {
        str(pk): PendingActionStatus.EXPIRED if status == PendingActionStatus.PENDING and expires <= now else status
        for pk, status, expires in rows
    }
