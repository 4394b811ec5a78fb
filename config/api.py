"""What every JSON API of the project shares: the shape of DRF's own error answers, for the OpenAPI schema."""

from rest_framework import serializers


class DetailSerializer(serializers.Serializer):
    """DRF's own error answer: not signed in (401), or no such page of a list (404)."""

    detail = serializers.CharField()
