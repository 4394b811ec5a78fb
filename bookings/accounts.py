"""Supplier accounts: the traveller's key on the supplier platform (the platform client and the services use it)."""

import secrets

from django.db import transaction

from bookings.models import SupplierAccount


@transaction.atomic
def supplier_account_ensure(*, user) -> SupplierAccount:
    """The user's supplier key; the sandbox platform issues one on first use (a real platform's key is set by
    an administrator in the admin)."""
    account, _ = SupplierAccount.objects.get_or_create(
        user=user, defaults={"api_key": f"sbx_{secrets.token_urlsafe(24)}"}
    )
    return account
