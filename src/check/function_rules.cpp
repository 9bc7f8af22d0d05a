// function_rules.cpp - model-local functions and their call graph.
#include <algorithm>
#include <utility>

#include "checker.hpp"
#include "onnxview/traverse.hpp"

namespace onnxview {
namespace check_detail {

void checker::check_functions(const model_view& m) {
    std::int64_t i = 0;
    // Merged opsets: the model's, then each function's (onnx 1.12
    // check_model_local_functions).
    opset_map merged = model_opsets_;
    for (const function_view& f : m.functions())
        for (const opset_id_view& op : f.opset_import()) merged.emplace(domain_key(op.domain()), op.version());
    for (const function_view& f : m.functions()) {
        path_guard p(*this, schema::msg_ModelProto, model_view::field::functions, i, f.name(), true);
        const std::uint64_t off = offset_of(f);
        if (f.name().empty()) error(finding_code::empty_name, "a function has an empty name", off);
        if (!f.has_domain() && ir_version_ >= 8)
            error(finding_code::function_no_domain, "function " + quoted(f.name()) + " has no domain", off);
        const function_key key{f.domain(), f.name(), f.overload()};
        if (!functions_.emplace(key, static_cast<std::size_t>(i)).second)
            error(finding_code::duplicate_function,
                  "function " + quoted(f.domain()) + "::" + quoted(f.name()) + " is defined more than once", off);
        opset_map opsets(mem_);
        for (const opset_id_view& op : f.opset_import()) opsets.emplace(domain_key(op.domain()), op.version());
        scopes_.emplace_back(mem_);
        list<name_set> outer(mem_);
        outer.swap(scopes_);  // a function sees no outer values
        scopes_.emplace_back(mem_);
        for (std::string_view in : f.input())
            if (!scopes_.back().insert(in).second)
                error(finding_code::duplicate_input, "function input " + quoted(in) + " is declared more than once",
                      off);
        name_set names(mem_);
        for (std::string_view out : f.output())
            if (!names.insert(out).second)
                error(finding_code::duplicate_output, "function output " + quoted(out) + " is declared more than once",
                      off);
        names.clear();
        for (std::string_view a : f.attribute())
            if (!names.insert(a).second)
                error(finding_code::duplicate_attribute,
                      "function attribute " + quoted(a) + " is declared more than once", off);
        for (const attribute_view& a : f.attribute_proto())
            if (!names.insert(a.name()).second)
                error(finding_code::duplicate_attribute,
                      "function attribute " + quoted(a.name()) + " is declared more than once", off);
        model_scope body;
        body.kind = scope_kind::function;
        body.function = f;
        body.index = static_cast<std::uint32_t>(i);
        check_scope(body, opsets.empty() ? merged : opsets);
        std::int64_t k = 0;
        for (std::string_view out : f.output()) {
            if (!out.empty() && !scopes_.back().count(out)) {
                path_guard po(*this, schema::msg_FunctionProto, function_view::field::output, k);
                error(finding_code::undefined_output, "function output " + quoted(out) + " is not produced by any node",
                      off);
            }
            ++k;
        }
        scopes_.swap(outer);
        scopes_.pop_back();
        ++i;
        if (stopped_) return;
    }
    check_function_calls(m);
}

// A function that reaches itself through calls would expand forever: find
// cycles in the call graph with an iterative depth-first search.
void checker::check_function_calls(const model_view& m) {
    if (functions_.empty()) return;
    list<function_view> fs(m.functions().begin(), m.functions().end(), mem_);
    list<list<std::size_t>> calls(mem_);
    // The functions a function's nodes call, in its subgraphs too.
    struct call_collector : scope_visitor {
        const checker& c;
        list<std::size_t>& out;
        call_collector(const checker& k, list<std::size_t>& o) : c(k), out(o) {}
        void node(const model_scope&, const node_view& n, std::uint32_t) {
            const auto it = c.functions_.find(function_key{n.domain(), n.op_type(), n.overload()});
            if (it != c.functions_.end()) out.push_back(it->second);
        }
    };
    for (std::size_t i = 0; i < fs.size(); ++i) {
        calls.emplace_back(mem_);
        model_scope s;
        s.kind = scope_kind::function;
        s.function = fs[i];
        s.index = static_cast<std::uint32_t>(i);
        call_collector collect(*this, calls[i]);
        // Subgraphs deeper than the limit are reported as too_deep by
        // check_scope, and not followed here either.
        (void)walk_scope(s, collect, max_depth_);
        std::sort(calls[i].begin(), calls[i].end());
        calls[i].erase(std::unique(calls[i].begin(), calls[i].end()), calls[i].end());
    }
    enum : std::uint8_t { white, grey, black };
    list<std::uint8_t> color(fs.size(), white, mem_);
    list<std::pair<std::size_t, std::size_t>> stack(mem_);  // (function, next callee index)
    for (std::size_t root = 0; root < fs.size(); ++root) {
        if (color[root] != white) continue;
        stack.emplace_back(root, 0);
        color[root] = grey;
        while (!stack.empty()) {
            auto& top = stack.back();
            if (top.second == calls[top.first].size()) {
                color[top.first] = black;
                stack.pop_back();
                continue;
            }
            const std::size_t callee = calls[top.first][top.second++];
            if (color[callee] == grey) {
                // The cycle is the stack from callee to the top.
                text chain(mem_);
                bool on = false;
                for (const auto& fr : stack) {
                    if (fr.first == callee) on = true;
                    if (on) chain += quoted(fs[fr.first].name()) + " -> ";
                }
                chain += quoted(fs[callee].name());
                path_guard p(*this, schema::msg_ModelProto, model_view::field::functions, static_cast<std::int64_t>(callee), fs[callee].name(), true);
                error(finding_code::recursive_function, "function calls itself: " + chain, offset_of(fs[callee]));
            } else if (color[callee] == white) {
                color[callee] = grey;
                stack.emplace_back(callee, 0);
            }
        }
    }
}

}  // namespace check_detail
}  // namespace onnxview
