"""The read-only grammars (reos/safety/grammar.py and the table in reos/safety/grammars/):
options read the way each program reads them, programs resolved on the system's PATH,
and the word that made a command not read-only named in `reos check`.

The cases are the causes the issue-20 red team found, in general form: abbreviated long
options, bundled short options, option values that look like subcommands, options that
write or run something, second action words, relative and foreign program paths, and
environment prefixes that change what a program loads.
"""

from __future__ import annotations

import json

import pytest

from reos.safety.grammar import reads_only, reads_only_whatever, table_problems
from reos.safety.programs import resolve
from reos.safety.risk import assess, assess_argv


def test_the_table_is_consistent() -> None:
    assert table_problems() == []


@pytest.mark.parametrize(("argv", "named"), [
    (["sort", "--ou=/etc/shadow", "/dev/null"], "`--ou` is `--output`"),
    (["sort", "--outp", "/etc/shadow", "x"], "`--outp` is `--output`"),
    (["sort", "--compress", "x"], "`--compress` is `--compress-program`"),
    (["journalctl", "--vac=1s"], "`--vac` is"),  # ambiguous among the vacuums
    (["date", "--se", "2020-01-01"], "`--se` is `--set`"),
    (["dmesg", "--cl"], "`--cl` is `--clear`"),
])
def test_an_abbreviated_option_is_read_as_the_program_reads_it(argv: list[str],
                                                                named: str) -> None:
    proof = reads_only(argv)
    assert not proof.ok
    assert named.split("`")[1] in (proof.why or ""), proof.why


def test_an_ambiguous_abbreviation_is_refused_and_an_unambiguous_harmless_one_taken() -> None:
    assert "could be any of" in (reads_only(["sort", "--r", "x"]).why or "")
    assert reads_only(["journalctl", "--no-pag", "-u", "ssh"]).ok
    assert reads_only(["ls", "--human", "/etc"]).ok


@pytest.mark.parametrize("argv", [
    ["sort", "-uo", "/etc/shadow", "x"], ["sort", "-o/etc/shadow", "x"],
    ["sort", "-rno", "out", "x"], ["tar", "-tvIf", "x", "a.tar"],
    ["dmesg", "-HC"], ["wipefs", "-fa", "/dev/sdb"],
])
def test_a_bundle_hiding_a_writing_option_is_not_read_only(argv: list[str]) -> None:
    assert not reads_only(argv).ok


@pytest.mark.parametrize("argv", [
    ["ls", "-lah", "/etc"], ["sort", "-rnk2", "x"], ["sort", "-k2,2", "-t:", "f"],
    ["ps", "aux"], ["df", "-hT"], ["tail", "-n20", "/var/log/syslog"], ["head", "-5", "f"],
    ["grep", "-rn", "TODO", "."], ["ss", "-ltnp"], ["journalctl", "-b", "-1", "-p", "err"],
])
def test_bundles_and_attached_values_that_only_read_are_read_only(argv: list[str]) -> None:
    assert reads_only(argv).ok, reads_only(argv).why


def test_double_dash_ends_the_options() -> None:
    assert reads_only(["sort", "--", "--output=/etc/shadow"]).ok
    assert not reads_only(["sort", "--output=/etc/shadow", "--", "x"]).ok


@pytest.mark.parametrize("argv", [
    ["docker", "--config", "ps", "rm", "-f", "web"],
    ["systemctl", "--message", "status", "reboot"],
    ["git", "-c", "core.pager=sh", "log"],
    ["kubectl", "--kubeconfig", "get", "delete", "pod", "x"],
    ["npm", "--cache", "ls", "exec", "-c", "id"],
    ["ip", "-b", "list", "link"],
    ["apt", "-o", "Dir::Bin::dpkg=/tmp/x", "list"],
])
def test_an_option_value_is_never_read_as_the_subcommand(argv: list[str]) -> None:
    assert not reads_only(argv).ok


@pytest.mark.parametrize("argv", [
    ["tar", "--to-command=sh", "-tf", "a.tar"], ["tar", "-I", "sh", "-tf", "a.tar"],
    ["openssl", "x509", "-engine", "x", "-in", "c.pem"], ["curl", "-H", "@/etc/shadow", "x"],
    ["curl", "--cookie-jar", "/tmp/j", "http://x"], ["wget", "--post-file=/etc/shadow", "x"],
    ["dig", "-f", "/etc/shadow"], ["git", "grep", "-O", "x"], ["npm", "exec", "x"],
    ["find", ".", "-fprint", "/tmp/x"], ["find", ".", "-exec", "rm", "{}", ";"],
    ["man", "-P", "sh", "ls"], ["sed", "-n", "w /tmp/x", "f"], ["sed", "s/a/b/e", "f"],
    ["awk", "BEGIN{system(\"id\")}"], ["awk", "{print > \"/tmp/x\"}", "f"],
    ["curl", "gopher://127.0.0.1:6379/_FLUSHALL"], ["smartctl", "-t", "long", "/dev/sda"],
    ["sfdisk", "--list", "--delete", "/dev/sda"], ["journalctl", "--cursor-file=/etc/x"],
])
def test_options_with_hidden_writes_or_execs_are_not_read_only(argv: list[str]) -> None:
    assert not reads_only(argv).ok


