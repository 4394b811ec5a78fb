"""The bookings JSON API: the user's own bookings, paying one (`booking_pay`) and cancelling one (`booking_cancel`),
like every way in.

Paying and cancelling are two steps: a POST without `{"confirm": true}` changes nothing and answers 409
CONFIRMATION_REQUIRED with what it will do (`booking_pay_preview`: the exact amount and the deadline;
`booking_cancel_preview`) in `data.preview`; the same POST with it pays or cancels. A payment past the deadline
answers 409 BOOKING_EXPIRED; one the supplier did not take, 502 PAYMENT_FAILED (nothing was charged).

Refusals are `BookingError`s; the project's exception handler (`core.api`) answers them with the one error body.
A cancel that waits for an approver answers 202 TICKET_PENDING with the ticket in `data`; someone else's booking
answers 404 BOOKING_NOT_FOUND, byte for byte like an unknown number; 403 is an approver's rejection.
"""

from django.utils.translation import get_language
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import generics, serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from bookings.models import BookingRecord
from bookings.selectors import bookings_for_user
from bookings.services.cancel import booking_cancel, booking_cancel_preview
from bookings.services.errors import BookingError
from bookings.services.pay import booking_pay, booking_pay_preview
from core.api import error_responses
from core.envelope import Code


class BookingSerializer(serializers.ModelSerializer):
    class Meta:
        model = BookingRecord
        fields = [
            "booking_id",
            "biz_type",
            "status",
            "amount",
            "external_order_no",
            "details",
            "pay_deadline",
            "paid_at",
            "created_at",
            "updated_at",
        ]


class ConfirmSerializer(serializers.Serializer):
    confirm = serializers.BooleanField(required=False, help_text="true to do it; without it nothing changes (409)")


class PayResultSerializer(serializers.Serializer):
    ok = serializers.BooleanField(default=True)
    code = serializers.CharField()
    message = serializers.CharField()
    booking = BookingSerializer()
    already_paid = serializers.BooleanField()


class CancelResultSerializer(serializers.Serializer):
    ok = serializers.BooleanField(default=True)
    code = serializers.CharField()
    message = serializers.CharField()
    booking = BookingSerializer()
    already_cancelled = serializers.BooleanField()
    call_the_hotel = serializers.BooleanField()
    refund = serializers.JSONField(allow_null=True, help_text="A paid booking's refund under its fare rules.")


@extend_schema_view(get=extend_schema(responses={200: BookingSerializer(many=True), **error_responses(401, 404)}))
class BookingListView(generics.ListAPIView):
    serializer_class = BookingSerializer

    def get_queryset(self):
        return bookings_for_user(user=self.request.user)


def _require_confirmation(request, preview, booking_id: str, message: str) -> None:
    """The first of the two steps: without `{"confirm": true}` nothing changes and the answer is 409
    CONFIRMATION_REQUIRED with what the call will do (the preview)."""
    if isinstance(request.data, dict) and request.data.get("confirm") is True:
        return
    shown = preview(user=request.user, booking_id=booking_id, language=get_language())
    raise BookingError(Code.CONFIRMATION_REQUIRED, message, {"preview": shown})


class BookingPayView(APIView):
    @extend_schema(
        request=ConfirmSerializer,
        responses={
            200: PayResultSerializer,
            **error_responses(400, 401, 404, 409, 502),
        },
        summary=(
            'Pay one of my bookings: without {"confirm": true} → 409 CONFIRMATION_REQUIRED with the preview; '
            "idempotent (a repeat pays nothing more); past the deadline → 409 BOOKING_EXPIRED"
        ),
    )
    def post(self, request, booking_id: str):
        _require_confirmation(
            request, booking_pay_preview, booking_id, 'Nothing was paid yet: send {"confirm": true} to pay.'
        )
        outcome = booking_pay(user=request.user, booking_id=booking_id)
        body = {
            "ok": True,
            "code": Code.OK.value,
            "message": "paid already" if outcome.already_paid else "paid; the booking is confirmed",
            "booking": BookingSerializer(outcome.booking).data,
            "already_paid": outcome.already_paid,
        }
        return Response(body)


class BookingCancelView(APIView):
    @extend_schema(
        request=ConfirmSerializer,
        responses={
            200: CancelResultSerializer,
            **error_responses(202, 400, 401, 403, 404, 409, 502),
        },
        summary=(
            'Cancel one of my bookings: without {"confirm": true} → 409 CONFIRMATION_REQUIRED with the preview; '
            "idempotent; above the approval amount it waits for an approver (202)"
        ),
    )
    def post(self, request, booking_id: str):
        _require_confirmation(
            request, booking_cancel_preview, booking_id, 'Nothing was cancelled yet: send {"confirm": true} to cancel.'
        )
        outcome = booking_cancel(user=request.user, booking_id=booking_id)
        if outcome.already_cancelled:
            message = "already cancelled"
        elif outcome.call_the_hotel:
            message = "cancelled; hotels cannot be cancelled online: call the hotel to confirm"
        else:
            message = "cancelled on the supplier platform"
        body = {
            "ok": True,
            "code": Code.OK.value,
            "message": message,
            "booking": BookingSerializer(outcome.booking).data,
            "already_cancelled": outcome.already_cancelled,
            "call_the_hotel": outcome.call_the_hotel,
            "refund": None if outcome.already_cancelled else outcome.refund,
        }
        return Response(body)
