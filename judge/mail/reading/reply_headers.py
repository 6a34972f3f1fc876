"""Where the original of a reply or a forward begins: the lines mail programs write above it,
in the languages they write them in.

Three kinds of line start an original:

* a separator, a phrase between runs of dashes (``-----Original Message-----``,
  ``-----Ursprüngliche Nachricht-----``, Gmail's ``---------- Forwarded message ---------``,
  Thunderbird's ``-------- Message transféré --------``), or Apple Mail's line above a
  forward (``Begin forwarded message:``, ``Début du message réexpédié :``);
* a block of header lines as Outlook, Gmail and Thunderbird copy them into the text: two or
  more lines in a row, each a header's name and a colon (``Von:``, ``Gesendet:``, ``De :``,
  ``Envoyé :``, ``Da:``, ``Inviato:`` …), one of them naming the sender (``From``, ``Von``,
  ``De``, ``Da``, ``Van``, ``Fra``, ``Från`` …); under a rule (a dashed line, or Outlook's
  line of underscores), the header naming the sender alone is enough;
* an attribution, one line or a line wrapped in two or three, that ends with a colon and says
  who wrote (``On … wrote:``, ``Am … schrieb …:``, ``Le … a écrit :``, ``El … escribió:``,
  ``Il … ha scritto:``, ``Op … schreef …:``, ``Em … escreveu:``, ``Den … skrev …:``,
  ``… kirjoitti …:``, ``W dniu … pisze:``).  It begins with the word the mail program puts
  first in that language (``On``, ``Am``, ``Le`` …) or, without one, names an address or a
  date (Gmail's Norwegian, Finnish and Polish put the name or the day first).

The words are those the common mail programs (Outlook, Gmail, Apple Mail, Thunderbird) write
in English, German, French, Spanish, Italian, Dutch, Portuguese, Swedish, Danish, Norwegian,
Finnish and Polish.  Matching ignores case; a header's name may have a space before its colon
(French) and stars around it (an HTML mail's bold, turned into text).
"""

from __future__ import annotations

import re

# What separators say between their dashes.
_SEPARATOR_PHRASES = (
    "original message", "forwarded message", "original", "reply message",  # en
    "ursprüngliche nachricht", "weitergeleitete nachricht", "originalnachricht",  # de
    "message d'origine", "message original", "message transféré", "message initial",  # fr
    "courriel original", "message d’origine",
    "mensaje original", "mensaje reenviado",  # es
    "messaggio originale", "messaggio inoltrato",  # it
    "oorspronkelijk bericht", "origineel bericht", "doorgestuurd bericht",  # nl
    "mensagem original", "mensagem encaminhada", "mensagem reencaminhada",  # pt
    "ursprungligt meddelande", "originalmeddelande", "vidarebefordrat meddelande",  # sv
    "oprindelig meddelelse", "original meddelelse", "videresendt meddelelse",  # da
    "opprinnelig melding", "original melding", "videresendt melding",  # no
    "alkuperäinen viesti", "välitetty viesti",  # fi
    "oryginalna wiadomość", "wiadomość oryginalna", "przekazana wiadomość",  # pl
)
# Apple Mail's line above a forwarded mail.
_FORWARD_INTROS = (
    "begin forwarded message", "anfang der weitergeleiteten nachricht",
    "début du message réexpédié", "début du message transféré", "inicio del mensaje reenviado",
    "inizio messaggio inoltrato", "begin doorgestuurd bericht",
    "início da mensagem reencaminhada", "início da mensagem encaminhada",
    "vidarebefordrat mejl", "vidarebefordrat meddelande", "videresendt besked",
    "videresendt melding", "välitetty viesti alkaa", "początek przekazanej wiadomości",
)
# Header names naming the sender, and the others a copied header block has.
_FROM_WORDS = ("from", "von", "de", "da", "van", "fra", "från", "frå", "lähettäjä", "od",
               "absender", "afzender", "remetente")
_OTHER_HEADER_WORDS = (
    "sent", "date", "to", "cc", "bcc", "subject", "reply-to",  # en
    "gesendet", "datum", "an", "betreff", "kopie", "antwort an",  # de
    "envoyé", "envoye", "à", "a", "objet", "répondre à",  # fr
    "enviado", "enviado el", "fecha", "para", "asunto", "responder a",  # es
    "inviato", "data", "oggetto", "rispondi a",  # it
    "verzonden", "aan", "onderwerp",  # nl
    "enviada", "enviada em", "enviado em", "assunto",  # pt
    "skickat", "till", "ämne", "kopia",  # sv
    "sendt", "dato", "til", "emne", "kopi",  # da, no
    "lähetetty", "päivämäärä", "vastaanottaja", "aihe", "kopio",  # fi
    "wysłano", "do", "temat", "dw",  # pl
)
# The word an attribution begins with, and the verb that says who wrote.
_ATTRIBUTION_STARTS = ("on", "am", "le", "el", "il", "op", "em", "den", "på", "w dniu", "dnia")
_WROTE = ("wrote", "writes", "schrieb", "geschrieben", "a écrit", "écrit", "escribió",
          "escribio", "ha scritto", "scrisse", "schreef", "geschreven", "escreveu", "skrev",
          "kirjoitti", "napisał", "napisała", "pisze")


