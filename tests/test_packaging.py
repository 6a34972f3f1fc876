"""The wheel must carry every package, the templates and the migrations."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_every_package_is_listed_in_pyproject():
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "judge").rglob("__init__.py")}
    assert found - listed == set(), "packages missing from [tool.setuptools] packages"


def test_templates_and_migrations_are_shipped():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert config["package-dir"] == {"judge._templates": "templates",
                                     "judge._migrations": "migrations"}
    data = config["package-data"]
    for folder in {p.parent for p in (ROOT / "templates").rglob("*.txt")}:
        package = ".".join(("judge._templates", *folder.relative_to(ROOT / "templates").parts))
        assert package in data, f"{folder} is not shipped"
        assert package in config["packages"], f"{package} is not a listed package"
    assert "versions/*.py" in data["judge._migrations"]


def test_a_stray_templates_folder_beside_the_package_is_never_taken(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """In site-packages another project's top-level templates/ sits beside ``judge``: only the
    judge's own data package, or its own checkout (marked by its pyproject.toml), counts."""
    from judge.basics import resources as where
    (tmp_path / "templates").mkdir()
    (tmp_path / "judge").mkdir()
    monkeypatch.setattr(where, "_PACKAGE", tmp_path / "judge")
    monkeypatch.setattr(where, "_CHECKOUT", tmp_path)
    with pytest.raises(RuntimeError, match="is not the judge's checkout"):
        where._locate("templates", "_templates")
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "judge"\n')
    assert where._locate("templates", "_templates") == tmp_path / "templates"


def test_an_installed_wheel_finds_its_data_package_inside_judge(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from judge.basics import resources as where
    (tmp_path / "judge" / "_templates").mkdir(parents=True)
    (tmp_path / "templates").mkdir()
    monkeypatch.setattr(where, "_PACKAGE", tmp_path / "judge")
    monkeypatch.setattr(where, "_CHECKOUT", tmp_path)
    assert where._locate("templates", "_templates") == tmp_path / "judge" / "_templates"


def test_the_running_judge_finds_real_templates_and_migrations() -> None:
    """Whether it runs from a wheel (as CI installs it) or a checkout."""
    from judge.basics import resources as where
    assert (where.templates_dir() / "reply.txt").is_file()
    assert (where.migrations_dir() / "env.py").is_file()
