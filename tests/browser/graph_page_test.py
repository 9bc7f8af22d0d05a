#!/usr/bin/python3
"""Opens the pages of `onnxview graph --format html` in headless Chromium.

  graph_page_test.py --onnxview BUILD/tools/onnxview [--artifacts DIR]

Pages of testdata/small_cnn.onnx (If and Loop bodies), testdata/
nested_subgraphs.onnx, a 12-layer transformer (tests/oracle/graph_oracle.py's
transformer(), folded with --fold repeat) and a model whose names are hostile
(quotes, backslashes, newlines, `<script>`, `<img onerror>`, `</script>`,
`]]>`, the template's placeholders, bytes that are not UTF-8; its file name
holds markup too), each made with `onnxview graph MODEL --format html -o
FILE`. Each page is opened from
file:// (Chromium `--headless=new`, 1400x1000) and checked:
  - it draws its first picture (body[data-ready="1"]), with one g.node per box
    of the picture's JSON, and the title names the model file;
  - it logs no SEVERE console entry and requests nothing but its own file
    (the performance log's Network.requestWillBeSent, the page's resource
    timing entries); no hostile name runs (window.__pwned stays undefined) or
    adds an element;
  - searching a box's name marks it (g.node.found, `#search-count` "N found",
    N >= 1), Enter centres it, nonsense finds 0;
  - clicking a node box shows its op type in #details;
  - transformer: clicking the `repeat` box shows the picture its `unfold`
    names (body[data-picture]) with its boxes drawn (and, when the inside has
    folded boxes too, one of them), Escape goes back level by level; a name
    found only in another picture is offered there; the + button zooms.
The small_cnn page is also opened with two pictures added to its JSON: one
whose SVG holds <script>, on* handlers, <foreignObject>, javascript: and
http: links, <set>, <style> and XHTML elements (none may stay or act; its
box's details show numbers with thousands separators and markup as text), one
without an SVG (the page says it is too large to lay out).
A screenshot of each page (and of the unfolded transformer) goes to the
artifacts directory with the pages. Last line: `N passed, M failed`. Exits 77
when Chromium, chromedriver, selenium or python3-onnx is missing, unless the
environment variable CI is "true" (then that is a failure).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.parse

SKIP = 77
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "oracle"))
from graph_oracle import Checks, transformer  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
WAIT = 15  # seconds for any one state of the page

HOSTILE_NAMES = ['q"uote', "apos'trophe", "back\\slash", "new\nline", "<script>window.__pwned=1</script>",
                 '<img src=x onerror="window.__pwned=1">', "</script>", "]]>", "{{TITLE}}", "{{PICTURES}}",
                 "NOTUTF8"]
# The hostile model's file name: markup that the title must show as text.
HOSTILE_FILE = "hostile &amp; <b>'q\".onnx"


# --- models -----------------------------------------------------------------

def hostile_model(onnx, path):
    from onnx import TensorProto, helper
    nodes, prev = [], "input"
    for i, name in enumerate(HOSTILE_NAMES):
        out = f"{name}_{i}"
        nodes.append(helper.make_node("Identity", [prev], [out], name=name))
        prev = out
    # An op type and domain with markup too: they reach the labels and the panel.
    nodes.append(helper.make_node("<svg onload=window.__pwned=1>", [prev], ["evil_out"], name="evil op",
                                  domain="x</script><script>window.__pwned=1</script>"))
    nodes.append(helper.make_node("Relu", ["evil_out"], ["output"], name="last"))
    graph = helper.make_graph(nodes, "<script>window.__pwned=1</script>",
                              [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1])],
                              [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    # Bytes that are not UTF-8, the same everywhere the marker stands so the
    # value still links its maker and reader.
    raw = model.SerializeToString().replace(b"NOTUTF8", b"\xff\xfeUTF8!")
    with open(path, "wb") as f:
        f.write(raw)


def models(onnx, work):
    """(case name, model path, extra graph arguments)."""
    t12 = os.path.join(work, "transformer_12.onnx")
    onnx.save(transformer(onnx, 12), t12)
    hostile = os.path.join(work, HOSTILE_FILE)
    hostile_model(onnx, hostile)
    return [("small_cnn", os.path.join(ROOT, "testdata", "small_cnn.onnx"), []),
            ("nested_subgraphs", os.path.join(ROOT, "testdata", "nested_subgraphs.onnx"), []),
            # 182 nodes fit in --max-boxes: auto would not fold them.
            ("transformer_12", t12, ["--fold", "repeat"]),
            ("hostile", hostile, [])]


def make_page(args, model, extra, out):
    graph = ["graph", model, "--format", "html", "-o", out, *extra]
    cmd = [args.onnxview, *graph]
    try:
        return subprocess.run(cmd, capture_output=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        return subprocess.CompletedProcess(cmd, -1, b"", str(e).encode())


# --- the browser ------------------------------------------------------------

def start_browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,1000",
              "--disable-dev-shm-usage", "--no-first-run", "--disable-extensions"):
        opts.add_argument(a)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=opts)
    driver.set_page_load_timeout(30)
    return driver


def wait_for(driver, condition, seconds=WAIT):
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.support.ui import WebDriverWait
    try:
        WebDriverWait(driver, seconds, poll_frequency=0.05).until(lambda d: condition(d))
        return True
    except TimeoutException:
        return False


def js(driver, script, *args):
    return driver.execute_script(script, *args)


CURRENT = """
const page = window.onnxviewPage;
if (!page) return null;
const id = page.current();
const pic = page.pictures.find(p => p.id === id);
return {id: id, boxes: (pic && pic.graph && pic.graph.boxes) || [], unfold: (pic && pic.unfold) || {},
        svg: !!(pic && pic.svg), drawn: document.querySelectorAll('#view svg g.node').length,
        picture: document.body.dataset.picture};
