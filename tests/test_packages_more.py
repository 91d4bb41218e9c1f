"""More packages and containers: which package gives a command, holding packages back
(and letting them go), upgrading everything but the held ones, autoremove, and a
container's restart policy ("start on boot"), each planned against the homelab snapshot
(apt) and copies of it for the other package managers; every recipe argv judged by the
risk engine as `reos check` judges it; and, in the Debian test bed, a real hold undone.
"""

from __future__ import annotations

import pytest

from reos.catalogue import templates
from reos.model.request import Kind
from reos.model.risk import RiskLevel
from reos.safety.risk import assess_argv
from reos.system.state import restore_argv


@pytest.fixture(scope="module")
def engines() -> dict:
    """One engine per package manager, on the homelab snapshot (the evaluation's own)."""
    from tests.understanding.evaluate import engines as per_manager

    return per_manager()


def _argvs(plan) -> list[list[str]]:
    return [s.argv[2:] if s.argv[:2] == ["sudo", "-n"] else s.argv for s in plan.steps]


def _plain(argv: list[str] | None) -> list[str] | None:
    return argv[2:] if argv and argv[:2] == ["sudo", "-n"] else argv


# -- which package provides a command -------------------------------------------------------

@pytest.mark.parametrize("said, command", [
    ("I need the rg command", "rg"),
    ("which package has ifconfig", "ifconfig"),
    ("what package is the nslookup command in", "nslookup"),
    ("where does the dig binary come from", "dig"),
    ("htpasswd: command not found", "htpasswd"),
    ("which package do i need for mkfs.vfat", "mkfs.vfat"),
])
def test_a_command_is_looked_up_in_the_installed_packages_files(engines, said, command) -> None:
    plan = engines["apt"].plan(said)
    assert plan.kind == Kind.QUERY, plan.text()
    assert plan.read_only and not plan.blocked
    assert _argvs(plan) == [["dpkg", "-S", f"*bin/{command}"]]


@pytest.mark.parametrize("manager, argv", [
    ("dnf", ["dnf", "provides", "*bin/rg"]),
    ("pacman", ["pacman", "-Qo", "/usr/bin/rg"]),
    ("zypper", ["zypper", "--non-interactive", "search", "--provides", "--match-exact",
                "/usr/bin/rg"]),
    ("apk", ["apk", "search", "--exact", "cmd:rg"]),
])
def test_each_manager_has_its_own_lookup(engines, manager, argv) -> None:
    plan = engines[manager].plan("which package provides the rg command")
    assert plan.kind == Kind.QUERY and plan.read_only, plan.text()
    assert _argvs(plan) == [argv]


def test_a_command_name_that_is_no_package_name_never_reaches_argv(engines) -> None:
    plan = engines["apt"].plan("which package provides ../../bin/sh")
    assert not any("../" in a for argv in _argvs(plan) for a in argv)


# -- hold and unhold ---------------------------------------------------------------------

def test_hold_docker_io_plans_apt_mark_hold(engines) -> None:
    plan = engines["apt"].plan("hold docker.io")
    assert plan.kind == Kind.ACTION, plan.text()
    assert _argvs(plan) == [["apt-mark", "hold", "docker.io"]]
    step = plan.steps[0]
    assert step.needs_root and step.reversible and not step.read_only
    assert step.target is not None and step.target.kind == "package"
    assert step.action == "hold"


@pytest.mark.parametrize("said", ["hold docker", "pin docker at its current version",
                                  "keep docker from being upgraded",
                                  "stop docker from updating", "apt-mark hold docker.io"])
def test_hold_said_other_ways_finds_the_distribution_name(engines, said) -> None:
    assert _argvs(engines["apt"].plan(said)) == [["apt-mark", "hold", "docker.io"]]


@pytest.mark.parametrize("said", ["unhold docker.io", "let docker be upgraded again",
                                  "stop pinning docker", "take the hold off docker.io"])
def test_unhold_plans_apt_mark_unhold(engines, said) -> None:
    plan = engines["apt"].plan(said)
    assert _argvs(plan) == [["apt-mark", "unhold", "docker.io"]], plan.text()


