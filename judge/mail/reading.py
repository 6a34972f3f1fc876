"""Reading received mail: raw RFC 5322 bytes in, what the command layer needs out.

One job, one entry point: :func:`read_message` turns whatever the MTA handed us into a
:class:`ReadMail` — who to answer, the subject, the threading ids, the body lines the command
language reads, and whether the mail came from a robot that must get no answer.
It never raises: mail is written by every kind of program, broken ones included, and a mail
we cannot read still deserves an answer saying so (or, for robots, deliberate silence).

Body text conventions the command layer can rely on:

* the first ``text/plain`` part that is not an attachment is read; without one the first
  ``text/html`` part is converted to text; attached/forwarded messages are never read;
* line endings are ``\\n``; trailing whitespace is stripped from every line; tabs are kept
  as they are (the command parser splits on any whitespace); non-breaking spaces become
  plain spaces;
* :func:`read_body` then skips quoted lines (and the ``On … wrote:`` line above them, reading
  on below the quote) and stops at a signature, ``SIGNOFF`` or an unquoted original. Blank
  lines inside the text are kept, trailing ones are dropped.
"""

from __future__ import annotations

import codecs
import email
import email.utils
import re
import warnings
from dataclasses import dataclass
from email import policy
from email.message import Message

from bs4 import BeautifulSoup, NavigableString

from judge.mail.clean import clean, clean_line
from judge.mail.headers import RememberingHeaders

__all__ = ["ReadMail", "read_message", "body_lines", "read_body"]


@dataclass(frozen=True)
class ReadMail:
    """What the command layer needs from one received mail."""

    message_id: str | None  # as in the header, whitespace removed; None if absent
    sender: str  # best reply address: Reply-To, else From, else envelope sender ('' if none)
    from_header: str  # the From addr-spec ('' if absent or unusable)
    subject: str  # RFC 2047-decoded, '' if none
    lines: tuple[str, ...]  # the body lines the judge reads (see body_lines)
    references: tuple[str, ...]  # References then In-Reply-To message ids, deduplicated
    robot_reason: str | None  # why this mail must get no answer, else None
    problems: tuple[str, ...]  # human notes on what was odd about the mail
    quoted: int = 0  # quoted lines ("> …") skipped in the body (see read_body)


# --------------------------------------------------------------------------- entry point


# policy.default, parsing each header once however often it is asked for (judge.mail.headers)
_READING = policy.default.clone(header_factory=RememberingHeaders())


def read_message(raw: bytes, *, envelope_sender: str | None, judge_address: str) -> ReadMail:
    """Read one raw message. ``envelope_sender`` is the SMTP MAIL FROM (None if unknown,
    e.g. for ``judge inject``); ``judge_address`` is the judge's own address."""
    problems: list[str] = []
    if not isinstance(raw, (bytes, bytearray)):
        raw = str(raw).encode("utf-8", "surrogateescape")
    # policy.default is the modern API, but its lazy header parsers can raise on some
    # malformed input; compat32 is the forgiving old parser. Last resort: raw text.
    for pol in (_READING, policy.compat32):
        try:
            msg = email.message_from_bytes(bytes(raw), policy=pol)
            # a fresh list per attempt: notes from a failed attempt would only confuse
            return _cleaned(_read(msg, envelope_sender, judge_address, list(problems)))
        except Exception as exc:  # noqa: BLE001 - never raise on input
            problems.append(f"mail parser failed ({type(exc).__name__}); read more leniently")
    problems.append("could not parse the mail at all; read it as plain text")
    text = _decode_text(bytes(raw), None, problems)
    env = _envelope_address(envelope_sender)
    lines, quoted = read_body(text)
    return _cleaned(ReadMail(
        message_id=None,
        sender=env or "",
        from_header="",
        subject="",
        lines=tuple(lines),
        references=(),
        robot_reason="null sender" if env == "" else None if env else "no usable From address",
        problems=tuple(problems),
        quoted=quoted,
    ))


