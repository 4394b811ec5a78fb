"""The handlers of channel 1 by intent: `@handles(IntentName.X)` registers one."""

from collections.abc import Callable

from assistant.llm.schema import IntentName
from assistant.turn import Reply, TurnContext

Handler = Callable[[TurnContext], Reply]
HANDLERS: dict[str, Handler] = {}


def handles(*intents: IntentName) -> Callable[[Handler], Handler]:
    def register(handler: Handler) -> Handler:
        for name in intents:
            HANDLERS[name.value] = handler
        return handler

    return register
