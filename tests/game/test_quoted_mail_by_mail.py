"""A reply that quotes the judge's mail never has the quoted mail read as commands, by mail
through the real pipeline: whatever mail program and language wrote the lines above the
original (Outlook's header block and "Original Message" separator, Gmail's, Apple Mail's and
Thunderbird's "On … wrote:" line), with or without ``>`` quoting, and when the judge's mail is
pasted with no header at all.  The player's own orders above it are read, the quoted results
change no order, and the reply says how many lines it skipped."""

from __future__ import annotations

import re
from pathlib import Path

from gamekit import Judge, signon, start_full_game

# The player's orders of F1901M, and the order set they make (the reply's summary).
ORDERS = "A Ruh-Bel\nF Hol S A Ruh-Bel\nA Kie-Den"
ORDER_SET = "Orders of Germany in war1901 for F1901M:\n  F HOL S A RUH - BEL\n  A KIE - DEN\n" \
            "  A RUH - BEL\nEvery unit has an order.\n"
SUBJECT = "JUDGE:war1901 - S1901M Results"
ADDRESS = "Judge <judge@example.org>"

# The lines mail programs write above the original of a reply or a forward.
OUTLOOK_BLOCKS = {
    "Outlook, English": f"From: {ADDRESS}\nSent: Monday, November 23, 2026 10:00 AM\n"
                        f"To: player3@example.org\nSubject: {SUBJECT}",
    "Outlook, German": f"Von: {ADDRESS}\nGesendet: Montag, 23. November 2026 10:00\n"
                       f"An: player3@example.org\nBetreff: {SUBJECT}",
    "Outlook, French": f"De : {ADDRESS}\nEnvoyé : lundi 23 novembre 2026 10:00\n"
                       f"À : player3@example.org\nObjet : {SUBJECT}",
    "Outlook, Spanish": f"De: {ADDRESS}\nEnviado el: lunes, 23 de noviembre de 2026 10:00\n"
                        f"Para: player3@example.org\nAsunto: {SUBJECT}",
    "Outlook, Italian": f"Da: {ADDRESS}\nInviato: lunedì 23 novembre 2026 10:00\n"
                        f"A: player3@example.org\nOggetto: {SUBJECT}",
    "Outlook, Dutch": f"Van: {ADDRESS}\nVerzonden: maandag 23 november 2026 10:00\n"
                      f"Aan: player3@example.org\nOnderwerp: {SUBJECT}",
    "Outlook, Portuguese": f"De: {ADDRESS}\nEnviada em: segunda-feira, 23 de novembro de 2026"
                           f" 10:00\nPara: player3@example.org\nAssunto: {SUBJECT}",
    "Outlook, Swedish": f"Från: {ADDRESS}\nSkickat: den 23 november 2026 10:00\n"
                        f"Till: player3@example.org\nÄmne: {SUBJECT}",
    "Outlook, Danish": f"Fra: {ADDRESS}\nSendt: 23. november 2026 10:00\n"
                       f"Til: player3@example.org\nEmne: {SUBJECT}",
    "Outlook, Norwegian": f"Fra: {ADDRESS}\nSendt: mandag 23. november 2026 10:00\n"
                          f"Til: player3@example.org\nEmne: {SUBJECT}",
    "Outlook, Finnish": f"Lähettäjä: {ADDRESS}\nLähetetty: maanantai 23. marraskuuta 2026 10.00\n"
                        f"Vastaanottaja: player3@example.org\nAihe: {SUBJECT}",
}
SEPARATORS = {
    "English": "-----Original Message-----", "German": "-----Ursprüngliche Nachricht-----",
    "French": "-----Message d'origine-----", "Spanish": "-----Mensaje original-----",
    "Italian": "-----Messaggio originale-----", "Dutch": "-----Oorspronkelijk bericht-----",
    "Portuguese": "-----Mensagem original-----", "Swedish": "-----Ursprungligt meddelande-----",
    "Danish": "-----Oprindelig meddelelse-----", "Norwegian": "-----Opprinnelig melding-----",
    "Finnish": "-----Alkuperäinen viesti-----",
}
# "On … wrote:": above a quote, it is skipped with the quote and reading goes on below
ATTRIBUTIONS = {
    "Gmail, English": f"On Mon, Nov 23, 2026 at 10:00 AM {ADDRESS} wrote:",
    "Gmail, English, wrapped": "On Mon, Nov 23, 2026 at 10:00 AM Judge <\n"
                               "judge@example.org> wrote:",
    "Gmail, German": f"Am Mo., 23. Nov. 2026 um 10:00 Uhr schrieb {ADDRESS}:",
    "Gmail, French": f"Le lun. 23 nov. 2026 à 10:00, {ADDRESS} a écrit :",
    "Gmail, Spanish": "El lun, 23 nov 2026 a las 10:00, Judge (<judge@example.org>) escribió:",
    "Gmail, Italian": f"Il giorno lun 23 nov 2026 alle ore 10:00 {ADDRESS} ha scritto:",
    "Gmail, Dutch": f"Op ma 23 nov. 2026 om 10:00 schreef {ADDRESS}:",
    "Gmail, Portuguese": f"Em seg., 23 de nov. de 2026 às 10:00, {ADDRESS} escreveu:",
    "Gmail, Swedish": f"Den mån 23 nov. 2026 kl 10:00 skrev {ADDRESS}:",
    "Gmail, Danish": f"Den man. 23. nov. 2026 kl. 10.00 skrev {ADDRESS}:",
    "Gmail, Norwegian": f"man. 23. nov. 2026 kl. 10:00 skrev {ADDRESS}:",
    "Gmail, Finnish": "Judge (judge@example.org) kirjoitti ma 23.11.2026 klo 10.00:",
    "Gmail, Polish": "pon., 23 lis 2026 o 10:00 Judge <judge@example.org> napisał(a):",
    "Apple Mail, English": f"On 23 Nov 2026, at 10:00, {ADDRESS} wrote:",
    "Apple Mail, German": f"Am 23.11.2026 um 10:00 schrieb {ADDRESS}:",
    "Thunderbird, English": "On 23/11/2026 10:00, Judge wrote:",
    "Thunderbird, German": "Am 23.11.26 um 10:00 schrieb Judge:",
    "Thunderbird, French": "Le 23/11/2026 à 10:00, Judge a écrit :",
    "Thunderbird, Italian": "Il 23/11/2026 10:00, Judge ha scritto:",
    "Thunderbird, Dutch": "Op 23-11-2026 om 10:00 schreef Judge:",
    "Thunderbird, Swedish": "Den 2026-11-23 kl. 10:00, skrev Judge:",
    "Thunderbird, Polish": "W dniu 23.11.2026 o 10:00, Judge pisze:",
}
# The others: reading stops where they are, and what follows is the original
HEADERS = {
    **OUTLOOK_BLOCKS,
    **{f"Outlook separator, {language}": line for language, line in SEPARATORS.items()},
    "Outlook separator and block, German":
        f"{SEPARATORS['German']}\n{OUTLOOK_BLOCKS['Outlook, German']}",
    "Outlook rule and block, French": f"{'_' * 32}\n{OUTLOOK_BLOCKS['Outlook, French']}",
    **ATTRIBUTIONS,
    "Gmail forward, English": f"---------- Forwarded message ---------\nFrom: {ADDRESS}\n"
                              f"Date: Mon, Nov 23, 2026 at 10:00 AM\nSubject: {SUBJECT}\n"
                              "To: <player3@example.org>",
    "Gmail forward, German": f"---------- Weitergeleitete Nachricht ---------\nVon: {ADDRESS}\n"
                             f"Date: Mo., 23. Nov. 2026 um 10:00 Uhr\nSubject: {SUBJECT}\n"
                             "To: <player3@example.org>",
    "Apple Mail forward, English": f"Begin forwarded message:\n\nFrom: {ADDRESS}\n"
                                   f"Subject: {SUBJECT}\nDate: 23 November 2026 at 10:00:00 GMT",
    "Apple Mail forward, German": f"Anfang der weitergeleiteten Nachricht:\n\nVon: {ADDRESS}\n"
                                  f"Betreff: {SUBJECT}\nDatum: 23. November 2026 um 10:00:00 MEZ",
    "Apple Mail forward, French": f"Début du message réexpédié :\n\nDe: {ADDRESS}\n"
                                  f"Objet: {SUBJECT}\nDate: 23 novembre 2026 à 10:00:00 UTC",
    "Thunderbird forward, German": f"-------- Weitergeleitete Nachricht --------\n"
                                   f"Betreff: \t{SUBJECT}\nDatum: \tMon, 23 Nov 2026 10:00:00"
                                   f" +0000\nVon: \t{ADDRESS}\nAn: \tplayer3@example.org",
}


