"""Freeing disk space in the Debian test bed, with real apt and dpkg: the package cache is
measured, `apt-get clean` empties it after approval, and of the installed kernel
packages only the old ones are purged - never the one for the running release, never
the newest. Then nothing is left worth cleaning, and reos says so in words.

The cache holds a real download: a 3 MiB package fetched by apt with `--download-only`
from a `copy:` source (apt's `file:` source, the bed's own, never copies into the
cache). The kernels are small packages built with dpkg-deb and installed with dpkg,
named like Debian's: two old ones, one for the release the bed runs (`uname -r`), a
newer one not yet booted, and the linux-image-amd64 meta package pulling in the newest.
"""

from __future__ import annotations

import re

import pytest

pytestmark = [pytest.mark.docker, pytest.mark.slow]

OLD = ["linux-image-6.1.0-17-amd64", "linux-image-6.1.0-18-amd64"]
NEWEST = "linux-image-99.1.0-1-amd64"  # installed, not yet booted

KERNELS = r"""set -e
make() {  # name version size-in-KiB [depends]
  d=$(mktemp -d); mkdir -p "$d/DEBIAN" "$d/usr/share/reos-kernel-demo/$1"
  head -c $(( $3 * 1024 )) /dev/zero > "$d/usr/share/reos-kernel-demo/$1/blob"
  cat > "$d/DEBIAN/control" <<CONTROL
Package: $1
Version: $2
Architecture: all
Maintainer: reos tests <reos@example.invalid>
Installed-Size: $3
Section: kernel
Description: a stand-in kernel for the cleanup tests
CONTROL
  if [ -n "${4:-}" ]; then echo "Depends: $4" >> "$d/DEBIAN/control"; fi
  dpkg-deb -b "$d" "/tmp/$1.deb" >/dev/null; dpkg -i "/tmp/$1.deb" >/dev/null
  rm -rf "$d" "/tmp/$1.deb"
}
make linux-image-6.1.0-17-amd64 6.1.69-1 300
make linux-image-6.1.0-18-amd64 6.1.76-1 400
make "linux-image-$(uname -r)" 1.0 100
make linux-image-99.1.0-1-amd64 99.1.3-1 500
make linux-image-amd64 99.1.3-1 1 linux-image-99.1.0-1-amd64
"""

BIG_DOWNLOAD = r"""set -e
repo=/tmp/reos-big-repo; rm -rf "$repo"; mkdir -p "$repo"
d=$(mktemp -d); mkdir -p "$d/DEBIAN" "$d/usr/share/reos-demo-big"
head -c 3145728 /dev/urandom > "$d/usr/share/reos-demo-big/blob"
cat > "$d/DEBIAN/control" <<CONTROL
Package: reos-demo-big
Version: 1.0
Architecture: all
Maintainer: reos tests <reos@example.invalid>
Installed-Size: 3072
Description: a large package for the cleanup tests
CONTROL
dpkg-deb -Zgzip -b "$d" "$repo/reos-demo-big_1.0_all.deb" >/dev/null; rm -rf "$d"
python3 - "$repo" <<'PY'
import hashlib, os, subprocess, sys
repo, deb = sys.argv[1], "reos-demo-big_1.0_all.deb"
data = open(os.path.join(repo, deb), "rb").read()
control = subprocess.run(["dpkg-deb", "-f", os.path.join(repo, deb)], capture_output=True,
                         text=True, check=True).stdout.rstrip("\n")
with open(os.path.join(repo, "Packages"), "w") as out:
    out.write(f"{control}\nFilename: ./{deb}\nSize: {len(data)}\n"
              f"SHA256: {hashlib.sha256(data).hexdigest()}\n\n")
PY
echo "deb [trusted=yes] copy:$repo ./" > "$repo/copy.list"
opts="-o Dir::Etc::SourceList=$repo/copy.list -o Dir::Etc::SourceParts=/nonexistent"
apt-get -q $opts update >/dev/null
apt-get -q -y $opts install -d reos-demo-big >/dev/null
apt-get -q update >/dev/null  # back to the bed's own package source
"""


def _cached(bed) -> list[str]:
    listing = bed.run("find", "/var/cache/apt/archives", "-name", "*.deb", check=True)
    return listing.stdout.split()


