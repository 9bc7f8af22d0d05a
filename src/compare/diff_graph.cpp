// src/compare/diff_graph.cpp - the graph section of diff_models(): scopes
// paired by where they are, nodes by match_nodes() (diff_match.cpp).
#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "diff_internal.hpp"
#include "onnxview/attribute_values.hpp"
#include "onnxview/compare/model_hash.hpp"
#include "onnxview/display.hpp"
#include "onnxview/enums.hpp"
#include "onnxview/traverse.hpp"

namespace onnxview {
namespace diff_detail {
namespace {

template <class Range, class Fn>
std::string list(const Range& r, Fn&& item) {
    std::string out = "[";
    bool first = true;
    for (const auto& x : r) {
        if (!first) out += ", ";
        first = false;
        out += item(x);
    }
    return out + "]";
}

std::string dims_text(const wire::repeated<wire::elem_int64>& dims) {
    return list(dims, [](std::int64_t d) { return std::to_string(d); });
}

// A tensor attribute: its type, dims and the start of its digest, which
// stands for its values wherever they are stored.
std::string tensor_text(const tensor_view& t, const external_payload_source* ext, const digest_options& digest) {
    std::string out = std::string("tensor ") + data_type_name(t.data_type()) + " " + dims_text(t.dims());
    if (!digest.values) return out;
    const result<digest128> d = tensor_digest(t, ext);
    char hex[33];
    if (d) {
        d->to_hex(hex);
        out += " xxh3:";
        out.append(hex, 16);
    } else {
        out += std::string(" (unreadable: ") + errc_name(d.err().code) + ")";
    }
    return out;
}

}  // namespace

// An attribute's value as diff prints it; subgraphs are compared as scopes.
std::string attribute_printer::text(const attribute_view& a) const {
    const external_payload_source* const ext_ = &ext;
    std::string out;
    switch (effective_attribute_type(a)) {
        case attribute_type::float32: out = float_text(a.f()); break;
        case attribute_type::int64: out = std::to_string(a.i()); break;
        case attribute_type::string: out = '"', text_quote(out, a.s()), out += '"'; break;
        case attribute_type::tensor: out = tensor_text(a.t(), ext_, digest); break;
        case attribute_type::graph: out = "(graph)"; break;
        case attribute_type::floats: out = list(a.floats(), [](float f) { return float_text(f); }); break;
        case attribute_type::ints: out = list(a.ints(), [](std::int64_t i) { return std::to_string(i); }); break;
        case attribute_type::strings: out = list(a.strings(), [](std::string_view s) { return quoted(s); }); break;
        case attribute_type::tensors: out = list(a.tensors(), [this, ext_](const tensor_view& t) { return tensor_text(t, ext_, digest); }); break;
        case attribute_type::graphs: out = "(" + std::to_string(a.graphs().size()) + " graphs)"; break;
        case attribute_type::sparse_tensor: out = "sparse " + tensor_text(a.sparse_tensor().values(), ext_, digest); break;
        case attribute_type::sparse_tensors: out = "(" + std::to_string(a.sparse_tensors().size()) + " sparse tensors)"; break;
        case attribute_type::type_proto: out = type_string(a.tp()); break;
        case attribute_type::type_protos: out = list(a.type_protos(), [](const type_view& t) { return type_string(t); }); break;
        default: out = "(type " + std::to_string(a.type_raw()) + ")"; break;
    }
    if (a.has_ref_attr_name()) out += " (ref " + quoted(a.ref_attr_name()) + ")";
    return out;
}

std::string node_record::key() const {
    if (name.empty()) return "#" + std::to_string(index);
    std::string k = quoted(name);
    if (name_repeated) k += " #" + std::to_string(index);
    return k;
}

namespace {

// Collects every scope of a model with walk_scopes.
struct scope_collector : scope_visitor {
    const attribute_printer* printer = nullptr;
    const tensor_digests* known = nullptr;