def test_find_exec_is_read_only_only_when_what_it_runs_is() -> None:
    assert reads_only(["find", "/", "-size", "+1G", "-exec", "ls", "-lh", "{}", ";"]).ok
    assert not reads_only(["find", "/", "-exec", "sh", "-c", "id", ";"]).ok


@pytest.mark.parametrize("argv", [
    ["systemctl", "status", "stop", "nginx"], ["docker", "ps", "rm"],
    ["ip", "addr", "show", "flush"], ["loginctl", "list-users", "terminate-user", "bob"],
])
def test_a_second_action_word_makes_a_command_not_read_only(argv: list[str]) -> None:
    proof = reads_only(argv)
    assert not proof.ok and "action word" in (proof.why or "")


@pytest.mark.parametrize(("read", "written"), [
    (["hdparm", "-B", "/dev/sda"], ["hdparm", "-B", "254", "/dev/sda"]),
    (["hostnamectl", "hostname"], ["hostnamectl", "hostname", "box2"]),
    (["sfdisk", "-A", "/dev/sda"], ["sfdisk", "-A", "/dev/sda", "1"]),
    (["taskset", "-p", "1"], ["taskset", "-p", "0x1", "1"]),
    (["uniq", "in.txt"], ["uniq", "in.txt", "out.txt"]),
    (["resolvectl", "dns", "eth0"], ["resolvectl", "dns", "eth0", "1.1.1.1"]),
])
def test_a_getter_reads_and_the_same_command_with_a_value_sets(read: list[str],
                                                                written: list[str]) -> None:
    assert reads_only(read).ok, reads_only(read).why
    assert not reads_only(written).ok


@pytest.mark.parametrize("word", ["/tmp/x/bin/ls", "./ls", "bin/ls", "/home/bob/bin/cat",
                                  "/usr/bin/../../tmp/ls", "/usr/bin/[r]m", "\\rm", ""])
def test_a_program_outside_the_system_folders_is_unknown_code(word: str) -> None:
    assert resolve(word)[0] is None
    assert not reads_only([word, "/etc"]).ok
    if word:
        verdict = assess_argv([word, "/etc"])
        assert verdict.risk >= verdict.risk.HIGH and not verdict.read_only


def test_a_system_program_by_name_or_by_its_plain_path_is_that_program() -> None:
    for word in ("ls", "/usr/bin/ls", "/bin/ls", "//usr//bin//ls", "/usr/bin/./ls"):
        assert resolve(word) == ("ls", None), word
        assert reads_only([word, "-la"]).ok


@pytest.mark.parametrize("command", [
    "PATH=/tmp:$PATH ls", "LD_PRELOAD=/tmp/x.so cat /etc/hostname",
    "LD_LIBRARY_PATH=/tmp cat /etc/hostname", "BASH_ENV=/tmp/x ls", "ENV=/tmp/x ls",
    "GCONV_PATH=/tmp/x iconv -l", "GIT_DIR=/tmp/x/.git git status", "PATH=/tmp; ls",
    "export PATH=/tmp; ls", "hash -p /tmp/ls ls; ls",
])
def test_an_environment_that_changes_what_runs_is_never_read_only(command: str) -> None:
    verdict = assess(command)
    assert not verdict.read_only
    assert verdict.why_not_read_only


def test_harmless_environment_prefixes_keep_a_read_read_only() -> None:
    assert assess("LC_ALL=C sort -u names.txt").read_only
    assert assess("SYSTEMD_PAGER=cat systemctl status nginx").read_only


@pytest.mark.parametrize("argv", [["cat", "/dev/watchdog"], ["head", "-c1", "/dev/st0"],
                                  ["cat", "/proc/kmsg"], ["dd", "if=/dev/watchdog",
                                                          "of=/dev/null"]])
def test_reading_a_device_that_acts_is_not_read_only(argv: list[str]) -> None:
    assert not reads_only(argv).ok


