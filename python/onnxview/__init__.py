"""Read ONNX models in place: zero-copy NumPy arrays over the mapped file.

    import onnxview
    with onnxview.open("model.onnx") as m:       # maps the file, reads nothing else
        m.ir_version, m.producer, m.opsets, m.metadata
        names = m.keys()                          # initializer names, in file order
        every = m.tensors()                       # every stored tensor, anywhere, with its path
        w = m.get_tensor(names[0])                # read-only, zero-copy when aligned
        part = m.get_slice(names[0])[0:10]        # only those rows are read
        for node in m.graph.nodes:
            node.op_type, node.inputs, node.outputs, node.attributes
        findings = m.check()                      # m.check(numeric=True): the weights' values too
    x = onnxview.load_tensor("input_0.pb")        # a standalone TensorProto file
    onnxview.profile("model.onnx", dims={"N": 1})["totals"]["macs"]   # as `onnxview profile --json`
    onnxview.stats("model.onnx")["totals"]["nan"]  # as `onnxview stats --json`
    onnxview.check("model.onnx", numeric=True)    # as `onnxview check --numeric`
    onnxview.scan_record("model.onnx")["findings"]   # one line of `onnxview scan`
    onnxview.graph("model.onnx")                  # DOT of `onnxview graph`, folded
    onnxview.edit("in.onnx", "out.onnx", toposort=True)   # as `onnxview edit --toposort`
    onnxview.merge("a.onnx", "b.onnx", "ab.onnx", io_map=[("y", "x")])   # as `onnxview merge`
    onnxview.hash("model.onnx")                   # what it computes, whatever the layout
    onnxview.diff("a.onnx", "b.onnx")["result"]   # what changed, as `onnxview diff --json`

Arrays keep the file mapped for as long as they live, also after the model
is closed. Every failure of the input raises onnxview.Error, which carries
the error code, the byte offset and the field path.
"""

from ._onnxview import (  # noqa: F401
    Error,
    Finding,
    Graph,
    Model,
    Node,
    SparseTensor,
    StoredTensor,
    TensorSlice,
    Type,
    ValueInfo,
    dtype_of,
    edit,
    graph,
    load_tensor,
    merge,
    open,
    profile,
    scan_record,
    stats,
)

__all__ = [
    "Error", "Finding", "Graph", "Model", "Node", "SparseTensor", "StoredTensor", "TensorSlice", "Type",
    "ValueInfo", "check", "dtype_of", "edit", "graph", "load_tensor", "merge", "open", "profile", "scan_record", "stats",
]


def check(path, *, errors_only=False, numeric=False):
    """The findings of Model.check() for the model at `path` (a list of Finding):
    onnx.checker's rules, payload sizes and external-data safety, and with
    numeric=True the weights' values (`onnxview check --numeric`, docs/stats.md)."""
    with open(path) as m:
        return m.check(errors_only=errors_only, numeric=numeric)


# With the comparison library (a build that found libxxhash).
try:
    from ._onnxview import diff, hash  # noqa: F401
except ImportError:
    pass
else:
    __all__ += ["diff", "hash"]
