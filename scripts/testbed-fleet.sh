#!/usr/bin/env bash
# Build (once, cached) what the fleet tests reach over SSH: an image of the Debian/systemd
# bed with an SSH server, and the key the tests log in with. Starting the hosts is the
# tests' own work (tests/fleet_bed.py: a user-defined network, one container per host).
#
#   1. the ssh client and ssh-keygen on this machine (apt-get when missing);
#   2. a key pair under $STATE_DIR/fleet, and a folder of authorized keys (one file per
#      account: bob, sudo without a password; carol, sudo with one; alice, none) that each
#      host mounts read-only as /etc/ssh/authorized_keys;
#   3. reos-test/debian-ssh:$VERSION, from reos-test/debian-systemd (testbed-debian.sh):
#      openssh-server and python3-apt (Ansible's apt module needs it) installed from
#      Debian's mirror, the bed's local repository put back as the only package source;
#      sshd takes keys only, from /etc/ssh/authorized_keys/USER, and each host makes its
#      own host keys and its own machine-id when it first boots (so a new host's key is
#      truly unknown, and two hosts are never the same machine to reos).
# Needs the docker engine and the Debian bed image. Exit 1 when it cannot be built here
# (the fleet tests then skip, or fail under REOS_REQUIRE_TESTBED=1).
set -u
VERSION=2
BASE=reos-test/debian-systemd:5
IMAGE=reos-test/debian-ssh:$VERSION
STATE_DIR=${REOS_TESTBED_DIR:-/var/tmp/reos-testbed}
MIRROR=${REOS_DEBIAN_MIRROR:-http://deb.debian.org/debian}
FLEET="$STATE_DIR/fleet"
say() { echo "testbed-fleet: $*"; }

docker info >/dev/null 2>&1 || { say "no docker engine (run scripts/testbed-docker.sh)"; exit 1; }
docker image inspect "$BASE" >/dev/null 2>&1 \
  || { say "no $BASE (run scripts/testbed-debian.sh)"; exit 1; }

# -- 1: the ssh client --------------------------------------------------------------------
if ! command -v ssh >/dev/null 2>&1 || ! command -v ssh-keygen >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openssh-client \
      || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openssh-client; }
    } >"$STATE_DIR/apt-ssh.log" 2>&1 \
      || { say "cannot install openssh-client; see $STATE_DIR/apt-ssh.log"; exit 1; }
  else
    say "the ssh client is missing and cannot be installed (need root and apt)"; exit 1
  fi
fi

# -- 2: the key ---------------------------------------------------------------------------
mkdir -p "$FLEET/keys"
chmod 700 "$FLEET"
if [ ! -s "$FLEET/id_ed25519" ]; then
  rm -f "$FLEET/id_ed25519" "$FLEET/id_ed25519.pub"
  ssh-keygen -q -t ed25519 -N '' -C reos-fleet-tests -f "$FLEET/id_ed25519" \
    || { say "ssh-keygen failed"; exit 1; }
fi
for user in alice bob carol root; do
  install -m 644 "$FLEET/id_ed25519.pub" "$FLEET/keys/$user"
done
chmod 755 "$FLEET/keys"

# -- 3: the image -------------------------------------------------------------------------
if ! docker image inspect "$IMAGE" >/dev/null 2>&1; then
  build=reos-fleet-build-$$
  docker rm -f "$build" >/dev/null 2>&1
  docker run -d --name "$build" "$BASE" sleep infinity >/dev/null \
    || { say "cannot start a container from $BASE"; exit 1; }
  say "installing openssh-server and python3-apt into $IMAGE (log: $STATE_DIR/fleet-image.log)"
  docker exec -i -e MIRROR="$MIRROR" "$build" sh -eu >"$STATE_DIR/fleet-image.log" 2>&1 <<'SETUP' \
    || { say "building $IMAGE failed; see $STATE_DIR/fleet-image.log"; docker rm -f "$build" >/dev/null; exit 1; }
cp /etc/apt/sources.list /etc/apt/sources.list.bed
echo "deb $MIRROR bookworm main" > /etc/apt/sources.list
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends openssh-server python3-apt
mv /etc/apt/sources.list.bed /etc/apt/sources.list
rm -rf /var/lib/apt/lists/* /var/cache/apt/archives/*.deb
rm -f /etc/ssh/ssh_host_*
: > /etc/machine-id
rm -f /var/lib/dbus/machine-id
cat > /etc/ssh/sshd_config.d/reos-fleet.conf <<'CONF'
AuthorizedKeysFile /etc/ssh/authorized_keys/%u
PasswordAuthentication no
KbdInteractiveAuthentication no
UseDNS no
CONF
mkdir -p /etc/systemd/system/ssh.service.d
cat > /etc/systemd/system/ssh.service.d/host-keys.conf <<'CONF'
[Service]
ExecStartPre=
ExecStartPre=/usr/bin/ssh-keygen -A
ExecStartPre=/usr/sbin/sshd -t
CONF
systemctl enable ssh >/dev/null 2>&1 || ln -sf /lib/systemd/system/ssh.service /etc/systemd/system/multi-user.target.wants/ssh.service
SETUP
  docker commit --change 'CMD ["/sbin/init"]' "$build" "$IMAGE" >/dev/null \
    || { say "docker commit failed"; docker rm -f "$build" >/dev/null; exit 1; }
  docker rm -f "$build" >/dev/null
  say "built $IMAGE"
fi
say "image $IMAGE and the test key ready in $FLEET"