@pytest.mark.parametrize("manager, hold, unhold", [
    ("dnf", ["dnf", "versionlock", "add", "curl"], ["dnf", "versionlock", "delete", "curl"]),
    ("zypper", ["zypper", "--non-interactive", "addlock", "curl"],
     ["zypper", "--non-interactive", "removelock", "curl"]),
])
def test_hold_on_dnf_and_zypper_is_a_lock(engines, manager, hold, unhold) -> None:
    assert _argvs(engines[manager].plan("hold curl")) == [hold]
    assert _argvs(engines[manager].plan("unhold curl")) == [unhold]


def test_hold_of_a_package_that_is_not_installed_plans_nothing(engines) -> None:
    plan = engines["apt"].plan("hold cowsay")
    assert not plan.steps


def test_undo_of_a_hold_lifts_it() -> None:
    assert restore_argv("package", "docker.io", {"state": "installed", "held": False},
                        "hold", "apt") == ["apt-mark", "unhold", "docker.io"]
    assert restore_argv("package", "docker.io", {"state": "installed", "held": True},
                        "unhold", "apt") == ["apt-mark", "hold", "docker.io"]
    assert restore_argv("package", "docker.io", {"state": "installed", "held": True},
                        "hold", "apt") is None  # it was held already: nothing to lift


def test_the_plan_shows_the_hold_lifted_by_undo(engines) -> None:
    plan = engines["apt"].plan("hold docker.io")
    assert _plain(plan.steps[0].rollback) == ["apt-mark", "unhold", "docker.io"]
    plan = engines["apt"].plan("upgrade everything but hold docker")
    assert [_plain(s.rollback) for s in plan.steps] == [
        ["apt-mark", "unhold", "docker.io"], None, None]  # lifted once, not once per step


# -- upgrade everything but hold some -----------------------------------------------------

@pytest.mark.parametrize("said", ["upgrade everything but hold docker",
                                  "hold docker and upgrade the rest",
                                  "pin docker and update everything"])
def test_upgrade_everything_but_hold_holds_first(engines, said) -> None:
    plan = engines["apt"].plan(said)
    argvs = _argvs(plan)
    assert argvs[0] == ["apt-mark", "hold", "docker.io"], plan.text()
    assert argvs[1] == ["apt-get", "update"]
    assert argvs[2][:3] == ["apt-get", "upgrade", "-y"]
    assert plan.steps[0].reversible and not plan.steps[2].reversible


@pytest.mark.parametrize("said", ["upgrade everything except docker",
                                  "update everything but keep docker"])
def test_upgrade_everything_except_holds_what_was_named(engines, said) -> None:
    assert _argvs(engines["apt"].plan(said))[0] == ["apt-mark", "hold", "docker.io"]


def test_upgrade_everything_but_hold_on_pacman_ignores_the_package(engines) -> None:
    argvs = _argvs(engines["pacman"].plan("upgrade everything but hold curl"))
    assert argvs == [["pacman", "-Syu", "--noconfirm", "--ignore", "curl"]]


# -- autoremove ---------------------------------------------------------------------------

@pytest.mark.parametrize("said", ["autoremove", "remove unused packages",
                                  "get rid of orphaned packages",
                                  "clean out the dependencies that are no longer needed"])
def test_autoremove_is_one_removal_without_a_target(engines, said) -> None:
    plan = engines["apt"].plan(said)
    assert plan.kind == Kind.ACTION, plan.text()
    assert _argvs(plan) == [["apt-get", "autoremove", "-y"]]
    step = plan.steps[0]
    assert step.target is None and step.action == "autoremove" and step.needs_root
    assert step.risk >= RiskLevel.MEDIUM


def test_autoremove_is_previewed_like_any_removal(engines) -> None:
    """The package preview simulates it (apt-get -s autoremove) and lists what it takes."""
    from reos.execution import package_sim, packages

    plan = engines["apt"].plan("autoremove")
    assert packages._removes(plan.steps[0])
    assert package_sim.simulation_argv("apt", "autoremove", None) == [
        "apt-get", "-s", "-q", "autoremove"]
    assert _argvs(engines["dnf"].plan("autoremove")) == [["dnf", "autoremove", "-y"]]


