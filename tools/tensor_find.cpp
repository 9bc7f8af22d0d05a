// tools/tensor_find.cpp - finding a model's tensors by name (tensor_find.hpp).
#include "tensor_find.hpp"

#include <algorithm>

namespace onnxview_cli {
namespace {

using namespace onnxview;

// Collects every tensor named `name`, in model order.
class finder {
public:
    explicit finder(std::string_view name) : name_(name) {}

    void graph(const graph_view& g, const std::string& path, std::uint32_t depth) {
        if (depth > 100) return;  // verify() refuses deeper nesting anyway
        std::size_t i = 0;
        for (const tensor_view& t : g.initializer()) {
            if (t.name() == name_) add_dense(t, path + ".initializer[" + std::to_string(i) + "]", depth, name_);
            ++i;
        }
        i = 0;
        for (const sparse_tensor_view& s : g.sparse_initializer()) {
            if (s.values().name() == name_)
                add_sparse(s, path + ".sparse_initializer[" + std::to_string(i) + "]", depth, name_);
            ++i;
        }
        nodes(g.node(), path, depth);
    }

    template <class Nodes>
    void nodes(const Nodes& ns, const std::string& path, std::uint32_t depth) {
        std::size_t i = 0;
        for (const node_view& n : ns) {
            const bool constant = n.op_type() == "Constant" && n.domain().empty() && n.output().at(0) == name_;
            std::size_t k = 0;
            for (const attribute_view& a : n.attribute()) {
                const std::string ap = path + ".node[" + std::to_string(i) + "].attribute[" + std::to_string(k) + "]";
                if (constant && a.name() == "value" && a.has_t()) add_dense(a.t(), ap + ".t", depth, name_);
                if (constant && a.name() == "sparse_value" && a.has_sparse_tensor())
                    add_sparse(a.sparse_tensor(), ap + ".sparse_tensor", depth, name_);
                if (constant && !a.has_t() && !a.has_sparse_tensor()) other_constant_ = a.name();
                if (a.has_g()) graph(a.g(), ap + ".g", depth + 1);
                std::size_t j = 0;
                for (const graph_view& sg : a.graphs()) graph(sg, ap + ".graphs[" + std::to_string(j++) + "]", depth + 1);
                ++k;
            }
            ++i;
        }
    }

    void model(const model_view& m) {
        graph(m.graph(), "graph", 0);
        std::size_t i = 0;
        for (const function_view& f : m.functions())
            nodes(f.node(), "functions[" + std::to_string(i++) + "]", 1000);  // after every graph
        std::stable_sort(found_.begin(), found_.end(),
                         [](const match& a, const match& b) { return a.depth < b.depth; });
    }

    const std::vector<match>& found() const { return found_; }
    // The attribute of a Constant named NAME that holds no tensor (value_float, ...).
    std::string_view other_constant() const { return other_constant_; }

private:
    void add_dense(const tensor_view& t, std::string where, std::uint32_t depth, std::string_view name) {
        match m;
        m.t = t;
        m.name = name;
        m.where = std::move(where);
        m.depth = depth;
        found_.push_back(std::move(m));
    }
    void add_sparse(const sparse_tensor_view& s, std::string where, std::uint32_t depth, std::string_view name) {
        match m;
        m.sparse = true;
        m.name = name;
        m.s = s;
        m.where = std::move(where);
        m.depth = depth;
        found_.push_back(std::move(m));
    }

    std::string_view name_;
    std::vector<match> found_;
    std::string_view other_constant_;
};

}  // namespace

std::vector<match> find_tensors(const model_view& m, std::string_view name, std::string_view& other_constant) {
    finder f(name);
    f.model(m);
    other_constant = f.other_constant();
    return f.found();
}

}  // namespace onnxview_cli
