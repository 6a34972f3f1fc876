"""Configuration: embedded defaults, TOML file, JUDGE_<SECTION>_<KEY> overrides,
and a one-line ConfigError (and a one-line CLI message, no traceback) for every bad config."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from conftest import run_cli
from judge.basics.config import ConfigError, load_config


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("JUDGE_")}
    env.update(extra)
    return env


# --------------------------------------------------------------------------- good configs


def test_embedded_defaults_match_the_design() -> None:
    config = load_config(None, environ={})
    assert config.judge.address == "judge@localhost"
    assert config.judge.name == "JUDGE"
    assert config.database.url == "sqlite:///judge.db"
    assert config.intake.listen == "127.0.0.1:2525"
    assert (config.listen_host, config.listen_port) == ("127.0.0.1", 2525)
    assert config.intake.protocol == "smtp"
    assert config.outbound.transport == "maildir:./mail"
    assert config.source == "embedded defaults"


def test_toml_file_sets_keys_and_leaves_the_others_at_their_defaults(tmp_path: Path) -> None:
    path = write(tmp_path / "judge.toml", """
[judge]
address = "dip@example.org"
name = "XYZJ"
replies_per_day = 7
[database]
url = "postgresql+psycopg://judge@db/judge"
[intake]
listen = "0.0.0.0:24"
protocol = "lmtp"
[outbound]
transport = "smtp://relay.example.org:587"
retry_base_seconds = 5
[worker]
max_attempts = 4
""")
    config = load_config(path, environ={})
    assert config.judge.address == "dip@example.org"
    assert config.judge_domain == "example.org"
    assert config.judge.name == "XYZJ"
    assert config.judge.replies_per_day == 7
    assert config.database.url == "postgresql+psycopg://judge@db/judge"
    assert (config.listen_host, config.listen_port) == ("0.0.0.0", 24)
    assert config.intake.protocol == "lmtp"
    assert config.outbound.transport == "smtp://relay.example.org:587"
    assert config.outbound.retry_base_seconds == 5.0
    assert isinstance(config.outbound.retry_base_seconds, float)
    assert config.worker.max_attempts == 4
    # untouched keys keep their defaults
    assert config.outbound.max_attempts == load_config(None, environ={}).outbound.max_attempts
    assert config.source == str(path)


def test_environment_overrides_beat_the_file(tmp_path: Path) -> None:
    path = write(tmp_path / "judge.toml", """