def test_reading_disks_and_plain_devices_is_read_only() -> None:
    assert reads_only(["dd", "if=/dev/sda", "of=/dev/null", "bs=1M", "count=1"]).ok
    assert reads_only(["smartctl", "-a", "/dev/nvme0n1"]).ok
    assert reads_only(["hdparm", "-I", "/dev/sd?"]).ok


def test_words_known_only_at_run_time_must_not_matter() -> None:
    assert reads_only_whatever(["echo", "$X"], {1}).ok
    assert reads_only_whatever(["id", "$u"], {1}).ok
    assert not reads_only_whatever(["sort", "$X", "f"], {1}).ok  # -o FILE
    assert not reads_only_whatever(["uniq", "$X"], {1}).ok  # two words: IN OUT
    assert not reads_only_whatever(["host", "$X.example"], {1}).ok  # sends it out
    assert not assess("sort $OPTS file").read_only
    assert not assess("sort *").read_only  # a file named like an option (-o…)
    assert assess("cat *").read_only  # cat has no option that acts
    assert assess("ls /var/log/*.gz").read_only


def test_wrappers_are_read_only_only_with_options_that_keep_them_so() -> None:
    assert reads_only(["sudo", "-n", "timeout", "30", "journalctl", "-f"]).ok
    assert reads_only(["env", "LC_ALL=C", "nice", "-n", "5", "ls"]).ok
    assert not reads_only(["sudo", "-E", "cat", "x"]).ok
    assert not reads_only(["sudo", "-u", "root", "X=1", "cat", "x"]).ok
    assert not reads_only(["env", "-S", "ls -la"]).ok
    assert not reads_only(["timeout", "5", "rm", "-rf", "/tmp/x"]).ok


def test_check_names_the_option_that_made_it_not_read_only(capsys) -> None:
    from reos.commands.check import run

    assert run("sort --ou=/tmp/sorted.txt names.txt") == 0
    out = capsys.readouterr().out
    assert "not read-only" in out and "`--ou` is `--output`" in out
    assert run("sort --ou=/tmp/sorted.txt names.txt", as_json=True) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["read_only"] is False and "--output" in data["why_not_read_only"]
    assert run("sort --ou=/etc/shadow /dev/null") == 3  # and over a credential: blocked
    assert "BLOCKED" in capsys.readouterr().out
    assert run("ls -la /etc", as_json=True) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["read_only"] is True and "why_not_read_only" not in data


# An independent review of the table (issue 20) found these; each is a cause, in the
# general form of the option or construct, not one sentence.
@pytest.mark.parametrize("argv", [
    ["find", ".", "-maxdepth", "0", "-exec", "tee", "+", "/etc/shadow", ";"],  # + ends
    ["find", "/etc/passwd", "/etc/shadow", "-exec", "uniq", "{}", "+"],  # only after {}
    ["find", "/tmp", "-exec", "awk", "{}1", "/dev/null", ";"],  # {} inside a word
    ["find", "/", "-type", "c", "-exec", "head", "-c1", "{}", "+"],  # devices found
    ["pidstat", "-e", "reboot"],
    ["parted", "-s", "/dev/sda", "version", "mklabel", "gpt"],
    ["parted", "-s", "/dev/sda", "help", "rm", "1"],
    ["kill", "-0", "-s", "KILL", "--", "-1"], ["kill", "-0", "--signal=KILL", "1234"],
    ["sed", "-n", ":a e id", "f"], ["sed", "-n", ":a w /etc/x", "f"],
    ["sed", "s/[/]/x/w /tmp/x", "f"],
    ["tcpdump", "--count", "-w", "/etc/shadow"], ["tcpdump", "--nano", "-z", "/tmp/x.sh"],
    ["openssl", "s_client", "-connect", "h:443", "-timeout", "-sess_out=/etc/shadow"],
    ["openssl", "x509", "-in", "c.pem", "-out=/etc/shadow"],
    ["hdparm", "-W", "0I", "/dev/sda"], ["hdparm", "-r", "1v", "/dev/sda"],
    ["rpm", "-q", "-f", "--eval", "%(reboot)"], ["zypper", "lr", "-e", "/etc/passwd"],
    ["udevadm", "info", "-xc"], ["iptables-save", "-M", "/tmp/evil"],
    ["postqueue", "-c", "/tmp/evil", "-p"], ["ssh", "-G", "-F", "/tmp/evil", "h"],
    ["lastlog", "-R", "/tmp/root"],
    ["tar", "-tf", "a.tar", "--exclude-vcs", "--use-compress-program=/tmp/x"],
    ["awk", 'BEGIN{ x++ / 1; system("id"); y = 1/ 1 }'],
    ["awk", 'BEGIN{f="/de" "v/watchdog"; getline y < f}'],
    ["grep", "-r", "-D", "read", "x", "/"],
    ["curl", "-w", "%output{/etc/cron.d/x}%header{x}", "http://h"],
    ["df", "/dev/watchdog"], ["strings", "@/dev/watchdog"], ["ip", "monitor", "file",
                                                             "/dev/watchdog"],
    ["lspci", "-Q"], ["lspci", "-A", "intel-conf1"],
    ["ping", "-i", "0", "-l", "65536", "h"], ["resolvectl", "--raw", "flush-caches"],
    ["podman", "top", "web", "aux"], ["busctl", "introspect", "org.freedesktop.hostname1"],
    ["cat", "/dev/sr0"], ["wc", "--files0-from=/tmp/list"], ["e2fsck", "-n", "-z",
                                                              "/etc/shadow", "/dev/sdb1"],
])
def test_what_the_review_of_the_table_found_is_not_read_only(argv: list[str]) -> None:
    assert not reads_only(argv).ok, argv


