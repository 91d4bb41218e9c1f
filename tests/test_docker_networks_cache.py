"""Docker networks, disk use and the build cache on the real engine (issue 21): "which
docker networks exist" lists them and the containers on each; "remove the docker networks
no container uses" prunes only the unused ones; "how much space is docker using" reads
`docker system df` and says it in words; "how big are my containers" reads `docker ps
--size`, each container's own layer, biggest first; "clear the docker build cache"
measures, then runs `docker builder prune -f`. Each change is approved first, as a person would."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import Containers, reos

pytestmark = pytest.mark.docker


def _drop(containers: Containers, *networks: Any) -> None:
    containers.cleanup()  # a network with a container on it cannot go
    containers.created.clear()
    for net in networks:
        try:
            net.remove()
        except Exception:  # noqa: BLE001 - pruned already
            pass


def test_networks_are_listed_with_their_containers(containers: Containers) -> None:
    net = containers.client.networks.create(f"{containers.prefix}net")  # type: ignore[attr-defined]
    try:
        web = containers.run("web", network=net.name)
        said = reos("plan", "Which docker networks exist and which containers are in them?")
        assert said.returncode == 0, said.stderr
        assert f"{containers.prefix}net" in said.stdout, said.stdout
        line = said.stdout.split(f"{web}:", 1)[1].splitlines()[0]
        assert f"{containers.prefix}net" in line, said.stdout
    finally:
        _drop(containers, net)


def test_only_unused_networks_are_pruned(containers: Containers) -> None:
    client: Any = containers.client
    used = client.networks.create(f"{containers.prefix}used")
    unused = client.networks.create(f"{containers.prefix}unused")
    try:
        containers.run("web", network=used.name)
        say = "please remove the docker networks that no container is using"
        planned = reos("plan", "--dry-run", say)
        assert "$ docker network prune -f" in planned.stdout, planned.stdout
        done = reos("plan", "--yes", say)
        assert done.returncode == 0, done.stdout + done.stderr
        names = {n.name for n in client.networks.list()}
        assert f"{containers.prefix}used" in names
        assert f"{containers.prefix}unused" not in names
    finally:
        _drop(containers, used, unused)


def test_the_build_cache_is_measured_then_cleared() -> None:
    done = reos("plan", "--yes", "clear the docker build cache, it's huge")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "$ docker system df" in done.stdout
    assert "$ docker builder prune -f" in done.stdout
    assert "Done" in done.stdout


def test_dockers_disk_use_is_said_in_words(containers: Containers) -> None:
    containers.run("web")  # at least one image and one container to count
    said = reos("plan", "--yes", "how much space is docker using?")
    assert said.returncode == 0, said.stderr
    assert "Docker uses" in said.stdout and "GB of disk" in said.stdout, said.stdout
    for kind in ("images:", "containers:", "volumes:", "build cache:"):
        assert kind in said.stdout, said.stdout
    line = said.stdout.split("containers:", 1)[1].splitlines()[0]
    assert "in use" in line and "0 in use" not in line, said.stdout  # ours runs



def test_each_containers_own_disk_is_said_biggest_first(containers: Containers) -> None:
    small = containers.run("small")
    big = containers.run("big")
    wrote = containers.client.containers.get(big).exec_run(  # type: ignore[attr-defined]
        ["sh", "-c", "head -c 3000000 /dev/urandom > /big.bin"])
    assert wrote.exit_code == 0, wrote.output
    said = reos("plan", "--yes", "how big are my containers on disk?")
    assert said.returncode == 0, said.stderr
    assert "written" in said.stdout and "on top of their images" in said.stdout, said.stdout
    lines = said.stdout.splitlines()
    at = {name: next(n for n, line in enumerate(lines) if f"{name}:" in line)
          for name in (big, small)}
    assert at[big] < at[small], said.stdout  # biggest first
    assert "MB written" in lines[at[big]], said.stdout
