// edit_options::extract (extract.hpp): the selection over views, and the
// walk's questions about it.
//
// The search follows onnx.utils.extract_model (onnx 1.12): backwards from
// each output through the nodes that produce a needed name, stopping at the
// inputs given; kept nodes stay in graph order, and initializers and
// value_info stay when a kept node reads or writes their name. Beyond it:
// names a kept node's subgraphs take from outer scopes are needed too
// (onnx's extractor leaves their producers out), and a cut that would need
// a graph input not given, or a value nothing defines, is refused instead
// of written.
#include "extract.hpp"

#include <functional>
#include <unordered_map>
#include <unordered_set>

#include "../model/function_key.hpp"
#include "outer_names.hpp"
#include "onnxview/model.hpp"
#include "onnxview/traverse.hpp"
#include "tensor_walk.hpp"

namespace onnxview {
namespace detail {

namespace {

template <class T>
using list = std::vector<T, heap_allocator<T>>;
using name_index = std::unordered_map<std::string_view, std::size_t, std::hash<std::string_view>,
                                      std::equal_to<std::string_view>,
                                      heap_allocator<std::pair<const std::string_view, std::size_t>>>;

constexpr std::size_t no_node = ~std::size_t(0);

using function_index = std::unordered_map<function_key, std::size_t, function_key_hash, std::equal_to<function_key>,
                                          heap_allocator<std::pair<const function_key, std::size_t>>>;

// A name still to be resolved, and the node that needs it (no_node: an output).
struct need {
    std::string_view name;
    std::size_t node;
};

class selector {
public:
    selector(const heap& memory, extract_report& report, const options& o)
        : memory_(memory), report_(report), max_depth_(o.max_graph_depth != 0 ? o.max_graph_depth : 32) {}

    error run(const model_view& model, const graph_view& g, const extract_request& r);
    std::size_t given(std::string_view name) const { return given_.count(name); }

private:
    heap memory_;  // before every member that allocates
    extract_report& report_;
    std::uint32_t max_depth_;

public:
    list<std::uint8_t> kept_nodes{heap_allocator<std::uint8_t>(memory_)};
    list<std::uint8_t> kept_functions{heap_allocator<std::uint8_t>(memory_)};
    name_set used{heap_allocator<std::string_view>(memory_)};      // read or written by what is kept
    name_set outputs{heap_allocator<std::string_view>(memory_)};
    name_set domains{heap_allocator<std::string_view>(memory_)};   // of kept nodes, anywhere

private:
    error fail(extract_problem p, std::string_view name, std::size_t node, errc code) {
        report_.problem = p;
        report_.name = name;
        std::uint64_t offset = 0;
        if (node != no_node) {
            const node_view& n = nodes_[node];
            report_.node = !n.name().empty() || n.output().size() == 0 ? n.name() : *n.output().begin();
            offset = n.wire_message().offset_of(n.wire_message().begin());
        }
        return error(code, offset);
    }
    error index(const graph_view& g);
    error resolve(const need& w);
    error outer_names(std::size_t node);
    error calls(const model_scope& scope, const node_view& n, std::uint32_t index);

