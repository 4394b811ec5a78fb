"""The bookings JSON API: the user's own bookings, and cancelling one."""

from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import generics, serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from bookings.models import BookingRecord
from bookings.selectors import bookings_for_user
from bookings.services import BookingError, booking_cancel
from config.api import DetailSerializer


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
    code = serializers.CharField()
    message = serializers.CharField()
    booking = BookingSerializer(allow_null=True)


ERROR_STATUS = {
    "INVALID_PARAM": status.HTTP_400_BAD_REQUEST,
    "BOOKING_NOT_FOUND": status.HTTP_404_NOT_FOUND,
    "PERMISSION_DENIED": status.HTTP_403_FORBIDDEN,
    "PLATFORM_CANCEL_FAILED": status.HTTP_502_BAD_GATEWAY,
}


@extend_schema_view(
    get=extend_schema(responses={200: BookingSerializer(many=True), 401: DetailSerializer, 404: DetailSerializer})
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
            401: DetailSerializer,
            400: CancelResultSerializer,
            403: CancelResultSerializer,
            404: CancelResultSerializer,
            502: CancelResultSerializer,
        },
        summary="Cancel one of my bookings (idempotent)",
    )
    def post(self, request, booking_id: str):
        try:
            outcome = booking_cancel(user=request.user, booking_id=booking_id)
        except BookingError as exc:
            body = {"code": exc.code, "message": exc.message, "booking": None}
            return Response(body, status=ERROR_STATUS.get(exc.code, status.HTTP_400_BAD_REQUEST))
        if outcome.already_cancelled:
            message = "already cancelled"
        elif outcome.call_the_hotel:
            message = "cancelled; hotels cannot be cancelled online: call the hotel to confirm"
        else:
            message = "cancelled on the supplier platform"
        return Response({"code": "OK", "message": message, "booking": BookingSerializer(outcome.booking).data})
