"""`manage.py seed_demo`: fills what is absent, never overwrites, and seeds data the other parts can rely on."""

import datetime as dt
import re
from decimal import Decimal
from io import StringIO

import pytest
from django.apps import apps
from django.contrib.auth import authenticate, get_user_model
from django.core.management import call_command
from django.test import RequestFactory
from django.utils import timezone

from aftersale.models import BizOrder, OrderCategory, OrderEvent, OrderStatus, Policy
from demo.catalogue import demo_activity_data
from demo.orders import DEMO_ORDERS, DEMO_POLICIES
from demo.users import APPROVER_PERMISSIONS, DEMO_LOGINS
from itinerary.models import Activity, GenderRestriction, InterestProfile
from itinerary.tagging import SYSTEM_TAGS

pytestmark = pytest.mark.django_db

User = get_user_model()

REQUIRED_DESTINATIONS = [
    "赛里木湖", "喀纳斯", "天山天池", "大理", "丽江", "香格里拉", "西双版纳", "西湖", "乌镇", "黄山", "张家界",
    "凤凰古城", "三亚", "九寨沟", "稻城亚丁", "峨眉山", "成都", "桂林", "阳朔", "鼓浪屿", "武夷山", "青海湖",
    "敦煌", "哈尔滨", "长白山", "长城", "上海", "西安", "拉萨", "呼伦贝尔", "婺源", "泰山",
]  # fmt: skip
WEEKEND_DESTINATIONS = ["赛里木湖", "大理", "黄山", "三亚", "西湖", "丽江", "稻城亚丁", "张家界"]


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def seed() -> str:
    out = StringIO()
    call_command("seed_demo", stdout=out)
    return out.getvalue()


def snapshot() -> dict[str, list[dict]]:
    """Every row of every table Django knows (many-to-many tables included), field by field."""
    return {
        model._meta.label: list(model.objects.order_by("pk").values())
        for model in apps.get_models(include_auto_created=True)
    }


def published_at(destination: str):
    return Activity.objects.filter(is_published=True, title__contains=destination)


def last_day_of_the_next_four_weekends(today: dt.date) -> dt.date:
    days_to_saturday = (5 - today.weekday()) % 7
    return today + dt.timedelta(days=days_to_saturday + 21 + 1)


# Running twice


def test_given_a_seeded_database_when_seeding_again_then_no_row_changes():
    seed()
    before = snapshot()

    output = seed()

    assert snapshot() == before
    assert "Done: 0 rows created." in output


def test_given_an_empty_database_when_seeding_then_the_summary_counts_what_was_created():
    output = seed()

    assert f"users: {len(DEMO_LOGINS)} created, 0 already present" in output
    assert f"activities: {len(demo_activity_data())} created, 0 already present" in output
    assert f"orders: {len(DEMO_ORDERS)} created, 0 already present" in output
    assert f"policies: {len(DEMO_POLICIES)} created, 0 already present" in output


def test_given_an_activity_whose_price_was_edited_when_seeding_again_then_the_edit_is_kept():
    seed()
    activity = Activity.objects.get(title="赛里木湖环湖骑行一日游")
    Activity.objects.filter(pk=activity.pk).update(price=Decimal("412.50"), is_published=False)

    seed()

    activity.refresh_from_db()
    assert activity.price == Decimal("412.50")
    assert activity.is_published is False
    assert Activity.objects.filter(title="赛里木湖环湖骑行一日游").count() == 1


def test_given_a_user_whose_name_and_password_were_changed_when_seeding_again_then_both_are_kept():
    seed()
    alice = User.objects.get(username="alice")
    alice.first_name = "Alicia"
    alice.set_password("a-new-secret-2027")
    alice.save()

    seed()

    alice.refresh_from_db()
    assert alice.first_name == "Alicia"
    assert alice.check_password("a-new-secret-2027")
    assert not alice.check_password("alice-2026")


def test_given_an_order_and_a_policy_that_were_edited_when_seeding_again_then_the_edits_are_kept():
    seed()
    BizOrder.objects.filter(order_id="ORD-001").update(status=OrderStatus.REFUNDED, amount=Decimal("1.00"))
    Policy.objects.filter(category=OrderCategory.GOODS).update(text="edited by an admin")

    seed()

    order = BizOrder.objects.get(order_id="ORD-001")
    assert (order.status, order.amount) == (OrderStatus.REFUNDED, Decimal("1.00"))
    assert set(Policy.objects.filter(category=OrderCategory.GOODS).values_list("text", flat=True)) == {
        "edited by an admin"
    }


def test_given_a_deleted_activity_when_seeding_again_then_only_it_is_recreated():
    seed()
    Activity.objects.get(title="黄山温泉度假一日游").delete()
    others = list(Activity.objects.order_by("pk").values())

    output = seed()

    assert Activity.objects.filter(title="黄山温泉度假一日游").count() == 1
    assert list(Activity.objects.exclude(title="黄山温泉度假一日游").order_by("pk").values()) == others
    assert f"activities: 1 created, {len(demo_activity_data()) - 1} already present" in output


