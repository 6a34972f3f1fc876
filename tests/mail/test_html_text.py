"""Tests for judge.mail.reading.html_text: HTML rendered as the lines its reader saw, in one pass.

What a reader sees (line breaks, white space, entities, what is skipped), the bounds on
nesting and size, and that the work grows in proportion to the markup whatever its shape
(counted, not timed: the old converter walked up the tree from every piece of text).
"""

from __future__ import annotations

import sys
from dataclasses import replace

import pytest

from judge.basics.config import LimitsSection
from judge.mail.reading.bounds import Unreadable
from judge.mail.reading.html_text import html_to_text


def lines(markup: str) -> list[str]:
    return [line for line in html_to_text(markup).split("\n") if line]


# --------------------------------------------------------------------------- what is shown


def test_block_elements_and_br_break_lines_and_inline_ones_do_not() -> None:
    assert lines("<p>SIGNON Fwar1901 secret</p><p>A Par-Bur<br>A Mar-Spa</p>"
                 "<div>F Bre H</div><span>A Mun</span> <b>H</b><h1>LIST</h1>after") == \
        ["SIGNON Fwar1901 secret", "A Par-Bur", "A Mar-Spa", "F Bre H", "A Mun H", "LIST",
         "after"]


def test_an_empty_line_of_br_is_kept_and_nested_blocks_give_one_break() -> None:
    assert html_to_text("<div><div><p>A</p></div></div><div><br></div><div>B</div>") == \
        "A\n\nB\n"


def test_white_space_collapses_outside_pre_and_textarea() -> None:
    assert lines("<div>F   Bre\n  H</div><pre>A  Mun\n  H</pre><textarea>F\tKie  H\n</textarea>"
                 "tail   end") == ["F Bre H", "A  Mun", "H", "F\tKie  H", "tail end"]


def test_white_space_is_kept_in_nested_pre_until_the_outer_one_ends() -> None:
    assert html_to_text("<pre>a  b<pre>c   d</pre>e  f</pre>g   h") == "a  b\nc   d\ne  f\ng h"


def test_the_line_break_just_after_pre_is_not_a_line() -> None:
    assert html_to_text("<pre>\nA Mun H\nA Kie H</pre>") == "A Mun H\nA Kie H\n"


def test_textarea_holds_text_not_markup() -> None:
    assert lines("<textarea><b>A</b> &amp; <p>B</textarea><div>C</div>") == \
        ["<b>A</b> & <p>B", "C"]


def test_entities_are_decoded() -> None:
    assert lines("<p>a &amp; b &lt;c&gt; &#65;&#x42; &eacute;&nbsp;x &copy &zzz; &</p>") == \
        ["a & b <c> AB é\xa0x © &zzz; &"]


def test_scripts_styles_head_and_quoted_originals_are_skipped() -> None:
    markup = ("<html><head><title>t</title><style>p {color: red}</style></head><body>"
              "<script>if (a < b && c > d) { document.write('<p>x</p>') }</script>A Par H"
              "<STYLE type=text/css>.x{}</STYLE><div>On Mon, X wrote:<blockquote>F Bre H"
              "<div>inner</div></blockquote></div><template>x</template>F Kie H</body></html>")
    assert lines(markup) == ["A Par H", "On Mon, X wrote:", "F Kie H"]


def test_a_script_never_closed_hides_the_rest() -> None:
    assert lines("A Par H<script>alert('</scrip')") == ["A Par H"]


def test_comments_declarations_and_processing_instructions_are_not_text() -> None:
    assert lines("<!DOCTYPE html><?xml version='1.0'?><!-- a <p>comment</p> -->A"
                 "<![CDATA[x > y]]><!---->B</ >C<!-- never closed") == ["ABC"]


def test_table_cells_stay_apart_on_their_row() -> None:
    assert lines("<table><tr><td>A</td><td>Par-Bur</td></tr><tr><th>F</th><td>Bre H</td></tr>"
                 "</table><ul><li>A Mun H</li><li>A Kie H</li></ul>") == \
        ["A Par-Bur", "F Bre H", "A Mun H", "A Kie H"]


