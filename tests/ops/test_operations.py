"""Operations: ``judge serve`` and ``judge check-config`` fail with one clear line on a bad
configuration or a database they cannot use, and check-config reports the schema's state."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from conftest import JUDGE_EXE, PASSWORD_COST, free_port, run_sql
from forked_daemons import run_judge


def run(cwd: Path, *args: str, real: bool = False, **env: str) -> subprocess.CompletedProcess[str]:
    """``judge <args>`` in a process of its own: the installed program when ``real``, else
    forked from the test process's preloader (tests/forked_daemons.py: the same entry point,
    without the interpreter's start and the imports)."""
    full = {k: v for k, v in os.environ.items() if not k.startswith("JUDGE_")}
    full["JUDGE_PASSWORD_COST"] = PASSWORD_COST  # as every test's judge has it
    full.update(env)
    if not real:
        return run_judge(args, full, cwd)
    return subprocess.run([JUDGE_EXE, *args], env=full, cwd=cwd, capture_output=True, text=True,
                          timeout=60)


def one_line_failure(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode != 0, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def closed_port_url() -> str:
    return f"postgresql+psycopg://judge:secret@127.0.0.1:{free_port()}/judge"


@pytest.mark.parametrize("command", [("serve",), ("check-config",)])
def test_a_bad_config_file_is_one_line(tmp_path: Path, command: tuple[str, ...]) -> None:
    bad = tmp_path / "judge.toml"
    bad.write_text('[intake]\nprotocol = "pigeon"\n')
    line = one_line_failure(run(tmp_path, "--config", str(bad), *command, real=True))
    assert "configuration error" in line and "protocol" in line


@pytest.mark.parametrize("command", [("serve",), ("check-config",), ("db", "upgrade")])
def test_an_unreachable_postgresql_is_one_line(tmp_path: Path, command: tuple[str, ...]) -> None:
    line = one_line_failure(run(tmp_path, *command, JUDGE_DATABASE_URL=closed_port_url(),
                                JUDGE_INTAKE_LISTEN=f"127.0.0.1:{free_port()}"))
    assert line.startswith("judge: cannot use the database postgresql+psycopg://judge:***@127.0.0.1:")
    assert "secret" not in line  # the password is not printed


@pytest.mark.parametrize("command", [("serve",), ("check-config",)])
def test_a_sqlite_file_in_a_missing_directory_is_one_line(tmp_path: Path,
                                                          command: tuple[str, ...]) -> None:
    url = f"sqlite:///{tmp_path / 'nowhere' / 'judge.db'}"
    line = one_line_failure(run(tmp_path, *command, JUDGE_DATABASE_URL=url,
                                JUDGE_INTAKE_LISTEN=f"127.0.0.1:{free_port()}"))
    assert "cannot use the database" in line


def test_serve_on_a_port_in_use_is_one_line(tmp_path: Path, db_url: str) -> None:
    import socket
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = run(tmp_path, "serve", JUDGE_DATABASE_URL=db_url,
                     JUDGE_INTAKE_LISTEN=f"127.0.0.1:{port}")
    # the daemon has logged its database check by then; the reason is the last line
    assert result.returncode != 0 and "Traceback" not in result.stderr
    # naming the setting, as for the web view
    assert result.stderr.strip().splitlines()[-1] == (
        f"judge: cannot listen on 127.0.0.1:{port} ([intake] listen): Address already in use")


def test_check_config_on_a_fresh_database_says_it_will_be_created(tmp_path: Path,
                                                                  db_url: str) -> None:
    result = run(tmp_path, "check-config", JUDGE_DATABASE_URL=db_url)
    assert result.returncode == 0, result.stderr
    assert "configuration OK" in result.stdout
    assert "creates" in result.stdout
    assert not (tmp_path / "judge.db").exists() or not db_url.startswith("sqlite")


def test_check_config_passes_on_a_current_schema_and_fails_on_an_old_one(
        tmp_path: Path, db_url: str) -> None:
    assert run(tmp_path, "db", "upgrade", JUDGE_DATABASE_URL=db_url).returncode == 0
    ok = run(tmp_path, "check-config", JUDGE_DATABASE_URL=db_url)
    assert ok.returncode == 0, ok.stderr
    assert "database OK: schema at revision" in ok.stdout

    run_sql(db_url, "UPDATE alembic_version SET version_num = 'ancient'")
    line = one_line_failure(run(tmp_path, "check-config", JUDGE_DATABASE_URL=db_url))
    assert "judge db upgrade" in line and "ancient" in line


def test_check_config_can_skip_the_database(tmp_path: Path) -> None:
    result = run(tmp_path, "check-config", "--no-database", JUDGE_DATABASE_URL=closed_port_url())
    assert result.returncode == 0, result.stderr
    assert "***" in result.stdout and "secret" not in result.stdout


def test_db_upgrade_takes_a_url_with_percent_escapes(tmp_path: Path, db_url: str) -> None:
    """deploy/README.md's PostgreSQL URL names the socket directory, which the URL carries
    escaped (``host=%2Fvar%2Frun%2Fpostgresql``): the migrations must take it as it is."""
    from sqlalchemy.engine import make_url
    if db_url.startswith("sqlite"):
        folder = tmp_path / "100%"
        folder.mkdir()
        url = f"sqlite:///{folder / 'judge.db'}"
    else:
        url = make_url(db_url).update_query_dict({"application_name": "judge/ops"}) \
            .render_as_string(hide_password=False)
    assert "%" in make_url(url).render_as_string(hide_password=False)
    upgraded = run(tmp_path, "db", "upgrade", JUDGE_DATABASE_URL=url)
    assert upgraded.returncode == 0, upgraded.stderr
    checked = run(tmp_path, "check-config", JUDGE_DATABASE_URL=url)
    assert "database OK: schema at revision" in checked.stdout, checked.stderr