def test_given_a_failure_halfway_when_seeding_then_nothing_is_written(monkeypatch):
    def broken_orders(**kwargs):
        raise RuntimeError("orders table is on fire")

    monkeypatch.setattr("demo.management.commands.seed_demo.seed_demo_orders", broken_orders)

    with pytest.raises(RuntimeError):
        seed()

    assert (User.objects.count(), Activity.objects.count(), Policy.objects.count()) == (0, 0, 0)


def test_given_the_logins_flag_when_running_then_it_prints_the_accounts_and_seeds_nothing():
    out = StringIO()

    call_command("seed_demo", "--logins", stdout=out)

    for login in DEMO_LOGINS:
        assert login["username"] in out.getvalue() and login["password"] in out.getvalue()
    assert "approver approves up to ¥5000 alone" in out.getvalue()  # AFTERSALE_APPROVAL_LIMIT's default
    assert User.objects.count() == 0


# Users


def test_every_demo_login_can_sign_in_with_its_documented_password():
    seed()

    for login in DEMO_LOGINS:
        request = RequestFactory().post("/accounts/login/")  # django-axes checks every authenticate() by its request
        user = authenticate(request, username=login["username"], password=login["password"])
        assert user is not None, login["username"]


def test_the_approver_is_staff_in_the_approvers_group_and_may_decide_tickets_but_is_not_a_superuser():
    seed()

    approver = User.objects.get(username="approver")

    assert approver.is_staff and not approver.is_superuser
    assert sorted(approver.groups.values_list("name", flat=True)) == ["approvers", "support"]
    assert approver.has_perm("aftersale.decide_ticket")
    assert all(approver.has_perm(f"{app}.{codename}") for app, codename in APPROVER_PERMISSIONS)
    assert not approver.has_perm("aftersale.delete_bizorder")


def test_the_approver_also_answers_hand_overs_and_the_travellers_do_not():
    seed()

    approver = User.objects.get(username="approver")

    assert approver.has_perm("assistant.answer_handover")
    assert not User.objects.get(username="alice").has_perm("assistant.answer_handover")


def test_the_admin_is_a_superuser_and_the_travellers_are_not_staff():
    seed()

    assert User.objects.get(username="admin").is_superuser
    assert not User.objects.filter(username__in=["alice", "bob", "carol"], is_staff=True).exists()


def test_alice_is_a_23_year_old_woman_and_bob_a_41_year_old_man_who_like_different_things():
    seed()
    today = timezone.localdate()

    def age(profile: InterestProfile) -> int:
        born = profile.birth_date
        return today.year - born.year - ((today.month, today.day) < (born.month, born.day))

    alice = InterestProfile.objects.get(user__username="alice")
    bob = InterestProfile.objects.get(user__username="bob")
    assert (age(alice), alice.gender) == (23, InterestProfile.Gender.FEMALE)
    assert (age(bob), bob.gender) == (41, InterestProfile.Gender.MALE)
    assert alice.scores["hiking"] > 0.5 and bob.scores["culture"] > 0.5


# Activities


def test_the_catalogue_has_many_published_activities_over_many_destinations():
    seed()
    published = Activity.objects.filter(is_published=True)

    assert published.count() >= 80
    assert published.values("city").distinct().count() >= 25
    for destination in REQUIRED_DESTINATIONS:
        assert published_at(destination).exists(), destination


def test_cities_and_provinces_are_stored_by_their_short_names():
    seed()

    assert Activity.objects.get(title="西湖夜游与龙井茶园").city == "杭州"
    assert Activity.objects.get(title="赛里木湖环湖骑行一日游").province == "新疆"
    assert not Activity.objects.filter(city__endswith="市").exists()
    assert not Activity.objects.filter(province__regex=r"(省|市|自治区)$").exists()


def test_the_catalogue_has_youth_only_women_only_and_unpublished_activities():
    seed()

    assert Activity.objects.filter(is_published=True, min_age=18, max_age=25).count() >= 5
    assert Activity.objects.filter(is_published=True, gender_restriction=GenderRestriction.FEMALE).count() >= 4
    assert Activity.objects.filter(is_published=False).count() >= 3


def test_every_activity_has_sane_fields_and_system_tags_from_the_vocabulary():
    seed()

    for activity in Activity.objects.all():
        assert Decimal("50") <= activity.price <= Decimal("8000"), activity.title
        assert activity.description and activity.tags, activity.title
        assert activity.system_tags and set(activity.system_tags) <= set(SYSTEM_TAGS), activity.title
        assert re.fullmatch(r"img/covers/[a-z-]+\.svg", activity.cover_image_url), activity.title  # shipped, served


def test_dates_are_spread_around_the_seed_day_and_many_are_bookable_in_the_next_30_days():
    seed()
    today = timezone.localdate()
    activities = Activity.objects.filter(is_published=True)

    assert min(a.start_date for a in activities) == today - dt.timedelta(days=10)
    assert max(a.start_date for a in activities) == today + dt.timedelta(days=150)
    assert activities.filter(start_date__lte=today + dt.timedelta(days=30), end_date__gte=today).count() >= 60


