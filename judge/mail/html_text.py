"""HTML mail rendered as the text lines its reader saw (for mail with no plain text part)."""

from __future__ import annotations

import re
import warnings

from bs4 import BeautifulSoup, NavigableString


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