"""


def check_drawn(ck, driver, name):
    cur = js(driver, CURRENT)
    if not ck.check(cur is not None, f"{name}: window.onnxviewPage exists"):
        return None
    want = len(cur["boxes"]) if cur["svg"] else 0
    ck.check(cur["drawn"] == want, f"{name} {cur['id']}: {cur['drawn']} g.node drawn, the JSON has {want} boxes")
    ck.check(cur["picture"] == cur["id"], f"{name}: body[data-picture] {cur['picture']!r} is the current picture {cur['id']!r}")
    return cur


def box_element(driver, box_id):
    from selenium.webdriver.common.by import By
    found = driver.find_elements(By.CSS_SELECTOR, "#view svg g.node")
    for g in found:
        if g.get_attribute("id") == box_id or g.get_attribute("data-box") == box_id:
            return g
    return None


def click(driver, element):
    from selenium.webdriver.common.action_chains import ActionChains
    ActionChains(driver).move_to_element(element).click().perform()


def search(driver, text):
    from selenium.webdriver.common.by import By
    box = driver.find_element(By.ID, "search")
    box.clear()
    # clear() alone sends no input event; the page listens to input.
    js(driver, "const s = document.getElementById('search'); s.value = ''; s.dispatchEvent(new Event('input'));")
    if text:
        box.send_keys(text)
    return box


def count_found(driver):
    text = js(driver, "return document.getElementById('search-count').textContent") or ""
    head = text.strip().split(" ")[0]
    return (int(head) if head.isdigit() else None), text


def plain(s):
    return isinstance(s, str) and s and all(c >= " " for c in s) and "\ufffd" not in s


def check_search(ck, driver, name, cur, term=None):
    if term is None:
        names = [b.get("name") for b in cur["boxes"] if b.get("kind") == "node" and plain(b.get("name"))]
        names += [b.get("name") for b in cur["boxes"] if plain(b.get("name"))]
        if not ck.check(names, f"{name}: a box with a name to search"):
            return
        term = names[0]
    box = search(driver, term)
    ok = wait_for(driver, lambda d: (count_found(d)[0] or 0) >= 1)
    n, text = count_found(driver)
    ck.check(ok, f"{name}: searching {term!r} says {text!r}, not >= 1 found")
    found = js(driver, "return document.querySelectorAll('#view svg g.node.found').length")
    ck.check(found >= 1, f"{name}: searching {term!r} marks {found} g.node.found")
    from selenium.webdriver.common.keys import Keys
    box.send_keys(Keys.ENTER)
    ck.check(wait_for(driver, lambda d: js(d, "return document.querySelectorAll('#view svg g.node.current.found').length") == 1),
             f"{name}: Enter marks the match it centres")
    search(driver, "zq#nothing-has-this-name#qz")
    ck.check(wait_for(driver, lambda d: count_found(d)[0] == 0), f"{name}: nonsense says {count_found(driver)[1]!r}, not 0 found")
    ck.check(js(driver, "return document.querySelectorAll('#view svg g.node.found').length") == 0, f"{name}: nonsense marks no box")
    search(driver, "")


def check_details(ck, driver, name, cur, want_box=None):
    """Clicks a node box that does not unfold; #details then names its op type."""
    nodes = [b for b in cur["boxes"] if b.get("kind") == "node" and b.get("op_type") and b["id"] not in cur["unfold"]]
    if want_box is not None:
        nodes = [b for b in nodes if b.get("name") == want_box] or nodes
    if not ck.check(nodes, f"{name}: a node box to click"):
        return
    b = nodes[0]
    g = box_element(driver, b["id"])
    if not ck.check(g is not None, f"{name}: box {b['id']} drawn"):
        return
    click(driver, g)
    ok = wait_for(driver, lambda d: b["op_type"] in (js(d, "return document.getElementById('details').textContent") or ""))
    ck.check(ok, f"{name}: clicking {b['id']} shows its op type {b['op_type']!r} in #details")
    return b