def test_each_weekend_destination_has_two_activities_over_the_next_four_weekends_one_under_2000():
    seed()
    today = timezone.localdate()
    last_day = last_day_of_the_next_four_weekends(today)

    for destination in WEEKEND_DESTINATIONS:
        covering = published_at(destination).filter(start_date__lte=today, end_date__gte=last_day)
        assert covering.count() >= 2, destination
        assert covering.filter(price__lt=2000).exists(), destination


def test_each_weekend_destination_offers_cheap_middle_and_expensive_options():
    seed()

    for destination in WEEKEND_DESTINATIONS:
        prices = list(published_at(destination).values_list("price", flat=True))
        assert any(p < 500 for p in prices), destination
        assert any(500 <= p <= 2000 for p in prices), destination
        assert any(p > 2000 for p in prices), destination


# Orders and policies


def test_the_first_three_orders_belong_to_the_travellers_the_scenarios_need():
    seed()

    orders = {o.order_id: o for o in BizOrder.objects.filter(order_id__in=["ORD-001", "ORD-002", "ORD-003"])}

    assert (orders["ORD-001"].user.username, orders["ORD-001"].category) == ("alice", OrderCategory.ACTIVITY)
    assert (orders["ORD-002"].user.username, orders["ORD-002"].category) == ("alice", OrderCategory.GOODS)
    assert (orders["ORD-003"].user.username, orders["ORD-003"].category) == ("carol", OrderCategory.GOODS)
    assert "赛里木湖" in orders["ORD-001"].activity.title
    assert orders["ORD-001"].status == OrderStatus.PAID
    assert orders["ORD-002"].status == orders["ORD-003"].status == OrderStatus.DELIVERED


def test_the_orders_sit_on_the_right_side_of_the_refund_and_return_windows():
    seed()
    now, today = timezone.now(), timezone.localdate()
    orders = {o.order_id: o for o in BizOrder.objects.all()}

    assert orders["ORD-001"].service_date == today + dt.timedelta(days=20)
    assert (now - orders["ORD-002"].delivered_at).days == 15
    assert (now - orders["ORD-003"].delivered_at).days == 2
    assert (now - orders["ORD-004"].delivered_at).days == 3
    assert orders["ORD-005"].service_date == today + dt.timedelta(days=1)
    assert (orders["ORD-006"].user.username, orders["ORD-006"].service_date) == ("bob", today + dt.timedelta(days=30))
    assert orders["ORD-007"].status == OrderStatus.REFUNDED
    assert (orders["ORD-008"].user.username, (now - orders["ORD-008"].delivered_at).days) == ("bob", 1)


def test_every_order_amount_is_the_sum_of_its_items_and_it_was_paid_before_delivery():
    seed()

    for order in BizOrder.objects.all():
        total = sum(Decimal(str(item["price"])) * item["qty"] for item in order.items)
        assert order.amount == total, order.order_id
        assert set(order.items[0]) == {"name", "name_en", "qty", "price"}  # the shop's English name beside it
        if order.delivered_at:
            assert order.paid_at < order.delivered_at, order.order_id


def test_every_seeded_order_starts_its_history_with_one_event():
    seed()

    for order in BizOrder.objects.all():
        events = list(OrderEvent.objects.filter(order=order))
        assert [(e.from_status, e.to_status) for e in events] == [("", order.status)], order.order_id


def test_the_demo_orders_the_workflow_reads_and_the_rows_the_reconciliation_reads_are_the_same_data():
    seed()
    now, today = timezone.now(), timezone.localdate()
    spec = next(o for o in DEMO_ORDERS if o.order_id == "ORD-001")

    order = BizOrder.objects.get(order_id="ORD-001")
    activity = Activity.objects.get(pk=order.activity_id)

    assert order.amount == activity.price
    assert activity.title_zh_hans == spec.activity_title
    assert order.items == [
        {"name": activity.title_zh_hans, "name_en": activity.title_en, "qty": 1, "price": int(activity.price)}
    ]
    assert order.user.username == spec.username
    assert (order.category, order.status) == (spec.category, spec.status)
    assert order.service_date == today + dt.timedelta(days=spec.service_in_days)
    assert activity.start_date <= order.service_date <= activity.end_date
    assert (now - order.paid_at).days == spec.paid_days_ago


def test_there_are_goods_and_activity_policies_written_in_chinese_and_english():
    seed()

    policies = Policy.objects.filter(is_active=True)
    assert policies.count() >= 5
    assert {p.category for p in policies} == {OrderCategory.GOODS, OrderCategory.ACTIVITY}
    assert any("7天" in p.text and "7 days" in p.text for p in policies)
    assert any("48小时" in p.text and "48 hours" in p.text for p in policies)
    assert all(p.tags for p in policies)
