class UserError(Exception):
    """A mistake of the user's: reported as one line, exit code 2, no traceback."""


SHOWN = 200  # characters of untrusted text a message quotes


def shown(text: object, limit: int = SHOWN) -> str:
    """Untrusted text (a file's content or name, a model's answer) as a one-line message may quote it:
    control characters escaped (no escape sequence reaches a terminal) and cut to `limit` characters."""
    text = str(text)
    cut = text[: limit * 4]
    safe = "".join(c if c.isprintable() and c not in "\u2028\u2029" else c.encode("unicode_escape").decode("ascii")
                   for c in cut)
    if len(safe) > limit or len(cut) < len(text):
        return safe[:limit] + f"... ({len(text)} characters)"
    return safe