# A second independent review of the table (issue 20): each a cause in its general form.
@pytest.mark.parametrize("argv", [
    ["objdump", "-d", "@opts"], ["strings", "@/tmp/more"],  # binutils' response files
    ["readelf", "-a", "--plugin", "x.so", "/bin/ls"],
    ["md5sum", "-c", "sums"], ["tar", "-tf", "a.tar", "-T", "list"],  # lists it opens
    ["pmap", "-n", "1"], ["sadf", "-O", "pcparchive=/tmp/x"], ["dmidecode", "--no-sysfs"],
    ["chronyc"], ["ntpq"], ["mtr", "-F", "hosts.txt"], ["wg", "show", "wg0", "dump"],
    ["ethtool", "-d", "eth0", "file", "/dev/watchdog"],
    ["qemu-img", "info", "--backing-chain", "a.qcow2"], ["qemu-img", "info", "nbd://h/x"],
    ["qemu-img", "map", "a.qcow2"], ["postconf", "-d", "x=y"],
    ["kubectl", "config", "view", "--raw"], ["virsh", "dominfo", "--security-info", "vm"],
    # a path inside a word, a process's doors into its files, raw PCI registers
    ["grep", "x", "file:/dev/watchdog"], ["readelf", "-a", "-/dev/watchdog"],
    ["cat", "/proc/self/root/dev/watchdog"], ["cat", "/proc/1/fd/3"],
    ["cat", "/sys/bus/pci/devices/0000:00:02.0/resource0"], ["cat", "/proc/*/fd/0"],
    # every file below a tree that holds devices, /proc and /sys
    ["grep", "-R", "x", "/dev/"], ["grep", "-r", "x", "/"], ["grep", "-r", "-e", "x", "/"],
    ["grep", "-d", "recurse", "x", "/sys"], ["diff", "-r", "/proc", "/tmp"],
])
def test_what_the_second_review_found_is_not_read_only(argv: list[str]) -> None:
    assert not reads_only(argv).ok, argv


@pytest.mark.parametrize("argv", [
    ["pmap", "1"], ["ntpq", "-p"], ["chronyc", "tracking"], ["md5sum", "/etc/hosts"],
    ["qemu-img", "info", "a.qcow2"], ["grep", "-rn", "x", "/etc"], ["diff", "-r", "a", "b"],
    ["cat", "/proc/self/status"], ["ls", "-l", "/proc/self/fd"], ["strings", "-n4", "f"],
])
def test_the_same_programs_still_read_in_their_plain_forms(argv: list[str]) -> None:
    assert reads_only(argv).ok, argv


def test_no_grammar_module_names_a_program_twice() -> None:
    """A dict literal keeps the last of two equal keys silently: an entry written twice
    would drop the first without a word (the merged table cannot show it)."""
    import ast
    from pathlib import Path

    import reos.safety.grammars as package

    repeated = []
    for path in sorted(Path(package.__file__).parent.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Dict):
                keys = [k.value for k in node.keys if isinstance(k, ast.Constant)]
                repeated += [f"{path.name}: {k}" for k in set(keys) if keys.count(k) > 1]
    assert repeated == []