    // An initializer's type and dims, and the start of its digest when known:
    // what pairs it with its partner when nobody reads it, and what tells
    // its readers apart.
    std::string initializer_label(const tensor_view& t) const {
        std::string out = std::string(data_type_name(t.data_type())) + dims_text(t.dims());
        if (known == nullptr) return out;
        const auto it = known->find(t.wire_message().begin());
        if (it == known->end()) return out;
        char hex[33];
        it->second.to_hex(hex);
        return out + " " + std::string(hex, 16);
    }
    std::vector<scope_record> scopes;
    std::vector<std::size_t> stack;  // indices into scopes
    std::vector<std::unordered_set<std::string_view>> names;  // per scope: the node names so far
    std::unordered_map<std::string, std::size_t> scope_keys;  // how often each scope key came

    std::string key_of(const model_scope& s) const {
        switch (s.kind) {
            case scope_kind::main_graph: return "graph";
            case scope_kind::training_initialization: return "training_info[" + std::to_string(s.index) + "].initialization";
            case scope_kind::training_algorithm: return "training_info[" + std::to_string(s.index) + "].algorithm";
            case scope_kind::function: {
                std::string k = "function ";
                text_quote(k, s.function.domain());
                k += ':';
                text_quote(k, s.function.name());
                if (!s.function.overload().empty()) k += ':', text_quote(k, s.function.overload());
                return k;
            }
            case scope_kind::subgraph: break;
        }
        const scope_record& parent = scopes[stack.back()];
        std::string k = parent.key + " > node " + parent.nodes[s.holder.node_index].key() + " ";
        text_quote(k, s.holder.attribute.name());
        if (s.in_graphs) k += "[" + std::to_string(s.index) + "]";
        return k;
    }

    bool enter(const model_scope& s) {
        scope_record r;
        r.printer = printer;
        r.key = key_of(s);
        // A key given twice (an attribute name repeated, found by fuzzing):
        // the second is told apart by its count, or the two would be paired
        // with each other's partners.
        const std::size_t seen = scope_keys[r.key]++;
        if (seen != 0) r.key += " #" + std::to_string(seen);
        if (s.kind == scope_kind::subgraph) {
            r.parent = stack.back();
            r.holder = s.holder.node_index;
            r.suffix = r.key.substr(held_prefix_size(s));
            r.ns = scopes[r.parent].ns;
        } else if (s.kind == scope_kind::function) {
            r.ns = r.key;
        }
        if (s.is_graph()) {
            for (const value_info_view& v : s.graph.input()) r.inputs.emplace_back(v.name());
            for (const value_info_view& v : s.graph.output()) r.outputs.emplace_back(v.name());
            // Initializers that are also inputs (IR < 4) stay inputs: their
            // position tells them apart better than their type.
            for (const tensor_view& t : s.graph.initializer())
                r.initializers.emplace_back(t.name(), initializer_label(t));
            for (const sparse_tensor_view& t : s.graph.sparse_initializer())
                r.initializers.emplace_back(t.values().name(), "sparse " + dims_text(t.dims()));
        } else {
            for (std::string_view v : s.function.input()) r.inputs.emplace_back(v);
            for (std::string_view v : s.function.output()) r.outputs.emplace_back(v);
        }
        scopes.push_back(std::move(r));
        names.emplace_back();
        names.back().reserve(s.nodes().size());
        scopes.back().nodes.reserve(s.nodes().size());
        stack.push_back(scopes.size() - 1);
        return true;
    }
    // The scope's arrays are complete: its nodes' runs point into them.
    void leave(const model_scope&) {
        scope_record& scope = scopes[stack.back()];
        std::size_t value = 0, attribute = 0;
        for (node_record& n : scope.nodes) {
            n.inputs.first = scope.node_values.data() + value;
            n.outputs.first = n.inputs.first + n.inputs.count;
            value += n.inputs.count + n.outputs.count;
            n.attributes.first = scope.node_attributes.data() + attribute;
            attribute += n.attributes.count;
        }
        stack.pop_back();
    }

