"""The bottom line of usable keys.

Textual's Footer mounts a widget per key and rebuilds them all whenever the screen's bindings are
recomputed (every focus change, every turn that changes what is usable): on a busy screen that was a
fifth of the app's work, which over SSH is shared by every trainee on the machine.  This bar is one
widget that repaints only when the keys it shows change; a click on a key presses it.  Its one line is
drawn as segments, not through Textual's content pipeline (a few dozen styled spans made into a Textual
Content and back cost ten times the line itself), and kept while the keys, width and styles stay."""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.screen import ModalScreen, Screen
from textual.strip import Strip
from textual.widget import Widget

Shown = tuple[tuple[str, str, str, bool, str], ...]  # (key, how it is shown, description, enabled, action)
PINNED = ("help", "quit")  # actions (or their last part) the bar keeps when it must drop keys: help lists the rest
# the keys of a decision or of moving through a record: kept before the others when the bar is short
DECIDING = frozenset({"partner", "submit", "pass_turn", "hint", "back", "answer", "later", "jump", "take_over",
                      "turn_back", "turn_forward"})


class KeyBar(Widget):
    DEFAULT_CSS = """
    KeyBar {
        dock: bottom;
        height: 1;
        background: $footer-background;
        color: $footer-foreground;
    }
    KeyBar > .keybar--key {
        color: $footer-key-foreground;
        background: $footer-key-background;
        text-style: bold;
    }
    KeyBar > .keybar--description {
        color: $footer-description-foreground;
        background: $footer-description-background;
    }
    """
    COMPONENT_CLASSES = {"keybar--key", "keybar--description"}

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._shown: Shown = ()
        self._drawn: tuple[object, Strip] | None = None  # (what it was drawn from, the line)

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)
        self._bindings_changed(self.screen)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    @property
    def shown(self) -> Shown:
        return self._shown

    def _bindings_changed(self, screen: Screen) -> None:
        if screen is not self.screen:
            return
        shown: list[tuple[str, str, str, bool, str]] = []
        actions: set[str] = set()
        palette = None
        for _node, binding, enabled, _tooltip in screen.active_bindings.values():
            if binding.key == self.app.COMMAND_PALETTE_BINDING:
                palette = (binding.key, self.app.get_key_display(binding), binding.description, enabled,
                           binding.action)
                continue
            if not binding.show or binding.action in actions:
                continue  # one entry per action, as the help screen lists them
            actions.add(binding.action)
            shown.append((binding.key, self.app.get_key_display(binding), binding.description, enabled,
                          binding.action))
        if isinstance(screen, ModalScreen):  # a dialog: the app's help and quit work here too, say so
            for own in self.app.BINDINGS:
                if isinstance(own, Binding) and own.action not in actions and not own.system:  # not ctrl+c
                    shown.append((own.key, self.app.get_key_display(own), own.description, True, own.action))
        if palette is not None and self.app.ENABLE_COMMAND_PALETTE:
            shown.append(palette)
        if tuple(shown) != self._shown:
            self._shown = tuple(shown)
            self.refresh()

    def render_line(self, y: int) -> Strip:
        """The bar's line: what `render` says, laid on the bar's own style as Textual lays a widget's content."""
        if y:
            return Strip.blank(self.size.width, self.visual_style.rich_style)
        base = self.visual_style.rich_style
        key_style = self.get_component_rich_style("keybar--key")
        text_style = self.get_component_rich_style("keybar--description")
        width = max(1, self.size.width)
        link = self.link_style if self.auto_links else None  # a key that clicks is drawn as a link, as Textual draws it
        drawn_from = (self._shown, width, base, key_style, text_style, link)
        if self._drawn is None or self._drawn[0] != drawn_from:
            line = self._line(width, key_style, text_style, link)
            segments = [Segment(text, base if style is None else base + style)
                        for text, style, _ in line.render(self.app.console, end="")]
            self._drawn = (drawn_from, Strip(segments, line.cell_len))
        return self._drawn[1]

    def render(self) -> Text:
        """The line as text (what `render_line` draws)."""
        return self._line(max(1, self.size.width), self.get_component_rich_style("keybar--key"),
                          self.get_component_rich_style("keybar--description"),
                          self.link_style if self.auto_links else None)

    def _line(self, width: int, key_style: Style, text_style: Style, link: Style | None) -> Text:
        """The keys that fit; a usable key clicks (its `@click` meta) and, with `link`, is drawn as a link, as
        Textual draws a click in a widget's content: the bar knows which keys click, and never reads them back
        out of the styles."""
        parts: list[tuple[Text, str]] = []
        for key, display, description, enabled, action in self._shown:
            click = Style(meta={"@click": f"app.simulate_key({key!r})"}) + (link or Style()) if enabled else Style()
            dim = Style(dim=True) if not enabled else Style()
            part = Text()
            part.append(f" {display} ", key_style + dim + click)
            if description:
                part.append(f"{description} ", text_style + dim + click)
            parts.append((part, action.rpartition(".")[2]))
        palette = parts.pop()[0] if parts and self._shown[-1][0] == self.app.COMMAND_PALETTE_BINDING else None
        line = Text().join(p for p, _ in parts)
        if palette is not None and line.cell_len + 1 + palette.cell_len <= width:
            line.append(" " * (width - line.cell_len - palette.cell_len))  # the palette keeps to the right
            line.append_text(palette)
            return line
        if line.cell_len <= width:
            return line
        # too narrow for every key: keep help and quit at the end, and before them as many others as fit,
        # the keys of a decision first (pass, hint, jump…), then the rest in order; keys not usable now last
        pinned = [p for p, action in parts if action in PINNED]
        room = width - sum(p.cell_len for p in pinned) - 2
        usable = {action.rpartition(".")[2]: enabled for _k, _d, _t, enabled, action in self._shown}
        order = sorted(range(len(parts)), key=lambda k: (not usable.get(parts[k][1], True),
                                                          parts[k][1] not in DECIDING, k))
        kept = set()
        used = 0
        for k in order:
            part, action = parts[k]
            if action not in PINNED and used + part.cell_len <= room:
                kept.add(k)
                used += part.cell_len
        line = Text()
        for k in sorted(kept):
            line.append_text(parts[k][0])
        line.append(" …", text_style)
        for part in pinned:
            line.append_text(part)
        line.truncate(width)
        return line
