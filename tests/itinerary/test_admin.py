"""The catalogue's admin checks a cover where staff enter it: an absolute http(s) URL or a picture shipped with the
site is saved; anything else is refused under the field with a message saying what to enter, and nothing is saved."""

import pytest

from itinerary.models import Activity
from tests.factories import ActivityFactory

pytestmark = pytest.mark.django_db

ADD_URL = "/admin/itinerary/activity/add/"
REFUSED_ZH = "请填写图片的完整网址（https://…），或网站自带的图片，例如 img/covers/lake.svg。"
NOT_SHIPPED_ZH = "“img/covers/nope.svg”不是网站自带的图片。"


@pytest.fixture
def staff(user_factory, client):
    user = user_factory("catalogue-staff", is_staff=True, is_superuser=True)
    client.force_login(user)
    return user


def form(**changes) -> dict:
    return {
        "title_zh_hans": "大理古城漫游",
        "title_en": "",
        "city": "大理",
        "province": "云南",
        "description_zh_hans": "",
        "description_en": "",
        "price": "199",
        "start_date": "2026-12-05",
        "end_date": "2026-12-20",
        "tags": "[]",
        "min_age": "",
        "max_age": "",
        "gender_restriction": "NONE",
        "cover_image_url": "",
        "is_published": "on",
        "popularity": "0",
        **changes,
    }


def rows() -> list:
    return list(Activity.objects.values_list("title_zh_hans", "cover_image_url"))


@pytest.mark.parametrize(
    ("cover", "message"),
    [
        ("javascript:alert(1)", REFUSED_ZH),
        ("//pictures.example.org/dali.jpg", REFUSED_ZH),
        ("img/covers/nope.svg", NOT_SHIPPED_ZH),
    ],
)
def test_the_admin_refuses_a_cover_that_is_neither_a_url_nor_a_shipped_picture(client, staff, cover, message):
    before = rows()

    response = client.post(ADD_URL, form(cover_image_url=cover))

    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert list(errors) == ["cover_image_url"]
    assert message in response.content.decode()
    assert rows() == before


@pytest.mark.parametrize("cover", ["https://pictures.example.org/dali.jpg", "img/covers/ancient-town.svg"])
def test_the_admin_saves_an_absolute_url_or_a_shipped_picture(client, staff, cover):
    response = client.post(ADD_URL, form(cover_image_url=cover))

    assert response.status_code == 302
    assert rows() == [("大理古城漫游", cover)]


def test_changing_an_activity_to_a_bad_cover_keeps_its_old_one(client, staff):
    activity = ActivityFactory(title="大理古城漫游", cover_image_url="img/covers/ancient-town.svg")
    before = rows()

    response = client.post(f"/admin/itinerary/activity/{activity.pk}/change/", form(cover_image_url="covers/x.jpg"))

    assert response.status_code == 200 and "不是网站自带的图片" in response.content.decode()
    assert rows() == before


def test_the_cover_field_says_what_it_takes_in_the_readers_language(client, staff):
    page = client.get(ADD_URL).content.decode()
    english = client.get(ADD_URL, HTTP_ACCEPT_LANGUAGE="en").content.decode()

    assert "其他网站上图片的完整网址（https://…），或网站自带的图片" in page
    assert "An absolute address (https://…) of a picture hosted elsewhere" in english
    assert "An absolute address" not in page
