#!/usr/bin/env bash
# The report in a real browser: two real `ninja tune` runs of the tiny model
# (the first with a crashing and a wrong candidate per dispatch, the second
# re-measured), then headless Chromium renders report/index.html. Checks the
# rendered DOM against the records the runs wrote, that the page needs no
# JavaScript (no scripts; the file itself holds every table and chart), and
# that the screenshot is a real rendering.
# usage: report_browser.sh <tool dir> <scratch dir>
# Exits 77 (ctest: skipped) when Chromium is not installed.
set -u
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "SKIP: chromium is not installed (apt-get install --no-install-recommends chromium)"
  exit 77
fi
tools=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$2" && mkdir -p "$2"
work=$(cd "$2" && pwd) # file:// URLs need an absolute path
fail() { echo "FAIL: $*"; exit 1; }

export RETUNE_CACHE_DIR=$work/cache
repo=$work/repo
mkdir -p "$repo"
cp "$here/tiny/model.mlir" "$repo/model.mlir"
printf '[model]\npath = "model.mlir"\nentry = "forward"\n[tune]\ncandidates = 6\n[bench]\nrepetitions = 3\n' \
  >"$repo/tune.toml"
"$tools/retune" plan "$repo/tune.toml" -B "$repo/build" || fail "retune plan"
# Candidates 2 and 3 of every dispatch crash and compute wrong numbers.
export RETUNE_INJECT_FAULT="crash:/2.spec.mlir,wrong:/3.spec.mlir"
out=$(ninja -C "$repo/build" tune 2>&1) || { echo "$out" | tail -30; fail "first ninja tune"; }
# A second run that measures again: the model step runs anew, so the report
# keeps a second summary and shows the run-to-run view.
sed -i 's/repetitions = 3/repetitions = 4/' "$repo/tune.toml"
out=$(ninja -C "$repo/build" tune 2>&1) || { echo "$out" | tail -30; fail "second ninja tune"; }
echo "ok: two real runs"

page=$repo/build/report/index.html
profile=$work/chromium-profile
chrome() {
  timeout 60 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --no-first-run --user-data-dir="$profile" "$@" 2>"$work/chromium.log"
}
chrome --dump-dom "file://$page" >"$work/dom.html" \
  || { tail -20 "$work/chromium.log"; fail "chromium --dump-dom"; }
chrome --screenshot="$work/page.png" --window-size=1280,2000 "file://$page" >/dev/null \
  || { tail -20 "$work/chromium.log"; fail "chromium --screenshot"; }
echo "ok: chromium rendered the page ($work/page.png)"

python3 - "$repo/build" "$work/dom.html" "$work/page.png" "$page" <<'EOF'
import glob, json, os, struct, sys, zlib
from html.parser import HTMLParser

build, dom_path, png_path, page_path = sys.argv[1:]
failures = []
def check(ok, what):
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        failures.append(what)

def load(path):
    with open(os.path.join(build, path)) as f:
        return json.load(f)

class Node:
    """An element; `items` holds its child elements and text in order."""
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent = tag, dict(attrs), parent
        self.items = []
    def classes(self):
        return (self.attrs.get("class") or "").split()
    def walk(self):
        yield self
        for c in self.items:
            if isinstance(c, Node):
                yield from c.walk()
    def find(self, tag=None, cls=None, id=None):
        return [n for n in self.walk()
                if (tag is None or n.tag == tag)
                and (cls is None or cls in n.classes())
                and (id is None or n.attrs.get("id") == id)]
    def all_text(self):
        return "".join(c.all_text() if isinstance(c, Node) else c for c in self.items)

VOID = {"meta", "br", "img", "link", "input", "hr"}
class Tree(HTMLParser):
    def __init__(self):
        super().__init__()
        self.root = Node("root", [], None)
        self.at = self.root
    def handle_starttag(self, tag, attrs):
        node = Node(tag, attrs, self.at)
        self.at.items.append(node)
        if tag not in VOID:
            self.at = node
    def handle_startendtag(self, tag, attrs):
        self.at.items.append(Node(tag, attrs, self.at))
    def handle_endtag(self, tag):
        n = self.at
        while n is not None and n.tag != tag:
            n = n.parent
        if n is not None and n.parent is not None:
            self.at = n.parent
    def handle_data(self, data):
        self.at.items.append(data)

