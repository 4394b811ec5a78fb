"""The reasons of booking events, worded for their reader (`booking_event_reason_text`).

The booking services (and the plan booking of `itinerary`, which books through them) write each event's reason as
stable English text, the audit record; pages and the admin show it in the reader's language by reading it back
here into a message and its values (`core.reasons`). A reason no template reads is shown as it was written.
"""

from django.utils.translation import gettext_lazy

from core.reasons import ReasonTemplate, reason_text

ID = r"[A-Za-z0-9_.:-]+"
MOMENT = r"[0-9T:\- ]*"

TEMPLATES = (
    ReasonTemplate(r"Created on the supplier platform\.", gettext_lazy("Created on the supplier platform.")),
    ReasonTemplate(
        r"Booked on the supplier platform as part of a compared plan, after the traveller confirmed\.",
        gettext_lazy("Booked on the supplier platform as part of a compared plan, after the traveller confirmed."),
    ),
    ReasonTemplate(
        r"Found on the supplier by the reconciliation: its record had failed at creation\.",
        gettext_lazy("Found on the supplier by the reconciliation: its record had failed at creation."),
    ),
    ReasonTemplate(
        rf"Rebooked from (?P<booking>{ID}) after the traveller confirmed\.",
        gettext_lazy("Rebooked from %(booking)s after the traveller confirmed."),
    ),
    ReasonTemplate(
        r"Cancelled; the traveller calls the hotel\.", gettext_lazy("Cancelled; the traveller calls the hotel.")
    ),
    ReasonTemplate(r"Cancelled on the supplier platform\.", gettext_lazy("Cancelled on the supplier platform.")),
    ReasonTemplate(r"Cancelled by the supplier\.", gettext_lazy("Cancelled by the supplier.")),
    ReasonTemplate(r"Not paid by its (?:payment )?deadline\.", gettext_lazy("Not paid by its payment deadline.")),
    ReasonTemplate(r"Paid on the supplier\.", gettext_lazy("Paid on the supplier.")),
    ReasonTemplate(
        rf"Paid on the supplier \((?P<payment>{ID})\)\.", gettext_lazy("Paid on the supplier (%(payment)s).")
    ),
    ReasonTemplate(r"The supplier says it is paid already\.", gettext_lazy("The supplier says it is paid already.")),
    ReasonTemplate(
        rf"The supplier refused the payment: (?P<code>{ID})\.",
        gettext_lazy("The supplier refused the payment: %(code)s."),
    ),
    ReasonTemplate(
        rf"Schedule changed by the supplier: (?P<before>{MOMENT}) → (?P<after>{MOMENT})\.",
        gettext_lazy("Schedule changed by the supplier: %(before)s → %(after)s."),
        {"before": lambda moment: moment.replace("T", " "), "after": lambda moment: moment.replace("T", " ")},
    ),
    ReasonTemplate(r"Marked confirmed in the admin\.", gettext_lazy("Marked confirmed in the admin.")),
)


def booking_event_reason_text(reason: str) -> str:
    """A booking event's stored reason in the active language (as written when no template reads it)."""
    return reason_text(reason, TEMPLATES)
