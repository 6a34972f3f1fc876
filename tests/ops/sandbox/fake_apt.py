"""``apt-get`` for the README walk-through test, whose sandbox has no network: the packages the
README installs come from the test host, which must have them already.

``apt-get update`` does nothing; ``apt-get install PKG…`` checks that each package is installed
on the host and fails, as apt would, naming the ones that are not.  Then what the packages' own
installation does on a fresh host: Postfix is configured with the answers deploy/README.md tells
the admin to give (its installer's two questions) and started; PostgreSQL gets its cluster
``main`` (the sandbox hides the host's clusters), started.  A Postfix the host already
configured is left as it is, as apt would leave it.

Run as ``fake_apt.py apt-get ARGS``; stdlib only (the sandbox's python3).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

# What deploy/README.md §1 says to answer: "Internet Site", and the host's own name.
POSTFIX_ANSWERS = {
    "postfix/main_mailer_type": ("select", "Internet Site"),
    "postfix/mailname": ("string", os.uname().nodename),
}


def installed(package: str) -> bool:
    result = subprocess.run(["dpkg-query", "-W", "-f", "${db:Status-Status}", package],
                            capture_output=True, text=True)
    return result.stdout == "installed"


def configure_postfix() -> None:
    if not Path("/etc/postfix/main.cf").exists():
        answers = "".join(f"postfix {question} {kind} {value}\n"
                          for question, (kind, value) in POSTFIX_ANSWERS.items())
        subprocess.run(["debconf-set-selections"], input=answers, text=True, check=True)
        subprocess.run(["dpkg-reconfigure", "-f", "noninteractive", "postfix"], check=True,
                       env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"})
    if subprocess.run(["postfix", "status"], capture_output=True).returncode != 0:
        subprocess.run(["postfix", "start"], check=True)


def configure_postgresql() -> None:
    clusters = subprocess.run(["pg_lsclusters", "--no-header"], capture_output=True, text=True,
                              check=True).stdout
    if not clusters.strip():
        version = max(Path("/usr/lib/postgresql").iterdir(), key=lambda p: int(p.name)).name
        subprocess.run(["pg_createcluster", "--start", version, "main"], check=True,
                       stdout=subprocess.DEVNULL)


def install(packages: list[str]) -> int:
    missing = [p for p in packages if not installed(p)]
    if missing:
        print(f"E: the sandbox has no network and the test host lacks: {' '.join(missing)}",
              file=sys.stderr)
        return 100
    if "postfix" in packages:
        configure_postfix()
    if "postgresql" in packages:
        configure_postgresql()
    return 0


def main(argv: list[str]) -> int:
    args = [a for a in argv[2:] if not a.startswith("-")]
    if not args:
        print("apt-get: give a command", file=sys.stderr)
        return 100
    if args[0] == "update":
        return 0
    if args[0] == "install":
        return install(args[1:])
    print(f"apt-get {args[0]}: not reproduced here", file=sys.stderr)
    return 100


if __name__ == "__main__":
    sys.exit(main(sys.argv))
