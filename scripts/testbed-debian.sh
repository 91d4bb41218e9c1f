#!/usr/bin/env bash
# Build (once, cached) the Debian/systemd test bed the service and package tests run in.
#
#   1. debootstrap a minimal Debian bookworm (systemd, dbus, nginx-light, python3, sudo,
#      cron; the firewall tools ufw, nftables and iptables; ping; mount, losetup and
#      mkfs for the mount tests; sfdisk for the read-only policy tests; man-db), cached
#      as a tarball under $STATE_DIR and imported as an
#      image;
#   2. configure it (users, a slow-stopping demo service, the local apt repository as its
#      only package source) and commit that as reos-test/debian-systemd:$VERSION;
#   3. build a local apt repository of small .deb files on the host (no network needed);
#   4. build wheels of reos (from this working tree) and its dependencies, which the
#      tests install inside the container with pip --no-index.
# Needs the docker engine (scripts/testbed-docker.sh). Prints what it did; exit 1 when the
# bed cannot be built here (the tests then skip, or fail under REOS_REQUIRE_TESTBED=1).
set -u
VERSION=5
REPO_VERSION=$VERSION.1  # the repository's contents; the image does not change with it
IMAGE=reos-test/debian-systemd:$VERSION
STATE_DIR=${REOS_TESTBED_DIR:-/var/tmp/reos-testbed}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PYTHON=${PYTHON:-$ROOT/.venv/bin/python}
MIRROR=${REOS_DEBIAN_MIRROR:-http://deb.debian.org/debian}
mkdir -p "$STATE_DIR"
say() { echo "testbed-debian: $*"; }

docker info >/dev/null 2>&1 || { say "no docker engine (run scripts/testbed-docker.sh)"; exit 1; }

# -- 1 and 2: the image --------------------------------------------------------------------
if ! docker image inspect "$IMAGE" >/dev/null 2>&1; then
  tarball="$STATE_DIR/bookworm-v$VERSION.tar"
  if [ ! -s "$tarball" ]; then
    if ! command -v debootstrap >/dev/null 2>&1; then
      if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >"$STATE_DIR/apt.log" 2>&1 \
          || { apt-get update -qq >>"$STATE_DIR/apt.log" 2>&1 && \
               DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >>"$STATE_DIR/apt.log" 2>&1; } \
          || { say "cannot install debootstrap; see $STATE_DIR/apt.log"; exit 1; }
      else
        say "debootstrap missing and cannot be installed (need root and apt)"; exit 1
      fi
    fi
    rootfs="$STATE_DIR/rootfs-v$VERSION"
    rm -rf "$rootfs"
    say "debootstrap bookworm (about a minute; log: $STATE_DIR/debootstrap.log)"
    debootstrap --variant=minbase \
      --include=systemd,systemd-sysv,dbus,nginx-light,python3,python3-venv,procps,iproute2,sudo,cron,ufw,nftables,iptables,iputils-ping,mount,util-linux,e2fsprogs,fdisk,man-db \
      bookworm "$rootfs" "$MIRROR" >"$STATE_DIR/debootstrap.log" 2>&1 \
      || { say "debootstrap failed; see $STATE_DIR/debootstrap.log"; tail -3 "$STATE_DIR/debootstrap.log"; exit 1; }
    rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*_Packages
    tar -C "$rootfs" -cf "$tarball.tmp" . && mv "$tarball.tmp" "$tarball"
    rm -rf "$rootfs"
  fi
  say "importing the rootfs as an image"
  docker import --change 'CMD ["/sbin/init"]' "$tarball" "$IMAGE-base" >/dev/null \
    || { say "docker import failed"; exit 1; }
  build=reos-bed-build-$$
  docker rm -f "$build" >/dev/null 2>&1
  docker run -d --name "$build" --network none "$IMAGE-base" sleep infinity >/dev/null \
    || { say "cannot start a container from the base image"; exit 1; }
  docker exec -i "$build" sh -eu >"$STATE_DIR/configure.log" 2>&1 <<'SETUP' || { say "configuring the image failed; see $STATE_DIR/configure.log"; docker rm -f "$build" >/dev/null; exit 1; }
echo 'deb [trusted=yes] file:/srv/repo ./' > /etc/apt/sources.list
rm -f /etc/apt/sources.list.d/*
echo 'APT::Get::Assume-Yes "true"; Acquire::Languages "none";' > /etc/apt/apt.conf.d/90reos-test
useradd -m -s /bin/bash alice            # no sudo rights at all
useradd -m -s /bin/bash bob              # sudo without a password
echo 'bob ALL=(ALL) NOPASSWD: ALL' > /etc/sudoers.d/bob
chmod 440 /etc/sudoers.d/bob
useradd -m -s /bin/bash carol            # sudo that wants a password
echo 'carol:secret-carol' | chpasswd
echo 'carol ALL=(ALL) ALL' > /etc/sudoers.d/carol
chmod 440 /etc/sudoers.d/carol
cat > /etc/systemd/system/reos-slow.service <<'UNIT'
[Unit]
Description=A demo service that takes a few seconds to stop
[Service]
ExecStart=/bin/sleep infinity
ExecStop=/bin/sleep 4
[Install]
WantedBy=multi-user.target
UNIT
cat > /etc/systemd/system/reos-demo.service <<'UNIT'
[Unit]
Description=A demo service for the reos tests
[Service]
ExecStart=/bin/sleep infinity
[Install]
WantedBy=multi-user.target
UNIT
ln -s /etc/systemd/system/reos-slow.service /etc/systemd/system/multi-user.target.wants/
ln -s /etc/systemd/system/reos-demo.service /etc/systemd/system/multi-user.target.wants/
printf 'listen_port = 8080\nworkers = 4\n' > /etc/reos-demo.conf
SETUP
  docker commit --change 'CMD ["/sbin/init"]' "$build" "$IMAGE" >/dev/null \
    || { say "docker commit failed"; docker rm -f "$build" >/dev/null; exit 1; }
  docker rm -f "$build" >/dev/null
  docker rmi "$IMAGE-base" >/dev/null 2>&1
  say "built $IMAGE"
fi

# -- 3: the local apt repository -----------------------------------------------------------
repo="$STATE_DIR/repo"
if [ ! -s "$repo/Packages" ] || [ "$(cat "$repo/.version" 2>/dev/null)" != "$REPO_VERSION" ]; then
  # rebuilt in place, never removed: running beds have this very directory mounted
  mkdir -p "$repo"
  work=$(mktemp -d)
  make_deb() {  # name version depends [file-path file-content]
    local name=$1 version=$2 depends=$3 dir="$work/$1"
    # kept as built: a running bed may have indexed its hash (a changed package needs a
    # new version)
    [ -s "$repo/${name}_${version}_all.deb" ] && return 0
    rm -rf "$dir"
    mkdir -p "$dir/DEBIAN" "$dir/usr/share/doc/$name"
    {
      echo "Package: $name"; echo "Version: $version"; echo "Architecture: all"
      echo "Maintainer: reos tests <tests@reos.invalid>"; echo "Section: misc"
      echo "Priority: optional"; [ -n "$depends" ] && echo "Depends: $depends"
      echo "Description: $name, a package for the reos test bed"
    } > "$dir/DEBIAN/control"
    echo "$name $version" > "$dir/usr/share/doc/$name/README"
    if [ $# -ge 5 ]; then
      mkdir -p "$dir$(dirname "$4")"; printf '%s\n' "$5" > "$dir$4"
      case "$4" in /etc/*) echo "$4" > "$dir/DEBIAN/conffiles";; esac
    fi
    dpkg-deb --root-owner-group --build "$dir" "$repo/${name}_${version}_all.deb" >/dev/null
  }
  make_deb reos-demo-lib 1.0 "" /usr/share/reos-demo-lib/data "lib data"
  make_deb reos-demo-extra 1.0 "" /usr/share/reos-demo-extra/data "extra data"
  make_deb reos-demo-tool 2.1 "reos-demo-lib, reos-demo-extra" /etc/reos-demo-tool.conf "colour = blue"
  make_deb reos-demo-solo 0.5 "" /usr/share/reos-demo-solo/data "solo"
  make_deb reos-demo-keep 3.0 "" /usr/share/reos-demo-keep/data "keep"
  # a library in two versions and an app that needs it: removing the library takes the app,
  # and undo must bring back the version that was installed, not the newest
  make_deb reos-demo-base 1.0 "" /usr/share/reos-demo-base/data "base 1.0"
  make_deb reos-demo-base 1.1 "" /usr/share/reos-demo-base/data "base 1.1"
  make_deb reos-demo-app 1.0 "reos-demo-base" /usr/share/reos-demo-app/data "app"
  "$PYTHON" - "$repo" <<'INDEX'
import hashlib, subprocess, sys
from pathlib import Path
repo = Path(sys.argv[1])
entries = []
for deb in sorted(repo.glob("*.deb")):
    control = subprocess.run(["dpkg-deb", "-f", str(deb)], capture_output=True, text=True,
                             check=True).stdout.strip()
    data = deb.read_bytes()
    entries.append(f"{control}\nFilename: ./{deb.name}\nSize: {len(data)}\n"
                   f"MD5sum: {hashlib.md5(data).hexdigest()}\n"
                   f"SHA256: {hashlib.sha256(data).hexdigest()}\n")
(repo / "Packages.tmp").write_text("\n".join(entries))
(repo / "Packages.tmp").rename(repo / "Packages")
INDEX
  echo "$REPO_VERSION" > "$repo/.version"
  rm -rf "$work"
  say "built the local apt repository ($(ls "$repo"/*.deb | wc -l) packages)"
fi

# -- 4: wheels of reos and its dependencies ------------------------------------------------
wheels="$STATE_DIR/wheels"
mkdir -p "$wheels"
rm -f "$wheels"/reos-*.whl
"$PYTHON" -m pip wheel -q --wheel-dir "$wheels" "$ROOT" >"$STATE_DIR/wheels.log" 2>&1 \
  || { say "building wheels failed; see $STATE_DIR/wheels.log"; exit 1; }
say "image $IMAGE, apt repository and $(ls "$wheels" | wc -l) wheels ready in $STATE_DIR"
