"""The addresses trainees are sent: the browser door's invite link and the SSH command line, built from the
address the trainer gives (`--base-url`), in one place for the command that writes them and the server that
answers them."""

from __future__ import annotations

from urllib.parse import urlsplit

JOIN = "join"  # the invite link's first path segment: BASE/join/NAME/CODE
MAX_BASE_URL = 200


class BadURL(ValueError):
    pass


def check_base_url(url: str) -> str:
    """An http(s) address without query or fragment, its trailing slashes dropped; BadURL says what is
    wrong.  A path is kept (a reverse proxy may serve the door under one)."""
    if len(url) > MAX_BASE_URL:
        raise BadURL(f"is over {MAX_BASE_URL} characters")
    try:
        parts = urlsplit(url.strip())
        parts.port  # noqa: B018 — a port that is not a number raises here
    except ValueError as err:
        raise BadURL(f"is not an address: {err}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise BadURL("must start with http:// or https:// and name a host (https://class.example.org)")
    if parts.query or parts.fragment or parts.username or parts.password:
        raise BadURL("must be a plain address: no user, query (?…) or fragment (#…)")
    if any(c.isspace() or ord(c) < 32 for c in url.strip()):
        raise BadURL("must not hold spaces or control characters")
    return url.strip().rstrip("/")


def join_link(base: str, trainee: str, code: str) -> str:
    return f"{base}/{JOIN}/{trainee}/{code}"


def ssh_command(base: str, trainee: str, port: int) -> str:
    """What a trainee types to come in over SSH: the base address's host, the SSH server's port."""
    host = urlsplit(base).hostname or ""
    return f"ssh -p {port} {trainee}@{host}"
