"""The subject of a reply, as the classic Judge writes it (docs/mail-format.md).

Players' mail filters and the tools built for the Judge sort replies by subject:

* a reply to a mail signed on to a game: ``Re: JUDGE:war1901 - S1901M <their subject>``;
* any other reply: ``Re: <their subject>``;
* ``[Error Flag] `` before either when a line of the mail was refused.

What the judge put in front of a subject before is taken off first, so a reply to a reply
does not pile the prefixes up (``Re: Re: JUDGE:x - … JUDGE:x - …``).
"""

from __future__ import annotations

import re

ERROR_FLAG = "[Error Flag]"
# what the subject says when the sender's was empty
NO_SUBJECT = "your mail"


def _prefix(judge_name: str) -> re.Pattern[str]:
    """One prefix a subject may have gathered: ``Re:`` (``Re[2]:`` too), the error flag, or
    the judge's own ``JUDGE:<game> - <phase>``."""
    return re.compile(r"\s*(?:re(?:\[\d+\])?\s*:|\[error flag\]|"
                      + re.escape(judge_name) + r":\S+\s+-\s+[A-Z]\d{4}[A-Z])\s*",
                      re.IGNORECASE)


def bare_subject(judge_name: str, subject: str) -> str:
    """The sender's own words: the subject without the prefixes replies put in front."""
    prefix = _prefix(judge_name)
    text = subject.strip()
    while True:
        found = prefix.match(text)
        if not found or not found.group(0):
            return text
        text = text[found.end():]


def reply_subject(judge_name: str, subject: str, game: str | None = None,
                  phase: str | None = None, error: bool = False) -> str:
    """The subject of the judge's reply to a mail with ``subject``."""
    own = bare_subject(judge_name, subject)
    if game and phase:
        text = f"Re: {judge_name}:{game} - {phase}" + (f" {own}" if own else "")
    else:
        text = f"Re: {own or NO_SUBJECT}"
    return f"{ERROR_FLAG} {text}" if error else text