def parse(path):
    with open(path) as f:
        tree = Tree()
        tree.feed(f.read())
        return tree.root

root = parse(dom_path)
check(len(root.find("tr")) > 10, "chromium rendered the page (%d table rows)" % len(root.find("tr")))

# Self-contained and static: no scripts, nothing fetched, and the file as
# written already holds everything the browser shows.
check(not root.find("script"), "no <script> elements")
external = [(n.tag, k, n.attrs[k]) for n in root.walk() for k in ("src", "href")
            if k in n.attrs and (k == "src" or n.attrs[k].startswith(("http:", "https:", "//")))]
check(not external, "no external references: %s" % external)
source = parse(page_path)
for tag in ("tr", "svg", "circle", "rect", "title"):
    check(len(source.find(tag)) == len(root.find(tag)),
          "without JavaScript: the file has every <%s> the browser shows" % tag)

index = load("dispatches/index.json")
model = load("model/result.json")
summary = load("report/summary.json")
titles = root.find("title")
check(titles and index["model"] in titles[0].all_text(), "page title names the model")
for section in ("model", "dispatches", "run", "history"):
    check(len(root.find("section", id=section)) == 1, "section #%s present" % section)

for d in index["dispatches"]:
    did = d["id"]
    sec = root.find("section", id="d-" + did)
    check(len(sec) == 1, "dispatch section for %s" % d["name"])
    if not sec:
        continue
    sec = sec[0]
    svgs = sec.find("svg")
    check(len(svgs) == 1, "%s: one chart" % did)
    texts = [t.all_text() for t in sec.find("text")]
    check(any(t.startswith("time / baseline") for t in texts), "%s: y axis labelled" % did)
    check(any(t.startswith("candidate, in cost-model order") for t in texts), "%s: x axis labelled" % did)
    check(any("1 − margin" in t for t in texts) and sec.find("line", cls="margin"),
          "%s: margin line drawn and labelled" % did)
    cands = load("candidates/%s/index.json" % did)["candidates"]
    results = [load("results/%s/%d.json" % (did, c["index"])) for c in cands]
    ok = [r for r in results if r["status"] == "ok"]
    bad = [r for r in results if r["status"] != "ok"]
    if any(r["noise"] > 0 for r in ok):
        check(sec.find("rect", cls="noise"), "%s: noise band drawn" % did)
    marks = sec.find("circle", cls="ok") + sec.find("circle", cls="win")
    check(len(marks) == len(ok), "%s: one mark per measured candidate (%d)" % (did, len(ok)))
    check(all(m.find("title") for m in marks), "%s: every mark has hover text" % did)
    check(len(sec.find("path", cls="fail")) == len(bad), "%s: one cross per failed candidate (%d)" % (did, len(bad)))
    table = sec.find("table", cls="candidates")
    rows = table[0].find("tr")[1:] if table else []
    check(len(rows) == len(cands), "%s: candidate table has all %d candidates" % (did, len(cands)))
    configs = " ".join(r.all_text() for r in rows)
    check(all(k in configs for c in cands for k in c["config"]), "%s: configurations in the table" % did)
    failures_table = sec.find("table", cls="failures")
    reasons = failures_table[0].all_text() if failures_table else ""
    for status in sorted({r["status"] for r in bad}):
        check(status in reasons, "%s: failure reason %s listed" % (did, status))
    winner = load("best/%s.json" % did)["winner"]
    if winner is None:
        check(not sec.find("circle", cls="win"), "%s: no winner mark without a winner" % did)
    else:
        check(len(sec.find("circle", cls="win")) == 1 and any(t.startswith("winner #%d" % winner) for t in texts),
              "%s: winner #%d marked" % (did, winner))
    step = "kept" if did in model["winners_kept"] else \
        "dropped" if any(x["dispatch"] == did for x in model["winners_dropped"]) else "no winner"
    check("Model step: " + step in " ".join(sec.all_text().split()), "%s: model step verdict '%s'" % (did, step))