def test_pacman_lists_orphans_instead_of_removing_them(engines) -> None:
    plan = engines["pacman"].plan("autoremove")
    assert _argvs(plan) == [["pacman", "-Qdtq"]]
    assert plan.read_only


def test_removing_one_package_is_still_a_removal(engines) -> None:
    assert _argvs(engines["apt"].plan("remove curl")) == [["apt-get", "remove", "-y", "curl"]]


# -- containers: restart policy and logs ----------------------------------------------------

def test_start_on_boot_sets_the_restart_policy(engines) -> None:
    plan = engines["apt"].plan("start nextcloud-app on boot")
    assert plan.kind == Kind.ACTION, plan.text()
    assert _argvs(plan) == [["docker", "update", "--restart=unless-stopped", "nextcloud-app"]]
    assert plan.steps[0].action == "restart_policy" and plan.steps[0].reversible


@pytest.mark.parametrize("said, names", [
    ("start nextcloud on boot", ["nextcloud-app", "nextcloud-redis", "nextcloud-db"]),
    ("make portainer come back after a reboot", ["portainer"]),
    ("redis-cache should survive reboots", ["redis-cache"]),
])
def test_start_on_boot_said_other_ways(engines, said, names) -> None:
    assert _argvs(engines["apt"].plan(said)) == [
        ["docker", "update", "--restart=unless-stopped", n] for n in names]


@pytest.mark.parametrize("said", ["don't restart n8n automatically",
                                  "stop n8n from restarting", "n8n should not start at boot",
                                  "disable autostart for n8n"])
def test_no_restart_clears_the_policy(engines, said) -> None:
    assert _argvs(engines["apt"].plan(said)) == [["docker", "update", "--restart=no", "n8n"]]


def test_a_service_said_to_start_on_boot_is_still_enabled(engines) -> None:
    assert _argvs(engines["apt"].plan("make apache2 start on boot")) == [
        ["systemctl", "enable", "apache2.service"]]


def test_the_restart_policy_is_asked_about_without_changing_it(engines) -> None:
    plan = engines["apt"].plan("will portainer come back after a reboot?")
    assert plan.kind == Kind.QUERY and plan.read_only, plan.text()
    assert _argvs(plan)[0][:2] == ["docker", "inspect"] and _argvs(plan)[0][-1] == "portainer"


def test_undo_of_a_restart_policy_sets_the_recorded_one_back() -> None:
    assert restore_argv("container", "n8n", {"state": "running", "restart": "always"},
                        "restart_policy") == ["docker", "update", "--restart=always", "n8n"]
    assert restore_argv("container", "n8n", {"state": "running"}, "restart_policy") is None


def test_the_last_lines_of_a_containers_logs(engines) -> None:
    plan = engines["apt"].plan("last 200 lines of n8n's logs")
    assert plan.kind == Kind.QUERY and plan.read_only
    assert _argvs(plan) == [["docker", "logs", "--tail", "200", "--timestamps", "n8n"]]


# -- every recipe judged as `reos check` judges it -------------------------------------------

_OURS = {("package", a) for a in ("provides", "hold", "unhold", "upgrade_except",
                                  "autoremove")} | {
    ("container", a) for a in ("restart_policy", "restart_policy_off", "boot_policy")}


def _recipe_argvs() -> list[tuple[str, list[str], bool]]:
    loaded = templates.load()
    out = []
    for (resource, action, variant), recipe in sorted(loaded.recipes.items(),
                                                      key=lambda kv: str(kv[0])):
        if (resource, action) not in _OURS:
            continue
        for step in recipe.steps:
            argv = [a.replace("{name}", "curl" if resource == "package" else "n8n")
                    for a in step.argv]
            out.append((f"{resource}.{action}.{variant}", argv, step.read_only))
    return out


def test_every_operation_of_these_files_has_a_recipe() -> None:
    found = {(r.split(".")[0], r.split(".")[1]) for r, _, _ in _recipe_argvs()}
    assert found == _OURS


