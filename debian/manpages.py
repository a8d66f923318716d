#!/usr/bin/env python3
"""The man pages generate-manual writes (argv[1]), made fit for man-db (into argv[2]).

`transcribe serve` is transcribe-serve(1), as git-commit(1) is `git commit` (the name whatis and
`man transcribe-serve` know, the command line as typed in its synopsis); the help's blank lines
become paragraphs and its indented lines (examples, the environment) literal blocks;
`transcribe help`, ArgumentParser's own, gets no page.
"""
import os, sys

source, target = sys.argv[1:3]
os.makedirs(target, exist_ok=True)


def replace_once(lines, old, new, path):
    if lines.count(old) != 1:
        sys.exit(f"debian/manpages.py: {path} has {lines.count(old)} lines '{old}', not one: "
                 "generate-manual's output changed, adjust the man page fixes")
    lines[lines.index(old)] = new


for page, name in (
    ("transcribe.1", "transcribe"),
    ("transcribe.serve.1", "transcribe-serve"),
    ("transcribe.dictate.1", "transcribe-dictate"),
):
    path = os.path.join(source, page)
    with open(path, encoding="utf-8") as handle:
        lines = handle.read().rstrip("\n").split("\n")
    if name != "transcribe":
        command = name.split("-")[1]
        replace_once(lines, f".Dt TRANSCRIBE.{command.upper()} 1", f".Dt {name.upper()} 1", path)
        replace_once(lines, f'.Nm "transcribe {command}"', f".Nm {name}", path)
        synopsis = lines.index(".Sh SYNOPSIS")
        if lines[synopsis + 1] != ".Nm":
            sys.exit(f"debian/manpages.py: {path}'s synopsis does not start with .Nm")
        lines[synopsis + 1] = f".Nm transcribe Cm {command}"
        replace_once(lines, ".Ex -std", ".Ex -std transcribe", path)
        lines += ['.Sh "SEE ALSO"', ".Xr transcribe 1"]
    else:
        replace_once(lines, ".Xr transcribe.help 1 ,", None, path)
        replace_once(lines, ".Xr transcribe.dictate 1 ,", ".Xr transcribe-dictate 1 ,", path)
        replace_once(lines, ".Xr transcribe.serve 1", ".Xr transcribe-serve 1", path)
        lines = [line for line in lines if line is not None]
    out = []
    literal = False
    for line in lines:
        if line.startswith("  ") and not line.startswith("."):
            if not literal:
                out.append(".Bd -literal -offset indent")
                literal = True
            out.append(line[2:])
            continue
        if literal:
            out.append(".Ed")
            literal = False
        out.append(".Pp" if line == "" else line)
    if literal:
        out.append(".Ed")
    with open(os.path.join(target, f"{name}.1"), "w", encoding="utf-8") as handle:
        handle.write("\n".join(out) + "\n")
