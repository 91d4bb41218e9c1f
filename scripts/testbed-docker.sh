#!/usr/bin/env bash
# Make a docker engine and the local test image available for the test suite.
#
# - installs docker.io, busybox-static, tmux (the real-terminal tests drive reos in it) and
#   man-db (the fallback that names manual pages) from the distribution when missing
#   (root + apt), and builds man-db's index when there is none;
# - starts dockerd detached (setsid, log file, no pipe of ours held open) when no engine
#   answers;
# - builds reos-test/busybox:latest with `docker import` from a busybox rootfs, since no
#   registry can be reached.
# Prints one line saying what it did. Exit 0 when the engine and image are ready, 1 when
# they cannot be had here (the tests then skip, or fail under REOS_REQUIRE_TESTBED=1).
set -u
IMAGE=reos-test/busybox:latest
STATE_DIR=${REOS_TESTBED_DIR:-/var/tmp/reos-testbed}
mkdir -p "$STATE_DIR"

say() { echo "testbed-docker: $*"; }

engine_up() { timeout 10 docker info >/dev/null 2>&1; }

if ! command -v dockerd >/dev/null 2>&1 || ! command -v busybox >/dev/null 2>&1 \
    || ! [ -x /bin/busybox ] || ! command -v docker >/dev/null 2>&1 \
    || ! command -v tmux >/dev/null 2>&1 || ! command -v apropos >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    say "installing docker.io, busybox-static, tmux and man-db (apt)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >"$STATE_DIR/apt.log" 2>&1
    apt-get install -y -qq docker.io busybox-static tmux man-db >>"$STATE_DIR/apt.log" 2>&1 \
      || { say "apt-get install failed; see $STATE_DIR/apt.log"; exit 1; }
  else
    say "docker, busybox, tmux or man-db missing and cannot install them (need root and apt)"
    exit 1
  fi
fi

if [ "$(id -u)" = 0 ] && ! [ -s /var/cache/man/index.db ]; then
  say "building man-db's index (mandb)"
  mandb -q >"$STATE_DIR/mandb.log" 2>&1 || say "mandb failed; see $STATE_DIR/mandb.log"
fi

if ! engine_up; then
  if [ "$(id -u)" != 0 ]; then say "no docker engine answers and not root to start one"; exit 1; fi
  say "starting dockerd (log: $STATE_DIR/dockerd.log)"
  setsid dockerd >"$STATE_DIR/dockerd.log" 2>&1 </dev/null &
  for _ in $(seq 1 60); do engine_up && break; sleep 0.5; done
  engine_up || { say "dockerd did not come up; see $STATE_DIR/dockerd.log"; tail -5 "$STATE_DIR/dockerd.log"; exit 1; }
fi

if ! docker image inspect "$IMAGE" >/dev/null 2>&1; then
  root=$(mktemp -d)
  mkdir -p "$root/bin"
  cp "$(readlink -f /bin/busybox)" "$root/bin/busybox"
  for applet in sh sleep ls cat echo true; do ln -s busybox "$root/bin/$applet"; done
  tar -C "$root" -c . | docker import \
      --change 'CMD ["/bin/sh", "-c", "trap \"exit 0\" TERM; while :; do sleep 1; done"]' \
      - "$IMAGE" >/dev/null || { say "docker import failed"; rm -rf "$root"; exit 1; }
  rm -rf "$root"
  say "built $IMAGE with docker import"
fi
say "engine $(docker version --format '{{.Server.Version}}' 2>/dev/null) ready, image $IMAGE present"
