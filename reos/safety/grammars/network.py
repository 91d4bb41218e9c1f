"""Read-only grammars of the network tools: ip, ss, ping, dig, host, traceroute, arp,
route, ethtool, the firewalls (iptables, nft, ufw, firewall-cmd), nmcli, curl, wget,
openssl and ssh-keygen.

iproute2 and nmcli match objects and commands by prefix in an order of their own (`ip
link s` is `set`), so only the plain spellings of their reading commands are taken.
curl and wget read only when nothing is saved, uploaded or sent from a file, and only
over http(s); openssl only in its printing subcommands, without `-out`, engines or
providers. Format: `reos/safety/grammars/__init__.py`.
"""

from __future__ import annotations

ELSEWHERE = "acts in another place"
WRITES = "writes a file"
SENDS = "reads a file and sends it"
CHANGES = "changes the network configuration"

_IP_SHOW = {"show list lst ls sh": "names"}
_IP_CHANGES = ("add del delete set change chg replace flush exec save restore append "
               "prepend test attach detach")


def _ip_object(verbs: dict[str, str] | None = None) -> dict:
    return {"style": "single", "verbs": verbs or _IP_SHOW, "default": "show",
            "actions": _IP_CHANGES, "abbrev": False}


_IPTABLES = {
    "short": "nvxLS",
    "short_values": "t",
    "maybe": "-w --wait",
    "checks": {"-w": "number", "--wait": "number"},
    "flags": "--list --list-rules --numeric --verbose --exact --line-numbers --help "
             "--version",
    "values": "--table --wait-interval",
    "abbrev": False,
    "deny": {"-A --append -D --delete -I --insert -R --replace -F --flush -Z --zero "
             "-N --new-chain -X --delete-chain -P --policy -E --rename-chain -C --check":
             CHANGES, "--modprobe -M": "runs a program"},
    "operands": "max1",
}

_OPENSSL_COMMON = "-in -inform -passin -nameopt -certopt -CAfile -CApath -CAstore " \
                  "-untrusted -servername -connect -starttls -alpn -cipher " \
                  "-ciphersuites -verify_hostname -checkend -checkhost -checkemail " \
                  "-checkip -rand -keyform -digest -host -port"
_OPENSSL_DENY = {"-out -writerand -sess_out -keylogfile -msgfile -keyout -signkey "
                 "-genkey -new -newkey -set_serial -sign -CAkey -CAcreateserial -CAserial "
                 "-req -x509 -selfsign -days -extfile -extensions -addtrust -addreject "
                 "-clrtrust -clrreject -setalias -trustout -outform": WRITES,
                 "-engine -provider -provider-path -propquery -config -ssl_config -conf":
                     "loads code or another configuration"}

PING = {"sends": "words", "short": "46aAbBdDhLnOqrRUvV", "short_values": "ceFiIlmMpQsStTwW",
        "checks": {"-i": "ping-interval", "-l": "one-of:1|2|3"}, "abbrev": False,
        "deny": {"-f": "floods the network"}, "operands": "names"}