def at_fall_1901(j: Judge) -> tuple[str, str]:
    """A game at F1901M after Germany's S1901M (A Mun-Ruh, F Kie-Hol, A Ber-Kie): Germany's
    address and the results mail it got."""
    players = start_full_game(j)
    germany = players["GERMANY"]
    j.mail(germany, f"{signon(j, 'GERMANY')}\nA Mun-Ruh\nF Kie-Hol\nA Ber-Kie")
    j.mail("master@example.org", "SIGNON Mwar1901 mpw\nPROCESS")
    results = next(m for m in j.last_broadcasts if germany in m.to and "Results" in m.subject)
    assert "Germany: Army Ruhr." in results.body
    return germany, results.body


def quoted(text: str, prefix: str) -> str:
    return "\n".join(f"{prefix}{line}".rstrip() for line in text.split("\n"))


SKIPPED = re.compile(r"\d+ (?:quoted )?lines?[^(:,]*skipped")


def problems_with(reply: str, subject: str, skipped: int, what: str) -> list[str]:
    """What is wrong with the reply to a mail of ORDERS and a quote: the orders read, as
    they are and nothing else; no error; ``skipped`` lines of ``what`` said skipped."""
    found = []
    if subject.startswith("[Error Flag]"):
        found.append("error flag")
    if ORDER_SET not in reply:
        found.append("orders changed")
    if reply.count("Accepted:") != 3:
        found.append(f"{reply.count('Accepted:')} lines accepted")
    if f"{skipped} {what}" not in reply:
        said = re.findall(SKIPPED, reply)
        found.append(f"not {skipped} {what} skipped: {said}")
    return found


