#!/usr/bin/env python3
"""tests/clients/readme_examples.py README LANG [OUTDIR SETUP]: the code
blocks of a client's README, checked and (with OUTDIR) written out as
programs for tests/clients/examples.sh to run against a throwaway cluster.

Every fenced code block of README must follow a marker, an HTML comment on
the line before its opening fence (a blank line between allowed):

    <!-- example: NAME -->              runs: a program of its own, after SETUP
    <!-- example: NAME after OTHER -->  runs after the block OTHER (and what
                                        OTHER runs after), in one program
    <!-- not run: REASON -->            is not run, for REASON (not empty)

An unmarked block, a marker before no block, a block of another language
than LANG (js, python) marked to run, an unknown OTHER or a name used twice
is an error: exit 1, with the README's line.  With OUTDIR, each marked
block NAME becomes OUTDIR/readme-NAME.mjs (js) or OUTDIR/readme_NAME.py
(python), made of SETUP (tests/clients/readme_setup.*: the data the
snippets assume, as the README says), then the chain of blocks, in order:

  js      ES module; import lines (one line each) are moved to the top,
          each once; the first block runs at top level, each later one
          inside a { } block nested in the one before, so that it sees the
          names of the blocks before it and may declare its own again (as
          a reader of the README does); then process.exit(0)
  python  the blocks one after another, as they are

Prints one line per block: "NAME: runs" (and after what) or "not run:
REASON".
"""

import re
import sys

MARKER = re.compile(r"^<!--\s*(example:\s*(?P<name>[a-z0-9][a-z0-9-]*)(\s+after\s+(?P<after>[a-z0-9][a-z0-9-]*))?|not run:\s*(?P<reason>.*?))\s*-->\s*$")
FENCE = re.compile(r"^```(?P<lang>[A-Za-z0-9_+-]*)\s*$")
LANGS = {"js": ("js", "javascript", "mjs"), "python": ("python", "py")}
IMPORT = re.compile(r"^import\s")


def blocks(path):
    """The README's fenced blocks: (line, language, code, marker match or None, marker line)."""
    lines = open(path, encoding="utf-8").read().split("\n")
    out, errors = [], []
    pending = None  # (line number, match) of a marker not yet followed by a block
    i = 0
    while i < len(lines):
        line = lines[i]
        m = MARKER.match(line)
        if m:
            if pending is not None:
                errors.append(f"{path}:{pending[0]}: a marker before no code block")
            pending = (i + 1, m)
            i += 1
            continue
        f = FENCE.match(line)
        if f:
            start = i
            i += 1
            code = []
            while i < len(lines) and not lines[i].startswith("```"):
                code.append(lines[i])
                i += 1
            if i == len(lines):
                errors.append(f"{path}:{start + 1}: a code block that does not end")
            marker = pending[1] if pending is not None else None
            out.append((start + 1, f.group("lang"), "\n".join(code) + "\n", marker))
            pending = None
        elif line.strip() and pending is not None:
            errors.append(f"{path}:{pending[0]}: a marker before no code block")
            pending = None
        i += 1
    if pending is not None:
        errors.append(f"{path}:{pending[0]}: a marker before no code block")
    return out, errors


def js_program(setup, chain):
    imports, bodies = [], []
    for _, code in [(None, setup)] + chain:
        body = []
        for line in code.split("\n"):
            if IMPORT.match(line):
                if not line.rstrip().endswith(";"):
                    raise ValueError(f"an import on more than one line: {line!r}")
                if line not in imports:
                    imports.append(line)
            else:
                body.append(line)
        bodies.append("\n".join(body).strip("\n") + "\n")
    out = "\n".join(imports) + "\n\n// ---- the setup (tests/clients/readme_setup.mjs)\n" + bodies[0]
    for depth, body in enumerate(bodies[1:]):
        out += f"\n// ---- the README's block {chain[depth][0]}\n"
        out += body if depth == 0 else "{\n" + body
    out += "}\n" * max(0, len(bodies) - 2)
    return out + "\nprocess.exit(0);\n"


def py_program(setup, chain):
    out = "# ---- the setup (tests/clients/readme_setup.py)\n" + setup
    for name, code in chain:
        out += f"\n# ---- the README's block {name}\n" + code
    return out


def main(argv):
    if len(argv) not in (3, 5) or argv[2] not in LANGS:
        print(__doc__.split("\n\n")[0], file=sys.stderr)
        return 2
    readme, lang = argv[1], argv[2]
    found, errors = blocks(readme)
    named = {}
    order = []
    for line, block_lang, code, marker in found:
        if marker is None:
            errors.append(f"{readme}:{line}: a ```{block_lang} block without a marker "
                          "(<!-- example: NAME --> or <!-- not run: REASON -->)")
            continue
        if marker.group("name") is None:
            if not marker.group("reason").strip():
                errors.append(f"{readme}:{line}: <!-- not run: --> without a reason")
            print(f"line {line} (```{block_lang}): not run: {marker.group('reason')}")
            continue
        name, after = marker.group("name"), marker.group("after")
        if block_lang not in LANGS[lang]:
            errors.append(f"{readme}:{line}: block {name} is ```{block_lang}, not {lang}: it cannot run")
        if name in named:
            errors.append(f"{readme}:{line}: the name {name} is used twice")
        if after is not None and after not in named:
            errors.append(f"{readme}:{line}: block {name} runs after {after}, which no block before it is")
        named[name] = (code, after)
        order.append(name)
        print(f"line {line}: {name}: runs" + (f" after {after}" if after else ""))
    if errors:
        print("\n".join(errors))
        return 1
    if len(argv) == 5:
        outdir, setup = argv[3], open(argv[4], encoding="utf-8").read()
        for name in order:
            chain, at = [], name
            while at is not None:
                chain.insert(0, (at, named[at][0]))
                at = named[at][1]
            if lang == "js":
                path, text = f"{outdir}/readme-{name}.mjs", js_program(setup, chain)
            else:
                path, text = f"{outdir}/readme_{name.replace('-', '_')}.py", py_program(setup, chain)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
