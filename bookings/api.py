"""The bookings JSON API: the user's own bookings, and cancelling one (through `booking_cancel`, like every way in).

Refusals are `BookingError`s; the project's exception handler (`core.api`) answers them with the one error body.
A cancel that waits for an approver answers 202 TICKET_PENDING with the ticket in `data`; someone else's booking
answers 404 BOOKING_NOT_FOUND, byte for byte like an unknown number; 403 is an approver's rejection.
"""

from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import generics, serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from bookings.models import BookingRecord
from bookings.selectors import bookings_for_user
from bookings.services import booking_cancel
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
        request=None,
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
        summary="Cancel one of my bookings (idempotent; above the approval amount it waits for an approver: 202)",
    )
    def post(self, request, booking_id: str):
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
