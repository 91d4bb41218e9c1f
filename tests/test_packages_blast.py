"""The blast radius of package removals, on the host: reading the managers' dry runs, the
owners and dependencies dpkg reports, judging a removal, and the pinned reinstall.

The apt, apt-cache and dpkg samples are real output recorded in the Debian test bed
(bookworm, its local repository). The dnf and pacman samples are written by hand in the
layout those tools print (dnf 4 and dnf 5 tables, pacman --print-format); no Fedora or
Arch machine was at hand to record them.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from reos.execution import package_guard, package_sim, packages
from reos.model.plan import Plan, Step
from reos.model.request import Kind
from reos.model.risk import RiskLevel
from reos.model.target import Target
from reos.system.state import reinstall_argv

# -- real output from the Debian bed -------------------------------------------------------
APT_REMOVE_INTERPRETER = """\
Reading package lists...
Building dependency tree...
The following packages will be REMOVED:
  python3 python3-distutils python3-lib2to3 python3-minimal python3-venv
  python3.11 python3.11-minimal python3.11-venv
0 upgraded, 0 newly installed, 8 to remove and 0 not upgraded.
Remv python3-venv [3.11.2-1+b1]
Remv python3.11-venv [3.11.2-6+deb12u8]
Remv python3-distutils [3.11.2-3]
Remv python3-lib2to3 [3.11.2-3]
Remv python3 [3.11.2-1+b1]
Remv python3-minimal [3.11.2-1+b1]
Remv python3.11 [3.11.2-6+deb12u8]
Remv python3.11-minimal [3.11.2-6+deb12u8]
"""

APT_PURGE = """\
Reading package lists...
Building dependency tree...
Reading state information...
The following packages will be REMOVED:
  reos-demo-app* reos-demo-base*
0 upgraded, 0 newly installed, 2 to remove and 0 not upgraded.
Purg reos-demo-app [1.0]
Purg reos-demo-base [1.0]
"""

APT_INSTALL = """\
Reading package lists...
Building dependency tree...
Reading state information...
The following additional packages will be installed:
  reos-demo-extra reos-demo-lib
The following NEW packages will be installed:
  reos-demo-extra reos-demo-lib reos-demo-tool
0 upgraded, 3 newly installed, 0 to remove and 1 not upgraded.
Inst reos-demo-extra (1.0 localhost [all])
Inst reos-demo-lib (1.0 localhost [all])
Inst reos-demo-tool (2.1 localhost [all])
Conf reos-demo-extra (1.0 localhost [all])
Conf reos-demo-lib (1.0 localhost [all])
Conf reos-demo-tool (2.1 localhost [all])
"""

APT_POLICY = """\
reos-demo-local:
  Installed: 0.9
  Candidate: 0.9
  Version table:
 *** 0.9 100
        100 /var/lib/dpkg/status
reos-demo-base:
  Installed: 1.0
  Candidate: 1.1
  Version table:
     1.1 500
        500 file:/srv/repo ./ Packages
 *** 1.0 500
        500 file:/srv/repo ./ Packages
        100 /var/lib/dpkg/status
python3:
  Installed: 3.11.2-1+b1
  Candidate: 3.11.2-1+b1
  Version table:
 *** 3.11.2-1+b1 100
        100 /var/lib/dpkg/status
"""

DPKG_SEARCH = """\
python3-minimal: /usr/bin/python3
python3.11-minimal: /usr/bin/python3.11
systemd-sysv: /sbin/init
sudo: /usr/bin/sudo
dpkg: /usr/bin/dpkg
"""

DPKG_DEPENDS = (
    "dpkg\ttar (>= 1.28-1), libbz2-1.0, libc6 (>= 2.34), liblzma5 (>= 5.4.0), "
    "zlib1g (>= 1:1.1.4)\n"
    "python3\tpython3.11 (>= 3.11.2-1~), libpython3-stdlib (= 3.11.2-1+b1), "
    "python3-minimal (= 3.11.2-1+b1)\n"
    "reos-demo-tool\treos-demo-lib, reos-demo-extra, \n"
)

# -- hand-written in the tools' layouts (see the module docstring) -------------------------
DNF4_REMOVE = """\
Dependencies resolved.
================================================================================
 Package                      Arch      Version               Repository   Size
================================================================================
Removing:
 nano                         x86_64    5.6.1-5.el9           @baseos     2.7 M
Removing dependent packages:
 nano-default-editor-with-a-very-long-name
                              noarch    5.6.1-5.el9           @baseos     0
Removing unused dependencies:
 vim-filesystem               noarch    2:8.2.2637-20.el9_1   @appstream  40 k

Transaction Summary
================================================================================
Remove  3 Packages

Freed space: 2.7 M
Operation aborted.
"""

DNF5_REMOVE = """\
Package                 Arch   Version                 Repository      Size
Removing:
 htop                   x86_64 3.3.0-3.fc40            fedora     449.2 KiB