TABLE: dict[str, dict] = {
    # alone (or -v) it lists what is shared over NFS; -s shows /etc/exports
    "exportfs": {"short": "vs", "abbrev": False, "operands": "none",
                 "deny": {"-a -r -u -i -f -o": "changes which folders are shared"}},
    "ip": {
        "style": "single",
        "flags": "-h -human -human-readable -s -stats -statistics -d -details -r -resolve "
                 "-4 -6 -0 -B -M -o -oneline -t -timestamp -ts -tshort -N -Numeric -a -all "
                 "-j -json -p -pretty -br -brief -c -color -color=always -color=never "
                 "-color=auto -V -Version",
        "values": "-f -family -l -loops -rc -rcvbuf -n -netns",
        "checks": {"-n": "word", "-netns": "word"},
        "deny": {"-b -batch": "runs commands from a file", "-force": "goes on after errors"},
        "sub": {
            "address addr a": _ip_object(),
            "link l": _ip_object(),
            "route r ro": _ip_object({"show list lst ls sh get": "names"}),
            "neighbour neighbor neigh n": _ip_object({"show list lst ls sh get": "names"}),
            "rule ru": _ip_object(),
            "maddress maddr": _ip_object(),
            "mroute": _ip_object(),
            "netconf": _ip_object(),
            "nexthop nh": _ip_object(),
            "tunnel": _ip_object(),
            "vrf": _ip_object(),
            "monitor": {"style": "single", "operands": "any", "actions": _IP_CHANGES},
            "netns": {"style": "single", "verbs": {"list identify list-id pids": "names"},
                      "default": "list", "actions": _IP_CHANGES},
        },
    },
    "ss": {
        "short": "hVHnraloemipsEZzb460tSudwxMOT",
        "short_values": "fAFN",
        "flags": "--help --version --no-header --numeric --resolve --all --listening "
                 "--options --extended --memory --processes --threads --info --tos "
                 "--cgroup --summary --events --context --contexts --bpf --ipv4 --ipv6 "
                 "--packet --tcp --sctp --udp --dccp --raw --unix --mptcp --tipc --vsock "
                 "--xdp --inet-sockopt --oneline --bpf-maps --tipcinfo",
        "values": "--family --query --socket --filter --net",
        "checks": {"--net": "word", "-N": "word"},
        "deny": {"-K --kill": "closes the sockets it lists", "-D --diag": WRITES},
        "operands": "names",
    },
    "ping": PING,
    "ping6": {**PING, "short": "aAbBdDhLnOqrRUvV"},  # ping without -4 and -6
    "dig": {"sends": "words",
        "short": "46hmruv",
        "short_values": "bcpqtx",
        "abbrev": False,
        "deny": {"-f": SENDS, "-k -y": "reads a key file"},
        "operands": "names",
    },
    "host": {"sends": "words", "short": "aACdlirsTUvVw46", "short_values": "cNRtWm",
             "abbrev": False, "operands": "names"},
    "nslookup": {"sends": "stdin", "anything": True},  # `nslookup - SERVER < FILE` asks it
    "tcpdump": {
        "short": "AbDdeJKLlnNOpqStuUvxX#",
        "short_values": "BcEFijmMQrsTVy",
        "flags": "--list-interfaces --list-time-stamp-types --immediate-mode --no-promiscuous-"
                 "mode --number --print --version --help --count --nano --micro",
        "values": "--interface --buffer-size --direction --time-stamp-type "
                  "--time-stamp-precision --snapshot-length --linktype",
        "checks": {"-F": "any", "-r": "any", "-V": "any"},
        "deny": {"-w -C -G -W": WRITES, "-z": "runs a program on each file it writes",
                 "-Z --relinquish-privileges": "changes the user it runs as"},
        "abbrev": False,
        "operands": "names",
    },
    "traceroute": {"sends": "words", "anything": True},
    "tracepath": {"sends": "words", "anything": True},
    "mtr": {"sends": "words", "short": "46uTerwjxClptgnbzhv",
            "short_values": "IafmUPLsBiGQZMcoyY",
            "flags": "--udp --tcp --mpls --report --report-wide --json --xml --csv --raw "
                     "--split --curses --gtk --no-dns --show-ips --aslookup --help --version",
            "values": "--interface --address --first-ttl --max-ttl --max-unknown --port "
                      "--localport --psize --bitpattern --interval --gracetime --tos "
                      "--timeout --mark --report-cycles --displaymode --order --ipinfo",
            "checks": {"-i": "ping-interval", "--interval": "ping-interval"},
            "deny": {"-F --filename": "sends the names a file holds"},
            "operands": "names"},
    "netstat": {"anything": True},
    "arp": {"short": "anveD", "short_values": "iHAt", "abbrev": False,
            "flags": "--all --numeric --verbose --device --help --version",
            "values": "--hw-type --protocol",
            "deny": {"-d --delete -s --set -f --file": CHANGES}, "operands": "names"},
    "route": {"short": "neCFv", "short_values": "A", "abbrev": False,
              "flags": "--numeric --extend --cache --fib --verbose --help --version",
              "actions": "add del delete flush change", "operands": "names"},
    "ifconfig": {"short": "asv", "abbrev": False, "operands": "max1"},
    "ethtool": {
        "style": "single",
        "flags": "-i --driver -k --show-features --show-offload -S --statistics -a "
                 "--show-pause -g --show-ring -c --show-coalesce -l --show-channels -m "
                 "--dump-module-eeprom --module-info -T --show-time-stamping -P "
                 "--show-permaddr --show-eee --show-fec --show-rxfh -x --show-rxfh-indir "
                 "-n -u --show-nfc --show-ntuple -d --register-dump -e --eeprom-dump "
                 "--show-priv-flags --show-tunnels --show-mm --show-pse --json -I "
                 "--include-statistics -h --help --version -Q --per-queue",
        "values": "--debug",
        "deny": {"-s --change -K --features --offload -A --pause -G --set-ring -C "
                 "--coalesce -L --set-channels -E --change-eeprom -r --negotiate -N -U "
                 "--config-nfc --config-ntuple -X --set-rxfh-indir --set-priv-flags "
                 "--set-eee --set-fec -W --set-dump -M --set-mm --set-pse "
                 "--reset --set-phy-tunable --cable-test --cable-test-tdr": CHANGES,
                 "-p --identify": "blinks the port", "-t --test": "takes the link down "
                 "to test it", "-f --flash": "writes firmware"},
        "operands": "any",  # `ethtool -d eth0 file FILE` opens FILE
    },
    "iptables": _IPTABLES, "ip6tables": _IPTABLES, "iptables-legacy": _IPTABLES,
    "ip6tables-legacy": _IPTABLES, "iptables-nft": _IPTABLES, "ip6tables-nft": _IPTABLES,
    "iptables-save": {"short": "cV", "short_values": "t", "abbrev": False,
                      "flags": "--counters --version", "values": "--table",
                      "deny": {"-f --file": WRITES, "-M --modprobe": "runs a program"},
                      "operands": "none"},
    "nft": {
        "short": "jansSNyptcehvu",
        "flags": "--json --handle --numeric --stateless --service --reversedns --guid "
                 "--numeric-priority --numeric-protocol --numeric-time --terse --check "
                 "--echo --help --version --version-long",
        "short_values": "f", "values": "--debug --file",
        "deny": {"-i --interactive -I --includepath -D --define": "runs "
                 "commands from elsewhere", "-o --optimize": "rewrites the rules"},
        "operands": "nft",  # -f FILE only with -c, which checks it without applying
        "default": "usage",
        "sub": {"list": {"operands": "plain-words", "actions": "add create insert replace "
                         "delete destroy flush reset rename"},
                "describe": {"operands": "plain-words"},
                "monitor": {"operands": "plain-words"}},
    },
    "ufw": {
        "abbrev": False,
        "flags": "--version --help",
        "deny": {"--force --dry-run": "changes how a command that acts behaves"},
        "sub": {"status": {"operands": "ufw-status"},
                "app": {"sub": {"list": {"operands": "none"}, "info": {"operands": "max1"}}},
                "show": {"operands": "max1"}, "version": {"operands": "none"}},
    },
    "firewall-cmd": {
        "abbrev": False,
        "flags": "--state --get-default-zone --get-active-zones --get-zones --get-services "
                 "--get-icmptypes --get-ipsets --get-helpers --get-policies --get-log-denied "
                 "--get-automatic-helpers --list-all --list-all-zones --list-all-policies "
                 "--list-services --list-ports --list-protocols --list-source-ports "
                 "--list-rich-rules --list-forward-ports --list-interfaces --list-sources "
                 "--list-icmp-blocks --list-lockdown-whitelist-commands --query-masquerade "
                 "--query-panic --query-lockdown --query-icmp-block-inversion --permanent "
                 "--version --help --quiet -q -h -V",
        "values": "--zone --policy --get-zone-of-interface --get-zone-of-source "
                  "--info-zone --info-service --info-policy --info-ipset --info-icmptype "
                  "--info-helper --query-service --query-port --query-interface "
                  "--query-source --query-protocol --query-rich-rule --query-forward-port "
                  "--query-source-port --query-icmp-block --service --ipset --icmptype "
                  "--helper",
        "operands": "none",
    },
    # tailscale's reports; up, down, set, login, logout, serve and funnel change things
    "tailscale": {"abbrev": False, "sub": {
        "status": {"abbrev": False, "flags": "--json --peers --active --self --browser=false",
                   "operands": "none"},
        "ip": {"abbrev": False, "short": "", "flags": "-4 -6 -1", "operands": "max1"},
        "netcheck version": {"abbrev": False, "flags": "--format=json --verbose",
                             "operands": "none"},
    }},
    "nmcli": {
        "short": "tph",
        "short_values": "mfgewc",
        "flags": "--terse --pretty --help --version",
        "values": "--mode --fields --get-values --escape --wait --colors",
        "deny": {"-a --ask": "asks questions", "-s --show-secrets": "prints secrets"},
        "abbrev": False,
        "sub": {
            "general g gen": {"verbs": {"status permissions": "none",
                                        "hostname logging": "none"},
                              "default": "status", "abbrev": False},
            "networking n net": {"verbs": {"connectivity": "none"},
                                 "default": "connectivity",
                                 "abbrev": False},
            "radio r": {"verbs": {"all wifi wwan": "none"}, "default": "all",
                        "abbrev": False},
            "connection c con conn": {"flags": "--active", "values": "--order",
                                      "verbs": {"show": "names"}, "default": "show",
                                      "actions": "up down modify add edit clone delete "
                                                 "monitor reload load import export "
                                                 "migrate", "abbrev": False},
            # `device wifi list` reads the networks in range (a scan when the list is
            # old); connect, hotspot, rescan and show-password (a secret) do not read
            "device d dev": {"abbrev": False, "default": "status", "sub": {
                "status": {"abbrev": False, "operands": "none"},
                "show lldp": {"abbrev": False, "operands": "names"},
                "wifi": {"abbrev": False, "default": "list", "sub": {
                    "list": {"abbrev": False, "values": "--rescan",
                             "checks": {"--rescan": "one-of:yes|no|auto"},
                             "operands": "names"}}},
            }},
        },
    },
    "curl": {
        "sends": "words",
        "short": "sSLIkvifq46Vh",
        "short_values": "mwAeHrUxYyCzXo",
        "abbrev": False,
        "flags": "--silent --show-error --location --head --insecure --verbose --include "
                 "--fail --fail-with-body --compressed --http1.0 --http1.1 --http2 "
                 "--http2-prior-knowledge --http3 --tlsv1 --tlsv1.0 --tlsv1.1 --tlsv1.2 "
                 "--tlsv1.3 --ssl-no-revoke --no-progress-meter --no-buffer --ipv4 --ipv6 "
                 "--no-keepalive --path-as-is --globoff --help --version --manual "
                 "--disable --get --styled-output --no-styled-output --raw --tr-encoding "
                 "--fail-early --location-trusted --no-sessionid --no-alpn --no-npn "
                 "--parallel",
        "values": "--max-time --write-out --connect-timeout --user-agent --referer "
                  "--header --range --retry --retry-delay --retry-max-time "
                  "--max-redirs --proxy --noproxy --resolve --connect-to --cacert "
                  "--capath --interface --dns-servers --url --request --limit-rate "
                  "--speed-limit --speed-time --time-cond --max-filesize --user --output",
        "checks": {"-w": "no-at", "--write-out": "no-at", "-H": "no-at",
                   "--header": "no-at", "-X": "one-of:GET|HEAD",
                   "--request": "one-of:GET|HEAD", "--url": "web-url",
                   "-o": "devnull", "--output": "devnull"},
        "deny": {"-O --remote-name --remote-name-all --output-dir "
                 "--create-dirs -D --dump-header -c --cookie-jar --trace --trace-ascii "
                 "--stderr --libcurl --etag-save --hsts --alt-svc": WRITES,
                 "-T --upload-file -d --data --data-ascii --data-binary --data-raw "
                 "--data-urlencode -F --form --form-string --json -b --cookie "
                 "--netrc-file -n --netrc --netrc-optional --mail-rcpt --mail-from "
                 "--upload": "sends data",
                 "-K --config": "reads its options from a file",
                 "--unix-socket --abstract-unix-socket": "talks to a local socket",
                 "-E --cert --key": "sends a client certificate"},
        "operands": "web-urls",
    },
    "wget": {
        "sends": "words",
        "short": "qvSd46",
        "short_values": "TtUO",
        "abbrev": False,
        "flags": "--spider --quiet --verbose --no-verbose --server-response --debug "
                 "--no-check-certificate --inet4-only --inet6-only --no-proxy --no-dns-cache "
                 "--https-only --help --version --show-progress --progress=dot "
                 "--progress=bar",
        "values": "--timeout --tries --user-agent --header --max-redirect "
                  "--output-document --dns-timeout --connect-timeout --read-timeout "
                  "--wait --limit-rate",
        "checks": {"-O": "dash", "--output-document": "dash"},
        "deny": {"-o --output-file -a --append-output -P --directory-prefix -x "
                 "--force-directories -r --recursive -m --mirror -p --page-requisites "
                 "--save-cookies --save-headers -N --timestamping -c --continue -b "
                 "--background --warc-file --rejected-log -nd --no-directories": WRITES,
                 "--post-data --post-file --body-data --body-file --method "
                 "--load-cookies -i --input-file --http-user --http-password "
                 "--password --user": "sends data",
                 "-e --execute --config": "runs its own commands from elsewhere"},
        "operands": "wget",
    },
    "openssl": {
        "style": "single",
        "flags": "-help -version",
        "sub": {
            "x509": {"style": "single",
                     "flags": "-noout -text -dates -subject -issuer -fingerprint -serial "
                              "-enddate -startdate -hash -subject_hash -issuer_hash "
                              "-purpose -pubkey -modulus -email -ocspid -ocsp_uri "
                              "-sha1 -sha256 -sha384 -sha512 -md5 -alias -nocert "
                              "-help",
                     "values": _OPENSSL_COMMON + " -ext", "deny": _OPENSSL_DENY,
                     "operands": "none"},
            "req": {"style": "single", "flags": "-noout -text -verify -subject -pubkey "
                    "-modulus -help", "values": _OPENSSL_COMMON, "deny": _OPENSSL_DENY,
                    "operands": "none"},
            "crl": {"style": "single", "flags": "-noout -text -hash -issuer -lastupdate "
                    "-nextupdate -fingerprint -crlnumber -help", "values": _OPENSSL_COMMON,
                    "deny": _OPENSSL_DENY, "operands": "none"},
            "verify": {"style": "single", "flags": "-verbose -show_chain -crl_check "
                       "-crl_check_all -x509_strict -partial_chain -no-CAfile "
                       "-no-CApath -help", "values": _OPENSSL_COMMON + " -purpose",
                       "deny": _OPENSSL_DENY, "operands": "any"},
            "s_client": {"style": "single", "sends": "stdin", "flags": "-showcerts -brief -quiet "
                         "-verify_return_error -tls1 -tls1_1 -tls1_2 -tls1_3 -no_tls1_3 "
                         "-status -crlf -4 -6 -ign_eof -help -prexit -state -debug "
                         "-msg -nbio_test -timeout",
                         "values": _OPENSSL_COMMON + " -verify -verify_depth",
                         "deny": {**_OPENSSL_DENY, "-proxy": "goes through another host"},
                         "operands": "none"},
            "version": {"style": "single", "flags": "-a -v -b -o -f -p -d -e -m -r -c",
                        "operands": "none"},
            "ciphers": {"style": "single", "flags": "-v -V -s -tls1 -tls1_1 -tls1_2 "
                        "-tls1_3 -stdname -psk -srp -help", "values": "-ciphersuites",
                        "operands": "max1"},
            "list": {"style": "single", "flags": "-commands -digest-commands "
                     "-cipher-commands -digest-algorithms -cipher-algorithms "
                     "-public-key-algorithms -public-key-methods -mac-algorithms "
                     "-kdf-algorithms -key-managers -signature-algorithms "
                     "-key-exchange-algorithms -providers -verbose -help",
                     "values": "-options", "operands": "none"},
            "rsa ec pkey dsa": {"style": "single", "flags": "-noout -text -check -pubin "
                                "-pubout -modulus -help", "values": _OPENSSL_COMMON,
                                "deny": _OPENSSL_DENY, "operands": "none"},
            "asn1parse": {"style": "single", "flags": "-i -dump -noout -help",
                          "values": "-in -inform -offset -length -strparse -dlimit",
                          "deny": {**_OPENSSL_DENY, "-genstr -genconf": WRITES},
                          "operands": "none"},
            "rand": {"style": "single", "flags": "-hex -base64 -help", "deny": _OPENSSL_DENY,
                     "operands": "max1"},
            "dgst md5 sha1 sha224 sha256 sha384 sha512": {  # `openssl md5` is dgst -md5
                     "style": "single", "flags": "-sha1 -sha256 -sha384 -sha512 -md5 "
                     "-sha3-256 -r -hex -c -help", "deny": _OPENSSL_DENY,
                     "operands": "any"},
        },
    },
    # only what prints without connecting: the resolved configuration (-G), the version,
    # what it supports (-Q)
    "ssh": {"short": "G46V", "short_values": "lpoQJ", "abbrev": False,
            "deny": {"-F": "reads another configuration (its `Match exec` runs commands)"},
            "checks": {"-o": "ssh-option"}, "operands": "ssh-print"},
    "tc": {
        "style": "single",
        "flags": "-s -stats -statistics -d -details -r -raw -p -pretty -i -iec -g -graph "
                 "-j -json -t -timestamp -ts -tshort -nm -name -h -help -V -Version",
        "values": "-n -netns",
        "checks": {"-n": "word", "-netns": "word"},
        "deny": {"-b -batch": "runs commands from a file", "-force": "goes on after errors"},
        "sub": {"qdisc class filter action chain monitor": {
            "style": "single", "verbs": {"show list ls": "names"}, "default": "show",
            "abbrev": False,
            "actions": "add del delete change replace link get flush exec"}},
    },
    "conntrack": {
        "short": "LSCGEn",
        "short_values": "opsdfmtw",
        "abbrev": False,
        "flags": "--dump --stats --count --get --event",
        "values": "--output --proto --src --dst --reply-src --reply-dst --sport --dport "
                  "--family --mark --timeout --zone --state --status",
        "deny": {"-D --delete -F --flush -U --update -I --create -R --load-file -z --zero "
                 "-i": "changes or empties the connection table"},
        "operands": "need:-L|--dump|-S|--stats|-C|--count|-G|--get|-E|--event",
    },
    # `wg show` (and `wg` alone) shows interfaces and peers; never their private keys
    "wg": {"abbrev": False, "sub": {"show": {"abbrev": False, "operands": "wg-show"}},
           "default": "show"},
    "ssh-keygen": {
        "short": "lyLBvq",
        "short_values": "FEf",
        "abbrev": False,
        "deny": {"-R -H": "rewrites known_hosts", "-N -p -P -t -b -C -c -A -s -I -n -V "
                 "-z -k -u -M -O -Y -e -i -m -a -G -T -r -g -w -x -Z": "creates or "
                 "changes keys", "-D": "loads a PKCS#11 module"},
        "operands": "need:-l|-F|-y|-L|-B",
    },
}
