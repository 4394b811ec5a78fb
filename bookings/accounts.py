"""Supplier accounts: the traveller's key on the supplier platform (the platform client and the services use it)."""

import secrets

from django.db import transaction
from django.utils import timezone

from bookings.models import SupplierAccount


@transaction.atomic
def supplier_account_ensure(*, user) -> SupplierAccount:
    """The user's supplier key; the sandbox platform issues one on first use (a real platform's key is set by
    an administrator in the admin)."""
    account, _ = SupplierAccount.objects.get_or_create(
        user=user, defaults={"api_key": f"sbx_{secrets.token_urlsafe(24)}"}
    )
    return account


def supplier_account_ordering(*, user) -> None:
    """Note that the user's key is about to ask for an order (before it is sent, so a crash after it is noted too)."""
    SupplierAccount.objects.filter(user=user).update(ordered_at=timezone.now())
