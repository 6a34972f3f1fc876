"""How much of one received mail the judge will read, and the parsers that keep to it.

Parsing a mail costs the email package time that grows with its shape as much as its size:
each line of a part is checked against the boundary of every enclosing multipart, so deep
nesting makes every line dearer (and 1,000 levels exhaust Python's recursion), and the
structured header parsers spend tens of microseconds a character on addresses and content
types built to be awkward.  The bounds (``[limits]`` in the configuration) cap what one mail
may ask for: the MIME parts, how deep they nest, the characters of the headers that get parsed,
and (judge.mail.reading.html_text) the nodes of an HTML body and how deep they nest.  A mail beyond
any of them is :class:`Unreadable`: the parse stops there, as soon as the bound is passed, and
none of the mail is read as commands.

The bounds are kept by the email package's own extension points: a policy whose
``header_source_parse`` counts each header as the parser collects it (before anything parses
it), and a message factory that counts the parts and, through ``attach``, their depth.
"""

from __future__ import annotations

from email.message import EmailMessage, Message
from email.policy import Compat32, EmailPolicy
from typing import Any, Callable

from judge.basics.config import LimitsSection
from judge.mail.reading.headers import RememberingHeaders

# The headers whose text is parsed (by the email package's structured parsers, or decoded as
# encoded words): the sender's addresses, the robot checks' headers, and each part's content
# headers.  Other headers are only ever scanned, in time in proportion to their length.
PARSED_HEADERS = frozenset({"from", "reply-to", "subject", "auto-submitted", "precedence",
                            "content-type", "content-disposition", "content-transfer-encoding"})


class Unreadable(Exception):
    """Why a mail was not read: a ``code`` (the macro of templates/unreadable_reasons.txt that
    words it) and the facts the words need, never a sentence."""

    def __init__(self, code: str, **facts: Any) -> None:
        super().__init__(code, facts)
        self.code = code
        self.facts = facts


class Budget:
    """What one read of one mail has used of the bounds so far."""

    def __init__(self, limits: LimitsSection) -> None:
        self.limits = limits
        self.parts = 0
        self.header_chars = 0

    def spend_header(self, name: str, length: int) -> None:
        self.header_chars += length
        if self.header_chars > self.limits.header_chars:
            raise Unreadable("headers_too_long", header=name, limit=self.limits.header_chars)

    def new_part(self, policy: Any) -> Message:
        """The message factory of the parse: one more part, with its depth kept by attach."""
        self.parts += 1
        if self.parts > self.limits.mime_parts:
            raise Unreadable("too_many_parts", limit=self.limits.mime_parts)
        part = (_BoundedEmailMessage if isinstance(policy, EmailPolicy) else
                _BoundedMessage)(policy=policy)
        part.judge_budget = self
        return part


class _Nesting:
    """A part that knows how deep it is: the parser attaches every part to its parent."""

    judge_budget: Budget
    judge_depth = 0

    def attach(self, payload: Any) -> None:
        limit = self.judge_budget.limits.mime_depth
        if self.judge_depth >= limit:
            raise Unreadable("parts_too_deep", limit=limit)
        payload.judge_depth = self.judge_depth + 1
        super().attach(payload)  # type: ignore[misc]


class _BoundedEmailMessage(_Nesting, EmailMessage):
    pass


class _BoundedMessage(_Nesting, Message):
    pass


class _CountedHeaders:
    """A policy that counts the parsed headers' characters as the parser collects them."""

    judge_budget: Budget | None = None  # set per read by :func:`reading_policies`

    def header_source_parse(self, sourcelines: list[str]) -> tuple[str, str]:
        name, value = super().header_source_parse(sourcelines)  # type: ignore[misc]
        if self.judge_budget is not None and name.lower() in PARSED_HEADERS:
            self.judge_budget.spend_header(name, len(value))
        return name, value


class _ReadingPolicy(_CountedHeaders, EmailPolicy):
    pass


class _LenientPolicy(_CountedHeaders, Compat32):
    pass


# Headers within the default bound are parsed once however often they are asked for: a part's
# Content-Type is asked for some eight times, and one of a few thousand characters costs
# tens of milliseconds a parse.
_HEADERS = RememberingHeaders(longest=LimitsSection().header_chars)
# policy.default, and the forgiving old parser for mail policy.default's parsers fail on.
_READING = _ReadingPolicy(header_factory=_HEADERS)
_LENIENT = _LenientPolicy()


def reading_policies(limits: LimitsSection) -> list[Any]:
    """The policies to parse one mail with, in the order to try them, each with a budget of
    its own (an attempt that failed must not have spent the next one's)."""
    out = []
    for policy in (_READING, _LENIENT):
        budget = Budget(limits)
        factory: Callable[..., Message] = budget.new_part
        # (the policies' own attribute, which the email package's stubs cannot know of)
        settings: dict[str, Any] = dict(judge_budget=budget, message_factory=factory)
        out.append(policy.clone(**settings))
    return out