def _cleaned(mail: ReadMail) -> ReadMail:
    """Control characters out of everything read (judge.mail.clean): what the judge stores
    or quotes back never carries a NUL, an ESC or a stray CR from a hostile mail."""
    def line(value: str | None) -> str | None:
        return None if value is None else clean_line(value)

    return ReadMail(
        message_id=line(mail.message_id),
        sender=clean_line(mail.sender),
        from_header=clean_line(mail.from_header),
        subject=clean_line(mail.subject),
        lines=tuple(clean(text) for text in mail.lines),
        references=tuple(clean_line(ref) for ref in mail.references),
        robot_reason=line(mail.robot_reason),
        problems=tuple(clean_line(note) for note in mail.problems),
        quoted=mail.quoted,
    )


def _read(
    msg: Message, envelope_sender: str | None, judge_address: str, problems: list[str]
) -> ReadMail:
    from_addr = _first_address(msg, "From", problems)
    reply_to = _first_address(msg, "Reply-To", problems)
    env = _envelope_address(envelope_sender)
    sender = reply_to or from_addr or env or ""
    text = _body_text(msg, problems)
    defects = _defect_names(msg)
    if defects:
        problems.append("broken MIME structure (" + ", ".join(defects) + ")")
    lines, quoted = read_body(text)
    return ReadMail(
        message_id=_message_id(msg),
        sender=sender,
        from_header=from_addr or "",
        subject=_subject(msg),
        lines=tuple(lines),
        references=_references(msg),
        robot_reason=_robot_reason(msg, env, from_addr, reply_to, judge_address),
        problems=tuple(dict.fromkeys(problems)),  # dedupe, keep order
        quoted=quoted,
    )


# --------------------------------------------------------------------------- headers


def _raw_header(msg: Message, name: str) -> str | None:
    """The first raw (undecoded, folded) value of a header, bypassing the policy's parser:
    ids and addresses are ASCII syntax, and the lazy parsers choke on folded Message-IDs."""
    for key, value in msg.raw_items():
        if key.lower() == name.lower():
            return _fix_surrogates(str(value))
    return None


def _decoded_header(msg: Message, name: str) -> str | None:
    raw = _raw_header(msg, name)  # surrogates already turned into utf-8 or latin-1 text
    if raw is None:
        return None
    try:
        # Parse the repaired raw text with policy.default's header classes (whatever policy
        # the message was parsed with): that decodes RFC 2047 words and keeps raw 8-bit text
        # instead of turning it into U+FFFD.
        unfolded = raw.replace("\r", "").replace("\n", "")
        text = str(policy.default.header_factory(name, unfolded))
    except Exception:  # noqa: BLE001 - broken encoded words: fall back to the raw text
        text = raw
    return _fix_surrogates(" ".join(text.split()))


def _subject(msg: Message) -> str:
    return _decoded_header(msg, "Subject") or ""


def _message_id(msg: Message) -> str | None:
    raw = _raw_header(msg, "Message-ID")
    if raw is None:
        return None
    value = "".join(raw.split())  # unfold: a folded id is still the same id
    return value or None


_MSGID_RE = re.compile(r"<[^<>\s]+>")


def _references(msg: Message) -> tuple[str, ...]:
    ids: list[str] = []
    for name in ("References", "In-Reply-To"):
        raw = _raw_header(msg, name)
        if raw:
            ids.extend(_MSGID_RE.findall(raw))
    return tuple(dict.fromkeys(ids))


def _normalise_addr_spec(addr: str) -> str | None:
    """``Local@Example.COM`` -> ``Local@example.com``; None unless it looks like local@domain."""
    addr = _fix_surrogates(addr.strip())
    local, at, domain = addr.rpartition("@")
    if not at or not local or not domain or any(c.isspace() for c in addr):
        return None
    return f"{local}@{domain.lower()}"


def _first_address(msg: Message, name: str, problems: list[str]) -> str | None:
    """The first usable addr-spec of an address header, or None."""
    if _raw_header(msg, name) is None:
        return None
    found: str | None = None
    try:
        header = msg.get(name)
        for address in getattr(header, "addresses", ()):
            found = _normalise_addr_spec(address.addr_spec)
            if found:
                break
    except Exception:  # noqa: BLE001 - the structured parser failed; try the simple one
        pass
    if not found:
        _, addr = email.utils.parseaddr(_raw_header(msg, name) or "")
        found = _normalise_addr_spec(addr)
    if not found:
        problems.append(f"no usable address in {name}: {_raw_header(msg, name)!r}")
    return found


