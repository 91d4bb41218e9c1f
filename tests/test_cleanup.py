"""Freeing disk space: measured first, then only real items, each with its size and step.

The parsers and item rules of reos/planning/cleanup.py are tested on output captured
from real commands (the host of this repository and the Debian test bed): `du -s -B1`,
`journalctl --disk-usage`, `docker system df -v --format '{{json .}}'` and `dpkg-query`
over kernel packages (the kernel packages were built with dpkg-deb and installed with
dpkg in the bed, so the listing is dpkg's own). The end-to-end test plans against the
real docker engine: an exited container and a dangling image made for the test are
listed by their exact ids with their sizes, a running container never is.
"""

from __future__ import annotations

import json
import subprocess
import uuid

import pytest

from reos.engine import ReasoningEngine
from reos.model.plan import Plan
from reos.model.report import StepResult
from reos.model.request import Intent, Kind
from reos.model.risk import RiskLevel
from reos.planning import cleanup
from reos.settings import Settings
from reos.words.conversation import Voice, render

# -- captured output -----------------------------------------------------------------------
DU_HOST = "2417651712\t/var/cache/apt/archives\n"  # du -s -B1, as root on the host
DU_BED = "8192\t/var/cache/apt/archives\n"  # an empty cache in the bed
JOURNAL_EMPTY = "Archived and active journals take up 0B in the file system.\n"
JOURNAL_BED = "Archived and active journals take up 8.0M in the file system.\n"
JOURNAL_BIG = "Archived and active journals take up 210.9M in the file system.\n"
# journalctl --disk-usage as alice (no sudo, not in adm): stderr, exit 1
JOURNAL_DENIED = ("Hint: You are currently not seeing messages from other users and the system.\n"
                  "      Users in groups 'adm', 'systemd-journal' can see all messages.\n"
                  "      Pass -q to turn off this notice.\n"
                  "No journal files were opened due to insufficient permissions.\n")
SUDO_DENIED = ("sudo: unable to resolve host reos-bed: Temporary failure in name resolution\n"
               "sudo: a password is required\n")
DOCKER_DEAD = ("Cannot connect to the Docker daemon at unix:///nonexistent.sock. "
               "Is the docker daemon running?\n")
