"""systemd for the README walk-through test (tests/ops/test_deploy_walkthrough.py), in a sandbox
where systemd is not PID 1: ``systemctl`` and ``journalctl`` for the judge's unit, and
``systemctl`` for Postfix.

``systemctl start judge`` reads /etc/systemd/system/judge.service and starts its ``ExecStart=``
the way systemd does for that unit: as ``User=``/``Group=``, in ``WorkingDirectory=`` with
``UMask=``, after creating ``StateDirectory=`` (owned by the user; like systemd, an existing
directory already owned by the user is left alone, files inside included) and
``ConfigurationDirectory=``, with ``Environment=``, a clean environment otherwise, and in a
mount namespace of its own: everything read-only but the state directory
(``ProtectSystem=strict``), an empty /tmp (``PrivateTmp=``), no homes (``ProtectHome=``), no new
privileges and an empty capability bounding set.  Its output goes to a journal file, with
``$JOURNAL_STREAM`` naming it as systemd does.  ``Type=notify``: start returns once the service
sends ``READY=1`` to ``$NOTIFY_SOCKET``, and fails if it exits first; ``WatchdogSec=`` becomes
``$WATCHDOG_USEC`` and a service that stops pinging is killed.  A supervisor process per
service reads the notifications and keeps the state that ``systemctl status`` shows.

Not reproduced: ``Restart=``, cgroups, the system call filter and the address family and
namespace restrictions.  Postfix (Debian's postfix.service) is run by its own ``postfix``
command.

Run as ``fake_systemd.py systemctl|journalctl ARGS``; stdlib only (the sandbox's python3).
"""

from __future__ import annotations

import grp
import json
import os
import pwd
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import NoReturn

UNIT_DIRS = (Path("/etc/systemd/system"), Path("/lib/systemd/system"))
STATE = Path(os.environ.get("WALKTHROUGH_STATE", "/run/fake-systemd"))
SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
SELF = Path(__file__).resolve()


def fail(message: str, code: int = 1) -> NoReturn:
    print(message, file=sys.stderr)
    sys.exit(code)


# --------------------------------------------------------------------------- unit files


class Unit:
    """One unit file: every ``Key=value`` of each section, in order (keys may repeat)."""

    def __init__(self, name: str) -> None:
        self.name = name.removesuffix(".service")
        for folder in UNIT_DIRS:
            path = folder / f"{self.name}.service"
            if path.exists():
                break
        else:
            fail(f"Unit {self.name}.service could not be found.", 5)
        self.path = path
        self.sections: dict[str, list[tuple[str, str]]] = {}
        section = ""
        for line in path.read_text().splitlines():
            line = line.strip()
            if not line or line[0] in "#;":
                continue
            if line.startswith("["):
                section = line.strip("[]")
                self.sections.setdefault(section, [])
            else:
                key, _, value = line.partition("=")
                self.sections.setdefault(section, []).append((key.strip(), value.strip()))

    def all(self, key: str, section: str = "Service") -> list[str]:
        return [v for k, v in self.sections.get(section, []) if k == key]

    def get(self, key: str, default: str = "", section: str = "Service") -> str:
        values = self.all(key, section)
        return values[-1] if values else default

    def seconds(self, key: str, default: float) -> float:
        value = self.get(key)
        if not value:
            return default
        if not re.fullmatch(r"\d+s?", value):
            fail(f"{self.name}: {key}={value}: only plain seconds are reproduced here")
        return float(value.rstrip("s"))

    @property
    def state_file(self) -> Path:
        return STATE / f"{self.name}.json"

    @property
    def journal(self) -> Path:
        return STATE / f"{self.name}.journal"

    @property
    def stop_request(self) -> Path:
        """Present while ``systemctl stop`` waits: the exit it causes is a clean one."""
        return STATE / f"{self.name}.stopping"

    def state(self) -> dict:
        try:
            return json.loads(self.state_file.read_text())
        except FileNotFoundError:
            return {"active": "inactive"}

    def save(self, state: dict) -> None:
        temporary = self.state_file.with_suffix(".tmp")
        temporary.write_text(json.dumps(state))
        temporary.replace(self.state_file)

    def wants_links(self) -> list[Path]:
        return [UNIT_DIRS[0] / f"{target}.wants" / f"{self.name}.service"
                for target in " ".join(self.all("WantedBy", "Install")).split()]


# --------------------------------------------------------------------------- the service's start