msec = root.find("section", id="model")[0]
check(len(msec.find("circle", cls="baseline-sample")) == len(model["baseline_samples_s"]),
      "model: every baseline sample drawn")
check(len(msec.find("rect", cls="bar-before")) == len(index["dispatches"]) + 1,
      "model: contribution bar per dispatch and for the model")
check(model["decision"] in " ".join(msec.all_text().split()), "model: the model step's decision shown")

run = root.find("section", id="run")[0]
steps = run.find("rect", cls="step")
check(len(steps) > 0, "timeline: %d steps drawn" % len(steps))
stage_rows = run.find("table", cls="stages")[0].find("tr")[1:]
names = [r.find("td")[0].all_text() for r in stage_rows]
check(names[-4:] == ["candidates", "compile", "bench", "model"]
      and set(names[:-4]) <= {"import", "flags", "dump"} and "dump" in names,
      "timeline: wall/busy table per stage (the dump from Ninja's log)")
cache = summary["cache"]
hits = "%d / %d" % (cache["compile"]["hits"] + cache["bench"]["hits"],
                    cache["compile"]["steps"] + cache["bench"]["steps"])
check(any(c.all_text().startswith(hits) for c in root.find("div", cls="card")), "cache hits card: " + hits)

kept = glob.glob(os.path.join(build, "report/history/*.json"))
check(len(kept) == 2, "two summaries kept in report/history (%d)" % len(kept))
hist = root.find("section", id="history")[0]
htable = hist.find("table", cls="history")
check(htable and len(htable[0].find("tr")) - 1 == len(kept), "history table has a row per kept run")
check(hist.find("polyline", cls="trend"), "history chart drawn")

# The screenshot: a PNG of the window size, mostly not blank, with the
# charts' colours in it (so CSS applied to the SVG).
with open(png_path, "rb") as f:
    png = f.read()
check(png[:8] == b"\x89PNG\r\n\x1a\n", "screenshot is a PNG")
width, height, depth, ctype = struct.unpack(">IIBB", png[16:26])
check((width, height) == (1280, 2000), "screenshot is 1280x2000 (%dx%d)" % (width, height))
data, pos = b"", 8
while pos < len(png):
    length, kind = struct.unpack(">I4s", png[pos:pos + 8])
    if kind == b"IDAT":
        data += png[pos + 8:pos + 8 + length]
    pos += 12 + length
raw = zlib.decompress(data)
bpp = {2: 3, 6: 4}[ctype]
stride = width * bpp
prev = bytearray(stride)
pixels = []
for y in range(height):
    f = raw[y * (stride + 1)]
    line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    prev = line
    if y % 4 == 0:
        pixels += [tuple(line[i:i + 3]) for i in range(0, stride, bpp * 4)]
background = max(set(pixels), key=pixels.count)
page_background = sum(1 for p in pixels if p == (0xf4, 0xf6, 0xf9)) / len(pixels)
check(page_background > 0.05, "screenshot shows the report's page background (%.0f%%)" % (100 * page_background))
inked = sum(1 for p in pixels if p != background) / len(pixels)
check(inked > 0.2, "screenshot is not blank (%.0f%% drawn)" % (100 * inked))
check(len(set(pixels)) > 100, "screenshot has many colours (%d)" % len(set(pixels)))
blue = sum(1 for p in pixels if abs(p[0] - 0x31) + abs(p[1] - 0x82) + abs(p[2] - 0xce) < 40)
check(blue > 20, "chart colours rendered (%d blue samples)" % blue)
sys.exit(1 if failures else 0)
EOF
rc=$?
[ $rc -eq 0 ] && echo "all report browser checks passed" || echo "report browser checks failed"
exit $rc
