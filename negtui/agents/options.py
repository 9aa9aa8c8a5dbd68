"""How outside agents are reached and what every agent may know: set by the command or the server that
starts a game, read by `Seating`.  Plain settings, importable before any game exists."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class AgentOptions:
    """How outside agents are reached; never stored in records."""

    api_key: str | None = None  # llm seats: overrides OPENAI_API_KEY
    echo_stderr: bool = False  # cmd seats: pass the program's stderr through (command line) or keep it (app)
    remote_bots: bool = False  # lens bots think in their own process (the app), on games large enough to need it
    elsewhere: bool = False  # every agent decides elsewhere (a table's copy of its game): stand-ins only
    information: str = "public"  # private: every agent decides on the values its seat knows (engine.knowledge)