def test_free_space_measures_cleans_the_cache_and_keeps_running_and_newest_kernel(bed) -> None:
    release = bed.run("uname", "-r", check=True).stdout.strip()
    running = f"linux-image-{release}"
    if not re.fullmatch(r"[a-z0-9][a-z0-9+.-]+", running):
        pytest.skip(f"the bed's kernel release {release!r} is no valid package name")
    bed.run("sh", "-c", KERNELS, check=True)
    bed.run("sh", "-c", BIG_DOWNLOAD, check=True, timeout=300)
    try:
        assert "/var/cache/apt/archives/reos-demo-big_1.0_all.deb" in _cached(bed)
        plan = bed.reos_json("plan", "free up disk space")
        assert plan["kind"] == "action", plan["message"]
        assert plan["message"].startswith("I measured first:")
        argvs = [s["argv"] for s in plan["steps"]]
        cache = next(s for s in plan["steps"] if s["argv"] == ["apt-get", "clean"])
        assert "/var/cache/apt/archives" in cache["title"] and "3 MiB" in cache["title"]
        purged = [a[-1] for a in argvs if a[:3] == ["apt-get", "purge", "-y"]]
        assert purged == OLD  # exactly the old two: not the running one, not the newest
        assert running not in " ".join(" ".join(a) for a in argvs)
        assert NEWEST not in " ".join(" ".join(a) for a in argvs)
        assert "linux-image-amd64" not in " ".join(" ".join(a) for a in argvs)
        for step in plan["steps"]:
            if step["argv"][:2] == ["apt-get", "purge"]:
                assert step["risk"] == "high" and step["reversible"] is False
                assert "also_affects" in step  # the package simulation ran on it
        assert "This cannot be undone" in plan["message"]

        done = bed.reos("plan", "--yes", "free up disk space")
        assert done.returncode == 0, done.stdout + done.stderr
        assert _cached(bed) == []  # the cache is empty
        for name in OLD:
            assert bed.installed(name) is None
        assert bed.installed(running) == "1.0"
        assert bed.installed(NEWEST) == "99.1.3-1"
        assert bed.installed("linux-image-amd64") == "99.1.3-1"

        again = bed.reos_json("plan", "free up disk space")
        assert again["kind"] == "query" and again["steps"] == []
        assert again["message"].startswith("Nothing worth cleaning: the package cache holds "
                                           "only"), again["message"]
        assert "no old kernels" in again["message"]
    finally:
        bed.run("sh", "-c", "dpkg -P linux-image-amd64 $(dpkg-query -W -f '${Package} ' "
                "'linux-image-*') >/dev/null 2>&1; apt-get clean; rm -rf /tmp/reos-big-repo")


FILL_JOURNAL = r"""set -e
mkdir -p /etc/systemd/journald.conf.d
printf '[Journal]\nRateLimitBurst=0\nCompress=no\n' > /etc/systemd/journald.conf.d/reos-fill.conf
systemctl restart systemd-journald
head -c 60000000 /dev/urandom | base64 -w 200 | systemd-cat -t reos-fill
journalctl --sync
"""


def _journal_bytes(bed) -> int:
    from reos.planning.cleanup import parse_journal

    said = bed.run("journalctl", "--disk-usage", check=True).stdout
    size = parse_journal(said)
    assert size is not None, said
    return size


def test_a_big_journal_is_offered_for_vacuuming_and_shrinks_after_approval(bed) -> None:
    bed.run("sh", "-c", FILL_JOURNAL, check=True, timeout=300)
    try:
        before = _journal_bytes(bed)
        assert before >= 200 * 1024 * 1024
        plan = bed.reos_json("plan", "free up disk space")
        step = next(s for s in plan["steps"] if s["argv"][0] == "journalctl")
        assert step["argv"] == ["journalctl", "--vacuum-size=100M"]
        assert step["risk"] == "medium" and step["reversible"] is False
        assert step["title"].startswith("Delete old journal files (up to ")
        assert "deleted log entries cannot be brought back" in plan["message"]
        done = bed.reos("plan", "--yes", "free up disk space")
        assert done.returncode == 0, done.stdout + done.stderr
        assert _journal_bytes(bed) <= 100 * 1024 * 1024 < before
    finally:
        bed.run("sh", "-c", "rm -f /etc/systemd/journald.conf.d/reos-fill.conf; "
                "systemctl restart systemd-journald; journalctl --vacuum-size=16M")
