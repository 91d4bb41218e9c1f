"""A yes/no question at the terminal, for the CLI's approvals: `Proceed? [y/N]: `.

The answer is read from stdin: y or yes is yes; n, no, an empty line or the end of input
is no; anything else asks again. ctrl+c is not an answer: it propagates (the CLI exits
130). Not responsible for whether there is a terminal to ask on (the commands check that
first) nor for what the question says (reos.words.narrate words them).
"""

from __future__ import annotations

import sys

from reos.text import clean

_YES = {"y", "yes"}
_NO = {"n", "no", ""}


def confirm(question: str) -> bool:
    """Ask `question` until it is answered; no unless the person says yes."""
    while True:
        sys.stdout.write(f"{clean(question)} [y/N]: ")
        sys.stdout.flush()
        line = sys.stdin.readline()
        if not line:  # the end of input: nobody is there to say yes
            sys.stdout.write("\n")
            return False
        answer = line.strip().lower()
        if answer in _YES or answer in _NO:
            return answer in _YES
        sys.stdout.write("Error: invalid input\n")