@pytest.mark.parametrize("where, argv, read_only", _recipe_argvs(),
                         ids=lambda v: v if isinstance(v, str) else None)
def test_each_recipe_step_is_judged_as_expected(where, argv, read_only) -> None:
    verdict = assess_argv(argv)
    assert not verdict.blocked, verdict.reasons
    if read_only:
        assert verdict.read_only and verdict.risk == RiskLevel.SAFE, verdict.reasons
        return
    assert not verdict.read_only
    # holds, policies, upgrades and removals: worth an approval, never critical
    assert RiskLevel.LOW <= verdict.risk <= RiskLevel.HIGH, verdict.reasons


def test_the_cli_check_judges_a_hold_and_a_policy_change(reos_home) -> None:
    from tests.conftest import reos

    for command in ("apt-mark hold docker.io", "docker update --restart=unless-stopped n8n",
                    "apt-get autoremove -y"):
        done = reos("check", command)
        assert "risk medium" in done.stdout or "risk low" in done.stdout, done.stdout
    done = reos("check", "dpkg -S '*bin/rg'")
    assert "risk safe" in done.stdout and "only reads" in done.stdout


# -- real: a hold in the Debian test bed ---------------------------------------------------

@pytest.mark.docker
@pytest.mark.slow
def test_bed_hold_then_undo(bed) -> None:
    def held() -> set[str]:
        return set(bed.run("apt-mark", "showhold").stdout.split())

    bed.run("apt-mark", "unhold", "nginx")
    assert "nginx" not in held()
    try:
        done = bed.reos("plan", "--yes", "hold nginx")
        assert done.returncode == 0, done.stdout + done.stderr
        assert "$ apt-mark hold nginx" in done.stdout
        assert "nginx" in held()
        undo = bed.reos("undo")
        assert "apt-mark unhold nginx" in undo.stdout, undo.stdout
        assert undo.returncode == 0, undo.stdout + undo.stderr
        assert "nginx" not in held()
    finally:
        bed.run("apt-mark", "unhold", "nginx")


# -- which package a file belongs to ----------------------------------------------------------

@pytest.mark.parametrize(("manager", "argv"), [
    ("apt", ["dpkg", "-S", "/usr/sbin/nginx"]),
    ("dnf", ["rpm", "-qf", "--queryformat", "%{NAME}\n", "/usr/sbin/nginx"]),
    ("pacman", ["pacman", "-Qo", "/usr/sbin/nginx"]),
])
def test_the_owner_of_a_path_is_looked_up_by_each_manager(engines, manager, argv) -> None:
    for said in ("which package owns /usr/sbin/nginx", "who owns /usr/sbin/nginx"):
        plan = engines[manager].plan(said)
        assert plan.intent.operation == "package.owner" and plan.read_only
        assert _argvs(plan) == [argv]


def test_a_port_is_still_a_port_not_a_path(engines) -> None:
    assert engines["apt"].plan("who owns port 80").intent.operation == "process.port"


def test_the_owner_is_said_from_the_real_dpkg() -> None:
    import shutil
    import subprocess

    from reos.model.report import StepResult
    from reos.words.answers.packages import ANSWERS
    from reos.words.conversation import Voice

    if shutil.which("dpkg") is None:
        pytest.skip("no dpkg here")
    found = subprocess.run(["dpkg", "-S", "/usr/bin/dpkg"], capture_output=True, text=True,
                           check=False)
    said = ANSWERS["package_owner"]([StepResult("s1", True, 0, found.stdout, "")],
                                    {"path": "/usr/bin/dpkg"}, Voice())
    assert said == "/usr/bin/dpkg belongs to the package dpkg."
    missing = subprocess.run(["dpkg", "-S", "/usr/bin/no-such-file-here"],
                             capture_output=True, text=True, check=False)
    said = ANSWERS["package_owner"]([StepResult("s1", False, missing.returncode,
                                                missing.stdout, missing.stderr)],
                                    {"path": "/usr/bin/no-such-file-here"}, Voice())
    assert said.startswith("No installed package owns /usr/bin/no-such-file-here")
