"""How ordinary mail signs off: a phone's signature (``Sent from my iPhone``) and a closing
(``Thanks!``, ``Regards, Frank``, ``Viele Grüße``), in the languages the judge's players write.

A closing is a whole line: the closing's words (in any case), then at most a comma (or a
dash) and a name of up to three capitalised words, and any punctuation (``Thanks!``,
``Cheers -- Frank``, ``Best,``).  A line that goes on with other words (``Thanks for the
reminder``) is no closing.
"""

from __future__ import annotations

import re

_CLOSINGS = (
    # en
    "thanks", "thank you", "thanks a lot", "many thanks", "thanks again", "thx", "ty",
    "cheers", "regards", "best regards", "kind regards", "warm regards", "warmest regards",
    "best wishes", "all the best", "best", "yours", "yours truly", "yours sincerely",
    "sincerely", "greetings", "bye", "see you", "take care", "ciao", "good luck", "have fun",
    # de
    "danke", "danke schön", "danke schon", "vielen dank", "grüße", "gruß", "viele grüße",
    "liebe grüße", "beste grüße", "herzliche grüße", "schöne grüße", "mit freundlichen grüßen",
    "freundliche grüße", "mfg", "lg", "vg", "tschüss", "bis bald",
    # fr
    "merci", "merci beaucoup", "cordialement", "bien cordialement", "bien à vous", "amitiés",
    "à bientôt", "a bientot", "salutations", "bonne journée", "bonne soirée", "bises",
    # es
    "gracias", "muchas gracias", "saludos", "un saludo", "atentamente", "un abrazo", "abrazos",
    "hasta luego",
    # it
    "grazie", "grazie mille", "saluti", "cordiali saluti", "distinti saluti", "un saluto",
    "a presto",
    # nl
    "bedankt", "dank je", "dank je wel", "dank u", "groeten", "groetjes", "met vriendelijke groet",
    "met vriendelijke groeten", "vriendelijke groet", "mvg", "tot ziens",
    # pt
    "obrigado", "obrigada", "abraços", "abraço", "atenciosamente", "cumprimentos",
    "saudações", "até logo",
    # sv, da, no
    "tack", "tack så mycket", "hälsningar", "med vänlig hälsning", "vänliga hälsningar",
    "tak", "takk", "hilsen", "venlig hilsen", "med venlig hilsen", "vennlig hilsen",
    "med vennlig hilsen", "mvh",
    # fi
    "kiitos", "terveisin", "ystävällisin terveisin",
)
_PHONE_SIGNATURES = (
    r"sent from my\b", r"sent from (mail|outlook|yahoo mail|gmail) for\b", r"get outlook for\b",
    r"von meinem .+ gesendet$", r"gesendet von meinem\b", r"envoy[ée] de mon\b",
    r"enviado desde mi\b", r"inviato da\b.*\b(iphone|ipad|android|samsung|outlook|cellulare)",
    r"verzonden (vanaf|van|met) mijn\b", r"enviado do meu\b", r"enviado a partir do meu\b",
    r"skickat från min\b", r"sendt fra min\b", r"lähetetty\b.*\b(iphone|ipad|android)",
    r"wysłano z mojego\b",
)
# The closing's words in any case; a name after them is capitalised words.
_CLOSING = re.compile(
    r"^\s*(?i:" + "|".join(r"\s+".join(map(re.escape, c.split()))
                          for c in sorted(_CLOSINGS, key=len, reverse=True))
    + r")[\s!.,;:)-]*((,|-{1,2}|–)?\s*[^\W\d_a-z][\w.'’-]*(\s+[^\W\d_a-z][\w.'’-]*){0,2}"
    r"[\s!.]*)?$")
_PHONE = re.compile(r"^\s*(" + "|".join(_PHONE_SIGNATURES) + ")", re.IGNORECASE)
# Longer lines are neither (and are not matched at all: no pattern goes over a huge line).
_LONGEST = 80


def is_closing(line: str) -> bool:
    """Whether ``line`` is a closing (``Thanks!``, ``Regards, Frank``)."""
    return len(line) <= _LONGEST and _CLOSING.match(line) is not None


def is_phone_signature(line: str) -> bool:
    """Whether ``line`` is the signature a phone's mail program adds (``Sent from my
    iPhone``, ``Von meinem iPhone gesendet``)."""
    return len(line) <= _LONGEST and _PHONE.match(line) is not None
