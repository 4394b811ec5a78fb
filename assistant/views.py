"""The chat page."""

from django.contrib.auth.decorators import login_required
from django.shortcuts import render


@login_required
def chat_page(request):
    return render(request, "assistant/chat.html")
