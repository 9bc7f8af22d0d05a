"""The rename case of edit_oracle.py.

python3-onnx renaming value names in a loaded model, written from the rules
write.hpp documents for edit_options::renames (not from onnxview's code): the
main graph and every graph in its scope (node attributes `g` and `graphs` at
any depth, training_info's initialization and algorithm), each graph less the
names it declares itself (inputs, initializers, sparse initializers, node
outputs), training binding keys as main-graph names and binding values in the
scope of the graph they bind; functions untouched. Also: which renames to ask
of a model, models made with onnx.helper whose subgraphs use outer values,
and the onnxruntime comparison of a model before and after.
"""
import os
import shutil

from common import inputs_from, ort_case


def declared(g):
    names = {i.name for i in g.input} | {t.name for t in g.initializer}
    names |= {s.values.name for s in g.sparse_initializer if s.HasField("values")}
    for n in g.node:
        names.update(n.output)
    return names


def reaching(g, active):
    """The changes in effect inside graph g, given those in effect around it."""
    mine = declared(g)
    return {old: new for old, new in active.items() if old not in mine}


def rename_repeated(values, active):
    for i, v in enumerate(values):
        if v in active:
            values[i] = active[v]


def rename_graph(g, active):
    # Only names being renamed are assigned: assigning an absent proto2 field
    # would make it present.
    if not active:
        return
    for v in list(g.input) + list(g.output) + list(g.value_info):
        if v.name in active:
            v.name = active[v.name]
    for t in g.initializer:
        if t.name in active:
            t.name = active[t.name]
    for s in g.sparse_initializer:
        if s.HasField("values") and s.values.name in active:
            s.values.name = active[s.values.name]
    for n in g.node:
        rename_repeated(n.input, active)
        rename_repeated(n.output, active)
        for a in n.attribute:
            if a.HasField("g"):
                rename_graph(a.g, reaching(a.g, active))
            for sub in a.graphs:
                rename_graph(sub, reaching(sub, active))
    for q in g.quantization_annotation:
        if q.tensor_name in active:
            q.tensor_name = active[q.tensor_name]
        for e in q.quant_parameter_tensor_names:
            if e.value in active:
                e.value = active[e.value]


def rename_in_place(model, changes):
    rename_graph(model.graph, changes)
    for ti in model.training_info:
        scopes = {"initialization": reaching(ti.initialization, changes),
                  "algorithm": reaching(ti.algorithm, changes)}
        for field, scope in scopes.items():
            if ti.HasField(field):
                rename_graph(getattr(ti, field), scope)
        for bindings, scope in ((ti.initialization_binding, scopes["initialization"]),
                                (ti.update_binding, scopes["algorithm"])):
            for b in bindings:
                if b.key in changes:
                    b.key = changes[b.key]
                if b.value in scope:
                    b.value = scope[b.value]


def main_graph_names(g):
    names = declared(g) | {o.name for o in g.output} | {v.name for v in g.value_info}
    for n in g.node:
        names.update(n.input)
    for q in g.quantization_annotation:
        names.add(q.tensor_name)
        names.update(e.value for e in q.quant_parameter_tensor_names)
    names.discard("")
    return names


def outer_reference(g, visible, shadowed=frozenset()):
    """The first name of `visible` that a subgraph of g (at any depth) uses
    without declaring it, or None."""
    for n in g.node:
        for a in n.attribute:
            for sub in ([a.g] if a.HasField("g") else []) + list(a.graphs):
                hidden = shadowed | declared(sub)
                for m in sub.node:
                    for name in m.input:
                        if name in visible and name not in hidden:
                            return name
                found = outer_reference(sub, visible, hidden)
                if found:
                    return found
    return None


