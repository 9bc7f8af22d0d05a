// tools/tensor_census.cpp - collecting and counting a model's tensors
// (tensor_census.hpp).
#include "tensor_census.hpp"

#include "output.hpp"

#include "onnxview/data_types.hpp"
#include "onnxview/enums.hpp"
#include "onnxview/tensor_storage.hpp"

namespace onnxview_cli {

using namespace onnxview;

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

void census_adder::operator()(const stored_tensor& st) const {
    tensor_census& c = census;
    const bool in_node = st.origin == tensor_origin::constant || st.origin == tensor_origin::attribute;
    census_tensor ct{st.tensor, st.origin, st.sparse_part, st.sparse_indices, {}, {}};
    if (in_node) {
        // The node is named after what it computes: its first output, or its name.
        ct.node = st.holder.node.output().size() > 0 ? *st.holder.node.output().begin() : st.holder.node.name();
        ct.attribute = st.holder.attribute.name();
    }
    c.tensors.push_back(ct);
    std::uint64_t elements = 0, bytes = 0;
    if (!tensor_size(st.tensor, elements, bytes)) {
        ++c.bad_sizes;
        return;
    }
    if (st.sparse_indices) elements = 0;  // positions, not parameters
    for (totals* s : {&c.by_origin[static_cast<std::size_t>(st.origin)],
                      &c.by_data_type[data_type_name(st.tensor.data_type())], &c.all}) {
        ++s->tensors;
        s->elements += elements;
        s->bytes += bytes;
    }
}

void json_totals(json_writer& w, const totals& t) {
    w.begin_object();
    w.field("tensors", t.tensors);
    w.field("parameters", t.elements);
    w.field("bytes", t.bytes);
    w.end_object();
}

tensor_census take_census(const model_view& m) {
    tensor_census c;
    // verify() refuses what nests deeper than the walk's limit; the census
    // counts what lies above it.
    (void)for_each_tensor(m, census_adder{c});
    return c;
}

}  // namespace onnxview_cli
