"""BookingPersistenceHook: after a platform command, record what it created or cancelled. Best effort.

A post-acting hook is a side effect: the agent loop logs its failures and goes on, so a booking the platform
made is never lost to the user's conversation because our record of it failed (the platform keeps the order;
the log says which one to reconcile).
"""

import logging

logger = logging.getLogger(__name__)

ORDER_NUMBER_FIELDS = ("orderId", "orderNo", "mainOrderNo")


class BookingPersistenceHook:
    name = "booking_persistence"
    priority = 900  # low priority: after every other hook

    def pre_acting(self, call) -> None:
        return None

    def post_acting(self, call, result: dict) -> None:
        if call.tool.name != "execute_platform_command" or not result.get("ok"):
            return
        from bookings.platform import order_number, parse_command, unwrap
        from bookings.services import booking_mark_cancelled_by_platform, booking_record_from_platform

        command = parse_command(call.arguments["command"])
        answer = unwrap(result.get("data") or {})
        if command.action == "saveOrder":
            number = order_number(answer)
            if not number:
                logger.error("saveOrder answer has no order number", extra={"product": command.product})
                return
            booking = booking_record_from_platform(
                user=call.context.user,
                biz_type=command.product,
                external_order_no=number,
                arguments=command.arguments,
                response=answer,
            )
            logger.info("booking recorded", extra={"booking_id": booking.booking_id, "order_no": number})
        elif command.action == "cancelOrder":
            number = command.arguments.get("orderId") or order_number(answer)
            if number:
                booking_mark_cancelled_by_platform(
                    user=call.context.user, biz_type=command.product, external_order_no=str(number)
                )
