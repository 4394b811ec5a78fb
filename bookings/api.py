"""The bookings JSON API: the user's own bookings, and cancelling one (through `booking_cancel`, like every way in).

Cancelling is two steps: a POST without `{"confirm": true}` changes nothing and answers 409 CONFIRMATION_REQUIRED
with what cancelling will do (`booking_cancel_preview`) in `data.preview`; the same POST with it cancels.

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
from bookings.services import BookingError, booking_cancel, booking_cancel_preview
from core.api import ErrorSerializer
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
            "created_at",
            "updated_at",
        ]


class ConfirmSerializer(serializers.Serializer):
    confirm = serializers.BooleanField(required=False, help_text="true to cancel; without it nothing changes (409)")


class CancelResultSerializer(serializers.Serializer):
    ok = serializers.BooleanField(default=True)
    code = serializers.CharField()
    message = serializers.CharField()
    booking = BookingSerializer()
    already_cancelled = serializers.BooleanField()
    call_the_hotel = serializers.BooleanField()


@extend_schema_view(
    get=extend_schema(responses={200: BookingSerializer(many=True), 401: ErrorSerializer, 404: ErrorSerializer})
)
class BookingListView(generics.ListAPIView):
    serializer_class = BookingSerializer

    def get_queryset(self):
        return bookings_for_user(user=self.request.user)


class BookingCancelView(APIView):
    @extend_schema(
        request=ConfirmSerializer,
        responses={
            200: CancelResultSerializer,
            202: ErrorSerializer,
            400: ErrorSerializer,
            401: ErrorSerializer,
            403: ErrorSerializer,
            404: ErrorSerializer,
            409: ErrorSerializer,
            502: ErrorSerializer,
        },
        summary=(
            'Cancel one of my bookings: without {"confirm": true} → 409 CONFIRMATION_REQUIRED with the preview; '
            "idempotent; above the approval amount it waits for an approver (202)"
        ),
    )
    def post(self, request, booking_id: str):
        confirmed = isinstance(request.data, dict) and request.data.get("confirm") is True
        if not confirmed:
            preview = booking_cancel_preview(user=request.user, booking_id=booking_id, language=get_language())
            raise BookingError(
                Code.CONFIRMATION_REQUIRED,
                'Nothing was cancelled yet: send {"confirm": true} to cancel.',
                {"preview": preview},
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
        }
        return Response(body)
