"""One exception type for bad input, so every front end (CLI, pipeline) reports it in one line."""


class InputError(ValueError):
    """Bad user input: names the offending field and the allowed values.

    ``str(err)`` is a single line of the form ``<field>: <problem> (allowed: <values>)``.
    """

    def __init__(self, field: str, problem: str, allowed: str | None = None):
        self.field = field
        self.problem = problem
        self.allowed = allowed
        text = f"{field}: {problem}"
        if allowed:
            text += f" (allowed: {allowed})"
        super().__init__(text)
