"""Presenters of the plans results (filled in by the use-case work of issue 11)."""

from assistant.presenters.base import Presenter

PRESENTERS: dict[str, Presenter] = {}