def check_unfold(ck, driver, name, cur, artifacts):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys
    reps = [b for b in cur["boxes"] if b.get("kind") == "repeat"]
    if not ck.check(reps, f"{name}: the first picture has a repeat box"):
        return
    rep = reps[0]
    target = cur["unfold"].get(rep["id"])
    if not ck.check(target, f"{name}: the repeat box {rep['id']} unfolds ({cur['unfold']})"):
        return
    # A name only the inside shows: offered as found elsewhere.
    inside = js(driver, "return (window.onnxviewPage.pictures.find(p => p.id === arguments[0]).graph.boxes || [])"
                        ".filter(b => b.kind === 'node').map(b => b.name)", target)
    here = {b.get("name") for b in cur["boxes"]} | {b.get("label") for b in cur["boxes"]}
    only = [n for n in inside if plain(n) and not any(n.lower() in (h or "").lower() for h in here)]
    if only:
        search(driver, only[0])
        ok = wait_for(driver, lambda d: "found in" in (js(d, "return document.getElementById('search-elsewhere').textContent") or ""))
        ck.check(ok and count_found(driver)[0] == 0, f"{name}: {only[0]!r} is offered in another picture")
        search(driver, "")
    before = js(driver, "return document.querySelector('#view svg').getAttribute('viewBox')")
    from selenium.webdriver.common.by import By
    driver.find_element(By.ID, "zoom-in").click()
    ck.check(wait_for(driver, lambda d: js(d, "return document.querySelector('#view svg').getAttribute('viewBox')") != before),
             f"{name}: + zooms")
    driver.find_element(By.ID, "zoom-fit").click()

    g = box_element(driver, rep["id"])
    if not ck.check(g is not None, f"{name}: the repeat box is drawn"):
        return
    click(driver, g)
    ok = wait_for(driver, lambda d: js(d, "return document.body.dataset.picture") == target)
    if not ck.check(ok, f"{name}: clicking {rep['id']} shows {target}, not {js(driver, 'return document.body.dataset.picture')}"):
        return
    sub = check_drawn(ck, driver, f"{name} unfolded")
    crumbs = js(driver, "return document.getElementById('crumbs').textContent") or ""
    ck.check(">" in crumbs or "\u203a" in crumbs, f"{name}: the breadcrumb shows the path ({crumbs!r})")
    if sub:
        check_details(ck, driver, f"{name} unfolded", sub)
    driver.save_screenshot(os.path.join(artifacts, f"{name}_unfolded.png"))
    if sub and sub["unfold"]:
        # A box of the inside unfolds further; Escape then climbs one level at a time.
        inner_box, inner = sorted(sub["unfold"].items())[0]
        g = box_element(driver, inner_box)
        if ck.check(g is not None, f"{name}: the inside's box {inner_box} is drawn"):
            click(driver, g)
            ok = wait_for(driver, lambda d: js(d, "return document.body.dataset.picture") == inner)
            if ck.check(ok, f"{name}: clicking {inner_box} in {target} shows {inner}"):
                check_drawn(ck, driver, f"{name} unfolded twice")
                seps = js(driver, "return document.querySelectorAll('#crumbs .sep').length")
                ck.check(seps == 2, f"{name}: the breadcrumb has three pictures ({seps + 1})")
                ActionChains(driver).send_keys(Keys.ESCAPE).perform()
                ck.check(wait_for(driver, lambda d: js(d, "return document.body.dataset.picture") == target),
                         f"{name}: Escape goes back from {inner} to {target}")
    ActionChains(driver).send_keys(Keys.ESCAPE).perform()
    ok = wait_for(driver, lambda d: js(d, "return document.body.dataset.picture") == cur["id"])
    ck.check(ok, f"{name}: Escape goes back to {cur['id']}")
    if ok:
        check_drawn(ck, driver, f"{name} back")


