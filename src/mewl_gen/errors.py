class UserError(Exception):
    """A mistake of the user's: reported as one line, exit code 2, no traceback."""