def _envelope_address(envelope_sender: str | None) -> str | None:
    """'' for the null sender, None if unknown, else the normalised address."""
    if envelope_sender is None:
        return None
    value = envelope_sender.strip()
    if value in ("", "<>"):
        return ""
    _, addr = email.utils.parseaddr(value)
    return _normalise_addr_spec(addr) or value


# --------------------------------------------------------------------------- robots

_ROBOT_LOCAL_PARTS = frozenset(
    {"mailer-daemon", "postmaster", "noreply", "no-reply", "donotreply", "do-not-reply"}
)
_AUTO_REPLY_HEADERS = ("X-Autoreply", "X-Autorespond", "X-Autoresponder")
_AUTO_REPLY_SUBJECT = re.compile(
    r"^\s*(auto(matic)?[ -]?(reply|response)|out of (the )?office)\b", re.IGNORECASE
)


def _address_key(addr: str) -> str:
    """Case-insensitive comparison key that ignores a ``+tag`` in the local part."""
    local, _, domain = addr.strip().strip("<>").lower().rpartition("@")
    return f"{local.split('+', 1)[0]}@{domain}"


def _robot_reason(
    msg: Message,
    envelope: str | None,
    from_addr: str | None,
    reply_to: str | None,
    judge_address: str,
) -> str | None:
    if envelope == "":
        return "null sender"
    if not from_addr:
        return "no usable From address"
    auto = _decoded_header(msg, "Auto-Submitted")
    if auto is not None and auto.split(";")[0].strip().lower() != "no":
        return f"Auto-Submitted: {auto}"
    precedence = (_decoded_header(msg, "Precedence") or "").strip().lower()
    if precedence in ("bulk", "junk", "list"):
        return f"Precedence: {precedence}"
    for key in msg.keys():
        if key.lower().startswith("list-"):
            return f"{key} header (mailing list)"
    for name in _AUTO_REPLY_HEADERS:
        if _raw_header(msg, name) is not None:
            return f"{name} header (auto-reply)"
    if _AUTO_REPLY_SUBJECT.match(_subject(msg)):
        return "auto-reply subject"
    try:
        if msg.get_content_type() == "multipart/report":
            return "delivery report (multipart/report)"
    except Exception:  # noqa: BLE001
        pass
    addresses = [a for a in (envelope, from_addr, reply_to) if a]
    for addr in addresses:
        local = (addr.rpartition("@")[0] if "@" in addr else addr).lower().split("+", 1)[0]
        if local in _ROBOT_LOCAL_PARTS:
            return f"robot sender address {addr}"
    _, judge = email.utils.parseaddr(judge_address)
    judge_key = _address_key(judge or judge_address)
    for addr in addresses:
        if _address_key(addr) == judge_key:
            return "mail from the judge's own address"
    return None


# --------------------------------------------------------------------------- body


def _defect_names(msg: Message) -> list[str]:
    names: set[str] = set()
    for part in _all_parts(msg):
        names.update(type(defect).__name__ for defect in getattr(part, "defects", ()))
    return sorted(names)


def _all_parts(part: Message, depth: int = 0):
    """The part and its sub-parts, not descending into attached messages."""
    yield part
    if depth > 20:  # absurd nesting: stop rather than recurse forever
        return
    if part.get_content_maintype() == "message" or not part.is_multipart():
        return
    payload = part.get_payload()
    if isinstance(payload, list):
        for sub in payload:
            if isinstance(sub, Message):
                yield from _all_parts(sub, depth + 1)


def _body_text(msg: Message, problems: list[str]) -> str:
    plain = html = None
    for part in _all_parts(msg):
        try:
            if part.is_multipart() or part.get_content_disposition() == "attachment":
                continue
            ctype = part.get_content_type()
        except Exception:  # noqa: BLE001
            continue
        if ctype.startswith("multipart/"):
            # the parser found no parts (missing or wrong boundary): the text is all we have
            problems.append(f"{ctype} without readable parts; read it as plain text")
            ctype = "text/plain"
        if ctype == "text/plain" and plain is None:
            plain = part
        elif ctype == "text/html" and html is None:
            html = part
    chosen = plain if plain is not None else html  # not `or`: a Message without headers is falsy
    if chosen is None:
        problems.append("no text part to read")
        return ""
    try:
        payload = chosen.get_payload(decode=True)
    except Exception:  # noqa: BLE001
        payload = None
    if not isinstance(payload, bytes):
        payload = str(chosen.get_payload() or "").encode("utf-8", "surrogateescape")
    try:
        charset = chosen.get_content_charset()
    except Exception:  # noqa: BLE001
        charset = None
    text = _decode_text(payload, charset, problems)
    if chosen is html:
        problems.append("HTML-only mail converted to text")
        text = html_to_text(text)
    return text.replace("\xa0", " ").replace("\ufeff", "")