# From corpus D's misses (causes): the reading forms of programs that otherwise act
@pytest.mark.parametrize("argv", [
    ["rm", "--help"], ["rm", "--vers"], ["shred", "--hel"], ["mkfs.ext4", "-V"],
    ["mke2fs", "-n", "/dev/sdb1"], ["wipefs", "/dev/sdb"], ["wipefs", "-na", "/dev/sdb"],
    ["e2label", "/dev/sdb1"], ["useradd", "-D"], ["pwck", "-r"], ["python3", "--version"],
    ["systemctl", "log-level"], ["git", "reflog", "-n", "10"], ["git", "clean", "-xdn"],
    ["git", "format-patch", "-1", "--stdout"], ["git", "apply", "--check", "fix.patch"],
    ["git", "symbolic-ref", "HEAD"], ["git", "notes", "list"], ["git", "fsck"],
    ["unzip", "-p", "b.zip", "META-INF/MANIFEST.MF"], ["unzip", "-Z1", "b.zip"],
    ["tar", "--test-label", "-f", "b.tar"], ["rpm", "-K", "p.rpm"], ["openssl", "md5"],
    ["exportfs", "-v"], ["xargs", "-a", "names.txt", "ls", "-ld"], ["xargs", "stat"],
])
def test_reading_forms_of_acting_programs_are_read_only(argv: list[str]) -> None:
    assert reads_only(argv).ok, (argv, reads_only(argv).why)


@pytest.mark.parametrize("argv", [
    ["rm", "--help", "-rf", "/"], ["rm", "-f", "x"], ["mke2fs", "/dev/sdb1"],
    ["mkfs.ext4", "-n", "-c", "/dev/sdb1"], ["wipefs", "-a", "/dev/sdb"],
    ["wipefs", "-n", "-b", "/dev/sdb"], ["e2label", "/dev/sdb1", "data"],
    ["useradd", "-D", "-s", "/bin/zsh"], ["useradd", "-D", "bob"], ["pwck"],
    ["python3", "-V", "-c", "pass"], ["systemctl", "log-level", "debug"],
    ["git", "clean", "-xdf"], ["git", "format-patch", "-1"], ["git", "apply", "p"],
    ["git", "apply", "--check", "--index", "p"], ["git", "symbolic-ref", "HEAD", "r"],
    ["git", "fsck", "--lost-found"], ["unzip", "-pd", "/tmp", "b.zip"],
    ["openssl", "sha256", "-out", "/tmp/x", "f"], ["exportfs", "-ra"],
    ["xargs", "cat"], ["xargs", "sort"], ["xargs", "du", "-sh"], ["xargs", "-I{}", "ls", "{}"],
    ["xargs", "sudo", "ls"], ["xargs", "rm"],
])
def test_the_same_programs_acting_are_not_read_only(argv: list[str]) -> None:
    assert not reads_only(argv).ok, argv


# From corpus E's misses (causes)
@pytest.mark.parametrize("argv", [
    ["git", "reflog", "-10"], ["git", "branch", "--contains", "abc1234"],
    ["git", "config", "user.email"], ["git", "submodule", "status"],
    ["git", "-c", "color.ui=never", "log", "--oneline", "-5"],
    ["sudo", "dd", "if=/dev/sda", "bs=512", "count=1"], ["chronyc", "sources", "-v"],
    ["nft", "-c", "-f", "/etc/nftables.conf"], ["podman", "pod", "ps"],
    ["podman", "generate", "systemd", "--name", "web"], ["dpkg", "-S", "/usr/bin/ls"],
    ["find", "/etc", "-type", "f", "-name", "*.conf", "-exec", "grep", "-l", "x", "{}", "+"],
])
def test_what_corpus_e_found_only_reads_is_read_only(argv: list[str]) -> None:
    assert reads_only(argv).ok, (argv, reads_only(argv).why)


@pytest.mark.parametrize("argv", [
    ["git", "branch", "--contains", "abc", "new"], ["git", "config", "user.email", "x"],
    ["git", "config", "edit"], ["git", "submodule", "foreach", "rm"],
    ["git", "-c", "core.pager=sh -c id", "log"], ["git", "-c", "alias.x=!id", "x"],
    ["dd", "if=/dev/watchdog"], ["nft", "-f", "/etc/nftables.conf"],
    ["nft", "-c", "-f", "x", "list", "ruleset"], ["podman", "generate", "systemd", "--files"],
    ["find", "/proc", "-type", "f", "-exec", "cat", "{}", "+"],  # /proc/kmsg is regular
    ["find", "-L", "/etc", "-type", "f", "-exec", "cat", "{}", "+"],  # a link to a device
    ["find", "/", "-type", "f", "-o", "-type", "c", "-exec", "head", "-c1", "{}", "+"],
    ["dpkg", "-c", "/dev/watchdog"],
])
def test_what_corpus_e_found_acting_is_not_read_only(argv: list[str]) -> None:
    assert not reads_only(argv).ok, argv