def prepare_directories(unit: Unit, uid: int, gid: int) -> None:
    """StateDirectory= and ConfigurationDirectory=, as systemd makes them before the start."""
    for name in unit.get("StateDirectory").split():
        path = Path("/var/lib") / name
        mode = int(unit.get("StateDirectoryMode", "0755"), 8)
        path.mkdir(parents=True, exist_ok=True)
        st = path.stat()
        # systemd's shortcut: a directory already owned by the user is not walked.
        if (st.st_uid, st.st_gid) != (uid, gid):
            for folder, dirs, files in os.walk(path):
                for entry in [folder, *(os.path.join(folder, f) for f in dirs + files)]:
                    os.lchown(entry, uid, gid)
        path.chmod(mode)
    for name in unit.get("ConfigurationDirectory").split():
        path = Path("/etc") / name
        path.mkdir(parents=True, exist_ok=True)
        path.chmod(int(unit.get("ConfigurationDirectoryMode", "0755"), 8))


def service_environment(unit: Unit, user: pwd.struct_passwd, notify: str, journal: Path) -> dict:
    st = journal.stat()
    env = {
        "PATH": SYSTEM_PATH,
        "LANG": "C.UTF-8",
        "INVOCATION_ID": uuid.uuid4().hex,
        "USER": user.pw_name,
        "LOGNAME": user.pw_name,
        "HOME": user.pw_dir,
        "SHELL": user.pw_shell,
        "NOTIFY_SOCKET": notify,
        "JOURNAL_STREAM": f"{st.st_dev}:{st.st_ino}",
    }
    watchdog = unit.seconds("WatchdogSec", 0)
    if watchdog:
        env["WATCHDOG_USEC"] = str(int(watchdog * 1_000_000))
    for assignments in unit.all("Environment"):
        for assignment in shlex.split(assignments):
            key, _, value = assignment.partition("=")
            env[key] = value
    return env


def exec_in_service_namespace(spec_json: str) -> None:
    """Runs as root in the service's fresh mount namespace (under ``unshare --mount``): makes the
    file system what the unit's sandboxing settings say, then becomes the service.  Each step
    execs, so the service keeps this process's PID, as systemd's main PID."""
    spec = json.loads(spec_json)
    mounts = [line.split()[4] for line in Path("/proc/self/mountinfo").read_text().splitlines()]
    if spec["protect_system"] == "strict":
        for mount_point in mounts:
            if mount_point.split("/")[1] not in ("proc", "sys", "dev"):
                run("mount", "-o", "remount,bind,ro", mount_point)
        for path in spec["writable"]:
            run("mount", "--bind", path, path)
            run("mount", "-o", "remount,bind,rw", path)
    if spec["private_tmp"]:
        for path in ("/tmp", "/var/tmp"):
            run("mount", "-t", "tmpfs", "-o", "mode=1777", "tmpfs", path)
    if spec["protect_home"]:
        for path in ("/home", "/root", "/run/user"):
            if os.path.isdir(path):
                run("mount", "-t", "tmpfs", "-o", "mode=000", "tmpfs", path)
    env = spec["env"]
    env["WATCHDOG_PID"] = str(os.getpid())
    os.umask(int(spec["umask"], 8))
    os.chdir(spec["cwd"])
    setpriv = ["setpriv", "--reuid", str(spec["uid"]), "--regid", str(spec["gid"]),
               "--init-groups", "--bounding-set=-all"]
    if spec["no_new_privileges"]:
        setpriv.append("--no-new-privs")
    os.execvpe("setpriv", [*setpriv, "--", *spec["argv"]], env)


def run(*argv: str) -> None:
    subprocess.run(argv, check=True)


def yes(value: str) -> bool:
    return value.lower() in ("yes", "true", "1", "on")