def test_a_reply_quoting_the_results_changes_no_order_whatever_wrote_it(
        judge_in_process: Judge) -> None:
    """One mail for each header above the original as it was: reading stops there."""
    j = judge_in_process
    germany, results = at_fall_1901(j)
    wrong: dict[str, list[str]] = {}
    for name, header in HEADERS.items():
        original = f"{header}\n\n{results}"
        reply = j.mail(germany, f"{signon(j, 'GERMANY')}\n{ORDERS}\n\n{original}",
                       subject=f"Re: {SUBJECT}")
        skipped = sum(1 for line in original.split("\n") if line.strip())
        problems = problems_with(reply.body, reply.subject, skipped, "quoted line")
        if problems:
            wrong[name] = problems
    assert not wrong, wrong


def test_quotes_under_every_header_change_no_order(judge_in_process: Judge) -> None:
    """Every header above a quote with ``>`` in one mail: an attribution above the quoted
    results, a header block or separator quoted with them; reading goes on below each, and
    only the player's orders are read."""
    j = judge_in_process
    germany, results = at_fall_1901(j)
    quotes = [f"{header}\n{quoted(results, '> ')}" if name in ATTRIBUTIONS else
              quoted(f"{header}\n\n{results}", "> ") for name, header in HEADERS.items()]
    reply = j.mail(germany, "\n\n".join([signon(j, "GERMANY"), *quotes, ORDERS]),
                   subject=f"Re: {SUBJECT}")
    skipped = sum(1 for quote in quotes for line in quote.split("\n") if line.startswith(">"))
    assert not problems_with(reply.body, reply.subject, skipped, "quoted line"), reply.body


def test_the_results_pasted_without_a_header_change_no_order(judge_in_process: Judge) -> None:
    j = judge_in_process
    germany, results = at_fall_1901(j)
    judges = [line for line in results.split("\n") if line.strip()]
    for pasted in (results, quoted(results, "    ")):
        for mail in (f"{signon(j, 'GERMANY')}\n{ORDERS}\n\n{pasted}",
                     f"{signon(j, 'GERMANY')}\n{pasted}\n{ORDERS}"):
            reply = j.mail(germany, mail, subject=f"Re: {SUBJECT}")
            assert not problems_with(reply.body, reply.subject, len(judges),
                                     "lines the judge wrote"), (mail[:100], reply.body)
    reply = j.mail(germany, f"{signon(j, 'GERMANY')}\n{ORDERS}\n\n{results}")
    assert ('50 lines the judge wrote were skipped, the first on line 6:\n'
            '  ":: Judge: JUDGE  Game: war1901  Variant: Standard"\nResults, positions and'
            ' replies of the judge in a mail are never read as\ncommands or orders, quoted or'
            ' not.') in reply.body


