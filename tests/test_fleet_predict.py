"""`reos plan --dry-run --hosts PATTERN "…"` predicts, read only, what each step would do on
each host (reos/fleet/predicting.py; reos/commands/fleet_plan.py shows it): a service from
the host's snapshot, a package from `apt-get -s` on the host, a step whose recipe names a
module from Ansible's check mode with diff. On the fleet bed (tests/fleet_bed.py); each
host is looked at from outside (docker exec) before and after: nothing changes, nothing is
journaled, and no --yes is needed. The unit tests at the end need no bed.
"""

from __future__ import annotations

import json
import uuid

from reos import paths
from reos.errors import EXIT_OK
from reos.fleet import predicting
from reos.fleet.deciding import Prepared
from reos.fleet.inventory import Source
from reos.model.plan import Plan, Step
from reos.model.request import Kind
from reos.model.target import Target
from reos.store.db import Database
from reos.store.journal import Journal
from reos.system.snapshot import Service, SystemSnapshot
from tests.conftest import reos

HOSTS = ("web1", "web2", "db1")
REQUEST = "restart nginx and install reos-demo-tool"


def _state(fleet) -> dict[str, tuple[str, ...]]:  # type: ignore[no-untyped-def]
    """What a change would alter on each host, read from outside: nginx (state and
    process), reos-demo, every package's dpkg status, the accounts."""
    out = {}
    for host in HOSTS:
        packages = fleet.run(host, "dpkg-query", "-W", "-f", "${Package} ${db:Status-Abbrev}\n")
        accounts = fleet.run(host, "getent", "passwd")
        out[host] = (fleet.state(host, "nginx"), fleet.pid(host, "nginx"),
                     fleet.state(host, "reos-demo"), packages.stdout, accounts.stdout)
    return out


def test_a_dry_run_predicts_each_step_on_each_host_and_changes_nothing(
        fleet) -> None:  # type: ignore[no-untyped-def]
    fleet.run("db1", "systemctl", "stop", "nginx")  # db1's restart would start it
    try:
        before = _state(fleet)
        done = reos("plan", "--hosts", "all", "-i", str(fleet.inventory), "--dry-run",
                    "--json", REQUEST, timeout=180)
        assert done.returncode == EXIT_OK, done.stdout + done.stderr
        document = json.loads(done.stdout)
        predicted = {h["host"]: h["predicted"] for h in document["hosts"]}
        restart, install = predicted["web1"]
        assert (restart["by"], restart["changes"]) == ("snapshot", True)
        assert restart["said"].startswith("would restart it")
        assert predicted["db1"][0]["said"] == "would start it (now inactive)"
        assert (install["by"], install["changes"]) == ("simulation", True)
        # what else apt would install with it, as apt-get -s on the host says
        assert install["installs"] == ["reos-demo-extra", "reos-demo-lib", "reos-demo-tool"]
        assert install["removes"] == []

        said = reos("plan", "--hosts", "web1,db1", "-i", str(fleet.inventory), "--dry-run",
                    REQUEST, timeout=180)  # no --yes, no terminal: it still predicts
        assert said.returncode == EXIT_OK, said.stdout + said.stderr
        assert "Predicted (a dry run" in said.stdout
        assert ("1. Restart nginx.service: would start it (now inactive) — from its "
                "snapshot") in said.stdout
        assert ("2. Install reos-demo-tool: would install reos-demo-tool and with it 2 "
                "more: reos-demo-extra, reos-demo-lib — apt-get -s on the host") in said.stdout
        assert _state(fleet) == before
        assert Journal(Database(paths.database_file())).transactions() == []
    finally:
        fleet.run("db1", "systemctl", "start", "nginx")


def test_check_mode_predicts_a_step_whose_recipe_names_a_module(
        fleet) -> None:  # type: ignore[no-untyped-def]
    from reos.catalogue.templates import load
    from reos.commands.fleet_plan import modules_of

    def create(number: int, name: str) -> Step:
        return Step(f"s{number}", f"Create the account {name}",
                    ["sudo", "-n", "useradd", "-m", name], needs_root=True,
                    target=Target("user", name), action="create")

    fresh = f"pr{uuid.uuid4().hex[:8]}"  # no other test on this session's bed has it
    steps = [create(1, fresh), create(2, "bob"),
             Step("s3", "Touch a file", ["touch", "/tmp/reos-predicted"])]
    parts = [Prepared("web1", plan=Plan("x", Kind.ACTION, steps=steps))]
    read = {"web1": SystemSnapshot(collected_at="", host={"package_manager": "apt"})}
    modules = modules_of(load(), parts, read)
    assert modules[("web1", "s1")] == ("ansible.builtin.user", {
        "name": fresh, "create_home": True, "state": "present"})
    before = _state(fleet)
    found = predicting.predict(Source((fleet.inventory,), "--inventory"), parts, read,
                               modules)
    new, bob, touch = found["web1"]
    assert (new.by, new.changes, new.said) == ("check mode", True, "would change it")
    assert (bob.by, bob.changes, bob.said) == ("check mode", False, "no change")  # exists
    assert (touch.by, touch.changes) == ("none", None)  # check mode skips commands
    assert fleet.run("web1", "getent", "passwd", fresh).returncode == 2  # not created
    assert fleet.run("web1", "test", "-e", "/tmp/reos-predicted").returncode == 1
    assert _state(fleet) == before


