// tools/diff_model.cpp - the model and signature sections of `onnxview
// diff` (docs/diff.md): ir_version, opsets, producer, metadata; the main
// graph's inputs and outputs.
#include <map>
#include <string>
#include <vector>

#include "diff.hpp"
#include "onnxview/enums.hpp"
#include "output.hpp"

namespace onnxview_cli {

using namespace onnxview;

namespace {

// ---- model ----------------------------------------------------------------

std::map<std::string, std::int64_t> opsets(const model_view& m) {
    std::map<std::string, std::int64_t> out;
    for (const opset_id_view& o : m.opset_import())
        out[o.domain() == "ai.onnx" ? std::string() : std::string(o.domain())] = o.version();
    return out;
}

std::map<std::string, std::string> metadata(const model_view& m) {
    std::map<std::string, std::string> out;
    for (const string_entry_view& e : m.metadata_props()) out[std::string(e.key())] = std::string(e.value());
    return out;
}

template <class Map, class Show>
void diff_maps(const Map& a, const Map& b, const std::string& what, Show show, std::vector<std::string>& out) {
    for (const auto& [key, value] : a) {
        const auto other = b.find(key);
        if (other == b.end())
            out.push_back(what + " " + quoted(key) + ": removed (was " + show(value) + ")");
        else if (other->second != value)
            out.push_back(what + " " + quoted(key) + ": " + show(value) + " -> " + show(other->second));
    }
    for (const auto& [key, value] : b)
        if (a.find(key) == a.end()) out.push_back(what + " " + quoted(key) + ": added " + show(value));
}

}  // namespace

void diff_model(const model_view& a, const model_view& b, const ignored& skip, diff_report& r) {
    if (a.ir_version() != b.ir_version())
        r.model.push_back("ir_version: " + std::to_string(a.ir_version()) + " -> " + std::to_string(b.ir_version()));
    diff_maps(opsets(a), opsets(b), "opset", [](std::int64_t v) { return std::to_string(v); }, r.model);
    r.model_counted = r.model.size();
    const auto producer = [](const model_view& m) {
        std::string p;
        text_quote(p, m.producer_name());
        if (!m.producer_version().empty()) p += ' ', text_quote(p, m.producer_version());
        return p;
    };
    if (!skip.producer && producer(a) != producer(b)) r.model.push_back("producer: " + producer(a) + " -> " + producer(b));
    if (!skip.producer && a.model_version() != b.model_version())
        r.model.push_back("model_version: " + std::to_string(a.model_version()) + " -> " + std::to_string(b.model_version()));
    if (!skip.metadata) diff_maps(metadata(a), metadata(b), "metadata", [](const std::string& v) { return quoted(v); }, r.model);
    if (!skip.doc_string && a.doc_string() != b.doc_string()) r.model.push_back("doc_string changed");
}

// ---- signature ------------------------------------------------------------

// Graph inputs and outputs by name (a's as b calls them, with --match=auto);
// a renamed one is a counted change: callers bind them by name.
void diff_value_infos(const message_range<value_info_view>& a, const message_range<value_info_view>& b,
                      const char* what, const value_names& names, std::vector<std::string>& out) {
    std::map<std::string, type_view> in_b;
    for (const value_info_view& v : b) in_b[std::string(v.name())] = v.type();
    std::map<std::string, type_view> in_a;
    for (const value_info_view& v : a) {
        const std::string name(names.in_b("", v.name()));
        in_a[name] = v.type();
        const auto other = in_b.find(name);
        const std::string at = std::string(what) + " " + quoted(v.name());
        if (other == in_b.end()) {
            out.push_back(at + ": removed (was " + type_string(v.type()) + ")");
            continue;
        }
        if (name != v.name()) out.push_back(at + ": renamed " + quoted(name));
        const type_view& t = other->second;
        const bool tensors = v.type().has_tensor_type() && t.has_tensor_type();
        if (tensors && v.type().tensor_type().elem_type() != t.tensor_type().elem_type())
            out.push_back(at + ": element type " + data_type_name(v.type().tensor_type().elem_type()) + " -> " +
                          data_type_name(t.tensor_type().elem_type()));
        // The shape, or the whole type when it is not a tensor's.
        const std::string old_type = type_string(v.type()), new_type = type_string(t);
        if (tensors) {
            const std::string old_shape = old_type.substr(old_type.find_first_of("[("));
            const std::string new_shape = new_type.substr(new_type.find_first_of("[("));
            if (old_shape != new_shape) out.push_back(at + ": shape " + old_shape + " -> " + new_shape);
        } else if (old_type != new_type) {
            out.push_back(at + ": type " + old_type + " -> " + new_type);
        }
    }
    for (const value_info_view& v : b)
        if (in_a.find(std::string(v.name())) == in_a.end())
            out.push_back(std::string(what) + " " + quoted(v.name()) + ": added " + type_string(v.type()));
}

}  // namespace onnxview_cli