def _decode_text(payload: bytes, charset: str | None, problems: list[str]) -> str:
    """Decode with the declared charset; survive unknown and wrong ones.

    Fallback order: utf-8 (strict), then latin-1 (never fails). A declared ``us-ascii``
    (also the MIME default) that is not ASCII is read as utf-8/latin-1 the same way."""
    declared = (charset or "us-ascii").strip().lower()
    try:
        if codecs.lookup(declared).name == "ascii" and not payload.isascii():
            raise UnicodeError("8-bit data labelled as ASCII")
        return payload.decode(declared)
    except LookupError:
        reason = f"unknown charset {declared!r}"
    except Exception:  # noqa: BLE001 - UnicodeError, non-text codecs like 'base64', ...
        reason = f"text is not valid {declared}"
    try:
        text = payload.decode("utf-8")
        problems.append(f"{reason}; read as utf-8")
    except UnicodeError:
        text = payload.decode("latin-1")
        problems.append(f"{reason}; read as latin-1")
    return text


def _fix_surrogates(text: str) -> str:
    """Replace surrogate-escaped raw bytes (8-bit headers) by real characters."""
    if not any("\udc80" <= c <= "\udcff" for c in text):
        return text
    data = text.encode("utf-8", "surrogateescape")
    try:
        return data.decode("utf-8")
    except UnicodeError:
        return data.decode("latin-1", "replace")


# --------------------------------------------------------------------------- HTML

# Elements that start a new line when rendered. <p> is treated like <div> (no blank line):
# Outlook writes one <p> per typed line, and blank lines would only confuse line numbers.
_BLOCK_TAGS = frozenset(
    "address article aside blockquote dd div dl dt fieldset figcaption figure footer form "
    "h1 h2 h3 h4 h5 h6 header hr li main nav ol p pre section table tbody thead tfoot tr "
    "ul".split()
)
_SOFT = "\ue000"  # "line break unless already at the start of a line" (private-use marker)
_HARD = "\ue001"  # an unconditional line break (<br>)


