"""Read-only grammars of the disk and filesystem tools: lsblk, findmnt, blkid, fdisk,
sfdisk, parted, gdisk, sgdisk, wipefs, smartctl, hdparm, nvme, blockdev, the LVM
reporters, mdadm, cryptsetup, btrfs, zfs, zpool, e2fsprogs and xfs readers, losetup,
dmsetup, swapon, mount, findfs, mountpoint, partx, badblocks, lsattr and getfacl.

Most of these tools can destroy data with one option, so only their listing forms are
taken: `fdisk -l`, `sfdisk --list` (and only when no option that writes comes with it:
`sfdisk --list --delete` is refused), `parted DEV print`, `wipefs` without `-a`/`-o`,
`smartctl` without tests or settings. Format: `reos/safety/grammars/__init__.py`.
"""

from __future__ import annotations

DESTROYS = "writes to the disk"
QEMU_ELSEWHERE = {"--backing-chain --image-opts": "opens files or hosts the image names"}
CHANGES = "changes the storage configuration"

_LVM_REPORT = {
    "short": "aqv",
    "short_values": "oOS",
    "abbrev": False,
    "flags": "--all --noheadings --nosuffix --unbuffered --binary --aligned "
             "--nameprefixes --rows --segments --unquoted --quiet --verbose "
             "--readonly --nolocking --help --version",
    "values": "--options --sort --separator --select --units --reportformat",
    "deny": {"--config --commandprofile --profile --driverloaded": "reads another "
             "configuration"},
    "operands": "names",
}
_LVM_DISPLAY = {**_LVM_REPORT, "short": "aqvcCm",
                "flags": f"{_LVM_REPORT['flags']} --columns --colon --maps"}

# mke2fs -n shows what it would create and writes nothing (no discard either); -V only
# prints its version
_MKE2FS = {"short": "nqvFV", "short_values": "tTbiINmLOU", "abbrev": False,
           "operands": "need:-n|-V"}

