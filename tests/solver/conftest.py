"""The API fixtures (app over ASGI, players, games) for the endpoint tests."""

from tests.api.conftest import *  # noqa: F403