def html_to_text(html: str) -> str:
    """Render HTML as the text lines a reader would see."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # bs4 warns about markup that looks like a URL
        soup = BeautifulSoup(html, "html.parser")
    # Not the sender's words: scripts, styles, the <head>, and quoted originals (mail
    # clients quote the message being answered in a <blockquote>).
    for tag in soup.find_all(["script", "style", "head", "title", "template", "blockquote"]):
        tag.decompose()
    for node in soup.find_all(string=True):
        if type(node) is not NavigableString:
            continue  # comments, doctypes, CDATA
        text = str(node).replace(_SOFT, "").replace(_HARD, "")
        if node.find_parent(["pre", "textarea"]) is None:
            text = re.sub(r"[ \t\r\n\f]+", " ", text)  # HTML whitespace collapses
        node.replace_with(text)
    for br in soup.find_all("br"):
        br.replace_with(_HARD)
    for cell in soup.find_all(["td", "th"]):
        cell.append(" ")  # keep table cells apart on their row
    for tag in soup.find_all(_BLOCK_TAGS):
        tag.insert(0, _SOFT)
        tag.append(_SOFT)
    rendered = soup.get_text().replace(_HARD, "\n")
    out: list[str] = []
    at_line_start = True
    for index, chunk in enumerate(rendered.split(_SOFT)):
        if index and not at_line_start:
            out.append("\n")
            at_line_start = True
        out.append(chunk)
        if chunk.strip(" "):
            at_line_start = chunk.rstrip(" ").endswith("\n")
    return "\n".join(line.strip() for line in "".join(out).split("\n"))


# --------------------------------------------------------------------------- line filter

_QUOTED = re.compile(r"^\s*>")
_ATTRIBUTION_START = re.compile(r"^\s*(On|Am|Le)\s", re.IGNORECASE)
_ATTRIBUTION_END = re.compile(r"(wrote|schrieb|a écrit)\s*:\s*$", re.IGNORECASE)
_ORIGINAL_MARKERS = re.compile(
    r"^\s*(-{2,}\s*(Original Message|Forwarded message)\s*-{2,}"
    r"|Begin forwarded message:)\s*$",
    re.IGNORECASE,
)
_OUTLOOK_RULE = re.compile(r"^\s*_{10,}\s*$")
_HEADER_FROM = re.compile(r"^\s*From:", re.IGNORECASE)
_HEADER_NEXT = re.compile(r"^\s*(Sent|Date):", re.IGNORECASE)


def _attribution_length(lines: list[str], i: int) -> int:
    """How many lines an ``On … wrote:`` attribution at ``i`` takes (1, or 2 when wrapped),
    0 when there is none."""
    if not _ATTRIBUTION_START.match(lines[i]):
        return 0
    if _ATTRIBUTION_END.search(lines[i]):
        return 1
    if i + 1 < len(lines) and _ATTRIBUTION_END.search(lines[i + 1]):
        return 2
    return 0


def _introduces_quote(lines: list[str], i: int) -> int:
    """The length of an attribution at ``i`` whose original follows as ``>`` lines (the
    writer's own lines may come after it: a bottom-posted reply), else 0."""
    size = _attribution_length(lines, i)
    following = [ln for ln in lines[i + size:] if ln.strip()]
    return size if size and following and _QUOTED.match(following[0]) else 0


def _starts_quoted_original(lines: list[str], i: int) -> bool:
    line = lines[i]
    following = [ln for ln in lines[i + 1 : i + 4] if ln.strip()]
    nxt = following[0] if following else ""
    if _ORIGINAL_MARKERS.match(line):
        return True
    if _ATTRIBUTION_START.match(line):
        # "On Mon, 1 Jan 2024, Jane <jane@example.org> wrote:" -- often wrapped in two lines
        if _ATTRIBUTION_END.search(line):
            return True
        if i + 1 < len(lines) and _ATTRIBUTION_END.search(lines[i + 1]):
            return True
    if _OUTLOOK_RULE.match(line) and _HEADER_FROM.match(nxt):
        return True
    # Outlook without the rule: a "From:" line directly followed by "Sent:"/"Date:"
    if _HEADER_FROM.match(line) and i + 1 < len(lines) and _HEADER_NEXT.match(lines[i + 1]):
        return True
    return False


def body_lines(text: str) -> list[str]:
    """The lines of a body that the command layer reads (see :func:`read_body`)."""
    return read_body(text)[0]


def read_body(text: str) -> tuple[list[str], int]:
    """The lines of a body that the command layer reads, and how many quoted lines it skipped.

    Quoted lines (``>`` after optional whitespace) are skipped, and so is an ``On … wrote:``
    attribution followed by them: reading goes on after the quote, so a reply written below
    the quoted mail (bottom-posting) is read.  Reading stops at a signature separator (``-- ``
    or ``--``), at the start of an unquoted original (``On … wrote:`` followed by the original
    as it was, ``-----Original Message-----``, an Outlook ``____`` rule followed by ``From:``,
    ``Begin forwarded message:``) -- those lines are dropped -- and at ``SIGNOFF``, which is
    kept as the last line so that it gets answered. A ``SIGNOFF`` line may carry a ``//``
    comment. Trailing whitespace is stripped, blank lines are kept, trailing blank lines go.
    """
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = [line.rstrip() for line in text.split("\n")]
    out: list[str] = []
    quoted = 0
    skip = 0
    for i, line in enumerate(lines):
        if skip:
            skip -= 1
            continue
        if line == "--":  # "-- " and a bare "--" (trailing whitespace is already gone)
            break
        if _QUOTED.match(line):
            quoted += 1
            continue
        attribution = _introduces_quote(lines, i)
        if attribution:
            skip = attribution - 1
            continue
        if _starts_quoted_original(lines, i):
            break
        out.append(line)
        if line.split("//", 1)[0].strip().upper() == "SIGNOFF":
            break
    while out and not out[-1].strip():
        out.pop()
    return out, quoted