def supervise(unit_name: str) -> None:
    """The supervisor: starts the service, reads its notifications, records its state."""
    unit = Unit(unit_name)
    user = pwd.getpwnam(unit.get("User", "root"))
    gid = grp.getgrnam(unit.get("Group")).gr_gid if unit.get("Group") else user.pw_gid
    argv = shlex.split(unit.get("ExecStart"))
    if not argv or argv[0][0] in "-@+!:":
        fail(f"{unit.name}: ExecStart={unit.get('ExecStart')}: not reproduced here")
    prepare_directories(unit, user.pw_uid, gid)
    notify_name = f"@fake-systemd/{unit.name}/{os.getpid()}"
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind("\0" + notify_name[1:])
    notify.settimeout(0.2)
    journal = open(unit.journal, "ab", buffering=0)
    protect_home = unit.get("ProtectHome", "no")
    spec = {
        "argv": argv,
        "uid": user.pw_uid,
        "gid": gid,
        "cwd": unit.get("WorkingDirectory", "/"),
        "umask": unit.get("UMask", "0022"),
        "env": service_environment(unit, user, notify_name, unit.journal),
        "protect_system": unit.get("ProtectSystem", "no"),
        "writable": [str(Path("/var/lib") / n) for n in unit.get("StateDirectory").split()],
        "private_tmp": yes(unit.get("PrivateTmp", "no")),
        "protect_home": protect_home != "no" and protect_home != "false",
        "no_new_privileges": yes(unit.get("NoNewPrivileges", "no")),
    }
    proc = subprocess.Popen(
        ["unshare", "--mount", "--propagation", "private", "--",
         sys.executable, str(SELF), "_exec", json.dumps(spec)],
        stdin=subprocess.DEVNULL, stdout=journal, stderr=journal)
    state = {"active": "activating", "pid": proc.pid, "status": "", "watchdog_pings": 0,
             "started": time.time()}
    unit.save(state)
    start_timeout = unit.seconds("TimeoutStartSec", 90)
    watchdog = unit.seconds("WatchdogSec", 0)
    last_ping = time.monotonic()
    started = time.monotonic()
    while proc.poll() is None:
        try:
            lines = notify.recv(4096).decode().splitlines()
        except socket.timeout:
            lines = []
        for line in lines:
            key, _, value = line.partition("=")
            if key == "READY":
                state["active"] = "active"
                last_ping = time.monotonic()
            elif key == "STATUS":
                state["status"] = value
            elif key == "WATCHDOG":
                state["watchdog_pings"] += 1
                last_ping = time.monotonic()
            elif key == "STOPPING":
                state["active"] = "deactivating"
        now = time.monotonic()
        if state["active"] == "activating" and now - started > start_timeout:
            state["result"] = "timeout"
            proc.kill()
        elif state["active"] == "active" and watchdog and now - last_ping > watchdog:
            state["result"] = "watchdog"
            proc.send_signal(signal.SIGABRT)
        unit.save(state)
    code = proc.returncode
    clean = code == 0 or (unit.stop_request.exists() and code == -signal.SIGTERM)
    state["active"] = "inactive" if clean and "result" not in state else "failed"
    state["exit"] = code
    unit.save(state)


# --------------------------------------------------------------------------- systemctl


def wait_until(unit: Unit, done: set[str], timeout: float) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state = unit.state()
        if state["active"] in done:
            return state
        time.sleep(0.1)
    return unit.state()


def start(unit: Unit) -> int:
    if unit.state()["active"] in ("active", "activating"):
        return 0
    unit.save({"active": "activating"})
    subprocess.Popen([sys.executable, str(SELF), "_supervise", unit.name],
                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL, start_new_session=True)
    state = wait_until(unit, {"active", "failed", "inactive"},
                       unit.seconds("TimeoutStartSec", 90) + 5)
    if state["active"] != "active":
        print(f"Job for {unit.name}.service failed because the service did not take the steps "
              f"required by its unit configuration.\nSee \"systemctl status {unit.name}.service\" "
              f"and \"journalctl -xeu {unit.name}.service\" for details.", file=sys.stderr)
        return 1
    return 0


def stop(unit: Unit) -> int:
    state = unit.state()
    if state["active"] not in ("active", "activating", "deactivating"):
        return 0
    unit.stop_request.touch()
    try:
        os.kill(state["pid"], signal.SIGTERM)
        state = wait_until(unit, {"inactive", "failed"}, unit.seconds("TimeoutStopSec", 90))
        if state["active"] not in ("inactive", "failed"):
            os.kill(state["pid"], signal.SIGKILL)
            wait_until(unit, {"inactive", "failed"}, 5)
    finally:
        unit.stop_request.unlink()
    return 0


def status(unit: Unit) -> int:
    state = unit.state()
    enabled = "enabled" if any(link.exists() for link in unit.wants_links()) else "disabled"
    active = state["active"]
    shown = {"active": "active (running)", "failed": f"failed (Result: {state.get('result', 'exit-code')})"}
    print(f"● {unit.name}.service - {unit.get('Description', section='Unit')}")
    print(f"     Loaded: loaded ({unit.path}; {enabled})")
    print(f"     Active: {shown.get(active, active)}")
    if active in ("active", "activating", "deactivating"):
        print(f"   Main PID: {state['pid']} ({Path(shlex.split(unit.get('ExecStart'))[0]).name})")
    if state.get("status"):
        print(f"     Status: \"{state['status']}\"")
    print()
    for line in journal_lines(unit)[-10:]:
        print(line)
    return 0 if active == "active" else 3