def test_the_reply_names_the_line_an_original_begins_at(judge_in_process: Judge) -> None:
    j = judge_in_process
    germany, results = at_fall_1901(j)
    reply = j.mail(germany, f"{signon(j, 'GERMANY')}\n{ORDERS}\n\n"
                   f"{OUTLOOK_BLOCKS['Outlook, German']}\n\n{results}")
    assert ('quoted lines were skipped: reading stopped at the line\n'
            '  "Von: Judge <judge@example.org>"\nwhere the mail you answered begins. That mail,'
            ' and lines starting with ">",\nare not commands.') in reply.body
    # before the fix: "Von:" was an unknown command and the results' lines orders
    assert "Von:" not in reply.body.split("quoted lines")[0]


DOCS = Path(__file__).resolve().parents[2] / "docs"


def sample_mails() -> list[str]:
    """The judge's mails shown in the docs (mail-format.md, deadlines.md), without their
    Subject line."""
    found = []
    for doc in ("mail-format.md", "deadlines.md"):
        for block in re.findall(r"```text\n(.*?)```", (DOCS / doc).read_text("utf-8"), re.S):
            found.append(re.sub(r"\ASubject: .*\n\n", "", block))
    return found


def test_every_mail_of_the_judge_pasted_back_is_skipped(judge_in_process: Judge) -> None:
    """The judge's own mails -- those the docs show, and those of a game played here -- pasted
    into a player's mail below new orders: not a line of them is read."""
    j = judge_in_process
    germany, results = at_fall_1901(j)
    j.mail(germany, f"{signon(j, 'GERMANY')}\nA Ruh-Bur\nA Xyz-Bel")  # refused, answered
    played = [j.mail(germany, f"{signon(j, 'GERMANY')}\n{asked}").body
              for asked in ("LIST war1901", "HISTORY war1901", "SUMMARY war1901", "LIST")]
    # a reply with the notes on what it skipped
    played.append(j.mail(germany, f"{signon(j, 'GERMANY')}\n{results}\n"
                          f"{OUTLOOK_BLOCKS['Outlook, German']}\n\n{results}").body)
    played += [m.body for m in j.outbox() if germany in m.to]
    assert len(played) > 10
    # the docs' CONFIRM line is the one line of the judge's mails read wherever it comes
    # (docs/commands.md), and its code there is no code: left out of what is pasted here
    samples = [re.sub(r"^ *CONFIRM .*$", "", mail, flags=re.M) for mail in sample_mails()]
    for mails in (samples, played):
        reply = j.mail(germany, "\n\n".join([signon(j, "GERMANY"), ORDERS, *mails]))
        read = [line for line in reply.body.split("\n") if line.startswith("> ")]
        assert len(read) == 4 and ORDER_SET in reply.body, reply.body
        assert not reply.subject.startswith("[Error Flag]"), reply.body


def test_the_players_own_orders_are_read_among_the_judges_lines(
        judge_in_process: Judge) -> None:
    """Only the judge's own shapes are skipped: an order written by the player is read, above
    or below pasted results, even in the results' words without the power and colon or the
    full stop, and indented under a line of the player's own."""
    j = judge_in_process
    players = start_full_game(j)
    results = "Unit positions after S1901M:\n\nFrance: Army Paris.\nGermany: Army Ruhr.\n"
    for mine in ("A Par - Bur", "A Par-Bur", "France: A Par-Bur", "  A Par-Bur",
                 "Army Paris to Burgundy.", "A Paris - Burgundy", "A Paris to Burgundy",
                 "Paris into Burgundy"):
        reply = j.mail(players["FRANCE"], f"{signon(j, 'FRANCE')}\n{results}\nMy orders:\n"
                       f"{mine}\n\n{results}")
        assert "> " + mine.strip() + "\nAccepted: A PAR - BUR" in reply.body, reply.body
        assert "6 lines the judge wrote were skipped" in reply.body
        assert '> My orders:\nError: unknown command "My"' in reply.body  # the player's own