    // The length of "PARENT > node KEY " in a subgraph's key.
    std::size_t held_prefix_size(const model_scope& s) const {
        const scope_record& parent = scopes[stack.back()];
        return parent.key.size() + 8 + parent.nodes[s.holder.node_index].key().size() + 1;
    }

    void node(const model_scope&, const node_view& n, std::uint32_t index) {
        scope_record& scope = scopes[stack.back()];
        node_record r;
        r.name = n.name();
        r.index = index;
        // A name given twice: the second is told apart by its position. A
        // set, not a scan of the nodes so far: that was quadratic, 44 s for
        // a graph of 100000 nodes.
        r.name_repeated = !r.name.empty() && !names[stack.back()].insert(r.name).second;
        r.op_type = n.op_type();
        r.domain = n.domain() == "ai.onnx" ? std::string_view() : n.domain();
        // Positions in the scope's arrays until leave() points the runs at them.
        const std::size_t values = scope.node_values.size();
        for (std::string_view v : n.input()) scope.node_values.push_back(v);
        r.inputs = {nullptr, scope.node_values.size() - values};
        for (std::string_view v : n.output()) scope.node_values.push_back(v);
        r.outputs = {nullptr, scope.node_values.size() - values - r.inputs.count};
        const std::size_t first = scope.node_attributes.size();
        const bool constant = is_constant_node(n);
        for (const attribute_view& a : n.attribute()) {
            // A Constant's tensor is in the weights section.
            if (constant && (a.name() == "value" || a.name() == "sparse_value")) continue;
            scope.node_attributes.push_back({a.name(), a.wire_message()});
        }
        // By name; of a name given twice the last, as a map filled in order keeps.
        auto& all = scope.node_attributes;
        for (std::size_t i = first + 1; i < all.size(); ++i)  // insertion sort: stable, no buffer
            for (std::size_t j = i; j > first && all[j].name < all[j - 1].name; --j) std::swap(all[j], all[j - 1]);
        const auto last = std::unique(all.rbegin(), all.rend() - first,
                                      [](const node_attribute& x, const node_attribute& y) { return x.name == y.name; });
        all.erase(all.begin() + first, last.base());
        r.attributes = {nullptr, all.size() - first};
        scope.nodes.push_back(std::move(r));
    }
};

std::string names_text(const run_of<std::string_view>& names) {
    return list(names, [](std::string_view s) { return quoted(s); });
}

// Whether a's values, as b calls them, are b's.
bool same_values(const run_of<std::string_view>& a, const run_of<std::string_view>& b, const std::string& ns,
                 const value_names& names) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (names.in_b(ns, a[i]) != b[i]) return false;
    return true;
}

// Whether an attribute holds a tensor, whose bytes can be equal in both
// models while its external payload differs.
bool holds_tensor(const attribute_view& a) {
    const attribute_type t = effective_attribute_type(a);
    return t == attribute_type::tensor || t == attribute_type::tensors || t == attribute_type::sparse_tensor ||
           t == attribute_type::sparse_tensors;
}

// Equal bytes are the same value (but for tensors, see holds_tensor);
// otherwise the values as printed decide, so that layout does not count.
bool same_attribute(const node_attribute& a, const node_attribute& b, std::string& text_a, std::string& text_b,
                    const attribute_printer& pa, const attribute_printer& pb) {
    const attribute_view va = a.view();
    const std::string_view bytes_a(a.message.begin(), static_cast<std::size_t>(a.message.end() - a.message.begin()));
    const std::string_view bytes_b(b.message.begin(), static_cast<std::size_t>(b.message.end() - b.message.begin()));
    if (bytes_a == bytes_b && !holds_tensor(va)) return true;
    text_a = pa.text(va);
    text_b = pb.text(b.view());
    return text_a == text_b;
}

void diff_nodes(const scope_record& scope, const scope_record& scope_b, const node_record& a, const node_record& b,
                const value_names& names, change_list& out) {
    const auto change = [&](change_kind kind, std::string_view attribute, std::string before, std::string after) {
        out.push_back(make_change(diff_section::graph, kind, change_subject::node, a.key(), true));
        model_change& c = out.back();
        c.scope = scope.key;
        c.attribute = attribute;
        c.before = std::move(before);
        c.after = std::move(after);
    };
    if (a.op_type != b.op_type) change(change_kind::op_type, "", std::string(a.op_type), std::string(b.op_type));
    if (a.domain != b.domain) change(change_kind::domain, "", quoted(a.domain), quoted(b.domain));
    if (!same_values(a.inputs, b.inputs, scope.ns, names))
        change(change_kind::inputs, "", names_text(a.inputs), names_text(b.inputs));
    if (!same_values(a.outputs, b.outputs, scope.ns, names))
        change(change_kind::outputs, "", names_text(a.outputs), names_text(b.outputs));
    // Both sorted by name: one merge.
    auto x = a.attributes.begin(), y = b.attributes.begin();
    std::string text_a, text_b;
    while (x != a.attributes.end() || y != b.attributes.end()) {
        if (y == b.attributes.end() || (x != a.attributes.end() && x->name < y->name)) {
            change(change_kind::removed, x->name, scope.printer->text(x->view()), "");
            ++x;
        } else if (x == a.attributes.end() || y->name < x->name) {
            change(change_kind::added, y->name, "", scope_b.printer->text(y->view()));
            ++y;
        } else {
            if (!same_attribute(*x, *y, text_a, text_b, *scope.printer, *scope_b.printer))
                change(change_kind::changed, x->name, text_a, text_b);
            ++x, ++y;
        }
    }
}

// A node added or removed: its op_type is what the report shows of it.
void node_change(const std::string& scope, const node_record& n, change_kind kind, change_list& out) {
    out.push_back(make_change(diff_section::graph, kind, change_subject::node, n.key(), true));
    out.back().scope = scope;
    (kind == change_kind::removed ? out.back().before : out.back().after) = std::string(n.op_type);
}

// A scope added or removed, with its node count.
void scope_change(const scope_record& s, change_kind kind, change_list& out) {
    out.push_back(make_change(diff_section::graph, kind, change_subject::scope, "", true));
    out.back().scope = s.key;
    (kind == change_kind::removed ? out.back().before : out.back().after) = std::to_string(s.nodes.size()) + " nodes";
}

// The keys of the scopes held by a node start with this; a node added or
// removed is told once, not again for each scope it holds.
std::string held_prefix(const scope_record& s, const node_record& n) { return s.key + " > node " + n.key() + " "; }

bool held_by(const std::string& key, const std::vector<std::string>& prefixes) {
    for (const std::string& p : prefixes)
        if (key.compare(0, p.size(), p) == 0) return true;
    return false;
}

void diff_scope(const scope_record& a, const scope_record& b, const std::vector<std::size_t>& a_to_b,
                const value_names& names, change_list& out, std::vector<std::string>& removed,
                std::vector<std::string>& added) {
    std::vector<bool> b_matched(b.nodes.size(), false);
    std::vector<std::size_t> matched_positions;  // in b, in a's order
    for (std::size_t i = 0; i < a.nodes.size(); ++i) {
        const node_record& n = a.nodes[i];
        if (a_to_b[i] == scope_record::npos) {
            node_change(a.key, n, change_kind::removed, out);
            removed.push_back(held_prefix(a, n));
            continue;
        }
        b_matched[a_to_b[i]] = true;
        matched_positions.push_back(a_to_b[i]);
        diff_nodes(a, b, n, b.nodes[a_to_b[i]], names, out);
    }
    for (std::size_t i = 0; i < b.nodes.size(); ++i)
        if (!b_matched[i]) {
            node_change(a.key, b.nodes[i], change_kind::added, out);
            added.push_back(held_prefix(b, b.nodes[i]));
        }
    if (!std::is_sorted(matched_positions.begin(), matched_positions.end())) {
        out.push_back(make_change(diff_section::graph, change_kind::order, change_subject::none, "", true));
        out.back().scope = a.key;
    }
}

}  // namespace

error collect_scopes(model_file& m, const attribute_printer& printer, std::vector<scope_record>& out,
                     const tensor_digests* known) {
    scope_collector c;
    c.printer = &printer;
    c.known = known;
    if (error e = walk_scopes(m.model(), c)) return e;
    out = std::move(c.scopes);
    return error();
}

std::string node_line(const node_record& n, const attribute_printer& printer) {
    std::string out = "node " + n.key() + " " + std::string(n.op_type);
    if (!n.domain.empty()) out += " (" + quoted(n.domain) + ")";
    out += " " + names_text(n.inputs) + " -> " + names_text(n.outputs);
    for (const node_attribute& a : n.attributes) out += " " + std::string(a.name) + "=" + printer.text(a.view());
    return out;
}

error diff_graphs(model_file& a, model_file& b, const digest_options& digest, node_matching mode, value_names& names,
                  change_list& out, const tensor_digests* known_a, const tensor_digests* known_b) {
    struct {
        std::vector<scope_record> scopes;
    } ca, cb;
    const attribute_printer pa{a.external(), digest}, pb{b.external(), digest};
    if (error e = collect_scopes(a, pa, ca.scopes, known_a)) return e;
    if (error e = collect_scopes(b, pb, cb.scopes, known_b)) return e;
    std::map<std::string, std::size_t> scopes_b;
    for (std::size_t i = 0; i < cb.scopes.size(); ++i) scopes_b[cb.scopes[i].key] = i;
    std::map<std::string, const scope_record*> scopes_a;  // by their keys in b
    // Scopes are walked parents first, so a node's removal is known before
    // the scopes it holds come, and so are its pairing and its values.
    std::vector<std::string> removed, added;
    std::vector<std::vector<std::size_t>> pairing(ca.scopes.size());
    std::vector<std::size_t> partner(ca.scopes.size(), scope_record::npos);
    for (std::size_t i = 0; i < ca.scopes.size(); ++i) {
        const scope_record& s = ca.scopes[i];
        // A subgraph is where its holder's partner holds it.
        std::string key = s.key;
        if (s.parent != scope_record::npos && partner[s.parent] != scope_record::npos) {
            const std::size_t holder = pairing[s.parent][s.holder];
            if (holder != scope_record::npos) {
                const scope_record& p = cb.scopes[partner[s.parent]];
                key = p.key + " > node " + p.nodes[holder].key() + " " + s.suffix;
            }
        }
        scopes_a[key] = &s;
        const auto m = scopes_b.find(key);
        if (m != scopes_b.end()) {
            const scope_record& t = cb.scopes[m->second];
            partner[i] = m->second;
            pairing[i] = match_nodes(s, t, mode);
            if (mode == node_matching::automatic) pair_values(s, t, pairing[i], names);
            diff_scope(s, t, pairing[i], names, out, removed, added);
        } else if (!held_by(s.key, removed)) {
            scope_change(s, change_kind::removed, out);
            removed.push_back(s.key + " > ");
        }
    }
    for (const scope_record& s : cb.scopes)
        if (scopes_a.find(s.key) == scopes_a.end() && !held_by(s.key, added)) {
            scope_change(s, change_kind::added, out);
            added.push_back(s.key + " > ");
        }
    return error();
}

}  // namespace diff_detail

error scope_node_lines(model_file& m, std::vector<std::string>& out) {
    using namespace diff_detail;
    std::vector<scope_record> scopes;
    const attribute_printer printer{m.external(), digest_options{}};
    if (error e = collect_scopes(m, printer, scopes)) return e;
    for (const scope_record& s : scopes) {
        out.push_back(s.key + ": " + std::to_string(s.nodes.size()) + " nodes");
        for (const node_record& n : s.nodes) out.push_back(s.key + ": " + node_line(n, printer));
    }
    return error();
}

}  // namespace onnxview