def enable(unit: Unit) -> None:
    for link in unit.wants_links():
        link.parent.mkdir(parents=True, exist_ok=True)
        if not link.is_symlink():
            link.symlink_to(unit.path)
            print(f"Created symlink {link} → {unit.path}.")


def postfix(verb: str) -> int:
    """postfix.service: Debian's unit starts and reloads Postfix with its own command."""
    running = subprocess.run(["postfix", "status"], capture_output=True).returncode == 0
    if verb in ("start", "reload", "restart") and not running:
        return subprocess.run(["postfix", "start"]).returncode
    if verb == "start" or verb == "enable":
        return 0
    if verb == "reload":
        return subprocess.run(["postfix", "reload"]).returncode
    if verb == "restart":
        subprocess.run(["postfix", "stop"])
        return subprocess.run(["postfix", "start"]).returncode
    if verb == "stop":
        return subprocess.run(["postfix", "stop"]).returncode if running else 0
    if verb == "status":
        return subprocess.run(["postfix", "status"]).returncode
    fail(f"systemctl {verb} postfix: not reproduced here")


def systemctl(args: list[str]) -> int:
    args = [a for a in args if a not in ("--no-pager", "-q", "--quiet")]
    now = "--now" in args
    args = [a for a in args if a != "--now"]
    if not args:
        fail("systemctl: give a verb")
    verb, names = args[0], args[1:]
    if verb == "daemon-reload":
        return 0  # units are read afresh at each start
    code = 0
    for name in names:
        if name.removesuffix(".service") == "postfix":
            code = code or postfix(verb)
            continue
        unit = Unit(name)
        if verb == "start":
            code = code or start(unit)
        elif verb == "stop":
            code = code or stop(unit)
        elif verb == "restart":
            stop(unit)
            code = code or start(unit)
        elif verb == "enable":
            enable(unit)
            if now:
                code = code or start(unit)
        elif verb == "status":
            code = code or status(unit)
        elif verb == "is-active":
            print(unit.state()["active"])
            code = code or (0 if unit.state()["active"] == "active" else 3)
        else:
            fail(f"systemctl {verb}: not reproduced here")
    return code


# --------------------------------------------------------------------------- journalctl

PRIORITY = re.compile(r"^<([0-7])>")


def journal_lines(unit: Unit) -> list[str]:
    """The service's output as journald keeps it: the ``<N>`` priority prefix taken off."""
    if not unit.journal.exists():
        return []
    name = Path(shlex.split(unit.get("ExecStart"))[0]).name
    return [f"{name}: {PRIORITY.sub('', line)}"
            for line in unit.journal.read_text(errors="replace").splitlines()]


def journalctl(args: list[str]) -> int:
    unit_name, count = None, None
    rest = list(args)
    while rest:
        arg = rest.pop(0)
        if arg in ("-u", "--unit"):
            unit_name = rest.pop(0)
        elif arg in ("-n", "--lines"):
            count = int(rest.pop(0))
        elif arg == "--no-pager":
            pass
        else:
            fail(f"journalctl {arg}: not reproduced here (only -u UNIT, -n N, --no-pager)")
    if unit_name is None:
        fail("journalctl: only -u UNIT is reproduced here")
    lines = journal_lines(Unit(unit_name))
    for line in lines[-count:] if count else lines:
        print(line)
    return 0


def main(argv: list[str]) -> int:
    tool, args = argv[1], argv[2:]
    STATE.mkdir(parents=True, exist_ok=True)
    if tool == "systemctl":
        return systemctl(args)
    if tool == "journalctl":
        return journalctl(args)
    if tool == "_supervise":
        try:
            supervise(args[0])
        except BaseException as exc:  # systemctl start is waiting: it must hear of it
            unit = Unit(args[0])
            unit.save({**unit.state(), "active": "failed", "result": f"{exc!r}"})
            with open(unit.journal, "a") as journal:
                print(f"fake_systemd: cannot start {unit.name}: {exc!r}", file=journal)
            raise
        return 0
    if tool == "_exec":
        exec_in_service_namespace(args[0])
    fail(f"fake_systemd: unknown tool {tool}", 2)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