def rename_case(model):
    """(flags, python edit) renaming the first graph input, output,
    initializer, sparse initializer, annotated tensor and quantization
    parameter, and the first main-graph value a subgraph uses; None when the
    model has none of them."""
    g = model.graph
    inits = {t.name for t in g.initializer}
    picks = [next((i.name for i in g.input if i.name not in inits), None),
             g.output[0].name if g.output else None,
             g.initializer[0].name if g.initializer else None,
             g.sparse_initializer[0].values.name if g.sparse_initializer else None,
             g.quantization_annotation[0].tensor_name if g.quantization_annotation else None,
             next((e.value for q in g.quantization_annotation for e in q.quant_parameter_tensor_names), None),
             outer_reference(g, main_graph_names(g))]
    serialized = model.SerializeToString()
    changes, k = {}, 0
    for old in picks:
        if not old or "=" in old or old in changes:
            continue
        new = f"onnxview_renamed_{k}"
        while new.encode() in serialized:  # a name used nowhere in the model
            k += 1
            new = f"onnxview_renamed_{k}"
        changes[old] = new
        k += 1
    if not changes:
        return None
    flags = [f for old, new in changes.items() for f in ("--rename", f"{old}={new}")]
    return flags, lambda m: rename_in_place(m, changes)


def rename_models(onnx, directory):
    """Models whose subgraphs and training graphs use main-graph values."""
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper
    F, B = TensorProto.FLOAT, TensorProto.BOOL
    w = numpy_helper.from_array(np.array([0.5, -2.0], dtype=np.float32), "w")

    def save(name, graph, training_info=()):
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
        m.ir_version = 8
        m.training_info.extend(training_info)
        path = os.path.join(directory, name)
        onnx.save(m, path)
        return path

    def vi(name, elem=F, shape=(2,)):
        return helper.make_tensor_value_info(name, elem, list(shape))

    paths = []
    # If: both branches use the outer input x and initializer w.
    then_g = helper.make_graph([helper.make_node("Add", ["x", "w"], ["t"])], "then", [], [vi("t")])
    else_g = helper.make_graph([helper.make_node("Sub", ["x", "w"], ["e"])], "else", [], [vi("e")])
    paths.append(save("rename_if.onnx", helper.make_graph(
        [helper.make_node("If", ["cond"], ["y"], then_branch=then_g, else_branch=else_g)], "if",
        [vi("cond", B, ()), vi("x")], [vi("y")], [w])))
    # Loop: the body's input x shadows the outer x; w comes from outside.
    body = helper.make_graph(
        [helper.make_node("Identity", ["c_in"], ["c_out"]), helper.make_node("Add", ["x", "w"], ["x_out"])],
        "body", [vi("i", TensorProto.INT64, ()), vi("c_in", B, ()), vi("x")], [vi("c_out", B, ()), vi("x_out")])
    trips = numpy_helper.from_array(np.array(3, dtype=np.int64), "trips")
    go = numpy_helper.from_array(np.array(True), "go")
    paths.append(save("rename_loop_shadow.onnx", helper.make_graph(
        [helper.make_node("Loop", ["trips", "go", "x"], ["y"], body=body)], "loop",
        [vi("x")], [vi("y")], [w, trips, go])))
    # Nested: an If inside a Loop body uses x and w two levels down; a Loop
    # in its other branch has a body input named w, shadowing the outer w.
    inner_then = helper.make_graph([helper.make_node("Mul", ["x", "w"], ["p"])], "inner_then", [], [vi("p")])
    shadowing_body = helper.make_graph(
        [helper.make_node("Identity", ["c2_in"], ["c2_out"]), helper.make_node("Mul", ["w", "w"], ["w_out"])],
        "shadowing_body", [vi("j", TensorProto.INT64, ()), vi("c2_in", B, ()), vi("w")],
        [vi("c2_out", B, ()), vi("w_out")])
    inner_else = helper.make_graph([helper.make_node("Loop", ["trips", "go", "x"], ["q"], body=shadowing_body)],
                                   "inner_else", [], [vi("q")])
    nested_body = helper.make_graph(
        [helper.make_node("Identity", ["c_in"], ["c_out"]),
         helper.make_node("If", ["c_in"], ["s"], then_branch=inner_then, else_branch=inner_else),
         helper.make_node("Add", ["s", "acc"], ["acc_out"])],
        "nested_body", [vi("i", TensorProto.INT64, ()), vi("c_in", B, ()), vi("acc")],
        [vi("c_out", B, ()), vi("acc_out")])
    paths.append(save("rename_nested.onnx", helper.make_graph(
        [helper.make_node("Loop", ["trips", "go", "x"], ["y"], body=nested_body)], "nested",
        [vi("x")], [vi("y")], [w, trips, go])))
    # Training info: the algorithm updates w (a main-graph initializer it
    # uses); the initialization graph declares its own w, so its binding's
    # value stays while the key (the main graph's w) is renamed.
    g = helper.make_graph([helper.make_node("Add", ["x", "w"], ["y"])], "main", [vi("x")], [vi("y")], [w])
    algorithm = helper.make_graph([helper.make_node("Add", ["w", "x"], ["w_next"])], "algorithm", [],
                                  [vi("w_next")])
    init = helper.make_graph(
        [helper.make_node("Constant", [], ["w"], value=numpy_helper.from_array(np.zeros(2, np.float32), "z"))],
        "initialization", [], [vi("w")])
    ti = onnx.TrainingInfoProto()
    ti.algorithm.CopyFrom(algorithm)
    ti.initialization.CopyFrom(init)
    ti.update_binding.add(key="w", value="w_next")
    ti.initialization_binding.add(key="w", value="w")
    paths.append(save("rename_training.onnx", g, training_info=[ti]))
    # Sparse initializer, value_info and a quantization annotation.
    sparse = helper.make_sparse_tensor(numpy_helper.from_array(np.array([1.5], np.float32), "s"),
                                       numpy_helper.from_array(np.array([1], np.int64), "s_idx"), [2])
    scale = numpy_helper.from_array(np.array(0.1, np.float32), "scale")
    g = helper.make_graph([helper.make_node("Add", ["x", "s"], ["h"]), helper.make_node("Mul", ["h", "scale"], ["y"])],
                          "annotated", [vi("x")], [vi("y")], [scale], value_info=[vi("h")], sparse_initializer=[sparse])
    q = g.quantization_annotation.add(tensor_name="h")
    q.quant_parameter_tensor_names.add(key="SCALE_TENSOR", value="scale")
    paths.append(save("rename_annotated.onnx", g))
    return paths