# docker system df -v --format '{{json .}}': h2cap-a exited (300kB written), h2cap-b exited
# and made from the dangling image 10565eb1 (a `docker commit` of h2cap-a), h2cap-c running
DOCKER_DF = r'''{"Images":[{"Containers":"1","CreatedAt":"2026-11-22 15:03:02 +0000 UTC","CreatedSince":"5 seconds ago","Digest":"","ID":"sha256:10565eb19e0b4edbc6662a7950a40c255795c6a46324d38902c815c06c5639a4","Repository":"\u003cnone\u003e","SharedSize":"1.982MB","Size":"2.28MB","Tag":"\u003cnone\u003e","UniqueSize":"300kB","VirtualSize":"2.282MB"},{"Containers":"0","CreatedAt":"2026-11-22 10:26:19 +0000 UTC","CreatedSince":"5 hours ago","Digest":"","ID":"sha256:b7368e16afa7091e112d58f20f8951da1a59196d812d3bd5459debb81251f7de","Repository":"reos-test/debian-systemd","SharedSize":"0B","Size":"204MB","Tag":"3","UniqueSize":"203.9MB","VirtualSize":"203.9MB"},{"Containers":"2","CreatedAt":"2026-11-22 10:25:14 +0000 UTC","CreatedSince":"5 hours ago","Digest":"","ID":"sha256:4e23ddf4986d936bfb6a350fc0c5f93ba17070bf98006c6df6306b93ec996ee5","Repository":"reos-test/busybox","SharedSize":"1.982MB","Size":"1.98MB","Tag":"latest","UniqueSize":"0B","VirtualSize":"1.982MB"}],"Containers":[{"Command":"\"sleep 300\"","CreatedAt":"2026-11-22 15:03:03 +0000 UTC","ID":"158f12e6a8d68d02860c36f3857ff8b842dbd936d4b0d6f03d757a686885f731","Image":"reos-test/busybox:latest","Labels":"reos.test.h2=1","LocalVolumes":"0","Mounts":"","Names":"h2cap-c","Networks":"none","Platform":null,"Ports":"","RunningFor":"4 seconds ago","Size":"0B","State":"running","Status":"Up 4 seconds"},{"Command":"\"true\"","CreatedAt":"2026-11-22 15:03:02 +0000 UTC","ID":"9fcd76664919b3d3d9e6a0814b2b7767e82d8d79fd22cd233813c40347b41215","Image":"sha256:10565eb19e0b4edbc6662a7950a40c255795c6a46324d38902c815c06c5639a4","Labels":"reos.test.h2=1","LocalVolumes":"0","Mounts":"","Names":"h2cap-b","Networks":"none","Platform":null,"Ports":"","RunningFor":"5 seconds ago","Size":"0B","State":"exited","Status":"Exited (0) 4 seconds ago"},{"Command":"\"sh -c 'head -c 300000 /dev/urandom \u003e /blob; exit 0'\"","CreatedAt":"2026-11-22 15:02:59 +0000 UTC","ID":"87073f44aabb3a3da39045c72111063b2882b61c1474a1afd401ae128804fc97","Image":"reos-test/busybox:latest","Labels":"reos.test.h2=1","LocalVolumes":"0","Mounts":"","Names":"h2cap-a","Networks":"none","Platform":null,"Ports":"","RunningFor":"8 seconds ago","Size":"300kB","State":"exited","Status":"Exited (0) 7 seconds ago"}],"Volumes":[],"BuildCache":[]}
'''  # noqa: E501 - the document as docker printed it, on one line
EXITED = ["9fcd76664919b3d3d9e6a0814b2b7767e82d8d79fd22cd233813c40347b41215",
          "87073f44aabb3a3da39045c72111063b2882b61c1474a1afd401ae128804fc97"]
RUNNING = "158f12e6a8d68d02860c36f3857ff8b842dbd936d4b0d6f03d757a686885f731"
DANGLING = "sha256:10565eb19e0b4edbc6662a7950a40c255795c6a46324d38902c815c06c5639a4"
# dpkg-query -W -f '${Package}\t${db:Status-Abbrev}\t${Version}\t${Installed-Size}\n'
# 'linux-image-*' in the bed: 6.1.0-9 removed (config left: "rc"), linux-image-amd64 the
# meta package, 6.18.44-fc-v669 the release the bed runs (uname -r)
KERNELS = ("linux-image-6.1.0-17-amd64\tii \t6.1.69-1\t300\n"
           "linux-image-6.1.0-18-amd64\tii \t6.1.76-1\t400\n"
           "linux-image-6.1.0-20-amd64\tii \t6.1.85-1\t500\n"
           "linux-image-6.1.0-9-amd64\trc \t6.1.27-1\t200\n"
           "linux-image-6.18.44-fc-v669\tii \t1.0\t100\n"
           "linux-image-amd64\tii \t6.1.85-1\t0\n")
NO_KERNELS = "dpkg-query: no packages found matching linux-image-*\n"


def ran(key: str, stdout: str = "", stderr: str = "", code: int = 0) -> StepResult:
    return StepResult(key, code == 0, code, stdout, stderr, 0.1)


# -- parsers ---------------------------------------------------------------------------------
def test_du_and_journal_sizes_are_read_in_bytes() -> None:
    assert cleanup.parse_du(DU_HOST) == 2417651712
    assert cleanup.parse_du(DU_BED) == 8192
    assert cleanup.parse_du("du: cannot read directory '/x': Permission denied\n") is None
    assert cleanup.parse_journal(JOURNAL_EMPTY) == 0
    assert cleanup.parse_journal(JOURNAL_BED) == 8 * cleanup.MIB
    assert cleanup.parse_journal(JOURNAL_BIG) == int(210.9 * cleanup.MIB)
    assert cleanup.parse_journal(JOURNAL_DENIED) is None


