"""What every admin with a search box shares: a bounded search term.

Django's admin splits the term into words and ORs an `icontains` per word and search field, ANDed across words: a
200,000-character term of short words is a query of hundreds of thousands of conditions on the largest tables. No
booking number, order id, ticket number, user name or title is longer than MAX_ADMIN_SEARCH_CHARS, so the term is cut
there (and to MAX_ADMIN_SEARCH_WORDS words) before Django builds the query.
"""

from django.contrib import admin
from django.urls import path, reverse
from django.utils.text import smart_split

MAX_ADMIN_SEARCH_CHARS = 100
MAX_ADMIN_SEARCH_WORDS = 5


def bounded_search_term(search_term: str) -> str:
    """The first MAX_ADMIN_SEARCH_WORDS words of the term's first MAX_ADMIN_SEARCH_CHARS characters."""
    words = []
    for word in smart_split(search_term[:MAX_ADMIN_SEARCH_CHARS]):
        words.append(word)
        if len(words) == MAX_ADMIN_SEARCH_WORDS:
            break
    return " ".join(words)


class BoundedSearchMixin:
    """A ModelAdmin mixin: the changelist's and the autocomplete's search term is bounded before it is used."""

    def get_search_results(self, request, queryset, search_term):
        return super().get_search_results(request, queryset, bounded_search_term(search_term or ""))


class ReadOnlyMixin:
    """Rows that only services write (audit rows, events): the admin shows them and never adds, edits or deletes."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class ReadOnlyAdmin(ReadOnlyMixin, BoundedSearchMixin, admin.ModelAdmin):
    """A read-only changelist with a bounded search term."""


class ReadOnlyInline(ReadOnlyMixin, admin.TabularInline):
    """A read-only table of rows under their parent."""

    extra = 0
    can_delete = False


def object_view_url(model_admin, name: str, view):
    """The URL of a view about one object beside its change page, `<id>/<name>/`, named `<app>_<model>_<name>` and
    behind the admin's login (a ModelAdmin's `get_urls` puts it before its own)."""
    opts = model_admin.opts
    return path(
        f"<path:object_id>/{name}/",
        model_admin.admin_site.admin_view(view),
        name=f"{opts.app_label}_{opts.model_name}_{name}",
    )


def object_change_url(model_admin, obj) -> str:
    """The admin change page of one object of this ModelAdmin."""
    opts = model_admin.opts
    return reverse(
        f"admin:{opts.app_label}_{opts.model_name}_change", args=[obj.pk], current_app=model_admin.admin_site.name
    )
