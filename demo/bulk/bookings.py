"""Bulk bookings (`BK-BULK-0000001` …): flights, trains and hotels, each with its one event row."""

import datetime as dt
from decimal import Decimal

from bookings.models import BizType, BookingEvent, BookingRecord, BookingStatus
from demo.bulk.keys import (
    BOOKING_PREFIX,
    BOOKING_RE,
    MARKER,
    SEED_REASON,
    analyze,
    booking_id_for,
    bulk_users_by_seq,
    chunks,
    create_with_events,
    missing_numbers,
    present_numbers,
    row_random,
    user_for,
    weighted,
)

ROUTES = (
    ("北京", "成都"),
    ("上海", "三亚"),
    ("广州", "昆明"),
    ("杭州", "西安"),
    ("深圳", "乌鲁木齐"),
    ("南京", "拉萨"),
)
HOTELS = ("洱海边客栈", "西湖畔酒店", "亚龙湾度假酒店", "古城精品民宿", "雪山观景酒店", "市中心商务酒店")
BOOKING_STATUSES = ((BookingStatus.CONFIRMED, 60), (BookingStatus.PENDING_PAYMENT, 15), (BookingStatus.CANCELLED, 25))


def seed_bookings(wanted: int, *, users: int, today: dt.date, batch_size: int) -> tuple[int, int]:
    ids = BookingRecord.objects.filter(booking_id__startswith=BOOKING_PREFIX).values_list("booking_id", flat=True)
    present = present_numbers(ids, BOOKING_RE)
    missing = missing_numbers(wanted, present)
    if missing:
        user_pks = bulk_users_by_seq()
        for batch in chunks(missing, batch_size):
            bookings = [_booking(seq, users=user_pks, wanted_users=users, today=today) for seq in batch]
            create_with_events(bookings, BookingEvent, owner="booking", batch_size=batch_size)
        analyze(BookingRecord, BookingEvent)
    return len(missing), len(present & set(range(1, wanted + 1)))


def _booking(seq: int, *, users: dict[int, int], wanted_users: int, today: dt.date) -> BookingRecord:
    rng = row_random("booking", seq)
    biz_type = rng.choice((BizType.FLIGHT, BizType.FLIGHT, BizType.HOTEL, BizType.TRAIN))
    origin, destination = rng.choice(ROUTES)
    day = today + dt.timedelta(days=rng.randint(-30, 120))
    if biz_type == BizType.HOTEL:
        nights = rng.randint(1, 5)
        details = {
            "hotel": rng.choice(HOTELS),
            "city": destination,
            "check_in": day.isoformat(),
            "check_out": (day + dt.timedelta(days=nights)).isoformat(),
            "rooms": 1,
        }
        amount = Decimal(rng.randint(25, 120) * 10 * nights)
    else:
        details = {"from": origin, "to": destination, "date": day.isoformat(), "passengers": rng.randint(1, 3)}
        amount = Decimal(rng.randint(30, 250) * 10 * details["passengers"])
    return BookingRecord(
        booking_id=booking_id_for(seq),
        user_id=user_for(seq, users, wanted_users, rng),
        biz_type=biz_type,
        external_order_no=f"SBX-{MARKER}{seq:07d}",
        status=weighted(rng, BOOKING_STATUSES),
        amount=amount,
        details=details,
        remark=SEED_REASON,
    )
