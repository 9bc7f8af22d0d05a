"""onnxview.graph(): the picture `onnxview graph` draws (the same library
writers), its options against the CLI's, and its refusals. The picture itself
is checked against python3-onnx and Graphviz by tests/oracle/graph_oracle.py."""
import json
import os
import subprocess

import pytest

import onnxview

CLI = os.environ.get("ONNXVIEW_CLI")


def cli(*args):
    if not CLI:
        pytest.skip("ONNXVIEW_CLI is not set (meson test sets it)")
    run = subprocess.run([CLI, "graph", *map(str, args)], capture_output=True)
    assert run.returncode == 0, run.stderr
    return run.stdout.decode()


@pytest.mark.parametrize("name", ["small_cnn.onnx", "nested_subgraphs.onnx", "attributes_and_types.onnx"])
def test_graph_is_the_cli_picture(testdata, name):
    path = testdata / name
    assert onnxview.graph(path) == cli(path)
    assert onnxview.graph(str(path), format="mermaid") == cli("--format", "mermaid", path)
    assert onnxview.graph(path, format="json", fold="none", initializers=True) == json.loads(
        cli("--format", "json", "--fold", "none", "--initializers", path))


def test_graph_around_a_node(testdata):
    path = testdata / "small_cnn.onnx"
    near = onnxview.graph(path, format="json", around="relu1", radius=1)
    assert near == json.loads(cli("--format", "json", "--around", "relu1", "--radius", "1", path))
    names = sorted(b["name"] for b in near["boxes"])
    assert names == ["conv1", "pool1", "relu1"]
    assert len(near["edges"]) == 2
    with pytest.raises(KeyError):
        onnxview.graph(path, around="no such node")


def same_svg(a, b):
    """The same drawing: Graphviz may write a picture's clusters in another
    order from one layout to the next in a process (it orders them by the
    addresses of their interned names), with the same coordinates."""
    return sorted(a.splitlines()) == sorted(b.splitlines())


def page_pictures(page):
    start = page.index('id="onnxview-pictures">') + len('id="onnxview-pictures">')
    return json.loads(page[start:page.index("</script>", start)])


def test_graph_svg_html_and_jupyter(testdata):
    path = testdata / "small_cnn.onnx"
    svg = onnxview.graph(path, format="svg")
    assert same_svg(svg, cli("--format", "svg", path))
    assert svg.lstrip().startswith("<?xml") and "</svg>" in svg
    picture = onnxview.graph(path, format="json")
    # Every box is the SVG group with the box's id.
    for box in picture["boxes"]:
        assert f'<g id="{box["id"]}" class="node">' in svg
    page = onnxview.graph(path, format="html")
    assert page.startswith("<!") and "<title>small_cnn.onnx</title>" in page and "{{PICTURES}}" not in page
    mine, theirs = page_pictures(page), page_pictures(cli("--format", "html", path))
    assert [p["graph"] for p in mine["pictures"]] == [p["graph"] for p in theirs["pictures"]]
    assert all(same_svg(a["svg"], b["svg"]) for a, b in zip(mine["pictures"], theirs["pictures"]))
    assert mine["pictures"][0]["graph"] == picture
    with onnxview.open(path) as m:
        assert same_svg(m._repr_svg_(), svg)
        assert same_svg(m.graph._repr_svg_(), svg)


def test_graph_within(tmp_path, testdata):
    path = testdata / "small_cnn.onnx"
    with pytest.raises(KeyError):
        onnxview.graph(path, within="model/nowhere")


def test_graph_refusals(testdata, tmp_path):
    with pytest.raises(ValueError):
        onnxview.graph(testdata / "small_cnn.onnx", format="png")
    with pytest.raises(ValueError):
        onnxview.graph(testdata / "small_cnn.onnx", fold="sideways")
    junk = tmp_path / "junk.onnx"
    junk.write_bytes(b"\xff" * 32)
    with pytest.raises(onnxview.Error):
        onnxview.graph(junk)


def test_graph_shapes(testdata):
    path = testdata / "small_cnn.onnx"
    inferred = onnxview.graph(path, format="json", shapes="inferred")
    declared = onnxview.graph(path, format="json", shapes="declared")
    assert inferred == onnxview.graph(path, format="json")  # auto infers for a small model
    assert inferred == json.loads(cli("--format", "json", "--shapes", "inferred", path))
    assert not any(e.get("inferred") for e in declared["edges"])
    assert not any("macs" in b for b in declared["boxes"])
    assert any(e.get("inferred") for e in inferred["edges"])
    conv = next(b for b in inferred["boxes"] if b.get("op_type") == "Conv")
    assert conv["macs"] and {"name": "kernel_shape", "value": "[3, 3]"} in conv["attributes"]
    with pytest.raises(ValueError):
        onnxview.graph(path, shapes="guessed")


def test_graph_many_layouts_in_one_process(testdata):
    # Graphviz keeps a text-size cache past its contexts: one context for the
    # process (a fresh one per picture read freed memory from the second on,
    # as the page's second picture showed under AddressSanitizer).
    for name in ["small_cnn.onnx", "nested_subgraphs.onnx", "small_cnn.onnx", "attributes_and_types.onnx"]:
        svg = onnxview.graph(testdata / name, format="svg")
        assert svg.rstrip().endswith("</svg>")
