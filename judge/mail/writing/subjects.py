"""The subject of a reply, as the classic Judge writes it (docs/mail-format.md).

Players' mail filters and the tools built for the Judge sort replies by subject:

* a reply to a mail signed on to a game: ``Re: JUDGE:war1901 - S1901M <their subject>``;
* any other reply: ``Re: <their subject>``;
* ``[Error Flag] `` after the ``Re: `` when a line of the mail was refused, where the Judge
  puts it: ``Re: [Error Flag] JUDGE:war1901 - S1901M <their subject>``.

What replies put in front of a subject before is taken off first, so a reply to a reply does
not pile the prefixes up (``Re: Re: JUDGE:x - … JUDGE:x - …``): the judge's own, and the
reply and forward markers mail programs write in other languages (``AW:``, ``SV:``, ``Rif:``,
``Fwd:``, ``Réf.`` …), with any ``[tags]`` mailing lists add, repeated and mixed.

A subject too long for one line is folded after a word, never right after a colon
(:func:`folded_subject`).
"""

from __future__ import annotations

import re
from email.charset import Charset
from functools import cache
from itertools import repeat
from typing import Iterator

ERROR_FLAG = "[Error Flag]"
# what the subject says when the sender's was empty
NO_SUBJECT = "your mail"

# The reply and forward markers mail programs put before a subject, by language: Re; AW,
# Antwort, WG (German); Antw, Doorst (Dutch); SV, VB (Swedish, Danish, Norwegian); VS (Finnish
# reply, Norwegian forward), VL (Finnish forward); Rif, R (Italian); RES, ENC (Portuguese); RV
# (Spanish); TR (French, Portuguese forward); Odp, PD (Polish); YNT, İLT (Turkish); ATB
# (Latvian); Vá, Továbbítás (Hungarian); ΑΠ, ΣΧΕΤ, ΠΡΘ (Greek); 回复, 答复, 转发 (Chinese);
# Fwd, Fw.  Each may carry a count (Re[2]:, Re(2):, Re^2:) and a space before its colon
# (French "RE :"); the colon may be the full-width one.
_MARKERS = ("re", "aw", "antwort", "wg", "antw", "doorst", "sv", "vb", "vs", "vl", "rif", "r",
            "res", "enc", "rv", "tr", "odp", "pd", "ynt", "i̇lt", "ilt", "atb", "vá",
            "továbbítás", "απ", "σχετ", "πρθ", "回复", "答复", "转发", "fwd", "fw")
_MARKER = (r"(?:" + "|".join(sorted(map(re.escape, _MARKERS), key=len, reverse=True))
           + r")\s*(?:\[\d+\]|\(\d+\)|\^\d+)?\s*[:：]")
# French Outlook's "Réf. :" (its period is part of the marker, the colon optional), and a
# mailing list's (or the judge's error flag's) [tag]
_OTHERS = r"r[ée]f\.\s*:?|\[[^\[\]]*\]"


@cache
def _prefix(judge_name: str) -> re.Pattern[str]:
    """One prefix a subject may have gathered: a reply or forward marker, a [tag] (the error
    flag among them), or the judge's own ``JUDGE:<game> - <phase>``."""
    return re.compile(r"\s*(?:" + _MARKER + "|" + _OTHERS + "|"
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
    words = ["Re:"]
    if error:
        words.append(ERROR_FLAG)
    if game and phase:
        words.append(f"{judge_name}:{game} - {phase}")
    elif not own:
        own = NO_SUBJECT
    if own:
        words.append(own)
    return " ".join(words)


# RFC 2047's encoding of the words a header cannot carry as they are; the email package's
# (it picks the shorter of quoted-printable and base64, and splits a long text into encoded
# words that fit the lines given, never inside a character).
_UTF8 = Charset("utf-8")
# The longest encoded word RFC 2047 allows.
_LONGEST_ENCODED = 75


def folded_subject(name: str, text: str, limit: int, encode: bool = True) -> list[str]:
    """The lines of the header ``name: text``, folded after a word, as late as lines of
    ``limit`` characters allow, and never right after a word that ends with a colon (the
    header's own name, ``Re:``, ``AW:`` …): such a word and the next are kept together, even
    if that makes a line longer.

    The email package's own folder moved a part that fits on a line of its own onto the next
    line (``Subject:`` alone on the first line, ``Re:`` alone at the end of one), and lost the
    space between two words it encoded when a fold fell between them (``für Frühling`` read
    back ``fürFrühling``).  Here each word is placed whole; a word that must be encoded
    (``encode``: not ASCII, or holding ``=?``, or longer than a line) becomes encoded words of
    its own, carrying the space before it when the word before was encoded too (white space
    between two encoded words is not text).  Runs of white space are read as one space, as
    the judge reads a subject."""
    lines = [f"{name}:"]
    for group in _groups(_tokens(text.split(), limit, encode)):
        together = " ".join(group)
        if len(lines[-1]) + 1 + len(together) > limit and not lines[-1].endswith(":"):
            lines.append(f" {together}")  # a fold: the line break before a space
        else:
            lines[-1] += f" {together}"
    return lines


def _tokens(words: list[str], limit: int, encode: bool) -> Iterator[str]:
    """The words as the header carries them: plain, or as encoded words that each fit on a
    line of their own."""
    encoded_before = False
    for word in words:
        if not (encode and (not word.isascii() or "=?" in word or len(word) >= limit - 1)):
            encoded_before = False
            yield word
            continue
        spaced = f" {word}" if encoded_before else word
        for piece in _UTF8.header_encode_lines(spaced, repeat(min(_LONGEST_ENCODED, limit - 1))):
            if piece:  # (None only where a first line had no room for a character)
                yield piece
        encoded_before = True


def _groups(tokens: Iterator[str]) -> Iterator[list[str]]:
    """The tokens in runs no fold may break: a word that ends with a colon and what follows."""
    group: list[str] = []
    for token in tokens:
        group.append(token)
        if not token.endswith(":"):
            yield group
            group = []
    if group:
        yield group