def drain_logs(driver):
    driver.get_log("browser")
    driver.get_log("performance")


def check_quiet(ck, driver, name, url):
    severe = [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]
    ck.check(not severe, f"{name}: SEVERE console entries: {[e.get('message', '')[:200] for e in severe][:5]}")
    urls = []
    for entry in driver.get_log("performance"):
        try:
            msg = json.loads(entry["message"])["message"]
        except (KeyError, ValueError):
            continue
        if msg.get("method") == "Network.requestWillBeSent":
            urls.append(msg.get("params", {}).get("request", {}).get("url", ""))
    page = urllib.parse.unquote(url)
    others = [u for u in urls if urllib.parse.unquote(u) != page]
    ck.check(not others, f"{name}: requests other than the page: {others[:5]}")
    ck.check(page in map(urllib.parse.unquote, urls), f"{name}: the performance log shows the page's own request ({len(urls)} requests)")
    resources = js(driver, "return performance.getEntriesByType('resource').length")
    ck.check(resources == 0, f"{name}: {resources} resource timing entries")


def check_page(ck, driver, name, model, html_path, artifacts):
    url = "file://" + urllib.parse.quote(os.path.abspath(html_path))
    drain_logs(driver)
    driver.get(url)
    ready = wait_for(driver, lambda d: js(d, "return document.body && document.body.dataset.ready === '1'"))
    if not ck.check(ready, f"{name}: body[data-ready=1] within {WAIT} s"):
        driver.save_screenshot(os.path.join(artifacts, f"{name}.png"))
        check_quiet(ck, driver, name, url)
        return
    base = os.path.basename(model)
    ck.check(base in driver.title, f"{name}: title {driver.title!r} names {base!r}")
    cur = check_drawn(ck, driver, name)
    first = js(driver, "return window.onnxviewPage.pictures[0].id")
    ck.check(cur and cur["id"] == first, f"{name}: the first picture {first} is shown")
    driver.save_screenshot(os.path.join(artifacts, f"{name}.png"))
    if cur:
        if name == "hostile":
            names = {b.get("name") for b in cur["boxes"]}
            ck.check(all(n in names for n in HOSTILE_NAMES if n != "NOTUTF8"), f"{name}: every hostile name reaches the page")
            check_search(ck, driver, name, cur, "<img src=x")
            b = check_details(ck, driver, name, cur, want_box='<img src=x onerror="window.__pwned=1">')
            if b:
                text = js(driver, "return document.getElementById('details').textContent") or ""
                ck.check(b["name"] in text, f"{name}: #details shows the name as text")
        else:
            check_search(ck, driver, name, cur)
            if any(b.get("kind") == "node" for b in cur["boxes"]):
                check_details(ck, driver, name, cur)
        if name.startswith("transformer"):
            check_unfold(ck, driver, name, cur, artifacts)
    ck.check(js(driver, "return typeof window.__pwned") == "undefined", f"{name}: a name ran as code")
    extra = js(driver, "return document.querySelectorAll('img, iframe, object, embed, #view script, #view foreignObject, "
                       "#details *:not(h2):not(h3):not(dl):not(dt):not(dd):not(ul):not(li):not(span):not(button):not(p)').length")
    ck.check(extra == 0, f"{name}: {extra} elements a name may have made")
    ck.check(js(driver, "return document.scripts.length") == 2, f"{name}: the page's two scripts only")
    check_quiet(ck, driver, name, url)