# -- no bed needed ------------------------------------------------------------------------
def _part(*steps: Step) -> list[Prepared]:
    return [Prepared("web1", plan=Plan("x", Kind.ACTION, steps=list(steps)),
                     priors=[None] * len(steps), undos=[None] * len(steps))]


def _unit_step(number: int, action: str, name: str = "nginx.service") -> Step:
    return Step(f"s{number}", f"{action} {name}", ["sudo", "-n", "systemctl", action, name],
                target=Target("service", name), action=action)


def test_a_service_is_predicted_from_the_snapshot_without_reaching_the_host(
        tmp_path) -> None:  # type: ignore[no-untyped-def]
    snap = SystemSnapshot(collected_at="", services=[
        Service("nginx.service", active="active", enabled="enabled", load="loaded"),
        Service("cron.service", active="inactive", enabled="masked", load="loaded")])
    steps = [_unit_step(1, "stop"), _unit_step(2, "start"), _unit_step(3, "enable"),
             _unit_step(4, "unmask", "cron.service"), _unit_step(5, "reload", "cron.service"),
             _unit_step(6, "start", "reos-new.service")]
    # an inventory that does not exist: nothing here may reach a host
    found = predicting.predict(Source((tmp_path / "none.ini",), "-i"), _part(*steps),
                               {"web1": snap})
    assert [(p.changes, p.said) for p in found["web1"]] == [
        (True, "would stop it (now active)"),
        (False, "already running: no change"),
        (False, "already enabled"),
        (True, "would unmask it (now masked)"),
        (False, "a reload would fail: it is not running (inactive)"),
        (None, "not on the host yet: an earlier step would bring it, so it cannot be "
               "predicted from what is there now")]
    assert {p.by for p in found["web1"]} == {"snapshot"}


def test_what_apt_says_is_put_into_words() -> None:
    from reos.fleet.running import Result

    simulated = Result("web1", "s1 simulation", "changed", returned={"stdout": (
        "Remv nginx-light [1.22.1-9+deb12u9]\nRemv libnginx-mod-http-echo [1:0.63-4]\n"
        "Remv nginx [1.22.1-9+deb12u9]\n")})
    said = predicting._simulated("s1", simulated, "nginx")
    assert said.said == ("would remove nginx and with it 2 more: libnginx-mod-http-echo, "
                         "nginx-light")
    refused = Result("web1", "s1 simulation", "failed", returned={
        "stdout": "", "stderr": "E: Unable to locate package nosuch\n"})
    said = predicting._simulated("s1", refused, "nosuch")
    assert (said.changes, said.said) == (
        False, "apt refuses, so the step would fail: Unable to locate package nosuch")


def test_the_json_gains_a_predicted_part_per_host_only_with_a_dry_run() -> None:
    from reos.commands.fleet_plan import document

    parts = [*_part(_unit_step(1, "stop")), Prepared("db1", left_out="nothing to do")]
    guess = predicting.Predicted("s1", "snapshot", True, "would stop it (now active)")
    data = document("stop nginx", parts, {}, predicted={"web1": [guess]})
    assert data["hosts"][0]["predicted"] == [{
        "step": "s1", "by": "snapshot", "changes": True, "said": "would stop it (now active)",
        "diff": None, "installs": [], "removes": []}]
    assert data["hosts"][1]["predicted"] is None
    assert "predicted" not in document("stop nginx", parts, {})["hosts"][0]


# -- apt's dry runs that decide package steps (predicting.dry_run_packages) ---------------
def _package_step(number: int, action: str, name: str) -> Step:
    return Step(f"s{number}", f"{action} {name}", ["sudo", "-n", "apt-get", action, "-y", name],
                target=Target("package", name), action=action)


def test_each_package_step_is_dry_run_with_the_ones_before_it(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from reos.fleet.running import Result, Run

    asked: list[list[str]] = []

    def run(source, hosts, tasks, **kw):  # type: ignore[no-untyped-def]
        out = Run(hosts=tuple(hosts), status="successful", ended=True)
        for task in tasks:
            asked.append(task.args["argv"])
            names = task.args["argv"][4:]
            result = Result(hosts[0], task.name, "ok", "", {
                "rc": 0, "stdout": "".join(f"Remv {n} [1]\n" for n in names)})
            out.results.append(result)
            kw["on_result"](result)
        return out

    monkeypatch.setattr(predicting, "run", run)
    snap = SystemSnapshot(collected_at="", host={"package_manager": "apt"})
    plan = Plan("remove nginx and redis", Kind.ACTION, steps=[
        _package_step(1, "remove", "nginx"), _package_step(2, "remove", "redis")])
    found = predicting.dry_run_packages(Source((), "a test"), {"web1": plan},
                                        {"web1": snap})
    assert asked == [["apt-get", "-s", "-q", "remove", "nginx"],
                     ["apt-get", "-s", "-q", "remove", "nginx", "redis"]]
    assert sorted(found["web1"]["s2"].removed) == ["nginx", "redis"]

    asked.clear()
    mixed = Plan("install a, remove b", Kind.ACTION, steps=[
        _package_step(1, "install", "a"), _package_step(2, "remove", "b")])
    found = predicting.dry_run_packages(Source((), "a test"), {"web1": mixed},
                                        {"web1": snap})
    assert asked == [] and all("one way at a time" in str(v) for v in found["web1"].values())