_runs_of_source = {}


def _run_source(onnx, ort_dir, src, work):
    """(inputs, onnxruntime's result) for src, or (None, None) when it does not run."""
    try:
        ins = inputs_from(onnx, onnx.load(src), None)
    except Exception:  # noqa: BLE001 - inputs that are not plain tensors
        return None, None
    if ins is None or any(i is None for i in ins):
        return None, None
    before = ort_case(ort_dir, [src], ins, work).get("results", [{"error": "no result"}])[0]
    return (None, None) if "error" in before else (ins, before)


def ort_same_outputs(onnx, ort_dir, src, ours, changes, work):
    """Runs src and its edited copy `ours` under onnxruntime with the same
    inputs (renamed for ours by `changes`, {old: new}): (ran, why it failed
    or None); the outputs must be the same, bit for bit, under their new
    names. Not run when onnxruntime is absent or does not run src."""
    if shutil.which("node") is None or not os.path.isdir(os.path.join(ort_dir, "node_modules", "onnxruntime-node")):
        return False, None
    if (ort_dir, src) not in _runs_of_source:  # each edit of src compares with the same run
        _runs_of_source[(ort_dir, src)] = _run_source(onnx, ort_dir, src, work)
    ins, before = _runs_of_source[(ort_dir, src)]
    if before is None:
        return False, None
    renamed = [dict(i, name=changes.get(i["name"], i["name"])) for i in ins]
    after = ort_case(ort_dir, [ours], renamed, work).get("results", [{"error": "no result"}])[0]
    if "error" in after:
        return True, f"the edited model does not run: {after['error'][:200]}"
    if [changes.get(o["name"], o["name"]) for o in before["outputs"]] != [o["name"] for o in after["outputs"]]:
        return True, "the outputs are not renamed"
    if [(o["type"], o["dims"], o["data"]) for o in before["outputs"]] != \
            [(o["type"], o["dims"], o["data"]) for o in after["outputs"]]:
        return True, "the outputs differ"
    return True, None
