#!/usr/bin/env python3
"""Prints, for every guarantee ID, the tests whose names start with it: the table of the DocC article
"Guarantees" (Sources/Sobreiro/Documentation.docc/Guarantees.md). Run it after renaming or adding tests and
paste its output between the article's markers; CI checks that the article is current."""
import pathlib, re, sys

root = pathlib.Path(__file__).resolve().parent.parent
tests = {}
for path in sorted((root / "Tests").rglob("*.swift")):
    text = path.read_text()
    for match in re.finditer(r'@Test\(\s*"((?:[A-Z][0-9]+(?:, )?)+):([^"]*)"', text):
        for ident in match.group(1).split(", "):
            tests.setdefault(ident, []).append((path.relative_to(root).as_posix(), match.group(2).strip()))

def key(ident):
    return (ident[0], int(ident[1:]))

lines = []
for ident in sorted(tests, key=key):
    for path, name in tests[ident]:
        lines.append(f"| {ident} | {name} | `{path}` |")
table = "| guarantee | test | file |\n| --- | --- | --- |\n" + "\n".join(lines)

article = root / "Sources/Sobreiro/Documentation.docc/Guarantees.md"
if len(sys.argv) > 1 and sys.argv[1] == "--check":
    current = article.read_text()
    body = current.split("<!-- tests -->")[1].split("<!-- /tests -->")[0].strip()
    if body != table:
        print("Guarantees.md is out of date: run Scripts/guarantees.py --write")
        sys.exit(1)
    print(f"guarantees: {len(lines)} tests listed, article current")
elif len(sys.argv) > 1 and sys.argv[1] == "--write":
    current = article.read_text()
    head, rest = current.split("<!-- tests -->")
    tail = rest.split("<!-- /tests -->")[1]
    article.write_text(head + "<!-- tests -->\n" + table + "\n<!-- /tests -->" + tail)
else:
    print(table)