Removing unused dependencies:
 hwloc-libs             x86_64 2.10.0-3.fc40           fedora       2.8 MiB

Transaction Summary:
 Removing:           2 packages

Total size of inbound packages is 0 B. Need to download 0 B.
After this operation, 3 MiB will be freed (install 0 B, remove 3 MiB).
Operation aborted by the user.
"""

DNF_PROTECTED = """\
Error: 
 Problem: The operation would result in removing the following protected packages: systemd
(try to add '--skip-broken' to skip uninstallable packages)
"""

PACMAN_PRINT = """\
python-requests 2.31.0-2
python 3.11.5-1
"""


def test_apt_removal_lists_every_package_with_its_version() -> None:
    sim = package_sim.parse_apt(APT_REMOVE_INTERPRETER)
    assert len(sim.removed) == 8
    assert sim.removed["python3.11-minimal"] == "3.11.2-6+deb12u8"
    assert sim.removed["python3"] == "3.11.2-1+b1"
    assert sim.installed == {} and sim.problem is None


def test_apt_purge_and_install_lines() -> None:
    assert package_sim.parse_apt(APT_PURGE).removed == {"reos-demo-app": "1.0",
                                                         "reos-demo-base": "1.0"}
    sim = package_sim.parse_apt(APT_INSTALL)
    assert sim.installed == {"reos-demo-extra": "1.0", "reos-demo-lib": "1.0",
                             "reos-demo-tool": "2.1"}
    assert sim.removed == {}


def test_apt_multiarch_names_are_bare() -> None:
    sim = package_sim.parse_apt("Remv libfoo1:amd64 [1.2-3]\nPurg libbar:i386\n")
    assert sim.removed == {"libfoo1": "1.2-3", "libbar": ""}


def test_apt_policy_counts_only_versions_a_source_offers() -> None:
    offered = package_sim.parse_apt_policy(APT_POLICY)
    assert offered["reos-demo-base"] == {"1.0", "1.1"}
    assert offered["reos-demo-local"] == set()  # installed by hand: only dpkg's status knows it
    assert offered["python3"] == set()


def test_dnf4_sections_wrapped_names_and_epochs() -> None:
    sim = package_sim.parse_dnf(DNF4_REMOVE)
    assert sim.removed == {"nano": "5.6.1-5.el9",
                           "nano-default-editor-with-a-very-long-name": "5.6.1-5.el9",
                           "vim-filesystem": "8.2.2637-20.el9_1"}
    assert sim.problem is None


def test_dnf5_table_and_summary_are_told_apart() -> None:
    sim = package_sim.parse_dnf(DNF5_REMOVE)
    assert sim.removed == {"htop": "3.3.0-3.fc40", "hwloc-libs": "2.10.0-3.fc40"}


def test_dnf_refusing_protected_packages_is_a_problem() -> None:
    sim = package_sim.parse_dnf(DNF_PROTECTED)
    assert sim.removed == {}
    assert sim.problem is not None and "protected packages: systemd" in sim.problem


def test_pacman_print_targets() -> None:
    assert package_sim.parse_pacman(PACMAN_PRINT).removed == {
        "python-requests": "2.31.0-2", "python": "3.11.5-1"}


def test_dry_runs_match_the_recipes() -> None:
    assert package_sim.simulation_argv("apt", "purge", "x") == ["apt-get", "-s", "-q",
                                                                "purge", "x"]
    assert package_sim.simulation_argv("apt", "autoremove", None) == [
        "apt-get", "-s", "-q", "autoremove"]
    assert package_sim.simulation_argv("dnf", "remove", "x") == ["dnf", "remove",
                                                                 "--assumeno", "x"]
    assert package_sim.simulation_argv("pacman", "purge", "x") == [
        "pacman", "-Rns", "--print", "--print-format", "%n %v", "x"]
    assert package_sim.simulation_argv("zypper", "remove", "x") is None
    assert package_sim.simulation_argv("apt", "install", "x") is None
    assert package_sim.simulation_argv("apt", "remove", None) is None


def test_dpkg_owners_and_dependencies() -> None:
    owners = package_guard.parse_dpkg_search(
        DPKG_SEARCH + "libc6:amd64, libc6:i386: /usr/share/doc/libc6\n"
        "diversion by dash from: /bin/sh\n")
    assert owners["/usr/bin/python3.11"] == {"python3.11-minimal"}
    assert owners["/sbin/init"] == {"systemd-sysv"}
    assert owners["/usr/share/doc/libc6"] == {"libc6"}
    assert "/bin/sh" not in owners
    depends = package_guard.parse_dependencies(DPKG_DEPENDS)
    assert depends["python3"] == {"python3.11", "libpython3-stdlib", "python3-minimal"}
    assert depends["reos-demo-tool"] == {"reos-demo-lib", "reos-demo-extra"}
    assert "zlib1g" in depends["dpkg"]


def test_symlink_chain_follows_every_link(tmp_path: Path) -> None:
    real = tmp_path / "python3.11"
    real.write_text("")
    (tmp_path / "python3").symlink_to("python3.11")
    venv = tmp_path / "venv"
    venv.mkdir()
    (venv / "python").symlink_to(tmp_path / "python3")
    chain = package_guard.symlink_chain(str(venv / "python"))
    assert chain == [str(venv / "python"), str(tmp_path / "python3"), str(real)]
    assert package_guard.symlink_chain(str(real)) == [str(real)]


def _removal(name: str = "python3.11-minimal", needs_root: bool = False) -> tuple[Plan, Step]:
    step = Step(id="s1", title=f"Remove {name}", argv=["apt-get", "remove", "-y", name],
                needs_root=needs_root, risk=RiskLevel.MEDIUM, action="remove",
                target=Target(kind="package", name=name))
    return Plan(request=f"remove {name}", kind=Kind.ACTION, steps=[step]), step


def test_a_removal_taking_what_reos_runs_on_is_high_risk_and_says_why() -> None:
    plan, step = _removal()
    sim = package_sim.parse_apt(APT_REMOVE_INTERPRETER)
    vital = {"python3.11-minimal": package_guard.RUNS_REOS, "sudo": package_guard.SUDO}
    # zypper: no dry run to read and no versions to check, so nothing runs here
    packages.judge_removal(plan, step, "zypper", sim, vital)
    assert step.risk == RiskLevel.HIGH
    assert step.risk_reasons == ["removes python3.11-minimal, which reos itself runs on"]
    assert step.also is not None and len(step.also) == 7 and "python3" in step.also
    assert any("which reos itself runs on" in n for n in plan.notes)
    assert any("couldn't check that undo" in n for n in plan.notes)


def test_a_vital_target_is_high_risk_even_when_the_dry_run_fails() -> None:
    plan, step = _removal("dpkg")
    sim = package_sim.Simulation(problem="apt refuses: Error, pkgProblemResolver::Resolve")
    packages.judge_removal(plan, step, "zypper", sim, {"dpkg": package_guard.MANAGER})
    assert step.risk == RiskLevel.HIGH
    assert step.risk_reasons == ["removes dpkg, the package manager itself"]
    assert any("will likely fail" in n for n in plan.notes)


def test_a_removal_taking_many_packages_is_high_risk() -> None:
    plan, step = _removal("libfoo")
    sim = package_sim.Simulation(removed={f"pkg{n:02}": "1.0" for n in range(30)})
    packages.judge_removal(plan, step, "pacman", sim, {})
    assert step.risk == RiskLevel.HIGH
    assert "removes 30 packages" in step.risk_reasons
    listed = next(n for n in plan.notes if "also removes" in n)
    assert listed.endswith("and 18 more")  # 30 listed as a dozen names and the rest counted
    assert any("pacman cannot reinstall a chosen version" in n for n in plan.notes)


def test_an_ordinary_removal_stays_as_planned() -> None:
    plan, step = _removal("reos-demo-base")
    sim = package_sim.parse_apt(APT_PURGE)
    packages.judge_removal(plan, step, "pacman", sim, {"sudo": package_guard.SUDO})
    assert step.risk == RiskLevel.MEDIUM and step.risk_reasons == []
    assert step.also == ["reos-demo-app"]


def test_without_a_dry_run_the_plan_says_so() -> None:
    plan, step = _removal("htop")
    packages.judge_removal(plan, step, "apk", None, {})
    assert step.also is None and step.reversible
    assert any("couldn't preview" in n for n in plan.notes)


def test_reinstall_pins_each_version_the_way_each_manager_takes_it() -> None:
    taken = {"reos-demo-app": "1.0", "reos-demo-base": "1.0"}
    assert reinstall_argv("apt", taken) == [
        "apt-get", "install", "-y", "--no-remove", "--allow-downgrades", "reos-demo-app=1.0",
        "reos-demo-base=1.0"]
    assert reinstall_argv("dnf", {"nano": "5.6.1-5.el9"}) == [
        "dnf", "install", "-y", "nano-5.6.1-5.el9"]
    assert reinstall_argv("pacman", {"python": "3.11.5-1"}) == [
        "pacman", "-S", "--noconfirm", "python"]
    assert reinstall_argv("zypper", {"vim": "9.0-1.1"}) == [
        "zypper", "--non-interactive", "install", "--oldpackage", "vim=9.0-1.1"]
    assert reinstall_argv("apk", {"musl": "1.2.4-r2"}) == ["apk", "add", "musl=1.2.4-r2"]
    assert reinstall_argv("apt", {}) is None and reinstall_argv(None, taken) is None


def test_only_package_removals_are_watched_as_removals() -> None:
    _, removal = _removal()
    service = Step(id="s1", title="Stop x", argv=["systemctl", "stop", "x"], action="stop",
                   target=Target(kind="service", name="x.service"))
    container = Step(id="s1", title="Remove c", argv=["docker", "rm", "c"], action="remove",
                     target=Target(kind="container", name="c"))
    autoremove = Step(id="s1", title="Autoremove", argv=["apt-get", "autoremove", "-y"],
                      action="autoremove")
    assert packages._removes(removal) and packages._removes(autoremove)
    assert not packages._removes(service) and not packages._removes(container)
    assert packages.before_step(service) is None and packages.before_step(container) is None


def test_preview_of_a_plan_without_package_steps_changes_nothing() -> None:
    step = Step(id="s1", title="Stop x", argv=["systemctl", "stop", "x"], action="stop",
                target=Target(kind="service", name="x.service"))
    plan = Plan(request="stop x", kind=Kind.ACTION, steps=[step])
    assert packages.preview(plan, "apt") is False
    assert plan.notes == [] and step.also is None


def test_the_interpreter_paths_include_the_real_file() -> None:
    paths = package_guard._interpreter_paths()
    assert os.path.realpath(sys.executable) in paths
    assert any(p.endswith("os.py") for p in paths)


# -- an undo's removal, dry-run again before it runs (packages.takes_more) -----------------
def _dry_run(removed: dict[str, str] | None, problem: str | None = None):
    seen: list[tuple] = []

    def run(manager, action, name, also=()):
        seen.append((manager, action, name, also))
        return None if removed is None else package_sim.Simulation(removed=removed,
                                                                   problem=problem)
    return run, seen


def test_an_undo_removal_that_would_take_more_than_it_names_is_held() -> None:
    run, seen = _dry_run({"tool": "1", "lib": "1", "app": "2"})
    why = packages.takes_more(["sudo", "-n", "apt-get", "remove", "-y", "tool", "lib"],
                              "apt", run)
    assert why is not None and "would also remove app" in why
    assert seen == [("apt", "remove", "tool", ("lib",))]  # one transaction, as it runs


def test_an_undo_removal_taking_only_what_it_names_runs() -> None:
    run, _ = _dry_run({"tool": "1", "lib:amd64": "1"})
    assert packages.takes_more(["apt-get", "remove", "-y", "tool", "lib:amd64"], "apt",
                               run) is None


def test_an_unread_or_failing_dry_run_holds_the_undo() -> None:
    assert "could not read" in packages.takes_more(
        ["apt-get", "remove", "-y", "tool"], "apt", _dry_run(None)[0])
    assert "apt refuses" in packages.takes_more(
        ["apt-get", "remove", "-y", "tool"], "apt", _dry_run({}, "apt refuses: no")[0])


def test_an_option_among_the_names_is_never_dry_run() -> None:
    run, seen = _dry_run({})
    why = packages.takes_more(["apt-get", "remove", "-y", "tool",
                               "-oAPT::Get::Simulate=false"], "apt", run)
    assert why is not None and seen == []


def test_what_is_no_removal_is_not_judged_here_and_no_dry_run_holds_it() -> None:
    run, seen = _dry_run({"x": "1", "y": "1"})
    assert packages.takes_more(["apt-get", "install", "-y", "--reinstall", "tool"], "apt",
                               run) is None
    assert packages.takes_more(["apt-get", "remove", "-y"], "apt", run) is None
    # zypper removes what requires the package too, and reos has no dry run of it
    assert "no dry run" in (packages.takes_more(
        ["zypper", "--non-interactive", "remove", "tool"], "zypper", run) or "")
    assert seen == []


def test_an_undo_removal_that_would_install_something_is_held() -> None:
    def run(manager, action, name, also=()):  # type: ignore[no-untyped-def]
        return package_sim.Simulation(removed={"mta-a": "1"}, installed={"mta-b": "2"})

    why = packages.takes_more(["apt-get", "remove", "-y", "mta-a"], "apt", run)
    assert why is not None and "install mta-b" in why


# -- a journal row written before reinstalls gained --no-remove ---------------------------
def test_an_older_reinstall_undo_runs_as_reos_derives_it_now() -> None:
    from reos.execution.rederive import renewed

    now = ["sudo", "-n", "apt-get", "install", "-y", "--no-remove", "--allow-downgrades",
           "curl=7.88", "libcurl4=7.88"]
    older = [w for w in now if w != "--no-remove"]
    assert renewed(older, [now]) == now  # the same command, never removing anything
    assert renewed(now, [now]) == now
    assert renewed(older + ["extra=1"], [now]) is None  # anything else: not reos's
    assert renewed(["apt-get", "remove", "-y", "curl"], [now]) is None
