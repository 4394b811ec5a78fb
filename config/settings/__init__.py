from config.settings.auth import *  # noqa: F403
from config.settings.base import *  # noqa: F403
from config.settings.logging import *  # noqa: F403
from config.settings.observability import *  # noqa: F403
from config.settings.security import *  # noqa: F403
from config.settings.services import *  # noqa: F403
from config.settings.tripdesk import *  # noqa: F403
