"""deploy/README.md §11, "Running with a mail account instead of a mail server": its settings
are a configuration ``judge check-config`` takes, as the README says (the password in a file,
shown masked)."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import run_cli

README = Path(__file__).resolve().parents[1] / "deploy" / "README.md"
SECTION = "## 11. Running with a mail account instead of a mail server"


def section() -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index(SECTION)
    end = text.find("\n## ", start + len(SECTION))
    return text[start:end if end != -1 else len(text)]


def test_the_sections_settings_pass_check_config(tmp_path: Path) -> None:
    blocks = re.findall(r"```toml\n(.*?)```", section(), re.DOTALL)
    assert blocks, "no ```toml block in §11"
    password = tmp_path / "mail-password"
    password.write_text("app password\n")
    for block in blocks:
        # the one change: where the password file is (the README's is under /etc/judge)
        config = tmp_path / "judge.toml"
        config.write_text(block.replace("/etc/judge/mail-password", str(password)))
        result = run_cli(["--config", str(config), "check-config", "--no-database"], env={},
                         cwd=tmp_path)
        assert result.returncode == 0, result.stderr
        shown = result.stdout
        assert "configuration OK" in shown
        assert "  [intake] listen = ''" in shown
        assert "  [mailbox] url = 'imaps://imap.mail.example.net:993'" in shown
        assert ("  [outbound] transport = 'smtp+starttls://smtp.mail.example.net:587'"
                in shown)
        assert "app password" not in shown


def test_the_sections_other_transport_passes_too(tmp_path: Path) -> None:
    """The implicit TLS port the comment names."""
    found = re.search(r'"(smtps://[^"]+)"', section())
    assert found is not None
    config = tmp_path / "judge.toml"
    config.write_text(f'[outbound]\ntransport = "{found.group(1)}"\nuser = "u"\n'
                      'password = "p"\n')
    result = run_cli(["--config", str(config), "check-config", "--no-database"], env={},
                     cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "  [outbound] password = '********'" in result.stdout
