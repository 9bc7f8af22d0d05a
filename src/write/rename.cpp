// edit_options::renames applied during the walk (rename.hpp).
#include "rename.hpp"

#include "onnxview/model.hpp"

namespace onnxview {

const char* rename_problem_message(rename_problem p) noexcept {
    switch (p) {
    case rename_problem::none: return "can be made";
    case rename_problem::empty_old_name: return "renames the empty name, which marks an absent optional input";
    case rename_problem::empty_new_name: return "gives an empty name";
    case rename_problem::old_name_repeated: return "renames a name that another change renames too";
    case rename_problem::new_name_repeated: return "gives a name that another change gives too";
    case rename_problem::chained:
        return "gives a name that another change renames (changes apply at once: chains and swaps are refused)";
    case rename_problem::not_in_main_graph: return "renames a name that is not a value name of the main graph";
    case rename_problem::new_name_in_use:
        return "gives a name already used in the main graph, or in a subgraph or training graph the change "
               "reaches (its references would be captured)";
    }
    return "unknown rename problem";
}

namespace detail {

namespace {

constexpr std::uint64_t not_seen = ~std::uint64_t(0);

}  // namespace

renamer::renamer(const edit_options& e, const heap& memory) noexcept
    : changes_(e.renames),
      count_(e.renames == nullptr ? 0 : e.rename_count),
      frames_(heap_allocator<frame>(memory)),
      flags_(count_, 1, heap_allocator<std::uint8_t>(memory)),
      used_in_main_(count_, 0, heap_allocator<std::uint8_t>(memory)),
      conflict_at_(count_, not_seen, heap_allocator<std::uint64_t>(memory)) {}

rename_check renamer::check_list() const noexcept {
    rename_check c;
    for (std::size_t i = 0; i < count_ && c.problem == rename_problem::none; ++i) {
        c.change = i;
        if (changes_[i].old_name.empty()) c.problem = rename_problem::empty_old_name;
        else if (changes_[i].new_name.empty()) c.problem = rename_problem::empty_new_name;
        for (std::size_t j = 0; j < count_ && c.problem == rename_problem::none; ++j) {
            c.other = j;
            if (j < i && changes_[j].old_name == changes_[i].old_name) c.problem = rename_problem::old_name_repeated;
            else if (j < i && changes_[j].new_name == changes_[i].new_name) c.problem = rename_problem::new_name_repeated;
            else if (j != i && changes_[j].old_name == changes_[i].new_name) c.problem = rename_problem::chained;
        }
    }
    if (c.problem == rename_problem::none) c = rename_check{};
    return c;
}

rename_check renamer::verdict() const noexcept {
    rename_check c = check_list();
    for (std::size_t i = 0; i < count_ && c.problem == rename_problem::none; ++i) {
        c.change = i;
        if (!used_in_main_[i]) {
            c.problem = rename_problem::not_in_main_graph;
        } else if (conflict_at_[i] != not_seen) {
            c.problem = rename_problem::new_name_in_use;
            c.offset = conflict_at_[i];
        }
    }
    if (c.problem == rename_problem::none) c = rename_check{};
    return c;
}

renamer::frame renamer::current() const noexcept {
    if (!frames_.empty()) return frames_.back();
    frame root;
    root.what = role::model;
    return root;
}

void renamer::shadow(std::size_t flags, std::string_view declared) noexcept {
    for (std::size_t i = 0; i < count_; ++i)
        if (changes_[i].old_name == declared) flags_[flags + i] = 0;
}

error renamer::push_scope(frame f, const wire::message& parent, std::uint32_t number, const wire::field* only,
                          std::size_t outer) noexcept {
    f.owns_flags = true;
    f.flags = flags_.size();
    for (std::size_t i = 0; i < count_; ++i) flags_.push_back(flags_[outer + i]);
    frames_.push_back(f);
    // A graph's declarations (SSA): its inputs, initializers, sparse
    // initializers and node outputs, wherever they sit in it.
    auto declare = [&](const wire::field& occurrence) -> error {
        const result<wire::message> m = parent.child(occurrence);
        if (!m) return m.err();
        const graph_view graph{m};
        for (const value_info_view& v : graph.input()) shadow(f.flags, v.name());
        for (const tensor_view& t : graph.initializer()) shadow(f.flags, t.name());
        for (const sparse_tensor_view& s : graph.sparse_initializer()) shadow(f.flags, s.values().name());
        for (const node_view& n : graph.node())
            for (std::string_view out : n.output()) shadow(f.flags, out);
        return error();
    };
    if (only != nullptr) return declare(*only);
    wire::reader r(parent.base(), parent.begin(), parent.end(), parent.depth(), parent.max_depth());
    wire::field occurrence;
    while (!r.at_end()) {
        if (error e = r.next(occurrence)) return e;
        if (occurrence.number == number && occurrence.type == wire::wire_type::length_delimited)
            if (error e = declare(occurrence)) return e;
    }
    return error();
}

error renamer::enter(const wire::message& parent, const wire::field& f) noexcept {
    const frame at = current();
    frame next;
    next.flags = at.flags;
    next.main = at.main;
    const std::uint32_t n = f.number;
    switch (at.what) {
    case role::model:
        next.flags = 0;
        if (n == model_view::field::graph) {
            next.what = role::graph;  // every change is in effect in the main graph
            next.main = true;
        } else if (n == model_view::field::training_info) {
            next.what = role::training;
        }
        break;
    case role::graph:
        if (n == graph_view::field::input || n == graph_view::field::output || n == graph_view::field::value_info)
            next.what = role::value_info;
        else if (n == graph_view::field::initializer) next.what = role::initializer;
        else if (n == graph_view::field::sparse_initializer) next.what = role::sparse_initializer;
        else if (n == graph_view::field::node) next.what = role::node;
        else if (n == graph_view::field::quantization_annotation) next.what = role::annotation;
        break;
    case role::node:
        if (n == node_view::field::attribute) next.what = role::attribute;
        break;
    case role::attribute:
        if (n == attribute_view::field::g || n == attribute_view::field::graphs) {
            next.what = role::graph;
            next.main = false;
            return push_scope(next, parent, n, n == attribute_view::field::graphs ? &f : nullptr, at.flags);
        }
        break;
    case role::sparse_initializer:
        if (n == sparse_tensor_view::field::values) next.what = role::initializer;
        break;
    case role::annotation:
        if (n == tensor_annotation_view::field::quant_parameter_tensor_names) next.what = role::annotation_entry;
        break;
    case role::training:
        if (n == training_info_view::field::initialization || n == training_info_view::field::algorithm) {
            next.what = role::graph;
            return push_scope(next, parent, n, nullptr, 0);
        }
        // A binding's value names a value of the graph it binds:
        // initialization's for initialization_binding, algorithm's for
        // update_binding.
        if (n == training_info_view::field::initialization_binding) {
            next.what = role::binding;
            return push_scope(next, parent, training_info_view::field::initialization, nullptr, 0);
        }
        if (n == training_info_view::field::update_binding) {
            next.what = role::binding;
            return push_scope(next, parent, training_info_view::field::algorithm, nullptr, 0);
        }
        break;
    default:
        break;
    }
    frames_.push_back(next);
    return error();
}

void renamer::leave() noexcept {
    if (frames_.back().owns_flags) flags_.resize(frames_.back().flags);
    frames_.pop_back();
}

bool renamer::may_rename() const noexcept {
    const role r = current().what;
    return count_ != 0 && (r == role::value_info || r == role::node || r == role::initializer ||
                           r == role::annotation || r == role::annotation_entry || r == role::binding);
}

const std::string_view* renamer::replacement(const wire::message& m, const wire::field& f) noexcept {
    if (count_ == 0 || f.type != wire::wire_type::length_delimited) return nullptr;
    const frame at = current();
    std::size_t flags = at.flags;
    const std::uint32_t n = f.number;
    bool name = false;
    switch (at.what) {
    case role::value_info: name = n == value_info_view::field::name; break;
    case role::node: name = n == node_view::field::input || n == node_view::field::output; break;
    case role::initializer: name = n == tensor_view::field::name; break;
    case role::annotation: name = n == tensor_annotation_view::field::tensor_name; break;
    case role::annotation_entry: name = n == string_entry_view::field::value; break;
    case role::binding:
        // The key names an initializer of the main graph.
        name = n == string_entry_view::field::key || n == string_entry_view::field::value;
        if (n == string_entry_view::field::key) flags = 0;
        break;
    default: break;
    }
    if (!name) return nullptr;
    const std::string_view s = f.bytes();
    const std::string_view* found = nullptr;
    for (std::size_t i = 0; i < count_; ++i) {
        if (!flags_[flags + i]) continue;
        if (s == changes_[i].old_name) {
            if (found == nullptr) found = &changes_[i].new_name;
            if (at.main) used_in_main_[i] = 1;
        }
        if (s == changes_[i].new_name && conflict_at_[i] == not_seen) conflict_at_[i] = m.offset_of(f.tag);
    }
    return found;
}

void emit_renamed(emitter& out, const wire::field& f, std::string_view content) noexcept {
    const char* tag_end = f.tag;
    std::uint32_t number;
    wire::wire_type type;
    (void)wire::decode_tag(tag_end, f.payload, number, type);  // the reader decoded it already
    out.bytes(f.tag, static_cast<std::uint64_t>(tag_end - f.tag));
    out.varint(content.size());
    out.bytes(content.data(), content.size());
}

}  // namespace detail
}  // namespace onnxview
