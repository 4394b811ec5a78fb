from django.urls import path

from assistant import api, views

app_name = "assistant"

urlpatterns = [
    path("", views.chat_page, name="chat"),
    path("chat/send", views.chat_send, name="send"),
    path("chat/new", views.chat_new, name="new"),
    path("chat/live", views.chat_live, name="live"),
    path("chat/<uuid:conversation_id>/open", views.chat_open, name="open"),
    path("chat/<uuid:conversation_id>/delete", views.chat_delete, name="delete"),
    path("api/v1/assistant/chat", api.ChatView.as_view(), name="api-chat"),
    path("api/v1/assistant/understand", api.UnderstandView.as_view(), name="api-understand"),
    path("api/v1/assistant/conversations", api.ConversationListView.as_view(), name="api-conversations"),
    path(
        "api/v1/assistant/conversations/<uuid:conversation_id>",
        api.ConversationView.as_view(),
        name="api-conversation",
    ),
    path(
        "api/v1/assistant/actions/<uuid:pending_id>/confirm", api.ActionConfirmView.as_view(), name="api-action-confirm"
    ),
    path(
        "api/v1/assistant/actions/<uuid:pending_id>/decline", api.ActionDeclineView.as_view(), name="api-action-decline"
    ),
]
