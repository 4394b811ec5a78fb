"""BookingPersistenceHook: after a platform command made an order, record it. Best effort.

A post-acting hook is a side effect: the agent loop logs its failures and goes on, so a booking the platform
made is never lost to the user's conversation because our record of it failed (the platform keeps the order;
the log says which one to reconcile). It reads what was done from the envelope (`kind: "platform"`, product,
action, order number); it holds no rule: what a command may do is decided in `bookings.services.command`.
"""

import logging

from bookings.services.recording import booking_record_from_platform

logger = logging.getLogger(__name__)

PLATFORM_KIND = "platform"


class BookingPersistenceHook:
    name = "booking_persistence"
    priority = 900  # low priority: after every other hook

    def pre_acting(self, call) -> None:
        return None

    def post_acting(self, call, result: dict) -> None:
        data = result.get("data") if isinstance(result, dict) else None
        if not result.get("ok") or not isinstance(data, dict) or data.get("kind") != PLATFORM_KIND:
            return
        if data.get("action") != "saveOrder":
            return
        number = data.get("order_no")
        if not number:
            logger.error("saveOrder answer has no order number", extra={"product": data.get("product")})
            return
        booking = booking_record_from_platform(
            user=call.context.user,
            biz_type=str(data.get("product") or ""),
            external_order_no=str(number),
            arguments=data.get("arguments") or {},
            response=data.get("answer") or {},
        )
        logger.info("booking recorded", extra={"booking_id": booking.booking_id, "order_no": number})