[judge]
address = "file@example.org"
replies_per_day = 7
[database]
url = "sqlite:///from-file.db"
""")
    config = load_config(path, environ={
        "JUDGE_JUDGE_ADDRESS": "env@example.net",
        "JUDGE_JUDGE_REPLIES_PER_DAY": "9",
        "JUDGE_INTAKE_LISTEN": "127.0.0.1:2600",
        "JUDGE_WORKER_POLL_SECONDS": "0.25",
    })
    assert config.judge.address == "env@example.net"
    assert config.judge.replies_per_day == 9
    assert config.listen_port == 2600
    assert config.worker.poll_seconds == 0.25
    assert config.database.url == "sqlite:///from-file.db"  # not overridden: the file's value


def test_environment_overrides_apply_without_a_file() -> None:
    config = load_config(None, environ={"JUDGE_DATABASE_URL": "sqlite:////var/lib/judge/j.db"})
    assert config.database.url == "sqlite:////var/lib/judge/j.db"


def test_judge_config_selects_the_file(tmp_path: Path) -> None:
    path = write(tmp_path / "chosen.toml", '[judge]\nname = "CHOSEN"\n')
    config = load_config(None, environ={"JUDGE_CONFIG": str(path)})
    assert config.judge.name == "CHOSEN"
    assert config.source == str(path)


def test_explicit_path_beats_judge_config(tmp_path: Path) -> None:
    chosen = write(tmp_path / "chosen.toml", '[judge]\nname = "CHOSEN"\n')
    other = write(tmp_path / "other.toml", '[judge]\nname = "OTHER"\n')
    assert load_config(chosen, environ={"JUDGE_CONFIG": str(other)}).judge.name == "CHOSEN"


# --------------------------------------------------------------------------- bad configs

BAD_FILES = {
    "bad TOML": ("[judge\naddress = 'x'\n", "not valid TOML"),
    "unknown section": ("[juge]\naddress = 'a@b.c'\n", "unknown section [juge]"),
    "unknown key": ("[judge]\nadress = 'a@b.c'\n", "unknown key 'adress'"),
    "section not a table": ("judge = 5\n", "[judge] must be a table"),
    "wrong type (str for int)": ("[judge]\nreplies_per_day = 'many'\n", "replies_per_day must be int"),
    "wrong type (int for str)": ("[judge]\naddress = 5\n", "address must be str"),
    "wrong type (float for int)": ("[judge]\nreplies_per_day = 2.5\n", "replies_per_day must be int"),
    "wrong type (bool for int)": ("[worker]\nmax_attempts = true\n", "max_attempts must be int"),
    "bad address": ("[judge]\naddress = 'no-at-sign'\n", "[judge] address"),
    "bad address (garbage)": ("[judge]\naddress = 'a b <@>'\n", "[judge] address"),
    "bad name": ("[judge]\nname = 'two words'\n", "[judge] name"),
    "bad listen (no port)": ("[intake]\nlisten = 'localhost'\n", "[intake] listen"),
    "bad listen (port too big)": ("[intake]\nlisten = '127.0.0.1:70000'\n", "[intake] listen"),
    "bad protocol": ("[intake]\nprotocol = 'pop3'\n", "[intake] protocol"),
    "bad transport": ("[outbound]\ntransport = 'ftp://example.org'\n", "[outbound] transport"),
    "bad db url": ("[database]\nurl = 'mysql://judge@db/judge'\n", "[database] url"),
    "zero replies per day": ("[judge]\nreplies_per_day = 0\n", "replies_per_day must be at least 1"),
    "bad keeper": ("[judge]\nkeeper = 'a@b@c.org'\n", "[judge] keeper is not a usable mail address"),
    "zero commands per mail": ("[limits]\ncommands_per_mail = 0\n",
                               "[limits] commands_per_mail must be at least 1"),
    "zero MIME depth": ("[limits]\nmime_depth = 0\n", "[limits] mime_depth must be at least 1"),
    "zero HTML nodes": ("[limits]\nhtml_nodes = 0\n", "[limits] html_nodes must be at least 1"),
    "niceness above 19": ("[worker]\nniceness = 20\n", "[worker] niceness must be 0 to 19"),
    "negative niceness": ("[worker]\nniceness = -5\n", "[worker] niceness must be 0 to 19"),
    "negative limit": ("[limits]\ncreates_per_day = -1\n",
                       "[limits] creates_per_day must not be negative"),
    "codes that never work": ("[limits]\nconfirm_days = 0\n",
                              "[limits] confirm_days must be at least 1"),
    "a day's bytes beyond the count": ("[limits]\nmail_bytes_per_day = 3000000000\n",
                                       "[limits] mail_bytes_per_day must be less than"),
}


@pytest.mark.parametrize("text,expected", BAD_FILES.values(), ids=BAD_FILES.keys())
def test_each_bad_config_is_a_one_line_config_error(tmp_path: Path, text: str,
                                                     expected: str) -> None:
    path = write(tmp_path / "bad.toml", text)
    with pytest.raises(ConfigError) as info:
        load_config(path, environ={})
    message = str(info.value)
    assert expected in message
    assert "\n" not in message and message.strip() == message


def test_missing_file_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not found") as info:
        load_config(tmp_path / "nowhere.toml", environ={})
    assert "nowhere.toml" in str(info.value) and "\n" not in str(info.value)


def test_missing_file_named_by_judge_config_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not found"):
        load_config(None, environ={"JUDGE_CONFIG": str(tmp_path / "nowhere.toml")})


@pytest.mark.parametrize("var,value,expected", [
    ("JUDGE_JUDGE_REPLIES_PER_DAY", "lots", "replies_per_day must be int"),
    ("JUDGE_INTAKE_PROTOCOL", "pop3", "[intake] protocol"),
    ("JUDGE_OUTBOUND_TRANSPORT", "carrier-pigeon", "[outbound] transport"),
])
def test_bad_environment_override_is_a_config_error(var: str, value: str, expected: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(None, environ={var: value})
    assert expected in str(info.value) and "\n" not in str(info.value)


# --------------------------------------------------------------------------- the CLI


def run_judge(*args: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return run_cli(args, env=clean_env(**env), cwd=cwd)


@pytest.mark.parametrize("text", [BAD_FILES["bad TOML"][0], BAD_FILES["unknown key"][0],
                                  BAD_FILES["bad protocol"][0]])
def test_check_config_with_a_bad_file_prints_one_line(tmp_path: Path, text: str) -> None:
    bad = write(tmp_path / "bad.toml", text)
    result = run_judge("--config", str(bad), "check-config", cwd=tmp_path)
    assert result.returncode != 0
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("judge: configuration error:")
    assert "Traceback" not in result.stderr
    assert "configuration OK" not in result.stdout


def test_check_config_with_a_missing_file_prints_one_line(tmp_path: Path) -> None:
    result = run_judge("--config", str(tmp_path / "nowhere.toml"), "check-config", cwd=tmp_path)
    assert result.returncode != 0
    assert len(result.stderr.splitlines()) == 1, result.stderr
    assert "nowhere.toml" in result.stderr and "Traceback" not in result.stderr


def test_check_config_reads_judge_config_and_env(tmp_path: Path) -> None:
    good = write(tmp_path / "good.toml", '[judge]\nname = "FILEJ"\naddress = "j@example.org"\n')
    result = run_judge("check-config", cwd=tmp_path, JUDGE_CONFIG=str(good),
                       JUDGE_INTAKE_LISTEN="127.0.0.1:2999")
    assert result.returncode == 0, result.stderr
    assert "'FILEJ'" in result.stdout
    assert "'j@example.org'" in result.stdout
    assert "'127.0.0.1:2999'" in result.stdout
    assert "configuration OK" in result.stdout


def test_check_config_says_which_values_come_from_the_environment(tmp_path: Path) -> None:
    good = write(tmp_path / "good.toml", '[judge]\nname = "FILEJ"\n[intake]\nlisten = '
                 '"127.0.0.1:2601"\n[web]\nlisten = "127.0.0.1:8001"\n')
    result = run_judge("check-config", "--no-database", cwd=tmp_path, JUDGE_CONFIG=str(good),
                       JUDGE_INTAKE_LISTEN="127.0.0.1:2999", JUDGE_LIMITS_BATCH_SECONDS="0.5",
                       JUDGE_INTAKE_LISTN="127.0.0.1:1")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == f"configuration from {good} (named by JUDGE_CONFIG):"
    assert "  [intake] listen = '127.0.0.1:2999'  (from JUDGE_INTAKE_LISTEN)" in lines
    assert "  [limits] batch_seconds = 0.5  (from JUDGE_LIMITS_BATCH_SECONDS)" in lines
    # the file's values and the defaults are not said to come from the environment
    assert "  [judge] name = 'FILEJ'" in lines and "  [web] listen = '127.0.0.1:8001'" in lines
    assert sum("(from JUDGE_" in line for line in lines) == 2
    # a variable that looks like a setting but is none is named: a typo would go unnoticed
    assert "ignored: JUDGE_INTAKE_LISTN in the environment names no key of [intake]" in lines
    named = run_judge("--config", str(good), "check-config", "--no-database", cwd=tmp_path)
    assert named.stdout.splitlines()[0] == f"configuration from {good}:"


def test_serve_help_says_what_it_runs_and_how_to_choose_the_file_and_the_ports(
        tmp_path: Path) -> None:
    result = run_judge("serve", "--help", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    text = " ".join(result.stdout.split())
    for part in ("intake", "web view", "worker", "scheduler", "sender"):
        assert part in text
    for way in ("judge --config FILE serve", "JUDGE_CONFIG=FILE", "JUDGE_<SECTION>_<KEY>",
                "[intake] listen", "[web] listen", "JUDGE_INTAKE_LISTEN=HOST:PORT",
                "JUDGE_WEB_LISTEN=HOST:PORT", "judge check-config"):
        assert way in text, way
    # the defaults it names are the configuration's
    defaults = load_config(environ={})
    assert f"(default {defaults.intake.listen})" in text
    assert f"(default {defaults.web.listen};" in text
    # and what it says works: the file and a port chosen as the help says
    chosen = write(tmp_path / "chosen.toml", '[judge]\nname = "CHOSEN"\n')
    shown = run_judge("--config", str(chosen), "check-config", "--no-database", cwd=tmp_path,
                      JUDGE_INTAKE_LISTEN="127.0.0.1:2602")
    assert "  [judge] name = 'CHOSEN'" in shown.stdout.splitlines()
    assert "'127.0.0.1:2602'" in shown.stdout


def test_check_config_without_any_config_shows_the_defaults(tmp_path: Path) -> None:
    result = run_judge("check-config", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "embedded defaults" in result.stdout
    assert "'judge@localhost'" in result.stdout
    assert "[limits] commands_per_mail = 200" in result.stdout
    assert "[judge] master_replies_per_day = 500" in result.stdout
    assert "configuration OK" in result.stdout


def test_serve_with_a_bad_config_exits_with_one_line(tmp_path: Path) -> None:
    bad = write(tmp_path / "bad.toml", "[intake]\nlisten = 'nowhere'\n")
    result = run_judge("--config", str(bad), "serve", cwd=tmp_path)
    assert result.returncode != 0
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert "[intake] listen" in lines[0]
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "judge.db").exists()  # it stopped before touching anything


def test_serve_with_a_bad_env_override_exits_with_one_line(tmp_path: Path) -> None:
    result = run_judge("serve", cwd=tmp_path, JUDGE_DATABASE_URL="mysql://db/judge")
    assert result.returncode != 0
    assert len(result.stderr.splitlines()) == 1, result.stderr
    assert "[database] url" in result.stderr


def test_web_listen_and_url_are_checked() -> None:
    config = load_config(environ={})
    assert (config.web.listen, config.web_address, config.web_url) == (
        "127.0.0.1:8080", ("127.0.0.1", 8080), "")
    off = load_config(environ={"JUDGE_WEB_LISTEN": "", "JUDGE_WEB_URL": "https://j.example/"})
    assert off.web_address is None and off.web_url == "https://j.example"
    with pytest.raises(ConfigError, match=r"^\[web\] listen must be HOST:PORT, got 'nowhere'$"):
        load_config(environ={"JUDGE_WEB_LISTEN": "nowhere"})
    with pytest.raises(ConfigError, match=r"^\[web\] url must be empty or start with http"):
        load_config(environ={"JUDGE_WEB_URL": "javascript:alert(1)"})
