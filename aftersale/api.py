"""The after-sale JSON API: my orders, my requests (tickets) and where they stand, and a new request."""

from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import generics, serializers, status
from rest_framework.exceptions import ParseError
from rest_framework.response import Response
from rest_framework.views import APIView

from aftersale.models import BizOrder, HitlTicket
from aftersale.selectors import orders_for_user, tickets_for_user
from config.api import DetailSerializer


class OrderSerializer(serializers.ModelSerializer):
    class Meta:
        model = BizOrder
        fields = ["order_id", "category", "items", "amount", "status", "service_date", "paid_at", "delivered_at"]


class TicketSerializer(serializers.ModelSerializer):
    """What a requester may see of a ticket: never the verdict, the evidence or the review flag."""

    class Meta:
        model = HitlTicket
        fields = ["ticket_no", "kind", "action", "entity", "amount", "status", "created_at", "deadline", "decided_at"]


class AftersaleRequestSerializer(serializers.Serializer):
    order_id = serializers.CharField(max_length=32)
    action = serializers.ChoiceField(choices=["REFUND", "RETURN"])


class AftersaleResultSerializer(serializers.Serializer):
    status = serializers.CharField()
    code = serializers.CharField()
    reason = serializers.CharField(allow_blank=True)
    ticket = TicketSerializer(allow_null=True)


RESULT_HTTP = {
    "SUBMITTED": status.HTTP_201_CREATED,
    "REUSED": status.HTTP_200_OK,
    "ALREADY_DONE": status.HTTP_200_OK,
}
REJECTION_HTTP = {
    "INVALID_PARAM": status.HTTP_400_BAD_REQUEST,
    "ORDER_NOT_FOUND": status.HTTP_404_NOT_FOUND,
    "ORDER_NOT_OWNED": status.HTTP_403_FORBIDDEN,
    "INELIGIBLE": status.HTTP_422_UNPROCESSABLE_ENTITY,
}


@extend_schema_view(
    get=extend_schema(responses={200: OrderSerializer(many=True), 401: DetailSerializer, 404: DetailSerializer})
)
class OrderListView(generics.ListAPIView):
    serializer_class = OrderSerializer

    def get_queryset(self):
        return orders_for_user(user=self.request.user)


@extend_schema_view(
    get=extend_schema(responses={200: TicketSerializer(many=True), 401: DetailSerializer, 404: DetailSerializer})
)
class TicketListView(generics.ListAPIView):
    serializer_class = TicketSerializer

    def get_queryset(self):
        return tickets_for_user(user=self.request.user)


class AftersaleRequestView(APIView):
    @extend_schema(
        request=AftersaleRequestSerializer,
        responses={
            **{code: AftersaleResultSerializer for code in (200, 201, 400, 403, 404, 422)},
            401: DetailSerializer,
        },
        summary="Ask for a refund or a return of one of my orders (idempotent per order and action)",
    )
    def post(self, request):
        from aftersale.services.workflow import aftersale_request_submit

        try:
            body = request.data
        except ParseError as exc:  # answered in this API's own error shape, as documented
            reason = f"malformed JSON: {exc.detail}"
            return Response(
                {"status": "REJECTED", "code": "INVALID_PARAM", "reason": reason, "ticket": None},
                status=status.HTTP_400_BAD_REQUEST,
            )
        incoming = AftersaleRequestSerializer(data=body)
        if not incoming.is_valid():
            field, problems = next(iter(incoming.errors.items()))
            body = {"status": "REJECTED", "code": "INVALID_PARAM", "reason": f"{field}: {problems[0]}", "ticket": None}
            return Response(body, status=status.HTTP_400_BAD_REQUEST)
        outcome = aftersale_request_submit(user=request.user, **incoming.validated_data)
        body = {
            "status": outcome.status,
            "code": outcome.code,
            "reason": outcome.reason or "",
            "ticket": TicketSerializer(outcome.ticket).data if outcome.ticket else None,
        }
        http = RESULT_HTTP.get(outcome.status) or REJECTION_HTTP.get(outcome.code, status.HTTP_400_BAD_REQUEST)
        return Response(body, status=http)
