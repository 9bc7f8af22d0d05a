"""Walks every file named on the command line through the whole Python API
(metadata, keys, every tensor whole, raw and sliced, the graph with its
subgraphs, check()). onnxview.Error is the expected way to fail; any other
exception is printed as 'UNEXPECTED path: ...'. A crash ends the process,
which the caller sees in its exit status."""
import sys

import onnxview


def walk_graph(g, depth=0):
    for node in g.nodes:
        node.op_type, node.inputs, node.outputs
        for value in node.attributes.values():
            for v in value if isinstance(value, list) else [value]:
                if isinstance(v, onnxview.Graph) and depth < 50:
                    walk_graph(v, depth + 1)
    for v in g.inputs + g.outputs + g.value_info:
        v.name, v.dtype, v.shape
    for name in g.keys():
        g.get_tensor(name)


def walk(path):
    with onnxview.open(path) as m:
        m.ir_version, m.producer, m.opsets, m.metadata
        for name in m.keys():
            for step in (lambda: m.get_tensor(name), lambda: m.get_tensor(name, raw=True),
                         lambda: m.get_slice(name)[1:3]):
                try:
                    step()
                except onnxview.Error:
                    pass
                except (TypeError, IndexError):  # get_slice of a sparse or scalar initializer
                    pass
        try:
            walk_graph(m.graph)
        except onnxview.Error:
            pass
        m.check()


def main(paths):
    failures = 0
    for path in paths:
        try:
            walk(path)
        except onnxview.Error:
            pass
        except Exception as e:  # noqa: BLE001 - what the test is looking for
            print("UNEXPECTED %s: %r" % (path, e))
            failures += 1
    print("walked %d files" % len(paths))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