CRAFTED_SVG = """<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"
     xmlns:html="http://www.w3.org/1999/xhtml" viewBox="0 0 300 100" onload="window.__pwned=1">
<script>window.__pwned=1</script>
<g id="graph0" class="graph">
<g id="n0" class="node" onclick="window.__pwned=1" onmouseover="window.__pwned=1"><title>n0</title>
<rect x="0" y="0" width="80" height="40" fill="#eee" stroke="black"/><text x="5" y="25">crafted</text></g>
<foreignObject width="100" height="50"><html:div><html:img src="x" onerror="window.__pwned=1"/></html:div></foreignObject>
<a xlink:href="javascript:window.__pwned=1"><text x="100" y="25">link</text></a>
<a href="javascript:window.__pwned=1"><text x="150" y="25">link</text></a>
<image href="http://127.0.0.1:9/evil.png" x="200" width="10" height="10"/>
<image xlink:href="http://127.0.0.1:9/evil2.png" x="220" width="10" height="10"/>
<use href="#n0" x="0" y="50"/>
<set attributeName="onclick" to="window.__pwned=1"/>
<html:img src="http://127.0.0.1:9/x.png" onerror="window.__pwned=1"/>
<style>@import url(http://127.0.0.1:9/x.css);</style>
</g>
</svg>"""

PICTURES_START = 'id="onnxview-pictures">'


def crafted_page(source, target):
    """The page at source with two more pictures: one whose SVG tries every way
    to run code or load something (the page must strip them, whatever made the
    SVG), one without an SVG. False when the page's JSON is not found."""
    with open(source, encoding="utf-8") as f:
        page = f.read()
    start = page.find(PICTURES_START)
    end = page.find("</script>", start)
    if start < 0 or end < 0:
        return False
    start += len(PICTURES_START)
    doc = json.loads(page[start:end])
    root = doc["pictures"][0]["id"]
    box = {"id": "n0", "kind": "node", "label": "Crafted\ncrafted", "op_type": "Crafted", "name": "crafted",
           "cluster": "", "nodes": 1, "parameters": 1234567, "macs": "89012",
           "attributes": [{"name": "<b>attr</b>", "value": "<img src=x onerror=window.__pwned=1>"}],
           "inputs": ["<script>window.__pwned=1</script>"], "outputs": []}
    doc["pictures"] += [
        {"id": "crafted", "title": "crafted <svg>", "parent": root, "from_box": "", "svg": CRAFTED_SVG,
         "graph": {"format": "onnxview-graph", "version": 1, "boxes": [box], "edges": [], "clusters": []}, "unfold": {}},
        {"id": "empty", "title": "no layout", "parent": root, "from_box": "", "svg": "",
         "graph": {"format": "onnxview-graph", "version": 1, "boxes": [dict(box, id="n1")], "edges": []}}]
    text = json.dumps(doc, ensure_ascii=False).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    with open(target, "w", encoding="utf-8") as f:
        f.write(page[:start] + text + page[end:])
    return True


