# The traveller's own reason for an after-sale request and its kind (issue 13): the approver reads both.

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("aftersale", "0004_events_are_status_events"),
    ]

    operations = [
        migrations.AddField(
            model_name="hitlticket",
            name="request_reason",
            field=models.TextField(blank=True, max_length=500, help_text="The traveller's own words for why they ask."),
        ),
        migrations.AddField(
            model_name="hitlticket",
            name="reason_kind",
            field=models.CharField(
                blank=True,
                choices=[
                    ("QUALITY", "Quality problem"),
                    ("NO_REASON", "No-reason return"),
                    ("TICKET", "Ticket or activity refund"),
                    ("NOT_RECEIVED", "Not received"),
                ],
                help_text="The reason as understood (picks the policy).",
                max_length=16,
            ),
        ),
        migrations.AddConstraint(
            model_name="hitlticket",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("reason_kind", ""),
                    ("reason_kind__in", ["QUALITY", "NO_REASON", "TICKET", "NOT_RECEIVED"]),
                    _connector="OR",
                ),
                name="ticket_reason_kind_known",
            ),
        ),
    ]
