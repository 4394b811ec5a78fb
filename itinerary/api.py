"""The itinerary JSON API: plan a round trip from candidates (and keep the result for a while), fetch it again.

POST /api/v1/itinerary/plans          candidates + preference scores (+ policy) → 201 the four plans and a plan id
GET  /api/v1/itinerary/plans/{id}     → 200 the stored full result; 404 PLAN_NOT_FOUND when unknown or expired

Every refusal is the one error body of `core.api`, `{"ok": false, "code", "message", "data"}`: bad input is a 400
INVALID_PARAM and stores nothing; a store that is down is a 503 PLAN_STORE_UNAVAILABLE. A plan is readable only by
the user who made it.
"""

from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import ParseError
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import APIView

from core.api import error_responses
from core.envelope import Code
from core.errors import ApplicationError
from itinerary.round_trip import (
    MAX_CANDIDATES,
    HotelOption,
    Leg,
    PlanInputError,
    PlanRequest,
    PlanStoreError,
    TravelPolicy,
    plan_itinerary,
    plan_load,
    plan_store,
    plan_summary,
)

# ---------------------------------------------------------------------------------------------------------------
# What comes in


class LegSerializer(serializers.Serializer):
    id = serializers.CharField(max_length=200, help_text="Unique among all candidates, e.g. out:FLIGHT:MU5101")
    mode = serializers.ChoiceField(choices=["FLIGHT", "TRAIN"])
    number = serializers.CharField(max_length=50, allow_blank=True)
    depart = serializers.DateTimeField(help_text="ISO 8601; without an offset it is read as local time")
    arrive = serializers.DateTimeField()
    price = serializers.FloatField(help_text="Yuan, per traveller")
    seat_class = serializers.CharField(max_length=50, allow_blank=True, required=False, default="")
    meta = serializers.DictField(required=False, default=dict)


class HotelSerializer(serializers.Serializer):
    id = serializers.CharField(max_length=200, help_text="Unique among all candidates, e.g. hotel:HDL001")
    name = serializers.CharField(max_length=200)
    star = serializers.IntegerField()
    price_per_night = serializers.FloatField(help_text="Yuan")
    meta = serializers.DictField(required=False, default=dict)


class PolicySerializer(serializers.Serializer):
    """Soft rules: a plan that breaks one loses `penalty` points per violation, and says why; none is removed."""

    max_total_price = serializers.FloatField(required=False, allow_null=True, default=None)
    max_hotel_star = serializers.IntegerField(required=False, allow_null=True, default=None)
    allowed_seat_classes = serializers.ListField(
        child=serializers.CharField(max_length=50), required=False, default=list, help_text="Empty: any"
    )
    penalty = serializers.FloatField(required=False, default=20.0)


class PlanCreateSerializer(serializers.Serializer):
    origin = serializers.CharField(max_length=100)
    destination = serializers.CharField(max_length=100)
    depart_date = serializers.DateField()
    return_date = serializers.DateField()
    outbound = LegSerializer(many=True, max_length=MAX_CANDIDATES)
    hotels = HotelSerializer(many=True, max_length=MAX_CANDIDATES)
    returns = LegSerializer(many=True, max_length=MAX_CANDIDATES)
    preference_scores = serializers.DictField(
        child=serializers.FloatField(),
        required=False,
        default=dict,
        help_text="Candidate id → 0..100 (a missing id counts 50)",
    )
    policy = PolicySerializer(required=False, allow_null=True, default=None)
    preferences_text = serializers.CharField(max_length=2000, required=False, allow_blank=True, default="")

    def to_plan_request(self) -> PlanRequest:
        data = self.validated_data
        policy = data["policy"]
        return PlanRequest(
            origin=data["origin"],
            destination=data["destination"],
            depart_date=data["depart_date"],
            return_date=data["return_date"],
            outbound=[Leg(**leg) for leg in data["outbound"]],
            hotels=[HotelOption(**hotel) for hotel in data["hotels"]],
            returns=[Leg(**leg) for leg in data["returns"]],
            preference_scores=dict(data["preference_scores"]),
            policy=None
            if policy is None
            else TravelPolicy(**{**policy, "allowed_seat_classes": tuple(policy["allowed_seat_classes"])}),
            preferences_text=data["preferences_text"],
        )


# ---------------------------------------------------------------------------------------------------------------
# What goes out (documentation of the shapes; the views return the engine's JSON-ready dicts)


class ScoresSerializer(serializers.Serializer):
    time = serializers.FloatField(help_text="0–100, 100 = fastest legal combination")
    price = serializers.FloatField(help_text="0–100, 100 = cheapest legal combination")
    preference = serializers.FloatField(help_text="Mean of the three candidates' preference scores")
    overall = serializers.FloatField(help_text="0.3·time + 0.2·price + 0.5·preference − penalty · violations")


class PlanDetailsSerializer(serializers.Serializer):
    outbound = serializers.DictField(help_text="The outbound leg's facts: number, mode, times, price, seat class")
    hotel = serializers.DictField(help_text="The hotel's facts: name, star, price per night, nights, cost")

    def get_fields(self):
        fields = super().get_fields()
        fields["return"] = serializers.DictField(help_text="The return leg's facts")
        return fields


