#!/usr/bin/env bash
# The README walk-through test's sandbox (tests/ops/test_deploy_walkthrough.py), run as root in
# fresh mount, network, PID and UTS namespaces: a throwaway Debian host made of this one.
#
#  - /etc, /var, /run, /opt, /root and /usr/local become copy-on-write views of the host's
#    (overlayfs, changes kept under $1/layers): what the README creates there, the user and
#    Postfix's configuration included, vanishes with the namespaces;
#  - the network is a loopback of its own, so Postfix and the judge use the README's ports;
#  - the host's own PostgreSQL clusters are hidden (a fresh host has none; apt-get makes one);
#  - the host is named mx.example.org, as the README's example host;
#  - the judge's source arrives in /root/judge.tar.gz, as the README's scp leaves it;
#  - apt-get, systemctl and journalctl are the stand-ins in $1/bin (fake_apt.py,
#    fake_systemd.py), and pip installs from the wheel folder $1/wheelhouse: there is no
#    systemd here and no network.
#
# Usage: enter.sh BASE; runs BASE/walkthrough.sh, in /root, with root's clean environment.
set -euo pipefail
base=$1

for dir in /etc /var /run /opt /root /usr/local; do
    layer="$base/layers/${dir#/}"
    mkdir -p "$layer/upper" "$layer/work"
    mount -t overlay overlay -o "lowerdir=$dir,upperdir=$layer/upper,workdir=$layer/work" "$dir"
done
for dir in /etc/postgresql /var/lib/postgresql /run/postgresql; do
    if [ -d "$dir" ]; then
        mount -t tmpfs -o "mode=$(stat -c %a "$dir"),uid=$(stat -c %u "$dir"),gid=$(stat -c %g "$dir")" tmpfs "$dir"
    fi
done
ip link set lo up
hostname mx.example.org
printf '127.0.1.1\tmx.example.org mx\n' >> /etc/hosts
cp "$base/judge.tar.gz" /root/judge.tar.gz

cd /root
exec env -i HOME=/root USER=root LOGNAME=root SHELL=/bin/bash LANG=C.UTF-8 TERM=dumb \
    PATH="$base/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
    PIP_NO_INDEX=1 PIP_FIND_LINKS="$base/wheelhouse" PIP_DISABLE_PIP_VERSION_CHECK=1 \
    WALKTHROUGH_STATE="$base/state" WALKTHROUGH_OUT="$base/out" \
    bash "$base/walkthrough.sh"