    model_scope main_;  // the graph cut
    list<node_view> nodes_{heap_allocator<node_view>(memory_)};
    list<function_view> functions_{heap_allocator<function_view>(memory_)};
    name_index producer_{heap_allocator<std::pair<const std::string_view, std::size_t>>(memory_)};
    function_index function_of_{heap_allocator<std::pair<const function_key, std::size_t>>(memory_)};
    name_set given_{heap_allocator<std::string_view>(memory_)};
    name_set graph_inputs_{heap_allocator<std::string_view>(memory_)};
    name_set declared_{heap_allocator<std::string_view>(memory_)};      // graph inputs, outputs, value_info
    name_set initializers_{heap_allocator<std::string_view>(memory_)};  // dense and sparse
    list<need> work_{heap_allocator<need>(memory_)};
    list<std::size_t> function_work_{heap_allocator<std::size_t>(memory_)};
};

error selector::index(const graph_view& g) {
    main_.graph = g;
    for (const node_view& n : g.node()) {
        if (!n.ok()) return n.err();
        for (std::string_view out : n.output())
            if (!out.empty()) producer_.emplace(out, nodes_.size());  // the first producer, in a broken model
        nodes_.push_back(n);
    }
    for (const value_info_view& v : g.input()) {
        graph_inputs_.insert(v.name());
        declared_.insert(v.name());
    }
    for (const value_info_view& v : g.output()) declared_.insert(v.name());
    for (const value_info_view& v : g.value_info()) declared_.insert(v.name());
    for (const tensor_view& t : g.initializer()) initializers_.insert(t.name());
    for (const sparse_tensor_view& s : g.sparse_initializer()) initializers_.insert(s.values().name());
    return error();
}

// The names the subgraphs of node `node` take from outside them, needed
// for it as its inputs are.
error selector::outer_names(std::size_t node) {
    return for_each_outer_name(main_, nodes_[node], static_cast<std::uint32_t>(node), memory_, max_depth_,
                               [this, node](std::string_view name) { work_.push_back({name, node}); });
}

error selector::resolve(const need& w) {
    if (w.name.empty() || given_.count(w.name) != 0) return error();
    const auto p = producer_.find(w.name);
    if (p != producer_.end()) {
        const std::size_t k = p->second;
        if (kept_nodes[k] != 0) return error();
        kept_nodes[k] = 1;
        const node_view& n = nodes_[k];
        for (std::string_view in : n.input()) {
            used.insert(in);
            work_.push_back({in, k});
        }
        for (std::string_view out : n.output()) used.insert(out);
        const std::size_t before = work_.size();
        if (error e = outer_names(k)) return e;
        for (std::size_t i = before; i < work_.size(); ++i) used.insert(work_[i].name);
        return error();
    }
    if (initializers_.count(w.name) != 0) return error();
    if (graph_inputs_.count(w.name) != 0) return fail(extract_problem::missing_input, w.name, w.node, errc::not_found);
    return fail(extract_problem::undefined_value, w.name, w.node, errc::not_found);
}

// The domain of node `index` of `scope` and of the nodes in its subgraphs,
// and the functions they call.
error selector::calls(const model_scope& scope, const node_view& n, std::uint32_t index) {
    struct caller : scope_visitor {
        selector& s;
        error failure;
        explicit caller(selector& owner) : s(owner) {}
        bool enter(const model_scope& sub) {
            if (sub.graph.ok()) return true;
            if (!failure) failure = sub.graph.err();
            return false;
        }
        void node(const model_scope&, const node_view& n, std::uint32_t) {
            s.domains.insert(domain_key(n.domain()));
            const auto f = s.function_of_.find(function_key{n.domain(), n.op_type(), n.overload()});
            if (f != s.function_of_.end() && s.kept_functions[f->second] == 0) {
                s.kept_functions[f->second] = 1;
                s.function_work_.push_back(f->second);
            }
        }
    } c(*this);
    c.node(scope, n, index);
    const error e = walk_node_scopes(scope, n, index, c, max_depth_);
    return e ? e : c.failure;
}

error selector::run(const model_view& model, const graph_view& g, const extract_request& r) {
    if (r.output_count == 0) return fail(extract_problem::no_outputs, {}, no_node, errc::invalid_argument);
    if (error e = index(g)) return e;
    kept_nodes.assign(nodes_.size(), 0);
    const auto known = [&](std::string_view name) {
        return producer_.count(name) != 0 || declared_.count(name) != 0 || initializers_.count(name) != 0;
    };
    for (std::size_t i = 0; i < r.input_count; ++i) {
        if (!known(r.inputs[i])) return fail(extract_problem::unknown_name, r.inputs[i], no_node, errc::not_found);
        if (!given_.insert(r.inputs[i]).second)
            return fail(extract_problem::repeated_name, r.inputs[i], no_node, errc::invalid_argument);
    }
    for (std::size_t i = 0; i < r.output_count; ++i) {
        if (!known(r.outputs[i])) return fail(extract_problem::unknown_name, r.outputs[i], no_node, errc::not_found);
        if (!outputs.insert(r.outputs[i]).second)
            return fail(extract_problem::repeated_name, r.outputs[i], no_node, errc::invalid_argument);
        work_.push_back({r.outputs[i], no_node});
    }
    while (!work_.empty()) {
        const need w = work_.back();
        work_.pop_back();
        if (error e = resolve(w)) return e;
    }
    for (std::size_t k = 0; k < nodes_.size(); ++k) {
        if (kept_nodes[k] == 0) continue;
        ++report_.nodes;
        for (std::string_view out : nodes_[k].output())
            if (given_.count(out) != 0) return fail(extract_problem::input_computed, out, k, errc::invalid_argument);
    }
    report_.nodes_before = nodes_.size();

    for (const function_view& f : model.functions()) {
        if (!f.ok()) return f.err();
        function_of_.emplace(function_key{f.domain(), f.name(), f.overload()}, functions_.size());
        functions_.push_back(f);
    }
    kept_functions.assign(functions_.size(), 0);
    for (std::size_t k = 0; k < nodes_.size(); ++k)
        if (kept_nodes[k] != 0)
            if (error e = calls(main_, nodes_[k], static_cast<std::uint32_t>(k))) return e;
    while (!function_work_.empty()) {
        const std::size_t f = function_work_.back();
        function_work_.pop_back();
        ++report_.functions;
        model_scope body;
        body.kind = scope_kind::function;
        body.function = functions_[f];
        std::uint32_t index = 0;
        for (const node_view& n : body.function.node())
            if (error e = calls(body, n, index++)) return e;
    }
    return error();
}

// Where the ValueInfoProto of `name` is: the first field of `order` (graph
// input, output, value_info) that has one, its occurrence there, and
// whether its type is complete.
struct found_value {
    std::uint32_t field = 0;
    std::size_t index = 0;
    bool typed = false;
};
// onnx's check_value_info for a main-graph input or output: a type whose
// outermost kind is complete (a tensor type with elem_type and shape, ...).
bool complete_type(const value_info_view& v) noexcept {
    if (!v.has_type()) return false;
    const type_view t = v.type();
    if (t.has_tensor_type()) return t.tensor_type().has_elem_type() && t.tensor_type().has_shape();
    if (t.has_sparse_tensor_type()) return t.sparse_tensor_type().has_elem_type() && t.sparse_tensor_type().has_shape();
    if (t.has_sequence_type()) return t.sequence_type().has_elem_type();
    if (t.has_optional_type()) return t.optional_type().has_elem_type();
    if (t.has_map_type()) return t.map_type().has_key_type() && t.map_type().has_value_type();
    return t.has_opaque_type();
}

found_value find_value(const graph_view& g, std::string_view name, const std::uint32_t (&order)[3]) noexcept {
    for (std::uint32_t field : order) {
        const message_range<value_info_view> range = field == graph_view::field::input    ? g.input()
                                                     : field == graph_view::field::output ? g.output()
                                                                                         : g.value_info();
        std::size_t index = 0;
        for (const value_info_view& v : range) {
            if (v.name() == name) return {field, index, complete_type(v)};
            ++index;
        }
    }
    return {};
}

}  // namespace

extraction::extraction(const heap& memory) noexcept
    : memory_(memory), fields_(heap_allocator<field_keep>(memory_)), io_(heap_allocator<io_source>(memory_)) {}

extraction::field_keep* extraction::find(std::uint32_t number, bool root) noexcept {
    for (field_keep& f : fields_)
        if (f.number == number && f.root == root) return &f;
    return nullptr;
}

error extraction::select(std::string_view model, const extract_request& r, const options& o) noexcept {
    extract_report unused;
    extract_report& report = r.report != nullptr ? *r.report : unused;
    report = extract_report{};
    const wire::message root = wire::message::root(model.data(), model.size(), o.max_message_depth);
    tensor_walk::occurrences occ;
    if (error e = occ.collect(wire::reader(root.base(), root.begin(), root.end(), root.depth(), root.max_depth())))
        return e;
    const model_view mv{result<wire::message>(root)};
    if (!mv.ok()) return mv.err();
    if (occ.count[model_view::field::graph] != 1) {
        report.problem = extract_problem::no_graph;
        return errc::invalid_argument;
    }
    const graph_view g = mv.graph();
    if (!g.ok()) return g.err();
    selector s(memory_, report, o);
    if (error e = s.run(mv, g, r)) return e;

    // Each field's kept occurrences, in wire order.
    const auto add = [&](std::uint32_t number, bool root_field) -> field_keep& {
        fields_.emplace_back(number, root_field, memory_);
        return fields_.back();
    };
    fields_.reserve(9);
    add(graph_view::field::node, false).keep.assign(s.kept_nodes.begin(), s.kept_nodes.end());
    field_keep& initializers = add(graph_view::field::initializer, false);
    name_set kept_initializers{heap_allocator<std::string_view>(memory_)};
    for (const tensor_view& t : g.initializer()) {
        initializers.keep.push_back(s.used.count(t.name()) != 0 || s.outputs.count(t.name()) != 0);
        if (initializers.keep.back() != 0) kept_initializers.insert(t.name());
    }
    field_keep& sparse = add(graph_view::field::sparse_initializer, false);
    for (const sparse_tensor_view& t : g.sparse_initializer())
        sparse.keep.push_back(s.used.count(t.values().name()) != 0 || s.outputs.count(t.values().name()) != 0);
    for (std::uint8_t k : initializers.keep) report.initializers += k;
    for (std::uint8_t k : sparse.keep) report.initializers += k;
    field_keep& value_info = add(graph_view::field::value_info, false);
    for (const value_info_view& v : g.value_info()) value_info.keep.push_back(s.used.count(v.name()) != 0);
    field_keep& annotations = add(graph_view::field::quantization_annotation, false);
    for (const tensor_annotation_view& a : g.quantization_annotation())
        annotations.keep.push_back(s.used.count(a.tensor_name()) != 0);
    add(graph_view::field::input, false);   // all re-emitted
    add(graph_view::field::output, false);
    add(model_view::field::functions, true).keep.assign(s.kept_functions.begin(), s.kept_functions.end());
    field_keep& opsets = add(model_view::field::opset_import, true);
    for (const opset_id_view& op : mv.opset_import()) {
        const std::string_view domain = domain_key(op.domain());
        opsets.keep.push_back(domain.empty() || s.domains.count(domain) != 0);
        report.opsets += opsets.keep.back();
    }

    static constexpr std::uint32_t input_order[3] = {graph_view::field::input, graph_view::field::value_info,
                                                     graph_view::field::output};
    static constexpr std::uint32_t output_order[3] = {graph_view::field::output, graph_view::field::value_info,
                                                      graph_view::field::input};
    const auto place = [&](std::string_view name, const std::uint32_t (&order)[3], std::uint32_t number) -> error {
        const found_value v = find_value(g, name, order);
        if (!v.typed) {
            report.problem = extract_problem::no_type;
            report.name = name;
            return errc::invalid_argument;
        }
        io_.push_back({v.field, v.index, number, wire::field{}});
        return error();
    };
    for (std::size_t i = 0; i < r.input_count; ++i)
        if (error e = place(r.inputs[i], input_order, graph_view::field::input)) return e;
    for (std::size_t i = 0; i < r.output_count; ++i)
        if (error e = place(r.outputs[i], output_order, graph_view::field::output)) return e;
    // Before IR version 4 every initializer must be a graph input too: the
    // kept ones that were stay, after the inputs given.
    if (mv.ir_version() < 4) {
        std::size_t index = 0;
        for (const value_info_view& v : g.input()) {
            if (kept_initializers.count(v.name()) != 0 && s.given(v.name()) == 0)
                io_.push_back({graph_view::field::input, index, graph_view::field::input, wire::field{}});
            ++index;
        }
    }
    return error();
}

void extraction::restart() noexcept {
    for (field_keep& f : fields_) f.seen = 0;
}

bool extraction::drops(const schema::message_desc& d, const wire::message& m, const wire::field& f) noexcept {
    const bool root = &d == &schema::msg_ModelProto && m.depth() == 0;
    if ((!root && !is_main_graph(d, m)) || f.type != wire::wire_type::length_delimited) return false;
    field_keep* k = find(f.number, root);
    if (k == nullptr) return false;
    const std::size_t index = k->seen++;
    if (!root)
        for (io_source& s : io_)
            if (s.source == f.number && s.index == index) s.field = f;
    if (f.number == graph_view::field::input || f.number == graph_view::field::output) return !root;
    return index >= k->keep.size() || k->keep[index] == 0;
}

}  // namespace detail
}  // namespace onnxview
