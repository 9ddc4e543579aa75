#!/usr/bin/env python3
"""Every relative link of the built book (docs/book) leads to a file that
exists, and every link out of the book into the repository names a file of
the repository: a book whose links are dead lies as a README can."""
import html.parser
import os
import sys
import urllib.parse

book = sys.argv[1] if len(sys.argv) > 1 else "docs/book"
repo = os.path.abspath(os.path.join(book, "..", ".."))


class Links(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.links = []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("href", "src") and value:
                self.links.append(value)


dead = []
for top, _, files in os.walk(book):
    for name in files:
        if not name.endswith(".html"):
            continue
        page = os.path.join(top, name)
        parser = Links()
        with open(page, encoding="utf-8") as f:
            parser.feed(f.read())
        for link in parser.links:
            url = urllib.parse.urlparse(link)
            if url.scheme or link.startswith(("#", "//", "mailto:")):
                continue
            target = os.path.normpath(os.path.join(top, urllib.parse.unquote(url.path)))
            # Links to the repository's files leave the book: mdBook keeps
            # them as written, relative to the page's source under docs/src.
            if not os.path.exists(target):
                source = os.path.relpath(page, book)
                in_repo = os.path.normpath(os.path.join(repo, "docs", "src", os.path.dirname(source), urllib.parse.unquote(url.path)))
                if not os.path.exists(in_repo):
                    dead.append(f"{source}: {link}")
if dead:
    print("book: dead links:\n  " + "\n  ".join(sorted(set(dead))), file=sys.stderr)
    sys.exit(1)
print("book: every link leads somewhere")
