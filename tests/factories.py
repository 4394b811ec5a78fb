"""Factories that build rows for tests (factory_boy)."""

import datetime as dt
from decimal import Decimal

import factory
from django.contrib.auth import get_user_model
from django.utils import timezone

from itinerary.models import Activity
from itinerary.translation import in_catalogue_language


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)

    username = factory.Sequence(lambda n: f"traveller{n}")
    password = factory.django.Password("pass-1234")


class ActivityFactory(factory.django.DjangoModelFactory):
    """`title` / `description` are the Chinese text (no English unless `title_en` / `description_en` are given),
    whatever language is active when the test builds it."""

    class Meta:
        model = Activity

    @classmethod
    def _adjust_kwargs(cls, **kwargs):
        return in_catalogue_language(kwargs)

    title = factory.Sequence(lambda n: f"赛里木湖环湖骑行{n}")
    city = "博乐"
    province = "新疆"
    description = "环湖骑行，看湖光雪山。"
    price = Decimal("1200")
    start_date = factory.LazyFunction(lambda: timezone.localdate() - dt.timedelta(days=1))
    end_date = factory.LazyFunction(lambda: timezone.localdate() + dt.timedelta(days=60))
    tags = factory.LazyFunction(lambda: ["骑行", "湖泊"])
    is_published = True
    popularity = 10