def test_docker_sizes_are_decimal_and_not_available_is_unknown() -> None:
    assert cleanup.docker_bytes("300kB") == 300_000
    assert cleanup.docker_bytes("1.982MB") == 1_982_000
    assert cleanup.docker_bytes("203.9MB") == 203_900_000
    assert cleanup.docker_bytes("0B") == 0
    assert cleanup.docker_bytes("N/A") is None


def test_docker_system_df_lists_containers_with_state_and_images_with_users() -> None:
    parsed = cleanup.parse_docker_df(DOCKER_DF)
    assert parsed is not None
    containers, images = parsed
    assert {c.id: c.state for c in containers} == {
        RUNNING: "running", EXITED[0]: "exited", EXITED[1]: "exited"}
    assert next(c for c in containers if c.name == "h2cap-a").size == 300_000
    dangling = [i for i in images if i.dangling]
    assert [(i.id, i.containers, i.size) for i in dangling] == [(DANGLING, 1, 300_000)]
    assert cleanup.parse_docker_df(DOCKER_DEAD) is None
    assert cleanup.parse_docker_df("[]") is None


def test_only_installed_versioned_kernel_packages_are_read() -> None:
    kernels = cleanup.parse_kernels(KERNELS)
    assert [k.package for k in kernels] == [
        "linux-image-6.1.0-17-amd64", "linux-image-6.1.0-18-amd64",
        "linux-image-6.1.0-20-amd64", "linux-image-6.18.44-fc-v669"]  # no rc, no meta
    assert kernels[0].size == 300 * 1024 and kernels[0].version == "6.1.69-1"
    assert cleanup.parse_kernels(NO_KERNELS) == []


@pytest.mark.parametrize(("running", "offered"), [
    # the newest installed is 6.18.44-fc-v669: it stays, and so does the running one
    ("6.1.0-18-amd64", ["linux-image-6.1.0-17-amd64", "linux-image-6.1.0-20-amd64"]),
    ("6.1.0-20-amd64", ["linux-image-6.1.0-17-amd64", "linux-image-6.1.0-18-amd64"]),
    # the bed: its running release is also the newest installed
    ("6.18.44-fc-v669", ["linux-image-6.1.0-17-amd64", "linux-image-6.1.0-18-amd64",
                         "linux-image-6.1.0-20-amd64"]),
    # a running release reos cannot read: nothing is offered at all
    ("", []),
])
def test_the_running_and_the_newest_kernel_are_never_offered(running: str,
                                                             offered: list[str]) -> None:
    old = cleanup.old_kernels(cleanup.parse_kernels(KERNELS), running)
    assert [k.package for k in old] == offered


def test_a_flavour_of_the_running_release_is_kept_too() -> None:
    listing = ("linux-image-6.1.0-18-amd64\tii \t6.1.76-1\t400\n"
               "linux-image-6.1.0-18-rt-amd64\tii \t6.1.76-1\t410\n"
               "linux-image-6.1.0-18-amd64-dbg\tii \t6.1.76-1\t900\n"
               "linux-image-6.1.0-21-amd64\tii \t6.1.90-1\t500\n")
    assert cleanup.old_kernels(cleanup.parse_kernels(listing), "6.1.0-18-amd64") == []


