"""The pages of the browser door: the app's page (textual-serve's client, `textual.js`, in a page of our
own, so that nothing is fetched from another site) and the plain pages that say why a browser is not let in.
Every text from outside (a trainee's name, a course's title) is escaped."""

from __future__ import annotations

from html import escape

# scripts from the door alone, styles inline too (the terminal sets its own), the socket to the door itself,
# never shown inside another site's frame (a frame could trick keys out of a trainee)
HEADERS = {
    "Content-Security-Policy": ("default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
                                "font-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; "
                                "frame-ancestors 'none'; base-uri 'none'"),
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    # an invite link holds its code: never sent to another site (and "no-referrer" would make the join form's
    # Origin "null", refused as another site's)
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}


def _page(title: str, body: str) -> str:
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{escape(title)}</title><link rel=\"stylesheet\" href=\"{{static}}door.css\"></head>"
            f"<body class=\"plain\"><main>{body}</main></body></html>\n")


def plain(title: str, text: str, static: str = "/static/") -> str:
    """A page that says one thing: why the browser is not let in, and what to do."""
    return _page(title, f"<h1>{escape(title)}</h1><p>{escape(text)}</p>").replace("{static}", static)


def join(course: str, trainee: str, static: str) -> str:
    """The invite link's page: the code is used only once the trainee presses the button (a mail server or a
    chat that opens links to preview them would otherwise use it up)."""
    body = (f"<h1>{escape(course)}</h1><p>This invitation signs this browser in as <b>{escape(trainee)}</b>, "
            "once: the link does not work again. Your games and results are the same here as over SSH.</p>"
            "<form method=\"post\"><button type=\"submit\" id=\"join\">Join as "
            f"{escape(trainee)}</button></form>")
    return _page(f"negtui · {course}", body).replace("{static}", static)


def app(course: str, trainee: str, static: str, idle_minutes: float) -> str:
    """The app's page: the terminal textual.js draws into, and what to say when the session ends."""
    ended = ("This session has ended: negtui was opened again for you (another tab, or over SSH), it was "
             f"left {idle_minutes:g} minutes without a key pressed, or the server stopped. Your games are kept.")
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>negtui · {escape(course)} · {escape(trainee)}</title>"
            f"<link rel=\"stylesheet\" href=\"{static}css/xterm.css\">"
            f"<link rel=\"stylesheet\" href=\"{static}door.css\">"
            f"<script src=\"{static}js/textual.js\"></script><script src=\"{static}door.js\"></script></head>"
            "<body><div id=\"terminal\" class=\"textual-terminal\" data-session-websocket-url=\"\" "
            "data-font-size=\"16\"></div>"
            f"<div class=\"closed-dialog\"><div class=\"ended\"><p>{escape(ended)}</p>"
            "<button type=\"button\" id=\"again\">Come back in</button></div></div></body></html>\n")
