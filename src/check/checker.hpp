// Internal: the model checker's state, shared by the files of src/check/.
//
// The walk follows onnx/checker.cc (onnx 1.12): graphs in node order with a
// stack of lexical scopes, so "defined before use" and SSA are checked the
// way onnx.checker does. Names are kept as string_views into the model
// buffer; a scope is one hash set. Every container, path and message comes
// from options::memory (heap_allocator over the io layer's heap), so a caller
// that supplies an allocator sees no call of the global operator new. Each group of rules lives in its own file:
//   check.cpp           the driver: wire format, the model's own fields
//   graph_rules.cpp     graphs, value infos, types, nodes, attributes
//   tensor_rules.cpp    tensors (tensor_data's facts), external data, sparse tensors
//   function_rules.cpp  model-local functions and their call graph
#ifndef ONNXVIEW_SRC_CHECK_CHECKER_HPP
#define ONNXVIEW_SRC_CHECK_CHECKER_HPP

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "../io/heap.hpp"
#include "../model/function_key.hpp"
#include "onnxview/check.hpp"
#include "onnxview/external_data.hpp"
#include "onnxview/model.hpp"
#include "onnxview/schema.hpp"
#include "onnxview/traverse.hpp"

namespace onnxview {
namespace check_detail {

using memory = detail::heap_allocator<char>;
template <class T>
using list = std::vector<T, detail::heap_allocator<T>>;
using text = std::basic_string<char, std::char_traits<char>, memory>;
using name_set = std::unordered_set<std::string_view, std::hash<std::string_view>, std::equal_to<std::string_view>,
                                    detail::heap_allocator<std::string_view>>;
// Imported domains ("" for ai.onnx) and their versions.
using opset_map = std::unordered_map<std::string_view, std::int64_t, std::hash<std::string_view>,
                                     std::equal_to<std::string_view>,
                                     detail::heap_allocator<std::pair<const std::string_view, std::int64_t>>>;

using detail::function_key;
using detail::function_key_hash;

// Appends s to out in single quotes; bytes below 0x20, 0x7F, ' and \ as \xNN.
void quote(text& out, std::string_view s);

using detail::domain_key;

class checker {
public:
    checker(const char* data, std::size_t size, const options& o, check_callback cb, void* user)
        : data_(data), size_(size), opt_(o), cb_(cb), user_(user), mem_(detail::heap(o.memory)) {
        max_depth_ = o.max_graph_depth ? o.max_graph_depth : 32;
        max_findings_ = o.max_findings ? o.max_findings : 1000;
    }

    check_result run();

private:
    // --- findings and paths (check.cpp) -------------------------------------
    void report(check_severity s, finding_code code, std::string_view msg, std::uint64_t offset);
    void error(finding_code code, std::string_view msg, std::uint64_t offset = 0) {
        report(check_severity::error, code, msg, offset);
    }
    void warning(finding_code code, std::string_view msg, std::uint64_t offset = 0) {
        report(check_severity::warning, code, msg, offset);
    }
    // Message pieces on the checker's memory: "value " + quoted(name) + ...
    text str(std::string_view s) const { return text(s, mem_); }
    text quoted(std::string_view s) const {
        text out(mem_);
        quote(out, s);
        return out;
    }
    template <class Int>
    text num(Int v) const {
        char digits[24];
        const auto end = std::to_chars(digits, digits + sizeof digits, v).ptr;
        return text(digits, static_cast<std::size_t>(end - digits), mem_);
    }
    template <class View>
    static std::uint64_t offset_of(const View& v) noexcept {
        const wire::message& m = v.wire_message();
        return m.begin() ? m.offset_of(m.begin()) : 0;
    }

    // Appends ".field[i] 'name'" to the path (`number`: a field of `message`,
    // whose schema name the path shows).
    void push_path(const schema::message_desc& message, std::uint32_t number, std::int64_t index = -1,
                   std::string_view name = {}, bool show_name = false);
    // push_path() for the lifetime of the guard.
    class path_guard {
    public:
        // `number`: a field of `message`, whose schema name the path shows.
        path_guard(checker& c, const schema::message_desc& message, std::uint32_t number, std::int64_t index = -1,
                   std::string_view name = {}, bool show_name = false);
        ~path_guard() { c_.path_.resize(len_); }
        path_guard(const path_guard&) = delete;
        path_guard& operator=(const path_guard&) = delete;

    private:
        checker& c_;
        std::size_t len_;
    };

    // Whether the caller said where external data is.
    bool external_configured() const noexcept {
        return opt_.model_path || opt_.external_base_dir || opt_.external_files;
    }

    bool defined_in_scopes(std::string_view name) const {
        for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it)
            if (it->count(name)) return true;
        return false;
    }

    // --- the walk -----------------------------------------------------------
    void check_model_fields(const model_view& m);                                   // check.cpp
    // The main graph or a function body (with its opsets), and every
    // subgraph in it: walk_scope with scope_checks (graph_rules.cpp).
    void check_scope(const model_scope& s, const opset_map& opsets);
    struct scope_checks;
    void enter_graph(const graph_view& g, bool main_graph);
    void leave_graph(const graph_view& g);
    void node_inputs_and_fields(const node_view& n, const opset_map& opsets, bool in_function);
    void node_outputs(const node_view& n, bool in_function);
    void check_value_info(const value_info_view& v, bool main_graph);
    void check_type(const type_view& t, std::string_view name);
    void check_node(const node_view& n, const opset_map& opsets, bool in_function);
    void check_attribute(const attribute_view& a, bool in_function);
    void check_tensor(const tensor_view& t);                                        // tensor_rules.cpp
    void check_tensor_rules(const tensor_view& t);
    void check_external(const tensor_view& t, std::uint64_t expected);
    void check_sparse(const sparse_tensor_view& s);
    void check_functions(const model_view& m);                                      // function_rules.cpp
    void check_function_calls(const model_view& m);

    const char* data_;
    std::size_t size_;
    options opt_;
    check_callback cb_;
    void* user_;
    memory mem_;  // before every member that allocates
    std::uint32_t max_depth_;
    std::uint32_t max_findings_;
    bool stopped_ = false;
    check_result result_;
    text path_{mem_};

    std::int64_t ir_version_ = 0;
    opset_map model_opsets_{mem_};
    list<name_set> scopes_{mem_};
    bool resolver_tried_ = false;
    bool external_warned_ = false;
    external_data_resolver resolver_;
    bool have_resolver_ = false;
    std::unordered_map<function_key, std::size_t, function_key_hash, std::equal_to<function_key>,
                       detail::heap_allocator<std::pair<const function_key, std::size_t>>>
        functions_{mem_};
};

}  // namespace check_detail
}  // namespace onnxview

#endif  // ONNXVIEW_SRC_CHECK_CHECKER_HPP
