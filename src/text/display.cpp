// src/text/display.cpp - names and types as one-line text (onnxview/display.hpp).
#include "onnxview/display.hpp"

#include "onnxview/enums.hpp"

namespace onnxview {

void text_quote(std::string& out, std::string_view s) {
    static const char hex[] = "0123456789abcdef";
    for (char ch : s) {
        const unsigned char c = static_cast<unsigned char>(ch);
        if (c >= 0x20 && c < 0x7F && c != '\\') {
            out += ch;
        } else if (c == '\\') {
            out += "\\\\";
        } else {
            out += "\\x";
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
}

std::string quoted(std::string_view s) {
    std::string out = "'";
    text_quote(out, s);
    return out + "'";
}

std::string type_string(const type_view& t, int depth) {
    if (depth > 16) return "...";
    auto shape_string = [](const tensor_shape_view& shape, bool has_shape) {
        if (!has_shape) return std::string("(unknown rank)");
        std::string s = "[";
        bool first = true;
        for (const dimension_view& d : shape.dim()) {
            if (!first) s += ',';
            first = false;
            if (d.has_dim_value()) s += std::to_string(d.dim_value());
            else if (d.has_dim_param()) text_quote(s, d.dim_param());
            else s += '?';
        }
        return s + "]";
    };
    if (t.has_tensor_type()) {
        const auto tt = t.tensor_type();
        return std::string(data_type_name(tt.elem_type())) + shape_string(tt.shape(), tt.has_shape());
    }
    if (t.has_sparse_tensor_type()) {
        const auto st = t.sparse_tensor_type();
        return "sparse " + std::string(data_type_name(st.elem_type())) +
               shape_string(st.shape(), st.has_shape());
    }
    if (t.has_sequence_type()) return "seq(" + type_string(t.sequence_type().elem_type(), depth + 1) + ")";
    if (t.has_optional_type())
        return "optional(" + type_string(t.optional_type().elem_type(), depth + 1) + ")";
    if (t.has_map_type()) {
        const auto mt = t.map_type();
        return "map(" + std::string(data_type_name(mt.key_type())) + "," +
               type_string(mt.value_type(), depth + 1) + ")";
    }
    if (t.has_opaque_type()) {
        std::string s = "opaque(";
        text_quote(s, t.opaque_type().domain());
        s += ",";
        text_quote(s, t.opaque_type().name());
        return s + ")";
    }
    return "(no type)";
}

}  // namespace onnxview
