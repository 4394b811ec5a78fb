"""Bulk users (`bulk-user-000001` …, with an interest profile each) and the bulk approver."""

import datetime as dt

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.db import transaction

from demo.bulk.keys import (
    APPROVER_USERNAME,
    analyze,
    bulk_users_by_seq,
    chunks,
    missing_numbers,
    row_random,
    username_for,
)
from itinerary.models import InterestProfile
from itinerary.tagging import SYSTEM_TAGS


def seed_users(wanted: int, *, today: dt.date, batch_size: int) -> tuple[int, int]:
    user_model = get_user_model()
    present = set(bulk_users_by_seq())
    missing = missing_numbers(wanted, present)
    unusable = make_password(None)  # nobody logs in as a bulk user
    for batch in chunks(missing, batch_size):
        with transaction.atomic():
            users = user_model.objects.bulk_create(
                [user_model(username=username_for(seq), password=unusable, is_active=True) for seq in batch],
                batch_size=batch_size,
            )
            InterestProfile.objects.bulk_create(
                [_profile(user, seq, today=today) for user, seq in zip(users, batch, strict=True)],
                batch_size=batch_size,
            )
    if wanted and not user_model.objects.filter(username=APPROVER_USERNAME).exists():
        user_model.objects.create(username=APPROVER_USERNAME, password=unusable, is_staff=True)
    if missing:
        analyze(user_model, InterestProfile)
    return len(missing), len(present & set(range(1, wanted + 1)))


def _profile(user, seq: int, *, today: dt.date) -> InterestProfile:
    rng = row_random("profile", seq)
    liked = rng.sample(SYSTEM_TAGS, rng.randint(2, 5))
    age = rng.randint(16, 72)
    birth_date = today - dt.timedelta(days=age * 365 + rng.randint(0, 364)) if rng.random() < 0.85 else None
    gender = rng.choice([InterestProfile.Gender.FEMALE, InterestProfile.Gender.MALE, InterestProfile.Gender.UNKNOWN])
    return InterestProfile(
        user=user,
        scores={tag: round(rng.uniform(0.1, 1.0), 2) for tag in liked},
        birth_date=birth_date,
        gender=gender,
    )