def check_crafted(ck, driver, source, artifacts):
    name = "crafted"
    target = os.path.join(artifacts, "crafted.html")
    if not ck.check(crafted_page(source, target), f"{name}: the pictures' JSON found in {source}"):
        return
    url = "file://" + urllib.parse.quote(os.path.abspath(target))
    drain_logs(driver)
    driver.get(url)
    if not ck.check(wait_for(driver, lambda d: js(d, "return document.body && document.body.dataset.ready === '1'")),
                    f"{name}: body[data-ready=1]"):
        return
    js(driver, "window.onnxviewPage.show('crafted')")
    ok = wait_for(driver, lambda d: js(d, "return document.body.dataset.picture") == "crafted")
    if ck.check(ok, f"{name}: show('crafted') shows it"):
        check_drawn(ck, driver, name)
        left = js(driver, """
            const svg = document.querySelector('#view svg');
            if (!svg) return ['no svg'];
            const out = [];
            for (const e of svg.querySelectorAll('*')) {
                if (/^(script|foreignobject|set|style)$/i.test(e.localName) || e.namespaceURI !== svg.namespaceURI)
                    out.push(e.localName);
                for (const a of e.attributes)
                    if (/^on/i.test(a.localName) || (a.localName === 'href' && !a.value.startsWith('#')))
                        out.push(e.localName + '@' + a.name + '=' + a.value);
            }
            for (const a of svg.attributes) if (/^on/i.test(a.localName)) out.push('svg@' + a.name);
            return out;""")
        ck.check(left == [], f"{name}: left in the SVG: {left}")
        g = box_element(driver, "n0")
        if ck.check(g is not None, f"{name}: the crafted box is drawn"):
            click(driver, g)
            ok = wait_for(driver, lambda d: "Crafted" in (js(d, "return document.getElementById('details').textContent") or ""))
            details = js(driver, "return document.getElementById('details').textContent") or ""
            ck.check(ok and "1,234,567" in details and "89,012" in details and "<b>attr</b>" in details
                     and "<script>window.__pwned=1</script>" in details,
                     f"{name}: #details shows parameters, MACs, attributes and inputs as text: {details[:300]!r}")
        driver.save_screenshot(os.path.join(artifacts, "crafted.png"))
    js(driver, "window.onnxviewPage.show('empty')")
    if ck.check(wait_for(driver, lambda d: js(d, "return document.body.dataset.picture") == "empty"),
                f"{name}: show('empty') shows it"):
        text = js(driver, "return document.getElementById('view').textContent") or ""
        ck.check("too large" in text and js(driver, "return document.querySelectorAll('#view g.node').length") == 0,
                 f"{name}: a picture without SVG says so: {text[:100]!r}")
    ck.check(js(driver, "return typeof window.__pwned") == "undefined", f"{name}: the crafted SVG ran code")
    extra = js(driver, "return document.querySelectorAll('img, iframe, object, embed, #view script, #view foreignObject, "
                       "#details *:not(h2):not(h3):not(dl):not(dt):not(dd):not(ul):not(li):not(span):not(button):not(p)').length")
    ck.check(extra == 0, f"{name}: {extra} elements the crafted SVG or names made")
    check_quiet(ck, driver, name, url)


def prerequisites():
    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not os.path.exists(p)]
    for module in ("selenium", "onnx", "numpy"):
        try:
            __import__(module)
        except ImportError:
            missing.append(f"python3 module {module}")
    return missing


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--onnxview", required=True)
    ap.add_argument("--artifacts", help="where pages and screenshots go (default: a new temporary directory)")
    args = ap.parse_args()
    missing = prerequisites()
    if missing:
        if os.environ.get("CI") == "true":
            print(f"FAIL graph_page_test: missing {', '.join(missing)}")
            print("0 passed, 1 failed")
            return 1
        print(f"graph_page_test: skipped: missing {', '.join(missing)}")
        return SKIP
    import onnx
    artifacts = args.artifacts or tempfile.mkdtemp(prefix="graph_page_")
    os.makedirs(artifacts, exist_ok=True)
    print(f"graph_page_test: pages and screenshots in {artifacts}", flush=True)
    ck = Checks()
    started = time.monotonic()
    with open(os.path.join(ROOT, "src", "graph", "page.html"), encoding="utf-8") as f:
        template = f.read()
    for p in ("{{TITLE}}", "{{PICTURES}}"):
        ck.check(template.count(p) == 1, f"page.html: {p} occurs {template.count(p)} times, not once")
    driver = None
    with tempfile.TemporaryDirectory() as work:
        try:
            cases = models(onnx, work)
            driver = start_browser()
            for name, model, extra in cases:
                page = os.path.join(artifacts, f"{name}.html")
                if os.path.exists(page):
                    os.remove(page)
                r = make_page(args, model, extra, page)
                if not ck.check(r.returncode == 0 and os.path.exists(page),
                                f"{name}: making the page exits {r.returncode}: {r.stderr.decode(errors='replace')[:300]}"):
                    continue
                check_page(ck, driver, name, model, page, artifacts)
                if name == "small_cnn":
                    check_crafted(ck, driver, page, artifacts)
        except Exception as e:  # noqa: BLE001 - a broken browser session is one failure, not a traceback
            ck.check(False, f"{type(e).__name__}: {str(e)[:500]}")
        finally:
            if driver is not None:
                driver.quit()
    for f in ck.failures:
        print("FAIL", f)
    print(f"graph_page_test: {time.monotonic() - started:.1f} s")
    print(f"{ck.passed} passed, {len(ck.failures)} failed")
    return 1 if ck.failures else 0


if __name__ == "__main__":
    sys.exit(main())
