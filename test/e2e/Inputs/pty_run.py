#!/usr/bin/env python3
"""Runs a command on a pseudo-terminal and prints what a terminal would show.

usage: pty_run.py [--raw FILE] -- COMMAND ARGS...

The command's stdout and stderr are the pseudo-terminal, so it sees a
terminal (isatty). Its bytes are replayed on a minimal terminal model: '\\r'
returns to the line's start, '\\n' goes to the next line, "ESC [ K" clears to
the end of the line, other escape sequences are ignored and any other
character overwrites the cell under the cursor. The screen's lines are
printed, then "redraws: N" (the number of carriage returns that did not end
a line, i.e. lines drawn over in place). --raw FILE keeps the raw bytes. The
exit status is the command's.
"""
import os
import pty
import signal
import sys


def screen(data):
    lines, row, col = [[]], 0, 0
    i = 0
    while i < len(data):
        c = data[i]
        if c == "\x1b":
            # CSI: ESC [ parameters final-byte.
            if i + 1 < len(data) and data[i + 1] == "[":
                j = i + 2
                while j < len(data) and not ("@" <= data[j] <= "~"):
                    j += 1
                if j < len(data) and data[j] == "K":
                    del lines[row][col:]
                i = j + 1
            else:
                i += 2
            continue
        if c == "\r":
            col = 0
        elif c == "\n":
            row, col = row + 1, 0
            if row == len(lines):
                lines.append([])
        else:
            line = lines[row]
            while len(line) < col:
                line.append(" ")
            if col < len(line):
                line[col] = c
            else:
                line.append(c)
            col += 1
        i += 1
    while lines and not lines[-1]:
        lines.pop()
    return ["".join(line).rstrip() for line in lines]


def main(argv):
    raw_path = None
    if argv and argv[0] == "--raw":
        raw_path, argv = argv[1], argv[2:]
    if not argv or argv[0] != "--":
        sys.exit(__doc__)
    command = argv[1:]
    signal.alarm(300)  # a hung command must not hang the test suite
    pid, fd = pty.fork()
    if pid == 0:
        try:
            os.execvp(command[0], command)
        finally:
            os._exit(127)
    chunks = []
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # EIO: the terminal's other side has closed
            break
        if not chunk:
            break
        chunks.append(chunk)
    _, status = os.waitpid(pid, 0)
    data = b"".join(chunks).decode("utf-8", "replace")
    if raw_path:
        with open(raw_path, "w") as f:
            f.write(data)
    # The terminal turns "\n" into "\r\n"; that carriage return ends a line.
    redraws = data.replace("\r\n", "\n").count("\r")
    for line in screen(data):
        print(line)
    print("redraws: %s" % ("many" if redraws >= 2 else redraws))
    return os.waitstatus_to_exitcode(status)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
