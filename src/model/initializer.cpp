// Initializer lookup by name (include/onnxview/initializer.hpp).
#include "onnxview/initializer.hpp"

namespace onnxview {

result<initializer_ref> find_initializer(const graph_view& g, std::string_view name) noexcept {
    if (!g.ok()) return g.err();
    initializer_ref found;
    for (const tensor_view& t : g.initializer()) {
        if (!t.ok()) return t.err();
        if (t.name() != name) continue;
        found.dense = t;
        return found;
    }
    for (const sparse_tensor_view& s : g.sparse_initializer()) {
        if (!s.ok()) return s.err();
        const tensor_view values = s.values();
        if (!values.ok()) return values.err();
        if (values.name() != name) continue;
        found.is_sparse = true;
        found.sparse = s;
        return found;
    }
    const wire::message& m = g.wire_message();
    return error(errc::not_found, m.offset_of(m.begin()));
}

}  // namespace onnxview
