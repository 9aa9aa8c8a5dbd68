"""Fixtures of the agent tests: `fake_chat(policy)`, a model server on loopback closed after the test."""

from __future__ import annotations

import pytest

from tests.agents.fake_chat import FakeChat, Policy


@pytest.fixture
def fake_chat():
    made: list[FakeChat] = []

    def make(policy: Policy) -> FakeChat:
        made.append(FakeChat(policy))
        return made[-1]

    yield make
    for chat in made:
        chat.close()
