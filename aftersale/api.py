"""The after-sale JSON API: my orders, my requests (tickets) and where they stand, and a new request.

Refusals are the one error body of every API view (`core.api`): a request the workflow refuses raises
`AftersaleError`, which the project's DRF exception handler answers with `{"ok": false, "code", "message", "data"}`
and the HTTP status of its code; malformed bodies and invalid fields get the same body from DRF's own errors.
Someone else's order answers 404 ORDER_NOT_FOUND, byte for byte like an unknown number.
"""

from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import generics, serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from aftersale.models import BizOrder, HitlTicket
from aftersale.selectors import orders_for_user, tickets_for_user
from aftersale.services.transitions import AftersaleError
from aftersale.services.workflow import CONFIRMED_BY_API, SUBMITTED, aftersale_request_submit
from core.api import error_responses


class OrderSerializer(serializers.ModelSerializer):
    class Meta:
        model = BizOrder
        fields = [
            "order_id",
            "category",
            "items",
            "amount",
            "refunded_amount",
            "status",
            "service_date",
            "paid_at",
            "delivered_at",
        ]


class TicketSerializer(serializers.ModelSerializer):
    """What a requester may see of a ticket: never the verdict, the evidence or the review flag."""

    class Meta:
        model = HitlTicket
        fields = [
            "ticket_no",
            "kind",
            "action",
            "entity",
            "amount",
            "approved_amount",
            "status",
            "created_at",
            "deadline",
            "decided_at",
        ]


class AftersaleRequestSerializer(serializers.Serializer):
    order_id = serializers.CharField(max_length=32)
    action = serializers.ChoiceField(choices=["REFUND", "RETURN"])
    reason = serializers.CharField(
        max_length=2000,
        required=False,
        allow_blank=True,
        help_text="Why, in the traveller's own words (kept for the approver).",
    )


class AftersaleResultSerializer(serializers.Serializer):
    status = serializers.CharField(help_text="SUBMITTED (a new ticket), REUSED (the pending one) or ALREADY_DONE.")
    code = serializers.CharField()
    reason = serializers.CharField(allow_blank=True)
    ticket = TicketSerializer()


ERRORS = error_responses(401, 403, 404)


@extend_schema_view(get=extend_schema(responses={200: OrderSerializer(many=True), **ERRORS}))
class OrderListView(generics.ListAPIView):
    serializer_class = OrderSerializer

    def get_queryset(self):
        return orders_for_user(user=self.request.user)


@extend_schema_view(get=extend_schema(responses={200: TicketSerializer(many=True), **ERRORS}))
class TicketListView(generics.ListAPIView):
    serializer_class = TicketSerializer

    def get_queryset(self):
        return tickets_for_user(user=self.request.user)


class AftersaleRequestView(APIView):
    @extend_schema(
        request=AftersaleRequestSerializer,
        responses={
            201: AftersaleResultSerializer,
            200: AftersaleResultSerializer,
            **error_responses(400, 401, 403, 404, 409, 415),
        },
        summary="Ask for a refund or a return of one of my orders (idempotent per order and action)",
    )
    def post(self, request):
        incoming = AftersaleRequestSerializer(data=request.data)
        incoming.is_valid(raise_exception=True)
        # The traveller's own authenticated call is their confirmation (no model writes through this endpoint).
        outcome = aftersale_request_submit(user=request.user, **incoming.validated_data, confirmed_via=CONFIRMED_BY_API)
        if not outcome.ok:
            policies = [{"id": p.get("id"), "title": p.get("title", "")} for p in outcome.cited_policies]
            data = {"status": outcome.status, "policies": policies if outcome.code == "INELIGIBLE" else []}
            raise AftersaleError(outcome.code, outcome.reason, data)
        body = {
            "status": outcome.status,
            "code": outcome.code,
            "reason": outcome.reason or "",
            "ticket": TicketSerializer(outcome.ticket).data,
        }
        return Response(body, status=status.HTTP_201_CREATED if outcome.status == SUBMITTED else status.HTTP_200_OK)