TABLE: dict[str, dict] = {
    "mke2fs": _MKE2FS, "mkfs.ext2": _MKE2FS, "mkfs.ext3": _MKE2FS, "mkfs.ext4": _MKE2FS,
    "mkfs.xfs": {"short": "V", "abbrev": False, "operands": "only:-V"},
    # without -a or -o it only lists the signatures; -n (no-act) erases nothing
    "wipefs": {"short": "afinpqJ", "short_values": "tOo",
               "flags": "--all --force --noheadings --no-act --parsable --quiet --json "
                        "--help --version",
               "values": "--types --output --offset", "optional": "--lock",
               "deny": {"-b --backup": "writes a file"}, "operands": "wipefs"},
    # one device shows its label; a second word sets it
    "e2label": {"abbrev": False, "operands": "max1"},
    "lsblk": {
        "short": "AaDJMOPSTbdfilmnprstyz",
        "short_values": "EIeowx",
        "flags": "--noempty --all --discard --json --merge --output-all --pairs --scsi "
                 "--bytes --nodeps --fs --ascii --list --perms --noheadings --paths --raw "
                 "--inverse --topology --shell --zoned --help --version",
        "values": "--dedup --include --exclude --output --width --sort --sysroot",
        "optional": "--tree",
        "operands": "names",
    },
    "findmnt": {
        "short": "smkAabCcDefiJlnPRrUuvyx",
        "short_values": "wdFNOoStTM",
        "flags": "--fstab --mtab --kernel --all --ascii --bytes --nocanonicalize "
                 "--canonicalize --df --evaluate --first-only --invert --json --list "
                 "--noheadings --output-all --pairs --pseudo --shadowed --submounts --raw "
                 "--real --tree --uniq --notruncate --nofsroot --shell --verify --verbose "
                 "--vfs-all --help --version",
        "values": "--timeout --direction --tab-file --task --options --output --source "
                  "--target --mountpoint --types",
        "optional": "--poll",
        "operands": "names",
    },
    "blkid": {
        "short": "dklpiDhV",
        "short_values": "ostLUHSOunc",
        "flags": "--no-encoding --list-filesystems --list-one --probe --info "
                 "--no-part-details --help --version",
        "values": "--output --match-tag --match-token --label --uuid --hint --size "
                  "--offset --usages --match-types --cache-file",
        "checks": {"-c": "devnull", "--cache-file": "devnull"},
        "deny": {"-g --garbage-collect": "rewrites its cache"},
        "operands": "any",
    },
    "fdisk": {
        "short": "lx",
        "short_values": "o",
        "abbrev": False,
        "flags": "--list --list-details --bytes --help --version",
        "values": "--output",
        "deny": {"-w --wipe -W --wipe-partitions -t --type -b --sector-size -c "
                 "--compatibility -L --color -n --noauto-pt -s --getsz -u -C -H -S":
                     "only matters to an editing session, which can write the disk"},
        "operands": "need:-l|--list|-x|--list-details",
    },
    "sfdisk": {
        "short": "lsdJVFq",
        "abbrev": False,
        "flags": "--list --list-free --show-size --dump --json --verify --quiet --help "
                 "--version --show-geometry -g --part-type --part-uuid --part-label "
                 "--part-attrs --activate -A",
        "values": "--output --label --label-nested --sector-size --color",
        # --part-* and -A show with a device (and a number), change with one more word
        "deny": {"--delete --move-data --relocate --append -a -N --partno --no-reread "
                 "--no-act -n --wipe -w --wipe-partitions -W --force -f --backup -b "
                 "--backup-file -O --lock --disk-id --reorder -X --unit -u": DESTROYS},
        "operands": "sfdisk",
    },
    "parted": {
        "short": "lsmjvh",
        "short_values": "a",
        "abbrev": False,
        "flags": "--list --script --machine --json --version --help",
        "values": "--align",
        "deny": {"-f --fix": "answers its questions with changes"},
        "operands": "parted",
    },
    "gdisk": {"short": "l", "abbrev": False, "operands": "need:-l"},
    "sgdisk": {
        "short": "pvLOV",
        "short_values": "i",
        "abbrev": False,
        "flags": "--print --verify --list-types --print-mbr --version --pretend",
        "values": "--info",
        "deny": {"-Z --zap-all -z --zap -o --clear -n --new -d --delete -g --mbrtogpt "
                 "-t --typecode -c --change-name -R --replicate -G --randomize-guids -U "
                 "--disk-guid -u --partition-guid -e --move-second-header -m --gpttombr "
                 "-s --sort -x --set-alignment -a -b --backup -l --load-backup -A "
                 "--attributes -C --recompute-chs -h --hybrid -r --transpose": DESTROYS},
        "operands": "any",
    },
    "smartctl": {
        "short": "hViaxAcHj",
        "short_values": "dTbrnlqfg",
        "abbrev": False,
        "flags": "--help --usage --version --info --all --xall --attributes --capabilities "
                 "--health --scan --scan-open --json",
        "values": "--device --tolerance --badsum --report --nocheck --log --quietmode "
                  "--format --get --identify",
        "checks": {"-l": "smart-log", "--log": "smart-log"},
        "deny": {"-t --test -X --abort -s --smart -o --offlineauto -S --saveauto "
                 "--set -B --drivedb -F --firmwarebug -P --presets -v --vendorattribute":
                 "changes the disk's settings or starts a test"},
        "operands": "any",
    },
    "hdparm": {
        "short": "IigCtTHv",
        "abbrev": False,
        "flags": "--direct --verbose --Istdout",
        # these show a setting alone and change it with a value
        "getset": "-a -A -B -c -d -m -M -P -Q -r -W -u -n -R",
        # hdparm takes any next word that begins with a digit as the value (`-W 0I`)
        "checks": {o: "digit-start" for o in "-a -A -B -c -d -m -M -P -Q -r -W -u -n -R".split()},
        "deny": {"-b -D -E -f -F -J -k -K -L -N -p -q -s -S -U -w -x -X -y -Y -z -Z "
                 "--security-freeze "
                 "--security-unlock --security-set-pass --security-disable "
                 "--security-erase --security-erase-enhanced --trim-sector-ranges "
                 "--write-sector --repair-sector --make-bad-sector --fwdownload "
                 "--dco-restore --dco-setmax --idle-immediate --idle-unload "
                 "--yes-i-know-what-i-am-doing --please-destroy-my-drive": DESTROYS},
        "operands": "any",
    },
    "nvme": {
        "abbrev": False,
        "flags": "--help --version",
        "sub": {"list list-subsys smart-log id-ctrl id-ns error-log fw-log show-regs "
                "version list-ns effects-log device-self-test-log self-test-log ns-descs "
                "primary-ctrl-caps list-ctrl": {"abbrev": False, "short": "HvV",
                                                "short_values": "on",
                                                "flags": "--human-readable --verbose",
                                                "values": "--output-format "
                                                          "--namespace-id",
                                                "operands": "any"}},
    },
    "blockdev": {
        "short": "qv",
        "abbrev": False,
        "flags": "--report --getsz --getro --getdiscardzeroes --getss --getpbsz --getiomin "
                 "--getioopt --getalignoff --getmaxsect --getbsz --getsize --getsize64 "
                 "--getra --getfra --help --version",
        "deny": {"--setro --setrw --setbsz --setra --setfra --flushbufs --rereadpt":
                 CHANGES},
        "operands": "any",
    },
    "lvs": _LVM_REPORT, "vgs": _LVM_REPORT, "pvs": _LVM_REPORT,
    "lvdisplay": _LVM_DISPLAY, "vgdisplay": _LVM_DISPLAY, "pvdisplay": _LVM_DISPLAY,
    "mdadm": {
        "short": "DEQbsv",
        "abbrev": False,
        "flags": "--detail --examine --query --brief --scan --verbose --export --help "
                 "--version",
        "deny": {"-C --create -A --assemble -B --build -G --grow -I --incremental -a --add "
                 "-r --remove -f --fail -S --stop -o --readonly -w --readwrite "
                 "--zero-superblock --monitor -F --re-add --replace --wait --update":
                 CHANGES},
        "operands": "need:-D|--detail|-E|--examine|-Q|--query|--help|--version",
    },
    "cryptsetup": {
        "abbrev": False,
        "flags": "--help --version --verbose --debug",
        "deny": {"--dump-master-key --dump-volume-key --master-key-file "
                 "--volume-key-file": "prints the secret key"},
        "verbs": {"status luksDump isLuks benchmark tcryptDump bitlkDump fvault2Dump":
                  "any"},
        "actions": "open close luksOpen luksClose luksFormat erase luksErase luksAddKey "
                   "luksRemoveKey luksChangeKey luksKillSlot luksSuspend luksResume "
                   "luksHeaderBackup luksHeaderRestore reencrypt resize repair convert "
                   "config token refresh",
    },
    "btrfs": {
        "abbrev": False,
        "flags": "--help --version",
        "sub": {"filesystem fi": {"abbrev": False, "sub": {
                    "show df usage": {"abbrev": False, "short": "bdmghkTt",
                                      "flags": "--raw --human-readable --iec --si "
                                               "--kbytes --mbytes --gbytes --tbytes "
                                               "--all-devices --mounted",
                                      "operands": "any"}}},
                "subvolume subvol": {"abbrev": False, "sub": {
                    "list show": {"abbrev": False, "short": "apcgouqRsdtr",
                                  "values": "--sort",
                                  "operands": "any"}}},
                "device": {"abbrev": False, "sub": {
                    "stats": {"abbrev": False, "short": "c", "flags": "--check",
                              "deny": {"-z --reset": "resets the counters"},
                              "operands": "any"}}},
                "check": {"abbrev": False, "flags": "--readonly --progress",
                          "deny": {"--repair --init-csum-tree --init-extent-tree "
                                   "--clear-space-cache": "repairs the filesystem"},
                          "operands": "need:--readonly"},
                "scrub balance replace": {"abbrev": False, "sub": {
                    "status": {"abbrev": False, "short": "dR", "operands": "any"}}},
                "qgroup": {"abbrev": False, "sub": {
                    "show": {"abbrev": False, "short": "pcref", "operands": "any"}}}},
    },
    "zfs": {"abbrev": False, "verbs": {"list get": "names"}, "short": "Hpr",
            "short_values": "tosSd",
            "actions": "create destroy snapshot rollback clone "
            "promote rename set inherit mount unmount share unshare send receive recv "
            "allow unallow upgrade hold release load-key unload-key change-key"},
    "zpool": {"abbrev": False, "verbs": {"list status iostat history get": "names",
                                         "import": "none"},  # alone: what could be
              "short": "HpvxLPgilq", "short_values": "oT",
              "actions": "create destroy add remove attach detach replace scrub resilver "
                         "trim export upgrade online offline clear reguid set split "
                         "labelclear initialize sync"},
    # a check that answers "no" to every question opens the filesystem read-only
    "e2fsck": {"short": "nfvt", "short_values": "bBjlLE", "abbrev": False,
               "deny": {"-p -y -a -c -D -k": "repairs the filesystem",
                        "-z": "writes an undo file"},
               "operands": "need:-n"},
    "fsck": {"short": "NATVRs", "short_values": "tC", "abbrev": False,
             "operands": "need:-N"},
    "resize2fs": {"short": "P", "abbrev": False, "operands": "need:-P"},  # the minimum size
    "xfs_repair": {"short": "nvf", "abbrev": False, "operands": "need:-n",
                   "deny": {"-L": "zeroes the log", "-m -o -t -l -r -c": "changes how it "
                            "repairs"}},
    "xfs_admin": {"short": "lu", "abbrev": False, "operands": "need:-l|-u",
                  "deny": {"-L -U -c -e -j -p -O -r": "changes the filesystem"}},
    "qemu-img": {"abbrev": False, "flags": "--help --version", "sub": {
        # one local image file: no protocol (nbd://, json:), no chain of backing files
        # whose names come from the image itself
        "info": {"abbrev": False, "short": "U", "short_values": "f",
                 "flags": "--force-share", "values": "--output",
                 "deny": QEMU_ELSEWHERE, "operands": "local-image"},
        "check": {"abbrev": False, "short": "qU", "short_values": "fT", "flags":
                  "--force-share --quiet", "values": "--output",
                  "deny": {**QEMU_ELSEWHERE, "-r": "repairs the image"},
                  "operands": "local-image"},
        "snapshot": {"abbrev": False, "short": "lqU", "short_values": "f",
                     "flags": "--force-share", "deny": {**QEMU_ELSEWHERE,
                                                        "-a -c -d": "changes the image's "
                                                        "snapshots"},
                     "operands": "snapshot-list"}}},
    "dumpe2fs": {"short": "hxbV", "abbrev": False, "deny": {"-i": "reads an image file "
                 "as a filesystem"}, "short_values": "oE", "operands": "any"},
    "tune2fs": {"short": "l", "abbrev": False, "operands": "need:-l"},
    "xfs_info": {"abbrev": False, "operands": "any"},
    "losetup": {"short": "alnJ", "short_values": "jO", "abbrev": False,
                "flags": "--all --list --noheadings --json --output-all --raw --help "
                         "--version",
                "values": "--associated --output",
                "deny": {"-d --detach -D --detach-all -f --find -c --set-capacity -o "
                         "--offset --sizelimit -b --sector-size -P --partscan -r "
                         "--read-only --direct-io --show -L --nooverlap": CHANGES},
                "operands": "max1"},  # `losetup LOOP FILE` attaches
    "dmsetup": {"abbrev": False, "short": "v", "flags": "--noheadings --columns --tree "
                "--inactive --verbose --help --version", "values": "--options --sort "
                "--separator", "verbs": {"ls info status table deps version targets":
                                         "names"},
                "actions": "create remove remove_all suspend resume load clear reload "
                           "rename message wipe_table mknodes udevcomplete"},
    "lsscsi": {"short": "cdDgHiklLNpPsStuUvVwxg", "abbrev": False, "operands": "names"},
    "partx": {"short": "sgrbvP", "short_values": "ontS", "abbrev": False,
              "flags": "--show --noheadings --raw --bytes --verbose --pairs --help "
                       "--version", "values": "--output --nr --type --sector-size",
              "deny": {"-a --add -d --delete -u --update": CHANGES},
              "operands": "need:-s|--show"},
    "swapon": {"short": "sv", "abbrev": False, "flags": "--summary --noheadings --raw "
               "--bytes --verbose --help --version", "optional": "--show",
               "deny": {"-a --all -d --discard -e --ifexists -f --fixpgsz -o --options -p "
                        "--priority -L -U": "turns swap on"},
               "operands": "none"},
    "mount": {"short": "lv", "abbrev": False, "flags": "--show-labels --verbose --help "
              "--version", "values": "--types", "short_values": "t", "operands": "none"},
    "findfs": {"abbrev": False, "operands": "names"},
    "mountpoint": {"short": "qdx", "abbrev": False, "flags": "--quiet --fs-devno "
                   "--devno --help --version", "operands": "names"},
    "badblocks": {"short": "svf", "short_values": "bcdeit", "abbrev": False,
                  "deny": {"-w -n": DESTROYS, "-o": "writes a file", "-X": "skips checks"},
                  "operands": "any"},
    "lsattr": {"short": "RVadlpv", "flags": "--help --version", "operands": "names"},
    "getfacl": {"short": "acdeEnpPRstLv", "flags": "--access --omit-header --default "
                "--all-effective --no-effective --numeric --absolute-names --physical "
                "--recursive --skip-base --tabular --logical --version --help",
                "operands": "names"},
    "getcap": {"short": "rvnh", "operands": "names"},
    "namei": {"short": "xmolnvh", "flags": "--mountpoints --modes --owners --long "
              "--nosymlinks --vertical --help --version", "operands": "names"},
    "tree": {"short": "adlfxpsugDFqNQrtvUSnCAJhi", "short_values": "LPIH",
             "flags": "--noreport --inodes --device --dirsfirst --filesfirst --du --si "
                      "--prune --help --version --gitignore --info --matchdirs "
                      "--ignore-case",
             "values": "--timefmt --charset --filelimit --sort",
             "abbrev": False, "deny": {"-o -R": "writes files"}, "operands": "names"},
}