class PlanSerializer(serializers.Serializer):
    outbound = serializers.CharField(help_text="Outbound candidate id")
    hotel = serializers.CharField(help_text="Hotel candidate id")
    total_price = serializers.FloatField(help_text="Yuan: outbound + hotel × nights + return")
    transit_minutes = serializers.FloatField()
    scores = ScoresSerializer()
    violations = serializers.ListField(child=serializers.CharField(), help_text="Policy rules broken, in words")
    labels = serializers.ListField(child=serializers.CharField(), help_text="The names this plan won")
    details = PlanDetailsSerializer()

    def get_fields(self):
        fields = super().get_fields()
        fields["return"] = serializers.CharField(help_text="Return candidate id")
        return fields


class PlansSerializer(serializers.Serializer):
    best_overall = PlanSerializer()
    cheapest = PlanSerializer()
    fastest = PlanSerializer()
    best_preference = PlanSerializer()


class LabelSerializer(serializers.Serializer):
    names = serializers.ListField(child=serializers.CharField())
    outbound = serializers.CharField()
    hotel = serializers.CharField()

    def get_fields(self):
        fields = super().get_fields()
        fields["return"] = serializers.CharField()
        return fields


class CountsSerializer(serializers.Serializer):
    combinations = serializers.IntegerField(help_text="outbound × hotels × returns")
    legal = serializers.IntegerField(help_text="Those whose return leaves after the outbound arrives")


class PlanSummarySerializer(serializers.Serializer):
    plan_id = serializers.UUIDField()
    expires_in = serializers.IntegerField(help_text="Seconds until the stored plan expires")
    plans = PlansSerializer()
    labels = LabelSerializer(many=True, help_text="One entry per distinct plan: which names it won")
    counts = CountsSerializer()


class StoredPlanSerializer(PlanSummarySerializer):
    inputs = serializers.DictField(help_text="The request in brief: route, dates, nights, policy, counts, ranges")
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField()


# ---------------------------------------------------------------------------------------------------------------
# The views


def invalid(message: str) -> ApplicationError:
    return ApplicationError(Code.INVALID_PARAM, message)


def store_unavailable() -> ApplicationError:
    return ApplicationError(Code.PLAN_STORE_UNAVAILABLE, "plans cannot be stored or read right now; try again")


def first_error(errors: Any, path: str = "") -> str:
    """The first problem in DRF's nested errors, as `outbound[1].price: A valid number is required.`"""
    if isinstance(errors, dict):
        for key, value in errors.items():
            if value:
                if isinstance(key, int):  # a list's errors, by position
                    return first_error(value, f"{path}[{key}]")
                if key == api_settings.NON_FIELD_ERRORS_KEY:  # about the object at `path` as a whole
                    return first_error(value, path)
                return first_error(value, key if not path else f"{path}.{key}")
    elif isinstance(errors, list):
        for index, item in enumerate(errors):
            if isinstance(item, dict | list):
                if item:
                    return first_error(item, f"{path}[{index}]")
            elif item:
                return f"{path}: {item}" if path else str(item)
    return f"{path}: invalid" if path else "invalid request"


class PlanCreateView(APIView):
    @extend_schema(
        request=PlanCreateSerializer,
        responses={
            201: PlanSummarySerializer,
            **error_responses(400, 401, 503),
        },
        summary="Plan a round trip: the best overall, cheapest, fastest and best-preference combinations",
        description=(
            "Scores every outbound × hotel × return combination whose return leaves after the outbound arrives, "
            "and keeps the full result for ITINERARY_PLAN_TTL seconds under the returned plan_id. At most "
            f"{MAX_CANDIDATES} candidates per list."
        ),
        examples=[
            OpenApiExample(
                "A bad request",
                value={
                    "ok": False,
                    "code": "INVALID_PARAM",
                    "message": "dates reversed: return_date 2026-12-04 is before …",
                    "data": None,
                },
                response_only=True,
                status_codes=["400"],
            )
        ],
    )
    def post(self, request):
        try:
            body = request.data
        except ParseError as exc:
            raise invalid(f"malformed JSON: {exc.detail}") from None
        except RequestDataTooBig:
            limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
            raise invalid(f"the request body is larger than {limit} bytes: send fewer candidates") from None
        incoming = PlanCreateSerializer(data=body)
        if not incoming.is_valid():
            raise invalid(first_error(incoming.errors))
        try:
            result = plan_itinerary(incoming.to_plan_request())
        except PlanInputError as exc:
            raise invalid(str(exc)) from None
        try:
            plan_id = plan_store(result, owner_id=request.user.pk)
        except PlanStoreError:
            raise store_unavailable() from None
        return Response(plan_summary(result, plan_id=plan_id), status=status.HTTP_201_CREATED)


class PlanDetailView(APIView):
    @extend_schema(
        responses={
            200: StoredPlanSerializer,
            **error_responses(401, 404, 503),
        },
        summary="One of my stored plans, while it lasts",
    )
    def get(self, request, plan_id: str):
        try:
            stored = plan_load(plan_id, owner_id=request.user.pk)
        except PlanStoreError:
            raise store_unavailable() from None
        if stored is None:
            raise ApplicationError(Code.PLAN_NOT_FOUND, "no such plan, or it has expired")
        return Response(stored)
