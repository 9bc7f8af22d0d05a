// tools/tensor_census.cpp - collecting and counting a model's tensors
// (tensor_census.hpp).
#include "tensor_census.hpp"

#include "output.hpp"

#include "onnxview/data_types.hpp"
#include "onnxview/enums.hpp"
#include "onnxview/tensor_storage.hpp"

namespace onnxview_cli {

using namespace onnxview;

const char* tensor_origin_name(tensor_origin o) {
    switch (o) {
        case tensor_origin::initializer: return "initializer";
        case tensor_origin::sparse_initializer: return "sparse_initializer";
        case tensor_origin::constant: return "constant";
        case tensor_origin::attribute: return "attribute";
    }
    return "?";
}

bool tensor_size(const tensor_view& t, std::uint64_t& elements, std::uint64_t& bytes) {
    elements = 0;
    bytes = 0;
    const auto count = element_count(t);
    if (!count) return false;
    elements = *count;
    const data_type_info* info = find_data_type_info(t.data_type());
    if (info == nullptr || info->kind == element_kind::string) {
        for (std::string_view s : t.string_data()) bytes += s.size();
        return true;
    }
    const auto payload = payload_bytes(*info, *count);
    if (!payload) return false;
    bytes = *payload;
    return true;
}

std::string census_label(const census_tensor& c) {
    const auto quoted = [](std::string& out, std::string_view s) {
        out += '\'';
        text_quote(out, s);
        out += '\'';
    };
    std::string label;
    const std::string_view name = c.t.name();
    if (c.origin == tensor_origin::constant || c.origin == tensor_origin::attribute) {
        if (c.origin == tensor_origin::constant) {
            label = "Constant ";
        } else {
            label = "attribute ";
            quoted(label, c.attribute);
            label += " of ";
        }
        quoted(label, c.node);
        if (!name.empty()) {
            label += " (";
            quoted(label, name);
            label += ")";
        }
    } else {
        quoted(label, name);
    }
    if (c.sparse_part) label += c.sparse_indices ? " sparse indices" : " sparse values";
    return label;
}

namespace {

class collector {
public:
    explicit collector(tensor_census& c) : c_(c) {}

    void graph(const graph_view& g, std::uint32_t depth) {
        if (depth > 100) return;  // verify() refuses deeper nesting anyway
        for (const tensor_view& t : g.initializer()) dense(t, tensor_origin::initializer);
        for (const sparse_tensor_view& s : g.sparse_initializer()) sparse(s, tensor_origin::sparse_initializer);
        nodes(g.node(), depth);
    }

    template <class Nodes>
    void nodes(const Nodes& ns, std::uint32_t depth) {
        for (const node_view& n : ns) {
            const bool constant = n.op_type() == "Constant" && (n.domain().empty() || n.domain() == "ai.onnx");
            const tensor_origin origin = constant ? tensor_origin::constant : tensor_origin::attribute;
            holder_ = n.output().size() > 0 ? *n.output().begin() : n.name();
            for (const attribute_view& a : n.attribute()) {
                attribute_ = a.name();
                if (a.has_t()) dense(a.t(), origin);
                for (const tensor_view& t : a.tensors()) dense(t, origin);
                if (a.has_sparse_tensor()) sparse(a.sparse_tensor(), origin);
                for (const sparse_tensor_view& s : a.sparse_tensors()) sparse(s, origin);
                if (a.has_g()) graph(a.g(), depth + 1);
                for (const graph_view& g : a.graphs()) graph(g, depth + 1);
                holder_ = n.output().size() > 0 ? *n.output().begin() : n.name();  // the subgraph's nodes changed it
            }
        }
    }

private:
    void dense(const tensor_view& t, tensor_origin origin) { add(t, origin, false, false); }

    void sparse(const sparse_tensor_view& s, tensor_origin origin) {
        if (s.has_values()) add(s.values(), origin, true, false);
        if (s.has_indices()) add(s.indices(), origin, true, true);
    }

    void add(const tensor_view& t, tensor_origin origin, bool sparse_part, bool indices) {
        const bool in_node = origin == tensor_origin::constant || origin == tensor_origin::attribute;
        c_.tensors.push_back({t, origin, sparse_part, indices, in_node ? holder_ : std::string_view(),
                              in_node ? attribute_ : std::string_view()});
        std::uint64_t elements = 0, bytes = 0;
        if (!tensor_size(t, elements, bytes)) {
            ++c_.bad_sizes;
            return;
        }
        if (indices) elements = 0;  // positions, not parameters
        for (totals* s : {&c_.by_origin[static_cast<std::size_t>(origin)], &c_.by_data_type[data_type_name(t.data_type())],
                          &c_.all}) {
            ++s->tensors;
            s->elements += elements;
            s->bytes += bytes;
        }
    }

    tensor_census& c_;
    std::string_view holder_, attribute_;  // of the node being walked
};

}  // namespace

tensor_census take_census(const model_view& m) {
    tensor_census c;
    collector k(c);
    if (m.has_graph()) k.graph(m.graph(), 0);
    for (const function_view& f : m.functions()) k.nodes(f.node(), 1);
    return c;
}

}  // namespace onnxview_cli
