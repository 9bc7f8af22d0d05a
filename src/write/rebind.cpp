// plan_rebinds (onnxview/rebind.hpp): the tensors a tool left without a
// payload, matched to the original's by name, then through the caller's
// value matching.
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "onnxview/rebind.hpp"
#include "onnxview/tensor_storage.hpp"
#include "onnxview/traverse.hpp"
#include "tensor_walk.hpp"

namespace onnxview {
namespace {

// Whether onnx.load resolves the external data of a scope's tensors: the
// main graph and the subgraphs under it.
bool loaded(const model_scope& s) noexcept {
    const model_scope* root = &s;
    while (root->parent != nullptr) root = root->parent;
    return root->kind == scope_kind::main_graph;
}

// How many nodes holding subgraphs each open scope has shown the walk so
// far: the last one holds the subgraph being walked.
using holder_counts = std::unordered_map<const model_scope*, std::uint32_t>;

// Where a scope sits, as a tool that renames values or inserts nodes leaves
// it: for each level, which of its parent's nodes holding subgraphs holds
// it (the k-th) and in which attribute.
void append_scope_key(const model_scope& s, const holder_counts& holders, std::string& out) {
    if (s.parent == nullptr) return;
    append_scope_key(*s.parent, holders, out);
    const auto seen = holders.find(s.parent);
    out += '/';
    out += std::to_string(seen == holders.end() ? 0 : seen->second);
    out += '.';
    out += s.holder.attribute.name();
    if (s.in_graphs) out += '#' + std::to_string(s.index);
}

bool holds_graphs(const node_view& n) noexcept {
    for (const attribute_view& a : n.attribute())
        if (a.has_g() || !a.graphs().empty()) return true;
    return false;
}

// One dense tensor of a loaded scope.
struct tensor_record {
    std::string_view name;
    std::int32_t data_type = 0;
    std::vector<std::int64_t> dims;
    std::string scope;
    // A node's tensor attribute: the node's first output and which
    // attribute entry ("value", "tensors#2"); empty for initializers.
    std::string_view maker;
    std::string slot;
    std::uint64_t at = 0;  // where its message's content starts
    bool no_payload = false;
    bool referable = false;  // the original's payload can be referenced: location, offset, length
    std::string_view location;
    std::uint64_t offset = 0, length = 0;
};

// How a tensor is called in messages: its name, or where it is.
std::string label(const tensor_record& t) {
    if (!t.name.empty() || t.maker.empty()) return std::string(t.name);
    return "(attribute " + t.slot + " of the node making " + std::string(t.maker) + ")";
}

std::string maker_key(std::string_view maker, const std::string& slot) {
    std::string k(maker);
    k += '\n';
    return k + slot;
}

std::string describe(std::int32_t data_type, const std::vector<std::int64_t>& dims) {
    const data_type_info* info = find_data_type_info(data_type);
    std::string s = info != nullptr ? info->name : "data type " + std::to_string(data_type);
    s += " [";
    for (std::size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
    return s + "]";
}

// The dense tensors of a model's loaded scopes; in `identity` (when not
// null) each Identity node's output and input.
struct collector : tensor_scope_visitor<collector> {
    std::string_view original_location;  // set for the original: where raw payloads lie
    std::vector<tensor_record> tensors;
    std::unordered_map<std::string_view, std::string_view>* identity = nullptr;
    holder_counts holders;

    collector() : tensor_scope_visitor<collector>(*this) {}

    void operator()(const stored_tensor& st) {
        if (st.sparse_part || !loaded(*st.scope)) return;
        tensor_record r;
        const tensor_view& t = st.tensor;
        const wire::message& m = t.wire_message();
        r.name = t.name();
        r.data_type = t.data_type();
        for (std::int64_t d : t.dims()) r.dims.push_back(d);
        append_scope_key(*st.scope, holders, r.scope);
        if (st.origin != tensor_origin::initializer) {
            const auto outputs = st.holder.node.output();
            r.maker = outputs.empty() ? std::string_view() : *outputs.begin();
            r.slot = std::string(st.holder.attribute.name());
            if (st.field == tensor_field::tensors) r.slot += '#' + std::to_string(st.index);
        }
        r.at = m.offset_of(m.begin());
        const result<std::uint64_t> elements = element_count(t);
        r.no_payload = tensor_walk::has_no_payload(m) && elements && *elements != 0 &&
                       r.data_type != static_cast<std::int32_t>(data_type::string);
        const result<storage_info> si = describe_storage(t);
        if (si && si->kind == storage_kind::external) {
            r.referable = !si->location.empty();
            r.location = si->location;
            r.offset = si->offset;
            r.length = si->byte_size;
        } else if (si && tensor_walk::raw_layout_offset(m, *si, r.offset)) {
            r.referable = true;
            r.location = original_location;
            r.length = si->byte_size;
        }
        tensors.push_back(std::move(r));
    }

    bool enter(const model_scope& s) {
        holders[&s] = 0;  // a scope of a walk before may have had its address
        return tensor_scope_visitor<collector>::enter(s);
    }

    void node(const model_scope& s, const node_view& n, std::uint32_t index) {
        if (holds_graphs(n)) ++holders[&s];
        tensor_scope_visitor<collector>::node(s, n, index);
        if (identity == nullptr || !loaded(s) || !is_standard_operator(n, "Identity") || n.input().empty() ||
            n.output().empty())
            return;
        identity->emplace(*n.output().begin(), *n.input().begin());
    }
};

bool same_payload(const tensor_record& a, const tensor_record& b) noexcept {
    return a.referable == b.referable && a.location == b.location && a.offset == b.offset && a.length == b.length &&
           a.data_type == b.data_type && a.dims == b.dims;
}

// Keeps those of `list` that `same` holds for, when some do.
template <class Same>
void prefer(std::vector<const tensor_record*>& list, Same same) {
    std::vector<const tensor_record*> kept;
    for (const tensor_record* c : list)
        if (same(*c)) kept.push_back(c);
    if (!kept.empty()) list = std::move(kept);
}

// Of `candidates` (original tensors), those holding distinct payloads; when
// several, those standing where t stands: the same node attribute (two
// Constants' tensors may share a name; `maker` is t's node output as the
// original calls it), then the same subgraph.
std::vector<const tensor_record*> distinct(const std::vector<const tensor_record*>& candidates,
                                           const tensor_record& t, std::string_view maker) {
    std::vector<const tensor_record*> out;
    for (const tensor_record* c : candidates) {
        bool seen = false;
        for (const tensor_record* o : out) seen = seen || same_payload(*o, *c);
        if (!seen) out.push_back(c);
    }
    if (out.size() > 1) prefer(out, [&](const tensor_record& c) { return c.maker == maker && c.slot == t.slot; });
    if (out.size() > 1) prefer(out, [&](const tensor_record& c) { return c.scope == t.scope; });
    return out;
}

}  // namespace

const char* rebind_refusal_name(rebind_refusal r) noexcept {
    switch (r) {
        case rebind_refusal::no_match: return "no_match";
        case rebind_refusal::type_differs: return "type_differs";
        case rebind_refusal::shape_differs: return "shape_differs";
        case rebind_refusal::ambiguous: return "ambiguous";
        case rebind_refusal::not_referable: return "not_referable";
    }
    return "?";
}

error plan_rebinds(const model_view& proxy, const model_view& original, std::string_view original_location,
                   const value_rename* renames, std::size_t rename_count, rebind_plan& out) {
    out = rebind_plan();
    std::unordered_map<std::string_view, std::string_view> identity;
    collector here;
    here.identity = &identity;
    if (error e = walk_scopes(proxy, here)) return e;
    bool any_missing = false;
    for (const tensor_record& t : here.tensors) any_missing = any_missing || t.no_payload;
    if (!any_missing) return error();

    collector there;
    there.original_location = original_location;
    if (error e = walk_scopes(original, there)) return e;
    std::unordered_map<std::string_view, std::vector<const tensor_record*>> by_name;
    std::unordered_map<std::string, std::vector<const tensor_record*>> by_maker;
    for (const tensor_record& t : there.tensors) {
        if (!t.name.empty()) by_name[t.name].push_back(&t);
        if (!t.maker.empty()) by_maker[maker_key(t.maker, t.slot)].push_back(&t);
    }
    std::unordered_map<std::string_view, std::string_view> original_of;  // a renamed value's original name
    for (std::size_t i = 0; i < rename_count; ++i) original_of.emplace(renames[i].renamed, renames[i].original);
    // Each value of the tool's output that the matching pairs with an
    // original tensor, found from the value's end of an Identity chain.
    std::unordered_map<std::string_view, std::vector<const tensor_record*>> by_structure;
    for (std::size_t i = 0; i < rename_count; ++i) {
        const auto named = by_name.find(renames[i].original);
        if (named == by_name.end()) continue;
        std::string_view v = renames[i].renamed;
        for (int step = 0; step < 64; ++step) {  // bounded: a malformed model may loop
            auto& list = by_structure[v];
            list.insert(list.end(), named->second.begin(), named->second.end());
            const auto up = identity.find(v);
            if (up == identity.end()) break;
            v = up->second;
        }
    }

    for (const tensor_record& t : here.tensors) {
        if (!t.no_payload) continue;
        rebind_entry bound{label(t), std::string(), rebind_match::name};
        std::vector<const tensor_record*> found;
        const auto named = t.name.empty() ? by_name.end() : by_name.find(t.name);
        // A node's attribute: that of the node making the same value (as
        // named, else as the matching renamed it).
        auto made = t.maker.empty() ? by_maker.end() : by_maker.find(maker_key(t.maker, t.slot));
        std::string_view maker = t.maker;
        if (made == by_maker.end() && !t.maker.empty()) {
            const auto before = original_of.find(t.maker);
            if (before != original_of.end()) {
                maker = before->second;
                made = by_maker.find(maker_key(maker, t.slot));
                if (named == by_name.end()) bound.match = rebind_match::structure;
            }
        }
        if (named != by_name.end()) {
            found = distinct(named->second, t, maker);
        } else if (made != by_maker.end()) {
            found = distinct(made->second, t, maker);
        } else {
            bound.match = rebind_match::structure;
            const auto paired = t.name.empty() ? by_structure.end() : by_structure.find(t.name);
            if (paired != by_structure.end()) {
                // Through the graph only candidates of the tensor's type and
                // dims are the same input of the same consumer.
                std::vector<const tensor_record*> fitting;
                for (const tensor_record* c : paired->second)
                    if (c->data_type == t.data_type && c->dims == t.dims) fitting.push_back(c);
                found = distinct(fitting.empty() ? paired->second : fitting, t, maker);
            }
        }
        const std::string here_type = describe(t.data_type, t.dims);
        if (found.empty()) {
            out.refused.push_back({bound.name, rebind_refusal::no_match, here_type});
            continue;
        }
        const tensor_record& o = *found[0];
        const std::string there_text = describe(o.data_type, o.dims) + " in the original's '" + label(o) + "'";
        if (found.size() > 1) {
            out.refused.push_back({bound.name, rebind_refusal::ambiguous,
                                   "'" + label(o) + "' and '" + label(*found[1]) + "'"});
        } else if (o.data_type != t.data_type) {
            out.refused.push_back({bound.name, rebind_refusal::type_differs, here_type + " here, " + there_text});
        } else if (o.dims != t.dims) {
            out.refused.push_back({bound.name, rebind_refusal::shape_differs, here_type + " here, " + there_text});
        } else if (!o.referable) {
            out.refused.push_back({bound.name, rebind_refusal::not_referable, there_text});
        } else {
            bound.original_name = label(o);
            out.bound.push_back(std::move(bound));
            out.rebinds.push_back({t.at, o.location, o.offset, o.length});
        }
    }
    std::sort(out.rebinds.begin(), out.rebinds.end(),
              [](const tensor_rebind& a, const tensor_rebind& b) { return a.tensor < b.tensor; });
    return error();
}

}  // namespace onnxview
