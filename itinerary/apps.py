from django.apps import AppConfig


class ItineraryConfig(AppConfig):
    name = "itinerary"
    verbose_name = "Itinerary and catalogue"
