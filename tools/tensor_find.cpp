// tools/tensor_find.cpp - finding a model's tensors by name (tensor_find.hpp).
#include "tensor_find.hpp"

#include <algorithm>

namespace onnxview_cli {
namespace {

using namespace onnxview;

// The attribute of a Constant named `name` that holds no tensor (value_float, ...).
struct other_constant_finder : scope_visitor {
    std::string_view name;
    std::string_view found;
    void node(const model_scope&, const node_view& n, std::uint32_t) {
        if (!is_constant_node(n) || n.output().size() == 0 || *n.output().begin() != name) return;
        for (const attribute_view& a : n.attribute())
            if (!a.has_t() && !a.has_sparse_tensor()) found = a.name();
    }
};

}  // namespace

std::vector<match> find_tensors(const model_view& m, std::string_view name, std::string_view& other_constant) {
    std::vector<match> found;
    (void)for_each_tensor(m, [&](const stored_tensor& st) {
        if (st.sparse_indices) return;  // a sparse tensor is found once, by its values
        const bool constant = st.origin == tensor_origin::constant &&
                              (st.field == tensor_field::t || st.field == tensor_field::sparse_tensor);
        if (constant) {
            if (st.holder.node.output().size() == 0 || *st.holder.node.output().begin() != name) return;
        } else if (st.origin == tensor_origin::attribute || st.tensor.name() != name) {
            return;
        }
        match k;
        k.sparse = st.sparse_part;
        if (k.sparse) k.s = st.sparse;
        else k.t = st.tensor;
        k.name = name;
        stored_tensor whole = st;  // the sparse tensor's path, not its values'
        whole.sparse_part = false;
        append_tensor_path(whole, k.where);
        k.depth = st.scope->kind == scope_kind::function ? 1000 : st.scope->depth;  // functions after every graph
        found.push_back(std::move(k));
    });
    std::stable_sort(found.begin(), found.end(), [](const match& a, const match& b) { return a.depth < b.depth; });
    other_constant_finder f;
    f.name = name;
    (void)walk_scopes(m, f);
    other_constant = f.found;
    return found;
}

}  // namespace onnxview_cli