def _words(words: tuple[str, ...]) -> str:
    """An alternation of phrases, spaces in them matching any run of blanks; longest first,
    so that ``enviado el`` is tried before ``enviado``."""
    return "|".join(r"\s+".join(re.escape(w) for w in phrase.split())
                    for phrase in sorted(words, key=len, reverse=True))


_SEPARATOR = re.compile(rf"^\s*[-_=*]{{2,}}\s*({_words(_SEPARATOR_PHRASES)})\s*[-_=*]{{2,}}\s*$",
                        re.IGNORECASE)
_FORWARD_INTRO = re.compile(rf"^\s*({_words(_FORWARD_INTROS)})\s*:?\s*$", re.IGNORECASE)
# A dashed line with any words in it, or an Outlook rule: a separator when headers follow.
_ANY_SEPARATOR = re.compile(r"^\s*(-{2,}.*-{2,}|_{10,})\s*$")
_HEADER_LINE = re.compile(
    rf"^\s*\*?(?:({_words(_FROM_WORDS)})|{_words(_OTHER_HEADER_WORDS)})\s?\*?\s?:",
    re.IGNORECASE)
_ATTRIBUTION_START = re.compile(rf"^\s*({_words(_ATTRIBUTION_STARTS)})\s", re.IGNORECASE)
_ATTRIBUTION_END = re.compile(rf"(?<!\w)({_words(_WROTE)})(?!\w).*:\s*$", re.IGNORECASE)
# What an attribution without its first word must name: an address or a date.
_ADDRESS_OR_DATE = re.compile(r"@|\d")
# The most lines one attribution is wrapped into, and header lines looked at for a sender.
_ATTRIBUTION_LINES = 3
_HEADER_LINES = 6
# No line a mail program writes above an original is longer (an attribution wrapped in three
# lines included): a longer one is not looked at, so that no pattern here ever goes over a
# hostile mail's huge line more than once.
_LONGEST = 400


def may_begin_original(line: str) -> bool:
    """A cheap first look: whether an original may begin at ``line`` at all (every line that
    begins one has a colon, an address, a rule or an attribution's first word); most lines of
    a mail are looked at no further."""
    return (":" in line or "@" in line or "<" in line or line.lstrip()[:1] in ("-", "_", "=", "*")
            or _ATTRIBUTION_START.match(line) is not None)


def starts_original(line: str) -> bool:
    """Whether ``line`` alone begins an original: a separator or a forward's intro."""
    return len(line) <= _LONGEST and bool(_SEPARATOR.match(line) or _FORWARD_INTRO.match(line))


def is_rule(line: str) -> bool:
    """A dashed line with any words in it, or an Outlook rule of underscores: it begins an
    original when a header block follows it."""
    return len(line) <= _LONGEST and bool(_ANY_SEPARATOR.match(line))


def names_sender(line: str) -> bool:
    """Whether ``line`` is a copied header naming the sender (``From:``, ``Von:``, ``De :``):
    under a rule, that alone begins an original."""
    found = _HEADER_LINE.match(line[:_LONGEST])
    return found is not None and found.group(1) is not None


def header_block_at(lines: list[str], i: int) -> bool:
    """Whether a copied header block begins at line ``i``: two or more header lines in a
    row, one of them naming the sender."""
    sender = False
    count = 0
    for line in lines[i:i + _HEADER_LINES]:
        found = _HEADER_LINE.match(line[:_LONGEST])
        if not found:
            break
        count += 1
        sender = sender or found.group(1) is not None
    return count >= 2 and sender


def attribution_length(lines: list[str], i: int) -> int:
    """How many lines an attribution beginning at line ``i`` takes (1 to 3: mail programs
    wrap a long one), 0 when none begins there."""
    first = lines[i]
    if not first.strip() or len(first) > _LONGEST:
        return 0
    started = _ATTRIBUTION_START.match(first) is not None
    text = ""
    for size, line in enumerate(lines[i:i + _ATTRIBUTION_LINES], start=1):
        if size > 1 and not line.strip():
            return 0
        text = f"{text} {line.strip()}"
        if len(text) > _LONGEST:
            return 0
        if text.endswith(":") and _ATTRIBUTION_END.search(text):
            named = started or _ADDRESS_OR_DATE.search(text) is not None
            # unwrapped, the name and verb alone ("Frank wrote:") are enough
            return size if named or (size == 1 and len(text.split()) <= 4) else 0
        if not started and size == 1 and "@" not in line and "<" not in line:
            return 0  # only an attribution's own first word lets it go on to a next line
    return 0