# -- items -----------------------------------------------------------------------------------
def test_measured_items_each_get_their_own_step_with_size_and_risk() -> None:
    found, said = cleanup.items({
        "cache": ran("cache", DU_HOST), "journal": ran("journal", JOURNAL_BIG),
        "docker": ran("docker", DOCKER_DF), "kernels": ran("kernels", KERNELS)},
        "apt", "6.1.0-20-amd64")
    by_key = {i.key: i for i in found}
    assert list(by_key) == ["cache", "journal", "containers", "images",
                            "kernel:linux-image-6.1.0-17-amd64",
                            "kernel:linux-image-6.1.0-18-amd64"]
    assert by_key["cache"].argv == ["apt-get", "clean"] and by_key["cache"].size == 2417651712
    assert "2.3 GiB" in by_key["cache"].what
    assert by_key["journal"].argv == ["journalctl", "--vacuum-size=100M"]
    assert by_key["journal"].risk == RiskLevel.MEDIUM and by_key["journal"].upto
    assert by_key["containers"].argv == ["docker", "rm", *EXITED]
    assert "h2cap-a (87073f44aabb, 293 KiB)" in by_key["containers"].what
    assert by_key["images"].argv == ["docker", "image", "rm", DANGLING]
    assert by_key["images"].after == "containers"  # its only user goes first
    kernel = by_key["kernel:linux-image-6.1.0-17-amd64"]
    assert kernel.argv == ["apt-get", "purge", "-y", "linux-image-6.1.0-17-amd64"]
    assert kernel.risk == RiskLevel.HIGH and kernel.target is not None
    assert said == []


def test_a_dangling_image_a_staying_container_uses_is_left_alone() -> None:
    data = json.loads(DOCKER_DF)
    for row in data["Containers"]:
        if row["ID"] == EXITED[0]:
            row["State"] = "running"  # h2cap-b, the dangling image's user, now runs
    found, said = cleanup.items({"docker": ran("docker", json.dumps(data))}, "apt", "6.1")
    assert [i.argv for i in found] == [["docker", "rm", EXITED[1]]]
    assert any("still used by a container that stays" in s for s in said)


def test_many_exited_containers_are_all_removed_and_a_few_named() -> None:
    data = json.loads(DOCKER_DF)
    row = next(r for r in data["Containers"] if r["ID"] == EXITED[1])
    data["Containers"] = [dict(row, ID=f"{n:064x}", Names=f"old-{n}") for n in range(14)]
    found, _ = cleanup.items({"docker": ran("docker", json.dumps(data))}, "apt", "6.1")
    assert found[0].argv == ["docker", "rm", *(f"{n:064x}" for n in range(14))]
    assert found[0].what.endswith("old-9 (000000000000, 293 KiB) and 4 more")
    assert "Remove 14 exited containers (4 MiB)" in found[0].what


def test_small_things_are_measured_and_said_not_offered() -> None:
    found, said = cleanup.items({
        "cache": ran("cache", DU_BED), "journal": ran("journal", JOURNAL_BED),
        "kernels": ran("kernels", "", NO_KERNELS, 1)}, "apt", "6.18.44-fc-v669")
    assert found == []
    assert said == ["the package cache holds only 8 KiB",
                    "the journal uses 8 MiB, which I'd keep", "no kernel packages are installed"]


def test_what_could_not_be_measured_is_said_in_words() -> None:
    found, said = cleanup.items({
        "journal": ran("journal", "", SUDO_DENIED, 1),
        "docker": ran("docker", "", DOCKER_DEAD, 1)}, "apt", "6.1")
    assert found == []
    assert said[0] == "I couldn't measure the journal: sudo: a password is required"
    assert said[1] == ("I couldn't ask docker about containers and images: Cannot connect "
                       "to the Docker daemon at unix:///nonexistent.sock. Is the docker "
                       "daemon running?")


def test_a_measurement_the_gate_refused_is_said() -> None:
    found, said = cleanup.items({}, "apt", "6.1", {"the journal": "it can change the machine"})
    assert found == [] and said == ["I couldn't measure the journal: it can change the machine"]


def test_every_probe_passes_the_gate_as_read_only() -> None:
    from reos.safety.gate import admit_argv

    for root in (True, False):
        for probe in cleanup.probes("apt", root, which=lambda name: name,
                                    isdir=lambda path: True):
            admission = admit_argv(probe.argv, claimed_read_only=True)
            assert admission.allowed and admission.read_only, (probe.argv, admission.reason)