def test_elements_left_open_end_where_a_browser_ends_them() -> None:
    assert lines("text<p>one<p>two<ul><li>a<li>b</ul>after") == \
        ["text", "one", "two", "a", "b", "after"]
    assert lines("<table><tr><td>A<td>Par-Bur<tr><td>F<td>Bre H</table>") == \
        ["A Par-Bur", "F Bre H"]


def test_an_end_tag_closes_what_was_left_open_inside_it_and_a_stray_one_is_ignored() -> None:
    assert lines("<div><b>A Par</div> H </span></p>x") == ["A Par", "H x"]


def test_a_greater_than_sign_in_a_quoted_attribute_does_not_end_the_tag() -> None:
    assert lines("<p title=\"a > b\" class='c>d'>A Par H</p>") == ["A Par H"]


def test_a_less_than_sign_that_starts_no_markup_is_text() -> None:
    assert lines("<p>1 < 2 and 3 > 2 <3 <</p>") == ["1 < 2 and 3 > 2 <3 <"]


def test_a_tag_never_finished_drops_the_rest_as_a_browser_does() -> None:
    assert lines('A Par H<br><a href="x>B Mun H<br>F Kie H') == ["A Par H"]
    assert lines("A Par H<br><div") == ["A Par H"]


# --------------------------------------------------------------------------- bounds

SMALL = replace(LimitsSection(), html_depth=10, html_nodes=50)


def test_nesting_deeper_than_the_bound_is_unreadable() -> None:
    assert html_to_text("<i>" * 10 + "x", SMALL) == "x"
    with pytest.raises(Unreadable) as info:
        html_to_text("<i>" * 11 + "x", SMALL)
    assert (info.value.code, info.value.facts) == ("html_too_deep", {"limit": 10})


def test_elements_closed_as_they_go_never_count_as_deep() -> None:
    assert html_to_text("<p>x</p><div><b>y</b></div>" * 12, SMALL).count("x") == 12
    assert html_to_text("<p>x" * 40, SMALL).count("x") == 40  # each <p> ends the last


def test_more_nodes_than_the_bound_is_unreadable() -> None:
    html_to_text("<b>x</b>" * 50, SMALL)  # end tags are no nodes
    for extra in ("<br>", "<!-- c -->", "<!DOCTYPE x>"):
        with pytest.raises(Unreadable) as info:
            html_to_text("<b>x</b>" * 50 + extra, SMALL)
        assert (info.value.code, info.value.facts) == ("html_too_many_nodes", {"limit": 50})


# --------------------------------------------------------------------------- linear work


def _work(markup: str, limits: LimitsSection) -> int:
    """How many calls rendering ``markup`` takes, of Python functions and built-in ones."""
    calls = 0

    def count(frame, event, arg):  # type: ignore[no-untyped-def]
        nonlocal calls
        if event in ("call", "c_call"):
            calls += 1

    sys.setprofile(count)
    try:
        html_to_text(markup, limits)
    finally:
        sys.setprofile(None)
    return calls


UNBOUNDED = replace(LimitsSection(), html_depth=10**9, html_nodes=10**9)


@pytest.mark.parametrize("shape", [
    lambda n: "<i>" * n + "a<br>" * n,  # nested, then text at the bottom (the old attack)
    lambda n: "<div>x" * n,  # blocks never closed
    lambda n: "<pre>" * n + "x\n" * n,
    lambda n: "<i>" * n + "</b>" * n,  # end tags of nothing open
    lambda n: '<a b="' * n,  # quotes never closed (html.parser rescans from every "<")
    lambda n: "<a" * n,
    lambda n: "<!--" * n,
    lambda n: "<" * n + "&amp;" * n,
])
def test_the_work_grows_in_proportion_to_the_markup(shape) -> None:  # type: ignore[no-untyped-def]
    small, large = _work(shape(500), UNBOUNDED), _work(shape(2000), UNBOUNDED)
    assert large < 4.5 * small, (small, large)
