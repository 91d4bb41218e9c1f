"""Names of programs the safety parts share: shells, programs that fetch from the network,
interpreters and the tools whose arguments can carry code. Plain data with no imports,
so the `reos plan` path can read them cheaply. Not responsible for judging anything.
"""

from __future__ import annotations

SHELLS = {"sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "ash", "rbash", "tcsh", "csh",
          "busybox-sh", "yash", "posh"}
DOWNLOADERS = {"curl", "wget", "fetch", "aria2c", "lynx", "links", "w3m", "nc", "ncat",
               "netcat", "socat", "scp", "sftp", "tftp", "ftp", "rsync", "http", "https",
               "xh", "curlie", "s3cmd", "gsutil", "aws"}

AWKS = {"awk", "gawk", "mawk", "nawk", "busybox-awk"}
INTERPRETERS = {"python": "-c", "python3": "-c", "python2": "-c", "pypy": "-c",
                "pypy3": "-c", "perl": "-e", "ruby": "-e", "node": "-e", "nodejs": "-e",
                "php": "-r", "lua": "-e", "luajit": "-e", "Rscript": "-e", "tclsh": "",
                "bun": "-e", "deno": "eval", "irb": "", "julia": "-e", "jshell": "",
                "expect": "-c", "osascript": "-e", "pwsh": "-c",
                "powershell": "-c", "groovy": "-e", "scala": "-e", "elixir": "-e",
                "erl": "-eval", "racket": "-e", "guile": "-c", "sbcl": "--eval"}
# programs whose arguments can carry code, writes or deletions (read by `payloads`)
CARRIERS = frozenset({*AWKS, "sed", "gsed", "find", "git", "man", "tar", "bsdtar", "gtar",
                      "rsync", "less", "more", "most", "fd", "fdfind", "vim", "vi", "nvim",
                      "ex", "view", "vimdiff", "rvim", "gdb"})