def test_probes_fit_the_machine() -> None:
    everything = cleanup.probes("apt", True, which=lambda name: f"/usr/bin/{name}",
                                isdir=lambda path: True)
    assert [p.key for p in everything] == ["cache", "journal", "docker", "kernels"]
    assert everything[0].argv == ["du", "-s", "-B1", "/var/cache/apt/archives"]
    bare = cleanup.probes("dnf", False, which=lambda name: None, isdir=lambda path: False)
    assert bare == []
    dnf5 = cleanup.probes("dnf", False, which=lambda name: name == "journalctl" or None,
                          isdir=lambda path: path == "/var/cache/libdnf5")
    assert [p.argv for p in dnf5] == [["du", "-s", "-B1", "/var/cache/libdnf5"],
                                      ["sudo", "-n", "journalctl", "--disk-usage"]]


# -- the plan --------------------------------------------------------------------------------
def _plan() -> Plan:
    return Plan("free up disk space", Kind.ACTION, intent=Intent(
        Kind.ACTION, action="free_space", resource="cleanup", operation=cleanup.OPERATION))


def test_the_plan_says_the_total_and_lists_each_item() -> None:
    found, said = cleanup.items({"cache": ran("cache", DU_HOST),
                                 "docker": ran("docker", DOCKER_DF)}, "apt", "6.1")
    plan = _plan()
    lead = cleanup.apply(plan, found, said, False)
    render(plan, Voice())  # its words, as the planner renders every plan's
    assert lead.startswith("I measured first: about 2.3 GiB can be freed from 3 things")
    assert [s.argv for s in plan.steps] == [["sudo", "-n", "apt-get", "clean"],
                                            ["docker", "rm", *EXITED],
                                            ["docker", "image", "rm", DANGLING]]
    assert plan.steps[2].depends_on == ["s2"]
    assert all(not s.reversible and s.risk >= RiskLevel.LOW for s in plan.steps)
    assert plan.steps[1].risk >= RiskLevel.MEDIUM  # deleting containers is never low
    assert "removed containers cannot be brought back" in plan.text()
    assert "This cannot be undone" in plan.text()
    assert plan.needs_approval


def test_nothing_worth_cleaning_is_a_plain_answer() -> None:
    found, said = cleanup.items({"cache": ran("cache", DU_BED),
                                 "journal": ran("journal", JOURNAL_EMPTY)}, "apt", "6.1")
    plan = _plan()
    assert cleanup.apply(plan, found, said, True) == ""
    render(plan, Voice())
    assert plan.kind == Kind.QUERY and plan.steps == [] and not plan.needs_approval
    assert plan.text() == ("Nothing worth cleaning: the package cache holds only 8 KiB; "
                            "the journal uses 0 B, which I'd keep.")


def test_the_chat_measures_too_and_holds_what_it_found_for_approval() -> None:
    engine = ReasoningEngine(Settings())  # this machine, as the chat (TUI) asks it
    reply = engine.respond("could you clean up some space please")
    plan = reply.plan
    assert plan is not None and plan.intent is not None
    assert plan.intent.operation == cleanup.OPERATION
    if plan.steps:  # something here is worth cleaning: listed, and waiting for a yes
        assert reply.awaiting_approval and engine.pending is plan
        assert reply.text.startswith("I measured first:")
        assert all(not s.read_only for s in plan.steps)
        assert engine.respond("no").text == "Okay, I won't do that. Nothing was changed."
    else:
        assert not reply.awaiting_approval
        assert reply.text.startswith("Nothing worth cleaning: ")


def test_a_docker_daemon_that_does_not_answer_is_said_in_words(tmp_path, monkeypatch) -> None:
    import shutil

    if shutil.which("docker") is None:
        pytest.skip("no docker command here")
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/no-daemon.sock")  # the real CLI
    plan = ReasoningEngine(Settings()).plan("free up disk space")
    assert "I couldn't ask docker about containers and images: Cannot connect to the " \
           "Docker daemon" in plan.text()
    assert not any(s.argv[0] == "docker" for s in plan.steps)


def test_a_saved_snapshot_is_never_measured() -> None:
    from tests.understanding.evaluate import engines

    plan = engines()["apt"].plan("free up disk space")  # another machine: the recipe
    assert plan.kind == Kind.ACTION
    assert plan.steps[-1].argv[-2:] == ["apt-get", "clean"]
    assert "I measured first" not in plan.text()


# -- end to end, with the real docker engine ---------------------------------------------------
@pytest.mark.docker
def test_free_space_lists_exactly_the_exited_container_and_dangling_image(
        docker_client, tmp_path) -> None:
    from tests.conftest import IMAGE, RUN_ID

    label = f"reos.test.run={RUN_ID}"
    tag = f"h2{uuid.uuid4().hex[:6]}"

    def docker(*argv: str) -> str:
        return subprocess.run(["docker", *argv], capture_output=True, text=True, check=True,
                              timeout=60).stdout.strip()

    made: list[str] = []
    image = ""
    try:
        # 2 MB written: the exited container frees that much
        made.append(docker("run", "-d", "--name", f"{tag}-exited", "--label", label,
                           "--network", "none", IMAGE, "sh", "-c",
                           "head -c 2000000 /dev/urandom > /blob"))
        docker("wait", made[-1])
        image = docker("commit", "--change", f"LABEL {label}", made[-1])  # untagged
        made.append(docker("run", "-d", "--name", f"{tag}-fromimage", "--label", label,
                           "--network", "none", image, "true"))  # uses the dangling image
        docker("wait", made[-1])
        made.append(docker("run", "-d", "--name", f"{tag}-running", "--label", label,
                           "--network", "none", IMAGE, "sleep", "120"))
        plan = ReasoningEngine(Settings()).plan("free up disk space")
        assert plan.kind == Kind.ACTION, plan.text()
        assert plan.text().startswith("I measured first:")
        removing = next(s for s in plan.steps if s.argv[:2] == ["docker", "rm"])
        ids = removing.argv[2:]
        assert made[0] in ids and made[1] in ids and made[2] not in ids  # never running
        for other in ids:  # other tests' containers may be exited too: only exited ones
            seen = subprocess.run(["docker", "inspect", "-f", "{{.State.Status}}", other],
                                  capture_output=True, text=True, timeout=60)
            assert seen.returncode != 0 or seen.stdout.strip() == "exited"  # or gone since
        assert f"{tag}-exited ({made[0][:12]}, 1.9 MiB)" in removing.title
        images = next(s for s in plan.steps if s.argv[:3] == ["docker", "image", "rm"])
        assert image in images.argv
        assert f"{image.removeprefix('sha256:')[:12]} (1.9 MiB)" in images.title
        assert removing.id in images.depends_on
        if sorted(ids) == sorted(made[:2]) and images.argv[3:] == [image]:
            # nobody else's containers or images are in these steps: approve just them
            # (as deselecting the rest would), and they are really gone
            picked = Plan(plan.request, Kind.ACTION, intent=plan.intent,
                          steps=[removing, images])
            report = ReasoningEngine(Settings()).execute(picked)
            assert report.ok, report.stopped_reason
            for gone in made[:2]:
                assert subprocess.run(["docker", "inspect", gone],
                                      capture_output=True).returncode != 0
            assert subprocess.run(["docker", "image", "inspect", image],
                                  capture_output=True).returncode != 0
    finally:
        for cid in made:
            subprocess.run(["docker", "rm", "-f", cid], capture_output=True)
        if image:
            subprocess.run(["docker", "image", "rm", "-f", image], capture_output=True)
